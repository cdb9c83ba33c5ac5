/* check12 — the grader's unit checks of lesson 12 (linked with the submission's elastic_plan.c and
 * young_daly.c; lesson 07's sampler is the reference's).
 *
 *   check12 plan        elastic_plan against the oracle below on world sizes 1–8, global batches that
 *                       do and do not divide, caps that force uneven micro-batches; invalid inputs
 *   check12 resume      resume_position on checkpoints mid-epoch and at an epoch's boundary, drop_last
 *                       on and off, for a new world of 1–8 ranks; contradictory checkpoints refused
 *   check12 once        a run of N ranks stopped at step s and continued on N' through the student's
 *                       plan and resume position: every position of the interrupted epoch trained on
 *                       exactly once (so every example of its list: the grader's own sampler oracle)
 *   check12 young_daly  sqrt(2·C·MTBF) and tau/2 + C·MTBF/tau against their closed forms, NAN for bad input
 *
 * Every result of the student's code goes through ck_tape before it is looked at (checklib.h). */
#include "checklib.h"
#include "data.h"
#include "elastic.h"
#include "sampler_oracle.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The oracle: chunk_range's split in integers (the first count % n pieces one longer), written
 * here, not called, so that it does not rest on lesson 04's code. */
static void split(int64_t count, int64_t n, int64_t i, int64_t *off, int64_t *len) {
    int64_t q = count / n, r = count % n;
    *len = q + (i < r);
    *off = i * q + (i < r ? i : r);
}

static int oracle_plan(int64_t B, int N, int rank, int cap, elastic_plan_t *p) {
    if (B < 1 || N < 1 || rank < 0 || rank >= N || cap < 1 || B < N) return -1;
    int64_t off, b;
    split(B, N, rank, &off, &b);
    int64_t k = (b + cap - 1) / cap;
    if (k > ELASTIC_MAX_MICRO) return -1;
    memset(p, 0, sizeof *p);
    p->local_batch = b, p->offset = off, p->micro_steps = (int)k;
    for (int64_t i = 0; i < k; i++) {
        int64_t mo, ml;
        split(b, k, i, &mo, &ml);
        p->micro[i] = ml;
        p->weight[i] = (double)ml * N / (double)B;
    }
    return 0;
}

