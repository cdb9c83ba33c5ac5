/* check08 — the grader's unit checks of lesson 08 (linked with the submission's sharding code).
 *
 *   check08 layout                 fsdp_shard_layout: c = ceil(n/N), offsets, for the (n, N) of
 *                                  lessons/pytorch-semantics.md#fsdp-and-zero-sharding
 *   mpirun -np N check08 collect   fsdp_gather reproduces every unit bit for bit with zero padding at
 *                                  the end; fsdp_reduce_grads leaves Σ/N in the shard (exact inputs),
 *                                  padding 0; fsdp_clip uses the global norm, padding excluded
 *   mpirun -np N check08 zero      zero_step (ZeRO stages 1 and 2) with SGD at lr 1: every rank ends
 *                                  with every unit's parameters minus the rank-averaged gradient
 *                                  (clipped with the global norm when asked), padding 0
 *   mpirun -np N check08 memory    over several steps the functions leave nothing allocated (the ops
 *                                  allocator's real counts and the heap) and allocate no more at once than
 *                                  the reference plus one chunk */
#include "checklib.h"
#include "fsdp.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model_t with just the unit sizes (what fsdp_shard_layout reads). */
static void fake_model(model_t *m, const size_t *numel, int n) {
    memset(m, 0, sizeof *m);
    m->nunits = n;
    m->unit_numel = dp_calloc((size_t)n, sizeof(size_t));
    for (int u = 0; u < n; u++) m->unit_numel[u] = numel[u];
}

/* The layout for 4 units of the given sizes on N ranks, against c = ceil(n/N) computed with integers.
 * Returns 1 (having said why) when it is wrong. */
static int layout_case(const size_t numel[4], int N) {
    model_t m;
    fake_model(&m, numel, 4);
    fsdp_t f;
    memset(&f, 0, sizeof f);
    f.world_size = N;
    fsdp_shard_layout(&f, &m);
    /* The layout as the submission made it: the unit count, then the first min(nunits, 4) units (all the
     * check reads; the rest of units stays zero), then shard_numel. */
    int own = f.nunits; /* what this process's own code set: how many units f.units holds here */
    f.nunits = (int)ck_tape_ll("fsdp_shard_layout nunits", f.nunits);
    fsdp_unit_t units[4];
    memset(units, 0, sizeof units);
    int k = f.nunits < 0 ? 0 : f.nunits > 4 ? 4 : f.nunits;
    if (f.units) memcpy(units, f.units, (size_t)(k < own ? k : own) * sizeof(fsdp_unit_t));
    ck_tape("fsdp_shard_layout units", units, (size_t)k * sizeof(fsdp_unit_t));
    ck_tape("fsdp_shard_layout shard_numel", &f.shard_numel, sizeof f.shard_numel);
    int bad = 0;
    if (f.nunits != 4) {
        printf("FAIL: N=%d: fsdp_shard_layout set nunits = %d; the model has 4 units (m->nunits)\n", N, f.nunits);
        bad = 1;
    }
    size_t off = 0;
    for (int u = 0; u < 4 && !bad; u++) {
        size_t n = numel[u], c = n / (size_t)N + (n % (size_t)N != 0);
        if (units[u].numel != n || units[u].chunk != c || units[u].shard_offset != off) {
            printf("FAIL: n=%zu, N=%d: unit %d got numel %zu, chunk %zu, shard_offset %zu; expected %zu, %zu (= "
                   "ceil(n/N)), %zu",
                   n, N, u, units[u].numel, units[u].chunk, units[u].shard_offset, n, c, off);
            /* what the usual large-size mistakes give */
            double cd = ceil((double)n / (double)N);
            float cf = ceilf((float)n / (float)N);
            if (units[u].chunk != c && ((double)units[u].chunk == cd || (double)units[u].chunk == (double)cf))
                printf(" — that is ceil computed in floating point (a float holds every integer only up to 2^24, a "
                       "double up to 2^53): use integers, (n + N − 1) / N");
            else if ((units[u].numel != n && units[u].numel == (size_t)(uint32_t)n) ||
                     (units[u].chunk != c &&
                      (units[u].chunk == (size_t)(uint32_t)c || units[u].chunk == (size_t)(int32_t)(uint32_t)c ||
                       units[u].chunk == ((size_t)(uint32_t)n + (size_t)N - 1) / (size_t)N)) ||
                     (units[u].shard_offset != off && units[u].shard_offset == (size_t)(uint32_t)off))
                printf(
                    " — a count or offset wrapped around at 2^31 or 2^32: sizes and offsets are size_t, and an int or "
                    "unsigned anywhere in their arithmetic truncates them");
            printf("\n");
            bad = 1;
        }
        off += c;
    }
    if (!bad && f.shard_numel != off) {
        printf("FAIL: N=%d: shard_numel %zu, expected the sum of the chunks %zu%s\n", N, f.shard_numel, off,
               f.shard_numel == (size_t)(uint32_t)off ? " — it wrapped around at 2^32: keep it in size_t" : "");
        bad = 1;
    }
    free(f.units);
    free(m.unit_numel);
    return bad;
}

