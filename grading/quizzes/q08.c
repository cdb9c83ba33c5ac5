/* q08.c — lesson 08's quiz: FSDP's shard layout for drawn unit sizes, from the reference
 * fsdp_shard_layout (solutions/08-fsdp/fsdp_shard.c), the traffic of a step over that layout, and the
 * ZeRO stages' memory (the formulas of lessons/pytorch-semantics.md, "FSDP and ZeRO sharding"). */
#include "fsdp.h"
#include "quiz.h"

#include <stdlib.h>
#include <string.h>

void quiz_08(quiz_t *qz, rng_t *r);

void quiz_08(quiz_t *qz, rng_t *r) {
    enum { U = 3 };
    int N = quiz_int(r, 3, 8);
    size_t numel[U];
    for (int u = 0; u < U; u++) {
        numel[u] = (size_t)quiz_int(r, 10, 200);
        if (numel[u] % (size_t)N == 0) numel[u]++; /* padding is the point */
    }
    model_t m;
    memset(&m, 0, sizeof m);
    m.nunits = U;
    m.unit_numel = numel;
    fsdp_t f;
    memset(&f, 0, sizeof f);
    f.world_size = N;
    fsdp_shard_layout(&f, &m);
    fsdp_unit_t *un = f.units;
    quiz_why(quiz_number(qz, (double)un[0].chunk, 0,
                         "FSDP on %d ranks shards a model of three units of %zu, %zu and %zu parameters (each unit "
                         "flattened, padded at the end to a multiple of N, cut into N equal chunks). How many "
                         "elements is each rank's chunk of unit 0?",
                         N, numel[0], numel[1], numel[2]),
             "c = ceil(n / N) = ceil(%zu / %d) = %zu", numel[0], N, un[0].chunk);
    quiz_why(
        quiz_number(qz, (double)(un[1].chunk * (size_t)N - numel[1]), 0, "How many padding elements does unit 1 get?"),
        "N*c - n = %d * %zu - %zu = %zu, all at the end (on the last rank(s))", N, un[1].chunk, numel[1],
        un[1].chunk * (size_t)N - numel[1]);
    quiz_why(quiz_number(qz, (double)un[2].shard_offset, 0,
                         "Each rank keeps its chunks of all units end to end, in unit order. Where (element offset) "
                         "does unit 2's chunk start in a rank's shard?"),
             "after the chunks of units 0 and 1: %zu + %zu = %zu", un[0].chunk, un[1].chunk, un[2].shard_offset);
    double sent = 0;
    for (int u = 0; u < U; u++) sent += 3.0 * (N - 1) * (double)un[u].chunk * 4;
    quiz_why(quiz_number(qz, sent, 0,
                         "In one training step (float32) every unit is all-gathered in forward, again in backward, "
                         "and its gradient reduce-scattered; each is lesson 04's ring half over the padded N*c "
                         "elements. How many bytes does one rank send per step?"),
             "each ring half sends N-1 chunks of c: 3 * (N-1) * sum(c) * 4 bytes = 3 * %d * %zu * 4 = %.0f", N - 1,
             f.shard_numel, sent);
    size_t n_small = (size_t)quiz_int(r, 1, N - 1);
    model_t m2 = m;
    m2.nunits = 1;
    m2.unit_numel = &n_small;
    fsdp_t f2;
    memset(&f2, 0, sizeof f2);
    f2.world_size = N;
    fsdp_shard_layout(&f2, &m2);
    int empty = 0;
    for (int rk = 0; rk < N; rk++) empty += (size_t)rk * f2.units[0].chunk >= n_small;
    quiz_why(quiz_number(qz, empty, 0,
                         "A unit of only %zu parameters on the same %d ranks: how many ranks hold only "
                         "padding for it?",
                         n_small, N),
             "c = ceil(%zu / %d) = %zu; rank r holds elements from r*c, real only while r*c < %zu: %d rank(s) hold "
             "nothing real",
             n_small, N, f2.units[0].chunk, n_small, empty);
    free(f.units);
    free(f2.units);

    int stage = quiz_int(r, 1, 3), N2 = quiz_int(r, 2, 64);
    double bpp = stage == 1 ? 8 + 8.0 / N2 : stage == 2 ? 4 + 12.0 / N2 : 16.0 / N2;
    quiz_why(quiz_number(qz, bpp, 0.01,
                         "ZeRO stage %d on %d ranks, AdamW in float32 (parameter 4, gradient 4, m and v 8 bytes): "
                         "how many bytes per parameter of model state does each rank keep (ignore padding and the "
                         "units gathered transiently)?",
                         stage, N2),
             "stage 1 shards m, v: 4 + 4 + 8/N; stage 2 also the gradients: 4 + 12/N; stage 3 everything: 16/N. "
             "Here %.4g",
             bpp);
    static const char *const why[] = {
        "Every rank still holds the full parameters (and, at stage 1, the full gradients): only what is sharded "
        "shrinks with N",
        "The optimizer state cannot be sharded below one parameter per rank",
        "The all-gather needs a full copy of the optimizer state", "Padding grows with N and eats the savings"};
    quiz_why(
        quiz_choice(qz, r, why, 4, 0,
                    "Why does ZeRO stage 1 never go below 8 bytes per parameter (stage 2 below 4), however many "
                    "ranks there are?"),
        "8 + 8/N tends to 8: the 4 + 4 bytes of parameters and gradients are replicated at stage 1 (4 of "
        "parameters at stage 2); only stage 3 shards those too, at the price of gathering every unit twice a step");
}
