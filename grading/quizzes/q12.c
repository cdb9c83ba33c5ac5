/* q12.c — lesson 12's quiz: how the reference's elastic_plan shares a global batch out over the
 * ranks left after a failure (lessons/12-failures/elastic.h), where a restart continues in the
 * epoch, and the Young–Daly interval with the lost work it minimises. */
#include "elastic.h"
#include "quiz.h"

#include <math.h>

void quiz_12(quiz_t *qz, rng_t *r);

void quiz_12(quiz_t *qz, rng_t *r) {
    int R0 = quiz_int(r, 3, 8), N = quiz_int(r, 2, R0 - 1), b0 = quiz_int(r, 3, 9);
    int B = R0 * b0;
    if (B % N == 0) B += R0; /* a world that does not divide B: uneven slices */
    int rank = 0, cap = quiz_int(r, 2, 4);
    elastic_plan_t p;
    elastic_plan(B, N, rank, cap, &p);
    while (p.local_batch % cap == 0 && cap < p.local_batch) elastic_plan(B, N, rank, ++cap, &p); /* uneven k */
    long long slice[2] = {(long long)p.local_batch, (long long)p.offset};
    quiz_why(quiz_list(qz, slice, 2,
                       "A run started on %d ranks with a global batch of B = %d loses ranks and restarts on N = %d. "
                       "How many examples does rank %d take each step, and at which offset of the step's B positions "
                       "does its slice start? (two numbers)",
                       R0, B, N, rank),
             "the global batch stays B = %d: rank r takes chunk_range(B, N, r), the first B %% N = %d ranks one "
             "longer: %lld examples at offset %lld",
             B, B % N, slice[0], slice[1]);
    quiz_why(quiz_number(qz, p.micro_steps, 0,
                         "Its memory takes at most %d examples per forward. How many micro-batches does it run?", cap),
             "k = ceil(b_r / micro_cap) = ceil(%lld / %d) = %d, the first ones under no_sync", (long long)p.local_batch,
             cap, p.micro_steps);
    int last = p.micro_steps - 1;
    quiz_why(quiz_number(qz, p.weight[last], 1e-6,
                         "Its micro-batches split as chunk_range(b_r, k, i). With what weight does the gradient of its "
                         "LAST micro-batch count (DDP then averages over the %d ranks)?",
                         N),
             "w = b_i * N / B = %lld * %d / %d = %.6g: averaged over N ranks, the sum over every micro-batch gives "
             "the mean over the B examples (1/k is right only if every micro-batch of every rank is equal, lesson 06's "
             "b_i / b_r only if every rank has the same b_r)",
             (long long)p.micro[last], N, B, p.weight[last]);

    /* where the restart continues */
    int L = quiz_int(r, 10 * B, 40 * B) + 1;
    int total = (L + R0 - 1) / R0 * R0, S = total / B, s = quiz_int(r, S + 1, 3 * S - 1);
    if (s % S == 0) s++;
    long long pos[2] = {s / S, (long long)(s % S) * B};
    quiz_why(quiz_list(qz, pos, 2,
                       "The dataset has %d examples; the DistributedSampler over the first launch's %d replicas pads "
                       "it to a multiple of %d, and each epoch is cut into global batches of %d (the last partial one "
                       "dropped). The last good checkpoint is at step %d (the next step to run). Which epoch is that, "
                       "and how many positions of its list were already trained on (consumed)? (two numbers)",
                       L, R0, R0, B, s),
             "total_size = %d, S = %d / %d = %d steps an epoch: epoch %d / %d = %lld, consumed = (%d %% %d) * %d = "
             "%lld",
             total, total, B, S, s, S, pos[0], s, S, B, pos[1]);
    int r1 = N - 1;
    elastic_plan_t q;
    elastic_plan(B, N, r1, cap, &q);
    quiz_why(quiz_number(qz, (double)(pos[1] + q.offset), 0,
                         "After the restart on %d ranks, at which position of that epoch's list does rank %d's first "
                         "slice start?",
                         N, r1),
             "consumed + its offset: %lld + %lld = %lld — not its offset alone (that would redo the epoch's first "
             "%lld positions) and in the restored epoch %lld (sampler.set_epoch)",
             pos[1], (long long)q.offset, pos[1] + q.offset, pos[1], pos[0]);

    /* how often to checkpoint */
    double C = quiz_int(r, 10, 120), hours = quiz_int(r, 2, 24), M = hours * 3600;
    double tau = young_daly_interval(C, M);
    quiz_why(
        quiz_number(qz, tau / 60, 0.01,
                    "Writing a checkpoint takes C = %.0f s, and the job fails on average every %.0f hours. How many "
                    "minutes of training between checkpoints lose the least time?",
                    C, hours),
        "tau* = sqrt(2 * C * MTBF) = sqrt(2 * %.0f * %.0f) s = %.4g s = %.4g min", C, M, tau, tau / 60);
    double t2 = tau * 4, lost = expected_lost_work(t2, C, M);
    quiz_why(
        quiz_number(qz, lost / 60, 0.01,
                    "With checkpoints every %.4g minutes instead (4 times that), how many minutes does each failure "
                    "cost on average, the checkpoints written between two failures included?",
                    t2 / 60),
        "lost = tau/2 + C * MTBF / tau = %.4g + %.4g s = %.4g min (at tau*, %.4g min: both terms equal there)", t2 / 2,
        C * M / t2, lost / 60, expected_lost_work(tau, C, M) / 60);
    static const char *const why[] = {
        "The old per-rank batch on the survivors trains each step on fewer examples: the effective learning rate "
        "and the noise of every later step change, so the run is no longer the one it would have been",
        "DDP refuses to start with a different per-rank batch", "The checkpoint stores the per-rank batch",
        "The all-reduce needs the same byte count on every rank"};
    quiz_why(quiz_choice(qz, r, why, 4, 0,
                         "Why must the global batch, not the per-rank batch, stay the same across a restart on fewer "
                         "ranks?"),
             "the optimizer sees one gradient per step, the mean over the global batch: keep B and the rest of the "
             "run cannot tell how many ranks computed it");
}