/* Small units (every N from 1 to 5), then units past 2^31, 2^32 and 2^53 + 1 (and 2^24 + 1, where a
 * float ceil goes wrong): the layout is arithmetic only, so a parameter count no machine here could hold
 * costs nothing, and an offset or a chunk kept in an int or unsigned, or a ceil in floating point, shows. */
static int layout_check(void) {
    const size_t small[4] = {10, 5, 8, 1};
    const size_t large[4] = {((size_t)1 << 32) + 5, ((size_t)1 << 33) + 1, ((size_t)1 << 24) + 1,
                             ((size_t)1 << 53) + 1};
    const int large_N[] = {1, 2, 3, 7, 1000};
    int bad = 0;
    for (int N = 1; N <= 5 && !bad; N++) bad = layout_case(small, N);
    for (size_t i = 0; i < sizeof large_N / sizeof large_N[0] && !bad; i++) bad = layout_case(large, large_N[i]);
    if (!bad)
        printf(
            "layout: c = ceil(n/N) for n in {10, 5, 8, 1} and N = 1..5, and exact for units past 2^32 and at 2^24 + 1 "
            "and 2^53 + 1 (N up to 1000), shards packed in unit order\n");
    return bad;
}

static float value(int u, size_t i) { return (float)((int)((u * 31 + i * 7) % 32) - 16) / 64.0f; }
/* What the gradient shard holds before fsdp_reduce_grads: the gradients accumulate into it (across the
 * micro-steps of gradient accumulation, say), so what is there must survive. Exact in float. */
static float prefill(int u, size_t j) { return 1.0f + 0.125f * (float)((u + (int)j) % 8); }

/* A fsdp_t over the check's own layout (ceil(n/N), packed; the layout check judges the submission's),
 * so that run and judge drive the same collectives over the same sizes whatever fsdp_shard_layout does;
 * this rank's shard of parameters holds value(u, i) (0 in the padding). */
static void fixture_init(fsdp_t *f, trainer_t *t, comm_t *c, const size_t *numel, int nunits) {
    memset(t, 0, sizeof *t);
    t->ops = ops_create(OPS_CPU, 1);
    memset(f, 0, sizeof *f);
    f->t = t;
    f->world_size = comm_world_size(c);
    f->rank = comm_rank(c);
    f->nunits = nunits;
    f->units = dp_calloc((size_t)nunits, sizeof(fsdp_unit_t));
    for (int u = 0; u < nunits; u++) {
        f->units[u].numel = numel[u];
        f->units[u].chunk = (numel[u] + (size_t)f->world_size - 1) / (size_t)f->world_size;
        f->units[u].shard_offset = f->shard_numel;
        f->shard_numel += f->units[u].chunk;
    }
    coll_init(&f->coll, c, t->ops);
    coll_init(&f->host_coll, c, t->ops);
    f->shard_params = ops_alloc(t->ops, f->shard_numel + 1);
    f->shard_grads = ops_alloc(t->ops, f->shard_numel + 1);
    for (int u = 0; u < nunits; u++)
        for (size_t j = 0; j < f->units[u].chunk; j++) {
            size_t i = (size_t)f->rank * f->units[u].chunk + j;
            f->shard_params[f->units[u].shard_offset + j] = i < numel[u] ? value(u, i) : 0.0f;
        }
}

static void fixture_free(fsdp_t *f, trainer_t *t) {
    coll_free(&f->coll);
    coll_free(&f->host_coll);
    ops_free(t->ops, f->shard_params);
    ops_free(t->ops, f->shard_grads);
    free(f->units);
    ops_destroy(t->ops);
}