/* Records everything of a plan the check reads. */
static void tape_plan(elastic_plan_t *p) {
    ck_tape("elastic_plan local_batch", &p->local_batch, sizeof p->local_batch);
    ck_tape("elastic_plan offset", &p->offset, sizeof p->offset);
    ck_tape("elastic_plan micro_steps", &p->micro_steps, sizeof p->micro_steps);
    ck_tape("elastic_plan micro", p->micro, sizeof p->micro);
    ck_tape("elastic_plan weight", p->weight, sizeof p->weight);
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

/* What a wrong plan looks like: the usual mistakes, named. */
static void explain_plan(const elastic_plan_t *got, const elastic_plan_t *want, int64_t B, int N) {
    int64_t b = want->local_batch;
    if (got->local_batch != b) {
        if (got->local_batch == B / N && B % N)
            printf("  — that is B / N rounded down, on one of the first B %% N ranks, which take one more: B / N "
                   "everywhere never trains the remainder (the global batch shrinks after the restart), and the "
                   "remainder on the last rank is not chunk_range's split\n");
        else if (got->local_batch == (B + N - 1) / N)
            printf("  — that is ceil(B / N) on every rank: the slices add up to more than B (some examples twice)\n");
        else
            printf("  — the global batch must stay B: rank r takes chunk_range(B, N, r), whatever the first launch's "
                   "per-rank batch was\n");
        return;
    }
    if (got->offset != want->offset) {
        printf("  — the slices must tile the step's B positions without overlap or gap: rank r starts where rank "
               "r-1's slice ends (chunk_range's offset)\n");
        return;
    }
    if (got->micro_steps != want->micro_steps) {
        printf("  — k = ceil(local_batch / micro_cap) micro-batches: the fewest that keep each within the cap\n");
        return;
    }
    for (int i = 0; i < want->micro_steps; i++)
        if (got->micro[i] != want->micro[i]) {
            printf("  — micro-batch sizes: chunk_range(local_batch, k, i), the first local_batch %% k one longer\n");
            return;
        }
    /* Which mistake: one case where 1/k, b_i/b_r and b_i/B all differ (B = 12 on 5 ranks, rank 0: 3
     * examples as 2 + 1), asked of the student's code (and taped) after the failure. */
    elastic_plan_t q;
    memset(&q, 0, sizeof q);
    int ret = (int)ck_tape_ll("elastic_plan (B 12, 5 ranks, cap 2) returned", elastic_plan(12, 5, 0, 2, &q));
    tape_plan(&q);
    bool one_over_k = ret == 0, per_rank = ret == 0, over_b = ret == 0, share = ret == 0, int_div = ret == 0;
    for (int i = 0; i < 2 && ret == 0; i++) {
        double bi = 2 - i;
        one_over_k = one_over_k && near(q.weight[i], 0.5);
        per_rank = per_rank && near(q.weight[i], bi / 3);
        over_b = over_b && near(q.weight[i], bi / 12);
        share = share && near(q.weight[i], 3.0 * 5 / 12);
        int_div = int_div && near(q.weight[i], bi / 2);
    }
    /* the failing case's weights all within float's precision of the right ones */
    bool single = true;
    for (int i = 0; i < want->micro_steps; i++)
        single = single && fabs(got->weight[i] - want->weight[i]) <= 1e-6 * fabs(want->weight[i]);
    if (single)
        printf("  — the weights are right only to float's precision (about 1e-7): compute b_i · N / B in double\n");
    else if (share)
        printf("  — every micro-batch counts the rank's share b_r · N / B: right only when k = 1; micro-batch i "
               "counts its own b_i · N / B\n");
    else if (int_div)
        printf("  — b_i / (B / N) with B / N an integer division: right only when N divides B; b_i · N / B in "
               "floating point\n");
    else if (one_over_k)
        printf("  — the weights are 1/k: right only when all micro-batches are equal; after an uneven split a "
               "micro-batch of b_i examples counts b_i · N / B\n");
    else if (per_rank)
        printf("  — the weight b_i / b_r is lesson 06's, right only when every rank has the same b_r; DDP then "
               "averages over N ranks, so the mean over B needs b_i · N / B\n");
    else if (over_b)
        printf("  — b_i / B forgets that DDP's all-reduce divides by N afterwards: the gradient comes out N times "
               "too small; b_i · N / B\n");
    else
        printf("  — micro-batch i's weight is b_i · N / B (elastic.h)\n");
    (void)B, (void)N;
}

static void print_plan(const char *who, const elastic_plan_t *p) {
    printf("    %s: local_batch %lld, offset %lld, %d micro-batches:", who, (long long)p->local_batch,
           (long long)p->offset, p->micro_steps);
    for (int i = 0; i < p->micro_steps && i < ELASTIC_MAX_MICRO && i < 8; i++)
        printf(" %lld (w %.6g)", (long long)p->micro[i], p->weight[i]);
    printf("%s\n", p->micro_steps > 8 ? " ..." : "");
}

static bool same_plan(const elastic_plan_t *a, const elastic_plan_t *b) {
    if (a->local_batch != b->local_batch || a->offset != b->offset || a->micro_steps != b->micro_steps) return false;
    for (int i = 0; i < b->micro_steps; i++)
        if (a->micro[i] != b->micro[i] || !near(a->weight[i], b->weight[i])) return false;
    return true;
}

static int plan_check(void) {
    static const int64_t batches[] = {1, 2, 3, 5, 7, 8, 12, 13, 16, 17, 24, 31, 64, 100, 129, 257};
    static const int caps[] = {1, 2, 3, 4, 5, 8, 1000};
    int cases = 0;
    for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++)
        for (int N = 1; N <= 8; N++)
            for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++)
                for (int r = 0; r < N; r++) {
                    int64_t B = batches[bi];
                    int cap = caps[ci];
                    elastic_plan_t want, got;
                    int wret = oracle_plan(B, N, r, cap, &want);
                    memset(&got, 0, sizeof got);
                    char what[96];
                    snprintf(what, sizeof what, "elastic_plan(B=%lld, N=%d, rank %d, cap %d) returned", (long long)B, N,
                             r, cap);
                    int ret = (int)ck_tape_ll(what, elastic_plan(B, N, r, cap, &got));
                    tape_plan(&got);
                    cases++;
                    if (ret != wret) {
                        printf("FAIL: elastic_plan(global_batch %lld, world %d, rank %d, micro_cap %d) returned %d, "
                               "expected %d%s\n",
                               (long long)B, N, r, cap, ret, wret,
                               wret ? (B < N ? ": B < world leaves a rank without an example"
                                             : ": more than ELASTIC_MAX_MICRO micro-batches")
                                    : "");
                        return 1;
                    }
                    if (wret == 0 && !same_plan(&got, &want)) {
                        printf("FAIL: elastic_plan(global_batch %lld, world %d, rank %d, micro_cap %d):\n",
                               (long long)B, N, r, cap);
                        print_plan("got     ", &got);
                        print_plan("expected", &want);
                        explain_plan(&got, &want, B, N);
                        return 1;
                    }
                }
    /* invalid inputs */
    const struct {
        int64_t B;
        int N, r, cap;
    } bad[] = {{0, 1, 0, 1}, {-3, 1, 0, 1}, {4, 0, 0, 1}, {4, 2, 2, 1}, {4, 2, -1, 1}, {4, 2, 0, 0}, {6, 2, 0, -1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        elastic_plan_t got;
        memset(&got, 0, sizeof got);
        int ret = (int)ck_tape_ll("elastic_plan (invalid) returned",
                                  elastic_plan(bad[i].B, bad[i].N, bad[i].r, bad[i].cap, &got));
        if (ret != -1) {
            printf("FAIL: elastic_plan(global_batch %lld, world %d, rank %d, micro_cap %d) returned %d: invalid input "
                   "must return -1 (elastic.h)\n",
                   (long long)bad[i].B, bad[i].N, bad[i].r, bad[i].cap, ret);
            return 1;
        }
    }
    printf("elastic_plan: %d cases equal the oracle (B 1-257, 1-8 ranks, caps 1-1000), invalid inputs refused\n",
           cases);
    return 0;
}

