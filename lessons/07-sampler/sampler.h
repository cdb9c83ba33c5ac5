/* sampler.h — lesson 07: torch.utils.data.distributed.DistributedSampler, exactly.
 *
 * Each epoch every rank computes the same list — a permutation of the dataset's indices drawn
 * with PyTorch's generator seeded by seed + epoch, padded with its own head (or cut, with
 * drop_last) to a multiple of the number of replicas — and takes every num_replicas-th entry
 * starting at its rank:
 *
 *   L = 10, N = 3, no shuffle:    0 1 2 3 4 5 6 7 8 9 | 0 1        (padded to total_size 12)
 *                                 r0: 0 3 6 9   r1: 1 4 7 0   r2: 2 5 8 1
 */
#ifndef DPC_SAMPLER_H
#define DPC_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t dataset_len; /* L */
    int num_replicas;   /* N */
    int rank;
    bool shuffle, drop_last;
    uint64_t seed;
    int64_t epoch;
    size_t num_samples; /* what this rank yields per epoch */
    size_t total_size;  /* num_samples · N */
} sampler_t;

/* PyTorch's constructor: returns 0, or -1 when rank is not in [0, num_replicas) (or
 * num_replicas < 1). epoch starts at 0. */
int sampler_init(sampler_t *s, size_t dataset_len, int num_replicas, int rank, bool shuffle, uint64_t seed,
                 bool drop_last);
/* Only sets the epoch the NEXT list is drawn for. */
void sampler_set_epoch(sampler_t *s, int64_t epoch);
/* This rank's indices for the current epoch into out[0..num_samples); returns num_samples.
 * out must hold at least max(dataset_len, total_size) entries: it is the scratch for the whole
 * epoch's list, which is dataset_len long before drop_last cuts it to total_size. */
size_t sampler_indices(const sampler_t *s, uint32_t *out);

#endif