/* Real elements of unit u on this rank: max(0, min(c, n − r·c)). */
static size_t real_count(const fsdp_t *f, int u) {
    const fsdp_unit_t *x = &f->units[u];
    size_t start = (size_t)f->rank * x->chunk;
    return start >= x->numel ? 0 : (x->numel - start < x->chunk ? x->numel - start : x->chunk);
}

/* The unit other than u whose padded all-gather brings exactly got_bytes into a rank (a gather that
 * ignores its unit and takes another's sizes), or -1. */
static int other_unit(const fsdp_t *f, int u, long long got_bytes) {
    size_t N = (size_t)f->world_size;
    for (int v = 0; v < f->nunits; v++)
        if (v != u && f->units[v].chunk != f->units[u].chunk &&
            got_bytes == (long long)((N - 1) * f->units[v].chunk * sizeof(float)))
            return v;
    return -1;
}

/* Why a gathered unit is wrong, from what the rank's own buffer and the ring's traffic show: the bytes
 * it received (an all-gather of the padded unit brings (N − 1)·c floats), whether chunk r holds this
 * rank's own shard, which elements were never written. Every rank's verdict is printed. */
static void explain_gather(const fsdp_t *f, int u, const float *full, long long got_bytes) {
    const fsdp_unit_t *x = &f->units[u];
    size_t N = (size_t)f->world_size, r = (size_t)f->rank, c = x->chunk, n = N * c;
    long long want_bytes = (long long)((N - 1) * c * sizeof(float));
    size_t own_nan = 0, own_wrong = 0, nan = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        float want = i < x->numel ? value(u, i) : 0.0f;
        int wrong = memcmp(&full[i], &want, 4) != 0;
        if (wrong && first == n) first = i;
        if (isnan(full[i])) nan++;
        if (i >= r * c && i < (r + 1) * c) own_nan += isnan(full[i]) != 0, own_wrong += wrong;
    }
    float want = first < x->numel ? value(u, first) : 0.0f;
    printf("FAIL: fsdp_gather, N=%zu, unit %d (n=%zu, c=%zu): rank %zu element %zu is %g, expected %g", N, u, x->numel,
           c, r, first, (double)full[first], (double)want);
    if (got_bytes == 0 && !nan)
        printf(" — nothing came in from the other ranks: fsdp_gather must all-gather the unit (lesson 04's all_gather "
               "on N·c = %zu floats)\n",
               n);
    else if (got_bytes == 0)
        printf(" — %zu elements were never written and nothing came in from the other ranks: put this rank's shard at "
               "chunk r, then all-gather N·c = %zu floats (lesson 04's all_gather)\n",
               nan, n);
    else if (got_bytes != want_bytes && other_unit(f, u, got_bytes) >= 0)
        printf(
            " — the all-gather brought %lld bytes into this rank, (N − 1)·c of unit %d (c = %zu), not of unit %d (c = "
            "%zu): fsdp_gather must take unit u's entry, f->units[u] — its chunk and shard_offset\n",
            got_bytes, other_unit(f, u, got_bytes), f->units[other_unit(f, u, got_bytes)].chunk, u, c);
    else if (got_bytes != want_bytes)
        printf(" — the all-gather brought %lld bytes into this rank; an all-gather of the padded unit brings (N − 1)·c "
               "floats = %lld bytes: its count must be N·c = %zu (every rank's chunk c long, padding included), not n "
               "or c\n",
               got_bytes, want_bytes, n);
    else if (own_nan == c)
        printf(" — chunk r (elements %zu..%zu) was never written, so this rank's shard was not there before the "
               "all-gather: chunk r must hold this rank's shard (copy it to full + r·c first)\n",
               r * c, (r + 1) * c - 1);
    else if (own_wrong)
        printf(" — chunk r (elements %zu..%zu) holds the wrong values: chunk r must hold this rank's shard "
               "(shard_params + shard_offset, c floats, copied to full + r·c)\n",
               r * c, (r + 1) * c - 1);
    else if (nan)
        printf(" — %zu elements were never written although the ring's traffic is right: chunk q must hold rank q's "
               "shard (offset q·c)\n",
               nan);
    else
        printf("\n");
}