/* A checkpoint of the run (L examples, R0 replicas, B, drop_last) at step s, as the trainer writes it. */
static elastic_ckpt_t ckpt_at(int64_t s, int64_t S, int64_t B, int R0) {
    elastic_ckpt_t ck = {.step = s, .epoch = s / S, .consumed = (s % S) * B, .global_batch = B, .data_replicas = R0};
    return ck;
}

static int resume_check(void) {
    static const size_t lens[] = {50, 97, 128};
    int cases = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int R0 = 1; R0 <= 8; R0 += 1)
            for (int drop = 0; drop <= 1; drop++)
                for (int64_t B = R0; B <= 3 * R0 + 5; B += R0 + 3) {
                    size_t L = lens[li];
                    sampler_t probe;
                    sampler_init(&probe, L, R0, 0, true, 11, drop);
                    int64_t S = (int64_t)(probe.total_size / (size_t)B);
                    if (S < 2) continue;
                    /* mid-epoch in epoch 0 and 2, the boundary into epoch 1 and 3, the very start */
                    const int64_t steps[] = {0, 1, S - 1, S, S + 1, 2 * S + S / 2, 3 * S};
                    for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++)
                        for (int N = 1; N <= 8 && N <= B; N += (N < 3 ? 1 : 2)) {
                            int64_t s = steps[si];
                            elastic_ckpt_t ck = ckpt_at(s, S, B, R0);
                            int r = (int)(s % N);
                            elastic_plan_t p;
                            oracle_plan(B, N, r, (int)B, &p);
                            sampler_t fresh;
                            sampler_init(&fresh, L, R0, 0, true, 11, drop);
                            resume_t out = {-7, -7};
                            int ret =
                                (int)ck_tape_ll("resume_position returned", resume_position(&ck, &fresh, &p, &out));
                            ck_tape("resume_position step", &out.step, sizeof out.step);
                            ck_tape("resume_position position", &out.position, sizeof out.position);
                            ck_tape("sampler epoch after resume_position", &fresh.epoch, sizeof fresh.epoch);
                            cases++;
                            const char *how =
                                s % S ? "mid-epoch" : (s ? "at an epoch's boundary" : "at the run's start");
                            char head[256];
                            snprintf(head, sizeof head,
                                     "FAIL: checkpoint at step %lld (epoch %lld, consumed %lld; %s; L %zu, R0 %d, B "
                                     "%lld, drop_last %d), rank %d of %d (offset %lld):",
                                     (long long)s, (long long)ck.epoch, (long long)ck.consumed, how, L, R0,
                                     (long long)B, drop, r, N, (long long)p.offset);
                            if (ret != 0) {
                                printf("%s resume_position returned %d for a valid checkpoint\n", head, ret);
                                return 1;
                            }
                            if (out.step != ck.step) {
                                printf("%s the next step is %lld, expected %lld%s\n", head, (long long)out.step,
                                       (long long)ck.step,
                                       out.step < ck.step ? ": that restarts from an older checkpoint than the last "
                                                            "good one, redoing steps the checkpoint already holds"
                                                          : "");
                                return 1;
                            }
                            if (fresh.epoch != ck.epoch) {
                                printf("%s the sampler's epoch is %lld, expected %lld: the sampler's epoch was not "
                                       "restored to the checkpoint's (sampler_set_epoch with ck->epoch: left unset, or "
                                       "recomputed from the step, it draws the lists of another epoch)\n",
                                       head, (long long)fresh.epoch, (long long)ck.epoch);
                                return 1;
                            }
                            int64_t want = ck.consumed + p.offset;
                            if (out.position != want) {
                                printf("%s position %lld, expected %lld (consumed + offset)", head,
                                       (long long)out.position, (long long)want);
                                if (out.position == p.offset && ck.consumed)
                                    printf(": the epoch was resumed from its start (consumed ignored), so its first "
                                           "%lld positions are trained on twice",
                                           (long long)ck.consumed);
                                else if (out.position == (int64_t)((size_t)(s * B) % probe.total_size) + p.offset)
                                    printf(": that is step · B wrapped around the sampler's %zu positions, but an "
                                           "epoch is S · B = %lld of them (its last partial batch dropped): consumed "
                                           "says where the step is",
                                           probe.total_size, (long long)(S * B));
                                else if (out.position == ck.consumed && p.offset)
                                    printf(": every rank starts at consumed, without its slice's offset: the ranks' "
                                           "slices overlap");
                                printf("\n");
                                return 1;
                            }
                        }
                }
    /* contradictory checkpoints */
    sampler_t s;
    sampler_init(&s, 100, 4, 0, true, 1, false); /* total 100: S = 8 at B = 12 */
    elastic_plan_t p;
    oracle_plan(12, 2, 1, 12, &p);
    const elastic_ckpt_t bad[] = {
        {10, 1, 13, 12, 4}, /* consumed not a multiple of B */
        {10, 1, 96, 12, 4}, /* consumed past the epoch's S·B = 96 */
        {16, 1, 96, 12, 4}, /* consumed = S·B with a step that agrees (1·8 + 8): past the end all the same */
        {10, 0, 24, 12, 4}, /* epoch·S + consumed/B = 2, not step 10 */
        {-1, 0, 0, 12, 4},  /* negative step */
        {10, 1, 24, 0, 4},  /* B = 0 */
    };
    static const char *why[] = {"consumed is not a multiple of B", "consumed is past the epoch's S·B = 96 positions",
                                "epoch·S + consumed/B = 2 is not the step, 10", "the step is negative", "B is 0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        resume_t out;
        sampler_t t = s;
        int ret = (int)ck_tape_ll("resume_position (bad checkpoint) returned", resume_position(&bad[i], &t, &p, &out));
        if (ret != -1) {
            printf("FAIL: resume_position accepted step %lld, epoch %lld, consumed %lld, B %lld (an epoch of 8 steps): "
                   "%s, so it contradicts itself and must return -1 (elastic.h)\n",
                   (long long)bad[i].step, (long long)bad[i].epoch, (long long)bad[i].consumed,
                   (long long)bad[i].global_batch, why[i]);
            return 1;
        }
    }
    printf("resume_position: %d checkpoints (mid-epoch, boundaries, drop_last on and off, 1-8 new ranks) resumed "
           "exactly; contradictory ones refused\n",
           cases);
    return 0;
}

