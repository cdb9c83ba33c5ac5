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
    // TODO(07 sampler sizes): num_samples and total_size as above (careful with L < N).
    s->num_samples = 0;
    s->total_size = 0;
    return 0;
}

void sampler_set_epoch(sampler_t *s, int64_t epoch) {
    // TODO(07 set_epoch): remember the epoch (the next list is drawn with seed + epoch).
    (void)s, (void)epoch;
}

size_t sampler_indices(const sampler_t *s, uint32_t *out) {
    // TODO(07 sampler_indices): build the epoch's list in out (steps 1 and 2 above), then keep this
    //   rank's strided entries at the front of out; return num_samples.
    (void)s, (void)out;
    return 0;
}