static int collect_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    int N = comm_world_size(c), r = comm_rank(c), bad = 0;
    const size_t numel[4] = {10, 5, 8, 1};
    trainer_t t;
    fsdp_t f;
    fixture_init(&f, &t, c, numel, 4);
    /* any: some rank failed. Every rank stops at the same point (after a bookkeeping all-reduce), so that
     * no rank enters a collective that the others skip. */
    int any = 0;
    /* The gather runs on the coll it is given, as the prefetch thread's (its own context: its own GPU
     * stream). Each context counts the elements ops_copy copied on it: a copy issued on the trainer's
     * context (the compute stream) gives the same bits on the CPU and races the gather on a GPU. */
    ops_t *prefetch_ops = ops_create(OPS_CPU, 1);
    coll_t prefetch;
    coll_init(&prefetch, c, prefetch_ops);
    uint64_t copied_given = 0, copied_trainer = 0;
    prefetch_ops->copied = &copied_given;
    t.ops->copied = &copied_trainer;
    for (int u = 0; u < 4 && !any; u++) {
        size_t n = (size_t)N * f.units[u].chunk, chunk = f.units[u].chunk;
        float *full = ops_alloc(t.ops, n);
        for (size_t i = 0; i < n; i++) full[i] = NAN;
        comm_counters_t before = comm_counters(c);
        copied_given = copied_trainer = 0;
        fsdp_gather(&f, &prefetch, u, full);
        long long received = (long long)comm_counters_diff(comm_counters(c), before).bytes_recv;
        ck_tape("fsdp_gather full unit", full, n * sizeof(float));
        received = ck_tape_ll("fsdp_gather bytes received", received);
        long long on_trainer =
            ck_tape_ll("fsdp_gather elements copied on the trainer's context", (long long)copied_trainer);
        for (size_t i = 0; i < n && !bad; i++) {
            float want = i < numel[u] ? value(u, i) : 0.0f;
            if (memcmp(&full[i], &want, 4)) {
                explain_gather(&f, u, full, received);
                bad = 1;
            }
        }
        if (!bad && on_trainer > 0) {
            printf("FAIL: fsdp_gather, N=%d, unit %d: rank %d copied %lld floats with ops_copy on the trainer's "
                   "context (f->t->ops, or f->coll's: the compute stream), not on the coll it was given — use "
                   "coll->ops: the prefetch thread's coll has its own GPU stream, and only a copy issued there is "
                   "ordered before its all-gather (the same bits on the CPU, a race on a GPU)\n",
                   N, u, r, on_trainer);
            bad = 1;
        }
        /* gradients: rank q contributes (q + 1)·g(i); the average is (N+1)/2·g(i), added to what the shard held */
        for (size_t i = 0; i < n; i++) full[i] = i < numel[u] ? (float)(r + 1) * value(u, i) : 0.0f;
        for (size_t j = 0; j < f.shard_numel + 1; j++) f.shard_grads[j] = 0.0f;
        for (size_t j = 0; j < chunk; j++) f.shard_grads[f.units[u].shard_offset + j] = prefill(u, j);
        fsdp_reduce_grads(&f, u, full);
        ck_tape("fsdp_reduce_grads shard of the unit", f.shard_grads + f.units[u].shard_offset, chunk * sizeof(float));
        for (size_t j = 0; j < chunk && !bad; j++) {
            size_t i = (size_t)r * chunk + j;
            double avg = i < numel[u] ? (double)value(u, i) * (N + 1) / 2.0 : 0.0, pre = prefill(u, j),
                   want = pre + avg;
            double got = f.shard_grads[f.units[u].shard_offset + j], tol = 1e-6 * (fabs(want) + fabs(avg)) + 1e-12;
            if (fabs(got - want) > tol) {
                printf("FAIL: fsdp_reduce_grads, N=%d, unit %d: rank %d's shard element %zu (element %zu of the unit) "
                       "held %.7g before; it is %.7g, expected that plus the average over ranks %.7g = %.7g",
                       N, u, r, j, i, pre, got, avg, want);
                if (fabs(got - avg) <= tol && avg != 0)
                    printf(" — the shard was OVERWRITTEN: add the averaged chunk into it (the gradients accumulate "
                           "there), do not copy it");
                else if (fabs(got - (pre + avg * N)) <= tol * N && avg != 0)
                    printf(" — it is the SUM: divide by N");
                else if (fabs(got - avg * N) <= tol * N && avg != 0)
                    printf(" — the shard was OVERWRITTEN with the SUM: divide by N, and add into the shard");
                printf("\n");
                bad = 1;
            }
        }
        ops_free(t.ops, full);
        comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    }
    t.ops->copied = NULL;
    coll_free(&prefetch);
    ops_destroy(prefetch_ops);
    /* clip: every real gradient element 1.0 → norm = sqrt(Σ n_u); padding must not count */
    if (!any) {
        size_t mine = 0;
        for (int u = 0; u < 4; u++) {
            mine += real_count(&f, u);
            for (size_t j = 0; j < f.units[u].chunk; j++)
                f.shard_grads[f.units[u].shard_offset + j] = j < real_count(&f, u) ? 1.0f : 0.0f;
        }
        double norm = ck_tape_double("fsdp_clip norm", fsdp_clip(&f, 0)), want = sqrt(10 + 5 + 8 + 1);
        if (fabs(norm - want) > 1e-5 * want) {
            printf("FAIL: fsdp_clip on rank %d: the norm is %.6g, the global norm is %.6g", r, norm, want);
            if (norm == 0)
                printf(" — Σ g² was never computed (or never reached clip_grad_norm_from_sumsq): add up the squares of "
                       "this "
                       "rank's real elements, then all-reduce the sum");
            else if (N > 1 && fabs(norm - sqrt((double)mine)) <= 1e-5 * want)
                printf(" — this is this rank's LOCAL norm (its %zu real elements): all-reduce Σ g² over the ranks "
                       "first",
                       mine);
            else if (N > 1 && fabs(norm - want / sqrt((double)N)) <= 1e-5 * want)
                printf(" — this is the global norm / √N: you AVERAGED Σ g² over the ranks instead of summing it");
            printf("\n");
            bad = 1;
        }
        /* padding holding garbage must still not count */
        for (int u = 0; u < 4 && !bad; u++)
            for (size_t j = real_count(&f, u); j < f.units[u].chunk; j++)
                f.shard_grads[f.units[u].shard_offset + j] = 100.0f;
        norm = ck_tape_double("fsdp_clip norm with garbage in the padding", fsdp_clip(&f, 0));
        if (!bad && fabs(norm - want) > 1e-5 * want) {
            printf(
                "FAIL: fsdp_clip counts the padding: with padding elements set to 100 the norm became %.6g instead of "
                "%.6g\n",
                norm, want);
            bad = 1;
        }
    }
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    if (!any && r == 0)
        printf("N=%d: gather exact with zero padding at the end; reduce-scatter averages and ADDS into the shard; clip "
               "uses the global norm without padding\n",
               N);
    fixture_free(&f, &t);
    comm_finalize(c);
    return any;
}