/* Positions of the interrupted epoch trained on, counted: steps before s by the N ranks' plans, the
 * rest by the N' ranks' plans from their resume positions. Everything from the student's functions
 * is taped; the counting is the grader's. */
static int once_case(size_t L, int R0, int64_t B, int N, int N2, int64_t s, int drop, int cap) {
    sampler_t probe;
    sampler_init(&probe, L, R0, 0, true, 5, drop);
    int64_t S = (int64_t)(probe.total_size / (size_t)B), SB = S * B, e = s / S, j0 = s % S;
    int *count = calloc((size_t)SB, sizeof(int));
    for (int r = 0; r < N; r++) {
        elastic_plan_t p;
        memset(&p, 0, sizeof p);
        int ret = (int)ck_tape_ll("elastic_plan (before) returned", elastic_plan(B, N, r, cap, &p));
        tape_plan(&p);
        if (ret != 0 || p.local_batch < 0 || p.local_batch > B || p.offset < 0 || p.offset > B) {
            printf(
                "FAIL: elastic_plan(%lld, %d, %d, %d) returned %d with local_batch %lld, offset %lld: a valid plan's "
                "slice lies inside the step's B positions\n",
                (long long)B, N, r, cap, ret, (long long)p.local_batch, (long long)p.offset);
            free(count);
            return 1;
        }
        for (int64_t j = 0; j < j0; j++)
            for (int64_t i = 0; i < p.local_batch; i++) {
                int64_t q = j * B + p.offset + i;
                if (q >= 0 && q < SB) count[q]++;
            }
    }
    elastic_ckpt_t ck = ckpt_at(s, S, B, R0);
    for (int r = 0; r < N2; r++) {
        elastic_plan_t p;
        memset(&p, 0, sizeof p);
        int ret = (int)ck_tape_ll("elastic_plan (after) returned", elastic_plan(B, N2, r, cap, &p));
        tape_plan(&p);
        sampler_t fresh;
        sampler_init(&fresh, L, R0, 0, true, 5, drop);
        resume_t out = {0, 0};
        int rr = ret ? -1 : (int)ck_tape_ll("resume_position returned", resume_position(&ck, &fresh, &p, &out));
        ck_tape("resume_position position", &out.position, sizeof out.position);
        ck_tape("sampler epoch after resume_position", &fresh.epoch, sizeof fresh.epoch);
        if (ret != 0 || rr != 0 || p.local_batch < 0 || p.local_batch > B || p.offset < 0 || p.offset > B) {
            printf("FAIL: rank %d of %d: no valid restart (elastic_plan %d with local_batch %lld, offset %lld; "
                   "resume_position %d)\n",
                   r, N2, ret, (long long)p.local_batch, (long long)p.offset, rr);
            free(count);
            return 1;
        }
        if (fresh.epoch != e) {
            printf("FAIL: restart at step %lld on %d ranks: rank %d's sampler is at epoch %lld, the interrupted epoch "
                   "is %lld (the sampler's epoch not restored)\n",
                   (long long)s, N2, r, (long long)fresh.epoch, (long long)e);
            free(count);
            return 1;
        }
        /* the DataLoader after the restart: B positions a step from the resume position, to the epoch's end */
        for (int64_t a = out.position; a - p.offset < SB && a >= 0; a += B)
            for (int64_t i = 0; i < p.local_batch; i++)
                if (a + i >= 0 && a + i < SB) count[a + i]++;
    }
    /* the epoch's list, from the grader's sampler oracle: which examples those positions hold */
    data_order_t o;
    data_order_init_sampler(&o, 5, L, (size_t)B, R0, 1, drop);
    uint32_t *idx = malloc((size_t)B * sizeof(uint32_t));
    int bad = 0;
    for (int64_t q = 0; q < SB && !bad; q++)
        if (count[q] != 1) {
            data_order_batch(&o, (uint64_t)(e * S + q / B), idx);
            printf("FAIL: %d ranks stopped at step %lld (epoch %lld, step %lld of its %lld; L %zu, R0 %d, B %lld, "
                   "drop_last %d), restarted on %d: position %lld of the epoch's list (example %u) was trained on %d "
                   "times, not once%s\n",
                   N, (long long)s, (long long)e, (long long)j0, (long long)S, L, R0, (long long)B, drop, N2,
                   (long long)q, idx[q % B], count[q],
                   count[q] > 1 ? (q < j0 * B ? " (the resumed ranks repeated what was trained before the failure)"
                                              : " (the ranks' slices overlap)")
                                : (q < j0 * B ? "" : " (skipped: the resumed slices leave it out)"));
            bad = 1;
        }
    free(idx);
    data_order_free(&o);
    free(count);
    return bad;
}

