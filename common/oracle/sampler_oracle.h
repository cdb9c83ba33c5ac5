/* sampler_oracle.h — PyTorch's DistributedSampler as one visiting order: the oracle that lesson 07's
 * sampler is graded against, and the order of the reference trainer's --order sampler.
 *
 * It is an oracle, not a course function: it lives apart from common/'s library, is linked into the
 * programs from its own archive (build/common/oracle/liboracle.a) and is not one of the functions a
 * student file may call (grading/grade fails a file that does). The reference trainer (lesson 01's
 * given code) and the grader both use it, so it sits below both.
 *
 * Over R replicas the order is a single list P: randperm(L) from torch.Generator().manual_seed(seed +
 * epoch) (0..L−1 without shuffle), padded with its own head up to total_size = num_samples · R (or
 * cut to total_size with drop_last). Rank r's sampler yields P[r], P[r + R], ...; global batch s (of
 * R × B) is P[s·R·B .. (s+1)·R·B), within which rank r takes positions r, r + R, ...
 * The sizes: lessons/pytorch-semantics.md, "DistributedSampler". */
#ifndef DPC_SAMPLER_ORACLE_H
#define DPC_SAMPLER_ORACLE_H

#include "data.h"

#include <stddef.h>

/* num_samples (examples per rank per epoch); total_size is num_samples · replicas. */
size_t sampler_num_samples_ref(size_t len, int replicas, int drop_last);
void data_order_init_sampler(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch, int replicas, int shuffle,
                             int drop_last);

#endif