/* ---- zero: ZeRO stages 1 and 2's sharded optimizer step ------------------------------------------ */

/* Rank q's gradient of element i of unit u: (q + 1)·grad_value, so the average is (N + 1)/2 of it. */
static float grad_value(int u, size_t i) { return value(u + 5, i); }

/* Why gathered unit u is wrong on this rank after zero_step (SGD, lr 1): which chunk, and which of the
 * usual mistakes its values match. got_bytes / ref_bytes: what zero_step received, submission and
 * reference (the all-gather's share tells a missing one). */
static void explain_zero(const fsdp_t *f, int u, const float *full, double coef, long long got_bytes,
                         long long ref_bytes, int stage) {
    const fsdp_unit_t *x = &f->units[u];
    size_t N = (size_t)f->world_size, r = (size_t)f->rank, c = x->chunk;
    size_t first = 0;
    double want = 0, avg = 0, p = 0;
    for (size_t i = 0; i < N * c; i++) {
        p = i < x->numel ? value(u, i) : 0.0;
        avg = i < x->numel ? (double)grad_value(u, i) * (double)(N + 1) / 2.0 : 0.0;
        want = p - coef * avg;
        if (fabs(full[i] - want) > 1e-5 * (fabs(want) + fabs(avg)) + 1e-12 || isnan(full[i])) {
            first = i;
            break;
        }
    }
    size_t q = first / c;
    double got = full[first], tol = 1e-5 * (fabs(p) + N * fabs(avg)) + 1e-12;
    printf("FAIL: zero_step (stage %d), N=%zu, unit %d (n=%zu, c=%zu): on rank %zu element %zu (chunk %zu) is %.7g, "
           "expected the old %.7g minus the averaged gradient%s: %.7g",
           stage, N, u, x->numel, c, r, first, q, got, p, coef < 1 ? " (clipped)" : "", want);
    if (fabs(got - p) <= tol && avg != 0 && q != r && got_bytes < ref_bytes)
        printf(" — chunk %zu still holds the OLD parameters here, and fewer bytes came in than the reference's "
               "(%lld, not %lld): all-gather every unit after the optimizer step (all_gather on N·c)\n",
               q, got_bytes, ref_bytes);
    else if (fabs(got - p) <= tol && avg != 0 && q != r)
        printf(" — chunk %zu still holds the OLD parameters although the traffic is right: rank %zu never updated it; "
               "every rank must step the optimizer on ITS chunk r (gathered[u] + r·c), then all-gather\n",
               q, q);
    else if (fabs(got - p) <= tol && avg != 0)
        printf(" — this rank's own chunk was never updated: step the optimizer on chunk r (gathered[u] + r·c)\n");
    else if (N > 1 && fabs(got - (p - coef * avg * N)) <= tol)
        printf(" — that is minus the SUM of the ranks' gradients: divide by N before the reduce-scatter\n");
    else if (N > 1 && fabs(got - (p - coef * avg / N)) <= tol)
        printf(" — that is minus the average divided by N again: the gradient was divided by N twice (once is the "
               "average)\n");
    else if (N > 1 && stage == 1 &&
             (fabs(got - (p - coef * (double)(q + 1) * grad_value(u, first))) <= tol ||
              fabs(got - (p - coef * (double)(q + 1) * grad_value(u, first) / (double)N)) <= tol))
        printf(
            " — that is rank %zu's OWN gradient (or it divided by N), not the average over the ranks: reduce-scatter "
            "the full gradient (reduce_scatter on N·c) before the step\n",
            q);
    else
        printf("\n");
}

