/* check08 — the grader's unit checks of lesson 08 (linked with the submission's sharding code).
 *
 *   check08 layout                 fsdp_shard_layout: c = ceil(n/N), offsets, for §3.7's (n, N)
 *   mpirun -np N check08 collect   fsdp_gather reproduces every unit bit for bit with zero padding at
 *                                  the end; fsdp_reduce_grads leaves Σ/N in the shard (exact inputs),
 *                                  padding 0; fsdp_clip uses the global norm, padding excluded */
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

static int layout_check(void) {
    const size_t numel[4] = {10, 5, 8, 1};
    int bad = 0;
    for (int N = 1; N <= 5 && !bad; N++) {
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
        if (f.nunits != 4) {
            printf("FAIL: N=%d: fsdp_shard_layout set nunits = %d; the model has 4 units (m->nunits)\n", N, f.nunits);
            bad = 1;
        }
        size_t off = 0;
        for (int u = 0; u < 4 && !bad; u++) {
            size_t c = (numel[u] + (size_t)N - 1) / (size_t)N;
            if (units[u].numel != numel[u] || units[u].chunk != c || units[u].shard_offset != off) {
                printf("FAIL: n=%zu, N=%d: unit %d got numel %zu, chunk %zu, shard_offset %zu; expected %zu, %zu (= "
                       "ceil(n/N)), %zu\n",
                       numel[u], N, u, units[u].numel, units[u].chunk, units[u].shard_offset, numel[u], c, off);
                bad = 1;
            }
            off += c;
        }
        if (!bad && f.shard_numel != off) {
            printf("FAIL: N=%d: shard_numel %zu, expected the sum of the chunks %zu\n", N, f.shard_numel, off);
            bad = 1;
        }
        free(f.units);
        free(m.unit_numel);
    }
    if (!bad) printf("layout: c = ceil(n/N) for n in {10, 5, 8, 1} and N = 1..5, shards packed in unit order\n");
    return bad;
}

static float value(int u, size_t i) { return (float)((int)((u * 31 + i * 7) % 32) - 16) / 64.0f; }