static int once_check(void) {
    const struct {
        size_t L;
        int R0;
        int64_t B;
        int N2, cap, drop;
        int64_t s;
    } cases[] = {{100, 3, 12, 2, 4, 0, 5}, {100, 3, 12, 5, 2, 0, 4}, {97, 4, 12, 3, 3, 1, 3},
                 {97, 4, 16, 3, 5, 0, 9},  {128, 8, 24, 7, 2, 1, 2}, {50, 2, 6, 1, 6, 0, 3},
                 {50, 2, 6, 4, 1, 1, 5},   {100, 3, 12, 2, 4, 0, 8}, {100, 5, 15, 4, 2, 0, 13}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (once_case(cases[i].L, cases[i].R0, cases[i].B, cases[i].R0, cases[i].N2, cases[i].s, cases[i].drop,
                      cases[i].cap))
            return 1;
    printf("exactly once: %zu restarts (3->2, 3->5, 4->3, 8->7, 2->1, 2->4, 5->4; mid-epoch and at an "
           "epoch's first step) train every position of the interrupted epoch once\n",
           sizeof cases / sizeof cases[0]);
    return 0;
}

static int young_daly_check(void) {
    static const double C[] = {1, 10, 60, 300, 0.5, 1e-3};
    static const double M[] = {3600, 86400, 600, 1e6, 50};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++)
        for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
            double c = C[i], m = M[k], want = sqrt(2 * c * m);
            double got = ck_tape_double("young_daly_interval", young_daly_interval(c, m));
            if (!(fabs(got - want) <= 1e-9 * want)) {
                printf("FAIL: young_daly_interval(C = %g s, MTBF = %g s) = %.10g, expected sqrt(2·C·MTBF) = %.10g", c,
                       m, got, want);
                if (fabs(got - sqrt(c * m)) <= 1e-9 * want)
                    printf(" — that is sqrt(C·MTBF): the 2 is missing (the work lost is tau/2 per failure)");
                else if (fabs(got - sqrt(c / m)) <= 1e-9 * fmax(1, sqrt(c / m)) ||
                         fabs(got - sqrt(2 * c / m)) <= 1e-9 * fmax(1, sqrt(2 * c / m)))
                    printf(" — that is a ratio, not a time: the interval grows with both C and MTBF");
                else if (fabs(got * 60 - want) <= 1e-9 * want || fabs(got * 3600 - want) <= 1e-9 * want)
                    printf(" — that is in minutes or hours: C and MTBF are in seconds, and so is the interval");
                printf("\n");
                return 1;
            }
            static const double taus[] = {1, 30, 600, 7200};
            for (size_t q = 0; q < sizeof taus / sizeof taus[0]; q++) {
                double tau = taus[q], w = tau / 2 + c * m / tau;
                double g = ck_tape_double("expected_lost_work", expected_lost_work(tau, c, m));
                if (!(fabs(g - w) <= 1e-9 * w)) {
                    printf("FAIL: expected_lost_work(tau = %g s, C = %g s, MTBF = %g s) = %.10g, expected tau/2 + "
                           "C·MTBF/tau = %.10g",
                           tau, c, m, g, w);
                    if (fabs(g - tau / 2) <= 1e-9 * w)
                        printf(" — only the redone work: the checkpoints written between two failures cost C each");
                    else if (fabs(g - c * m / tau) <= 1e-9 * w)
                        printf(" — the work redone after a failure (tau/2 on average) is missing");
                    else if (fabs(g - (tau + c * m / tau)) <= 1e-9 * w)
                        printf(" — a failure strikes halfway through an interval on average: tau/2 redone, not tau");
                    printf("\n");
                    return 1;
                }
            }
        }
    /* every argument position of both functions bad in turn: 0, negative, NAN and infinite */
    const double bad[][3] = {{0, 1, 1}, {-1, 1, 1}, {NAN, 1, 1}, {INFINITY, 1, 1},
                             {1, 0, 1}, {1, -2, 1}, {1, NAN, 1}, {1, INFINITY, 1},
                             {1, 1, 0}, {1, 1, -5}, {1, 1, NAN}, {1, 1, INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double y = ck_tape_double("young_daly_interval (bad)", young_daly_interval(bad[i][0], bad[i][1]));
        double l = ck_tape_double("expected_lost_work (bad)", expected_lost_work(bad[i][0], bad[i][1], bad[i][2]));
        bool ybad = !(isfinite(bad[i][0]) && bad[i][0] > 0 && isfinite(bad[i][1]) && bad[i][1] > 0);
        if ((ybad && !isnan(y)) || !isnan(l)) {
            printf("FAIL: young_daly_interval(%g, %g) = %g, expected_lost_work(%g, %g, %g) = %g: an argument that is "
                   "not finite and > 0 gives NAN (elastic.h)\n",
                   bad[i][0], bad[i][1], y, bad[i][0], bad[i][1], bad[i][2], l);
            return 1;
        }
    }
    printf("young_daly_interval and expected_lost_work equal their closed forms (C 1 ms-300 s, MTBF 50 s-11 days); "
           "bad arguments give NAN\n");
    return 0;
}

int main(int argc, char **argv) {
    static const ck_entry_t checks[] = {
        {"plan", plan_check}, {"resume", resume_check}, {"once", once_check}, {"young_daly", young_daly_check},
        {NULL, NULL},
    };
    return ck_main(argc, argv, checks);
}