/* One zero_step on the check's fixture: gathered[u] = value, stage 1: full_grads[u] = (r + 1)·grad_value;
 * stage 2: shard_grads already hold the average of chunk r. SGD without momentum at lr 1: the new
 * parameters are exactly the old minus the (clipped) averaged gradient. Returns 1 when any rank failed. */
static int zero_case(comm_t *c, int stage, bool clip) {
    int N = comm_world_size(c), r = comm_rank(c), bad = 0;
    const size_t numel[4] = {10, 5, 8, 1};
    trainer_t t;
    fsdp_t f;
    fixture_init(&f, &t, c, numel, 4);
    f.zero_stage = stage;
    f.gathered = dp_calloc(4, sizeof(float *));
    f.full_grads = dp_calloc(4, sizeof(float *));
    optim_init_on(&t.optim, OPTIM_SGD, f.shard_numel, t.ops);
    double sumsq = 0;
    for (int u = 0; u < 4; u++) {
        size_t n = (size_t)N * f.units[u].chunk;
        f.gathered[u] = ops_alloc(t.ops, n);
        for (size_t i = 0; i < numel[u]; i++) f.gathered[u][i] = value(u, i);
        if (stage == 1) {
            f.full_grads[u] = ops_alloc(t.ops, n);
            for (size_t i = 0; i < numel[u]; i++) f.full_grads[u][i] = (float)(r + 1) * grad_value(u, i);
        } else {
            for (size_t j = 0; j < f.units[u].chunk; j++) {
                size_t i = (size_t)r * f.units[u].chunk + j;
                f.shard_grads[f.units[u].shard_offset + j] =
                    i < numel[u] ? (float)((double)grad_value(u, i) * (N + 1) / 2.0) : 0.0f;
            }
        }
        for (size_t i = 0; i < numel[u]; i++) {
            double avg = (double)grad_value(u, i) * (N + 1) / 2.0;
            sumsq += avg * avg;
        }
    }
    /* clipping active: the global norm is halved */
    double norm = sqrt(sumsq), max_norm = clip ? norm / 2 : 0, coef = clip ? max_norm / (norm + 1e-6) : 1;
    comm_counters_t before = comm_counters(c);
    zero_step(&f, max_norm, 1.0);
    long long received = (long long)comm_counters_diff(comm_counters(c), before).bytes_recv;
    long long ref_received = received; /* the judge's own: the reference's */
    received = ck_tape_ll("zero_step bytes received", received);
    for (int u = 0; u < 4 && !bad; u++) {
        size_t n = (size_t)N * f.units[u].chunk;
        ck_tape("zero_step gathered unit", f.gathered[u], n * sizeof(float));
        for (size_t i = 0; i < n && !bad; i++) {
            double avg = i < numel[u] ? (double)grad_value(u, i) * (N + 1) / 2.0 : 0.0;
            double want = (i < numel[u] ? value(u, i) : 0.0) - coef * avg;
            if (fabs(f.gathered[u][i] - want) > 1e-5 * (fabs(want) + fabs(avg)) + 1e-12 || isnan(f.gathered[u][i])) {
                explain_zero(&f, u, f.gathered[u], coef, received, ref_received, stage);
                bad = 1;
            }
        }
    }
    int any = 0;
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    for (int u = 0; u < 4; u++) {
        ops_free(t.ops, f.gathered[u]);
        if (f.full_grads[u]) ops_free(t.ops, f.full_grads[u]);
    }
    free(f.gathered);
    free(f.full_grads);
    optim_free(&t.optim);
    fixture_free(&f, &t);
    return any;
}