static int collect_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    int N = comm_world_size(c), r = comm_rank(c), bad = 0;
    const size_t numel[4] = {10, 5, 8, 1};
    model_t m;
    fake_model(&m, numel, 4);
    trainer_t t;
    memset(&t, 0, sizeof t);
    t.ops = ops_create(OPS_CPU, 1);
    fsdp_t f;
    memset(&f, 0, sizeof f);
    f.t = &t;
    f.world_size = N;
    f.rank = r;
    /* The layout is the check's own (ceil(n/N), packed; the layout check judges the submission's): run and
     * judge then drive the same collectives over the same sizes, whatever fsdp_shard_layout does. */
    f.nunits = 4;
    f.units = dp_calloc(4, sizeof(fsdp_unit_t));
    for (int u = 0; u < 4; u++) {
        f.units[u].numel = numel[u];
        f.units[u].chunk = (numel[u] + (size_t)N - 1) / (size_t)N;
        f.units[u].shard_offset = f.shard_numel;
        f.shard_numel += f.units[u].chunk;
    }
    coll_init(&f.coll, c, t.ops);
    coll_init(&f.host_coll, c, t.ops);
    f.shard_params = dp_calloc(f.shard_numel + 1, sizeof(float));
    f.shard_grads = dp_calloc(f.shard_numel + 1, sizeof(float));
    for (int u = 0; u < 4; u++)
        for (size_t j = 0; j < f.units[u].chunk; j++) {
            size_t i = (size_t)r * f.units[u].chunk + j;
            f.shard_params[f.units[u].shard_offset + j] = i < numel[u] ? value(u, i) : 0.0f;
        }
    /* any: some rank failed. Every rank stops at the same point (after a bookkeeping all-reduce), so that
     * no rank enters a collective that the others skip. */
    int any = 0;
    for (int u = 0; u < 4 && !any; u++) {
        size_t n = (size_t)N * f.units[u].chunk;
        float *full = dp_malloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) full[i] = NAN;
        fsdp_gather(&f, &f.coll, u, full);
        ck_tape("fsdp_gather full unit", full, n * sizeof(float));
        for (size_t i = 0; i < n && !bad; i++) {
            float want = i < numel[u] ? value(u, i) : 0.0f;
            if (memcmp(&full[i], &want, 4)) {
                printf("FAIL: fsdp_gather, N=%d, unit %d (n=%zu, c=%zu): rank %d element %zu is %g, expected %g%s\n", N, u,
                       numel[u], f.units[u].chunk, r, i, (double)full[i], (double)want,
                       isnan(full[i]) ? " (never written: chunk r must hold this rank's shard before the all-gather)" : "");
                bad = 1;
            }
        }
        /* gradients: rank q contributes (q + 1)·g(i); the average is (N+1)/2·g(i) */
        for (size_t i = 0; i < n; i++) full[i] = i < numel[u] ? (float)(r + 1) * value(u, i) : 0.0f;
        memset(f.shard_grads, 0, (f.shard_numel + 1) * sizeof(float));
        fsdp_reduce_grads(&f, u, full);
        ck_tape("fsdp_reduce_grads shard of the unit", f.shard_grads + f.units[u].shard_offset,
                f.units[u].chunk * sizeof(float));
        for (size_t j = 0; j < f.units[u].chunk && !bad; j++) {
            size_t i = (size_t)r * f.units[u].chunk + j;
            double want = i < numel[u] ? (double)value(u, i) * (N + 1) / 2.0 : 0.0;
            double got = f.shard_grads[f.units[u].shard_offset + j];
            if (fabs(got - want) > 1e-6 * fabs(want) + 1e-12) {
                printf("FAIL: fsdp_reduce_grads, N=%d, unit %d: rank %d's shard element %zu (element %zu of the unit) "
                       "is %.7g, expected the average over ranks %.7g",
                       N, u, r, j, i, got, want);
                if (fabs(got - want * N) < 1e-6 * fabs(want * N)) printf(" — it is the SUM: divide by N");
                printf("\n");
                bad = 1;
            }
        }
        free(full);
        comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    }
    /* clip: every real gradient element 1.0 → norm = sqrt(Σ n_u); padding must not count */
    if (!any) {
        for (int u = 0; u < 4; u++)
            for (size_t j = 0; j < f.units[u].chunk; j++) {
                size_t i = (size_t)r * f.units[u].chunk + j;
                f.shard_grads[f.units[u].shard_offset + j] = i < numel[u] ? 1.0f : 0.0f;
            }
        double norm = ck_tape_double("fsdp_clip norm", fsdp_clip(&f, 0)), want = sqrt(10 + 5 + 8 + 1);
        if (fabs(norm - want) > 1e-5 * want) {
            printf("FAIL: fsdp_clip on rank %d: the norm is %.6g, the global norm is %.6g", r, norm, want);
            if (N > 1 && fabs(norm - want) > 0.2 * want && norm < want) printf(" — this looks like a LOCAL norm: all-reduce Σ g² first");
            printf("\n");
            bad = 1;
        }
        /* padding holding garbage must still not count */
        for (int u = 0; u < 4 && !bad; u++)
            for (size_t j = 0; j < f.units[u].chunk; j++) {
                size_t i = (size_t)r * f.units[u].chunk + j;
                if (i >= numel[u]) f.shard_grads[f.units[u].shard_offset + j] = 100.0f;
            }
        norm = ck_tape_double("fsdp_clip norm with garbage in the padding", fsdp_clip(&f, 0));
        if (!bad && fabs(norm - want) > 1e-5 * want) {
            printf("FAIL: fsdp_clip counts the padding: with padding elements set to 100 the norm became %.6g instead of "
                   "%.6g\n",
                   norm, want);
            bad = 1;
        }
    }
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    if (!any && r == 0)
        printf("N=%d: gather exact with zero padding at the end; reduce-scatter averages into the shard; clip uses the "
               "global norm without padding\n",
               N);
    coll_free(&f.coll);
    coll_free(&f.host_coll);
    comm_finalize(c);
    return any;
}

int main(int argc, char **argv) {
    dp_set_progname("check08");
    const ck_entry_t checks[] = {{"layout", layout_check}, {"collect", collect_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
