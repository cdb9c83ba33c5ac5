/* sampler.c — DistributedSampler's sizes and its __iter__, as PyTorch computes them.
 *
 * Sizes (L examples, N replicas):
 *   num_samples = ceil((L − N) / N)   if drop_last and L % N != 0     (floor(L/N), the tail dropped)
 *               = ceil(L / N)         otherwise                        (padded up)
 *   total_size  = num_samples · N
 *
 * The list of an epoch:
 *   1. indices = randperm(L) with PyTorch's generator seeded by seed + epoch
 *      (mt19937_randperm in common/mt19937.h), or 0, 1, …, L−1 without shuffle;
 *   2. without drop_last: append the HEAD of that list until there are total_size entries (again
 *      from the start when L is smaller than what is missing); with drop_last: keep the first
 *      total_size entries (the tail is dropped);
 *   3. rank r takes entries r, r + N, r + 2N, …  (strided, not a contiguous block).
 *
 * Every rank computes the same list — same seed, same epoch — and no two ranks take the same
 * position: without padding their lists are disjoint and together cover every index once. */
#include "sampler.h"

#include "mt19937.h"
#include "util.h"

int sampler_init(sampler_t *s, size_t dataset_len, int num_replicas, int rank, bool shuffle, uint64_t seed,
                 bool drop_last) {
    if (num_replicas < 1 || rank < 0 || rank >= num_replicas) return -1;
    s->dataset_len = dataset_len;
    s->num_replicas = num_replicas;
    s->rank = rank;
    s->shuffle = shuffle;
    s->seed = seed;
    s->drop_last = drop_last;
    s->epoch = 0;
    // TODO(07 sampler sizes): set s->num_samples and s->total_size by the formulas above (README,
    //   "The list of an epoch"), exact for every size_t L: L < N included, and past 2^53, where a
    //   ceil computed in floating point rounds wrong.
    // BEGIN SOLUTION
    size_t L = dataset_len, N = (size_t)num_replicas;
    if (drop_last && L % N != 0)
        s->num_samples = L > N ? (L - N + N - 1) / N : 0;
    else
        s->num_samples = (L + N - 1) / N;
    s->total_size = s->num_samples * N;
    // END SOLUTION
    // SKELETON: DP_TODO();
    // SKELETON: s->num_samples = 0;
    // SKELETON: s->total_size = 0;
    return 0;
}

void sampler_set_epoch(sampler_t *s, int64_t epoch) {
    // TODO(07 set_epoch): remember the epoch (the next list is drawn with seed + epoch).
    // BEGIN SOLUTION
    s->epoch = epoch;
    // END SOLUTION
    // SKELETON: (void)s, (void)epoch;
    // SKELETON: DP_TODO();
}

size_t sampler_indices(const sampler_t *s, uint32_t *out) {
    // TODO(07 sampler_indices): out has room for max(dataset_len, total_size) entries. On return
    //   out[0 .. num_samples) holds this rank's entries of the epoch's list (steps 1–3 above), in list
    //   order; the rest of out is scratch. Return num_samples. Given: mt19937_randperm (PyTorch's randperm).
    // BEGIN SOLUTION
    size_t L = s->dataset_len, N = (size_t)s->num_replicas;
    if (s->shuffle)
        mt19937_randperm(out, L, s->seed + (uint64_t)s->epoch);
    else
        for (size_t i = 0; i < L; i++) out[i] = (uint32_t)i;
    for (size_t i = L; i < s->total_size; i++) out[i] = out[(i - L) % L];              /* pad with the head, cycling */
    for (size_t j = 0; j < s->num_samples; j++) out[j] = out[(size_t)s->rank + j * N]; /* strided (in place) */
    return s->num_samples;
    // END SOLUTION
    // SKELETON: (void)s, (void)out;
    // SKELETON: DP_TODO();
    // SKELETON: return 0;
}