static int zero_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    int any = zero_case(c, 1, false);
    if (!any) any = zero_case(c, 1, true);
    if (!any) any = zero_case(c, 2, false);
    if (!any) any = zero_case(c, 2, true);
    if (!any && comm_rank(c) == 0)
        printf("N=%d: zero_step, stages 1 and 2, with and without clipping: every rank holds every unit minus the "
               "rank-averaged gradient, padding 0\n",
               comm_world_size(c));
    comm_finalize(c);
    return any;
}

/* ---- memory: what the student's functions really allocate ------------------------------------------- */

enum { MEM_STEPS = 8, MEM_FNS = 3 };
static const char *const mem_fn[MEM_FNS] = {"fsdp_gather", "fsdp_reduce_grads", "fsdp_clip"};

/* Live bytes now: the ops allocator's count, and the C library's heap (malloc directly). */
typedef struct {
    long long ops, heap;
} live_t;
static live_t live_now(void) { return (live_t){(long long)ops_memory_allocated(), (long long)ops_host_heap_bytes()}; }

/* MEM_STEPS training steps of the four functions' work on units of a few thousand parameters, as FSDP
 * does them (per unit: gather, reduce-scatter into the shard; then the clip), measuring around every
 * call with the allocator's real counts (ops_memory_allocated, ops_max_memory_allocated: not a
 * trainer's bookkeeping) and the C library's heap:
 *   - what a call leaves allocated after it returns, summed over the steps after the first (the first
 *     may set up scratch that lives on: the collectives' own does): a temporary never freed grows it
 *     every step, and over thousands of steps the run dies;
 *   - the most a call allocates at once beyond what was there: FSDP's bound, 16·P/N + 8·n_max, has room
 *     for one unit's gathered parameters and gradient (both given to these functions), not for another
 *     copy of the unit. Allowed: what the reference needs here (measured by the judge on its own run
 *     of the same steps; the collectives' scratch) plus one chunk (c floats) of temporaries. */
static int memory_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    int N = comm_world_size(c), r = comm_rank(c);
    const size_t numel[4] = {4099, 1000, 2501, 7};
    trainer_t t;
    fsdp_t f;
    fixture_init(&f, &t, c, numel, 4);
    /* per function: bytes left allocated (ops, heap), in how many steps the heap grew, the largest peak */
    long long leak_ops[MEM_FNS] = {0}, leak_heap[MEM_FNS] = {0}, heap_grew[MEM_FNS] = {0}, peak[MEM_FNS] = {0};
    for (int step = 0; step < MEM_STEPS; step++) {
        long long heap_step[MEM_FNS] = {0};
        for (size_t j = 0; j < f.shard_numel; j++) f.shard_grads[j] = 0.0f;
        for (int u = 0; u < 4; u++) {
            size_t n = (size_t)N * f.units[u].chunk;
            float *full = ops_alloc(t.ops, n);
            for (int fn = 0; fn < 2; fn++) {
                if (fn == 1)
                    for (size_t i = 0; i < n; i++) full[i] = i < numel[u] ? (float)(r + 1) * value(u, i) : 0.0f;
                live_t before = live_now();
                ops_reset_peak_memory_stats();
                if (fn == 0)
                    fsdp_gather(&f, &f.coll, u, full);
                else
                    fsdp_reduce_grads(&f, u, full);
                live_t after = live_now();
                long long extra = (long long)ops_max_memory_allocated() - before.ops;
                if (step > 0) {
                    leak_ops[fn] += after.ops - before.ops;
                    heap_step[fn] += after.heap - before.heap;
                    if (extra > peak[fn]) peak[fn] = extra;
                }
            }
            ops_free(t.ops, full);
        }
        live_t before = live_now();
        ops_reset_peak_memory_stats();
        fsdp_clip(&f, 0);
        live_t after = live_now();
        if (step > 0) {
            leak_ops[2] += after.ops - before.ops;
            heap_step[2] += after.heap - before.heap;
            long long extra = (long long)ops_max_memory_allocated() - before.ops;
            if (extra > peak[2]) peak[2] = extra;
        }
        for (int fn = 0; fn < MEM_FNS; fn++) leak_heap[fn] += heap_step[fn], heap_grew[fn] += heap_step[fn] > 0;
    }
    /* The judge's own (reference) numbers are the baseline; the recorded ones are the submission's. */
    long long ref_peak[MEM_FNS];
    memcpy(ref_peak, peak, sizeof peak);
    ck_tape("bytes left allocated (ops) per function", leak_ops, sizeof leak_ops);
    ck_tape("bytes left on the heap per function", leak_heap, sizeof leak_heap);
    ck_tape("steps in which the heap grew per function", heap_grew, sizeof heap_grew);
    ck_tape("most bytes allocated at once per function", peak, sizeof peak);
    size_t cmax = 0;
    for (int u = 0; u < 4; u++) cmax = f.units[u].chunk > cmax ? f.units[u].chunk : cmax;
    /* The heap moves a little on its own (the MPI library's message bookkeeping: a few KB, now and then):
     * a leak grows it in EVERY step, by at least a chunk per unit. */
    int bad = 0;
    for (int fn = 0; fn < MEM_FNS; fn++) {
        int steps = MEM_STEPS - 1;
        if (leak_ops[fn] > 0) {
            printf("FAIL: N=%d, rank %d: %s leaves %lld bytes more allocated after %d steps (%lld per step): a "
                   "temporary buffer is never freed (ops_free what you ops_alloc)\n",
                   N, r, mem_fn[fn], leak_ops[fn], steps, leak_ops[fn] / steps);
            bad = 1;
        } else if (heap_grew[fn] == steps && leak_heap[fn] > 0) {
            printf(
                "FAIL: N=%d, rank %d: the heap grew by %lld bytes over %d steps in %s (%lld per step): a buffer taken "
                "with malloc is never freed\n",
                N, r, leak_heap[fn], steps, mem_fn[fn], leak_heap[fn] / steps);
            bad = 1;
        } else if (peak[fn] > ref_peak[fn] + (long long)(cmax * sizeof(float))) {
            printf("FAIL: N=%d, rank %d: %s allocates up to %lld bytes of temporaries at once (the reference: %lld; "
                   "allowed: that plus one chunk, %zu bytes): FSDP's bound 16·P/N + 8·n_max holds one gathered unit "
                   "and its gradient, which you are given — work in them in place%s\n",
                   N, r, mem_fn[fn], peak[fn], ref_peak[fn], cmax * sizeof(float),
                   fn == 1 ? " (scale full_grad, reduce-scatter it where it is)" : "");
            bad = 1;
        }
    }
    int any = 0;
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    if (!any && r == 0)
        printf("N=%d: over %d steps nothing left allocated by fsdp_gather, fsdp_reduce_grads or fsdp_clip (ops "
               "allocator and heap), no temporaries beyond one chunk\n",
               N, MEM_STEPS);
    fixture_free(&f, &t);
    comm_finalize(c);
    return any;
}

int main(int argc, char **argv) {
    dp_set_progname("check08");
    const ck_entry_t checks[] = {{"layout", layout_check},
                                 {"collect", collect_check},
                                 {"zero", zero_check},
                                 {"memory", memory_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
