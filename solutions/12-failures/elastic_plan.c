/* elastic_plan.c — the two functions that make a restart on another world size invisible: the
 * step's B examples shared out over the ranks there are now (elastic_plan), and where each rank
 * continues in the interrupted epoch (resume_position). The contracts and the arithmetic of the
 * weights: elastic.h. */
#include "elastic.h"

#include "ring.h"
#include "util.h"

int elastic_plan(int64_t global_batch, int world, int rank, int micro_cap, elastic_plan_t *p) {
    // TODO(12 elastic_plan): fill p for rank `rank` of `world` (elastic.h): its contiguous slice of
    //   the step's global_batch positions as chunk_range (lesson 04) gives it (local_batch, offset),
    //   cut into k = ceil(local_batch / micro_cap) micro-batches split by chunk_range too, each with
    //   the weight that makes DDP's average over `world` ranks the mean over all global_batch
    //   examples. Return -1 on the invalid inputs elastic.h lists (before writing anything wrong).
    // BEGIN SOLUTION
    if (global_batch < 1 || world < 1 || rank < 0 || rank >= world || micro_cap < 1 || global_batch < world) return -1;
    size_t off, len;
    chunk_range((size_t)global_batch, world, rank, &off, &len);
    int64_t b = (int64_t)len, k = (b + micro_cap - 1) / micro_cap;
    if (k > ELASTIC_MAX_MICRO) return -1;
    p->local_batch = b;
    p->offset = (int64_t)off;
    p->micro_steps = (int)k;
    for (int i = 0; i < (int)k; i++) {
        size_t mo, ml;
        chunk_range((size_t)b, (int)k, i, &mo, &ml);
        p->micro[i] = (int64_t)ml;
        p->weight[i] = (double)ml * (double)world / (double)global_batch;
    }
    return 0;
    // END SOLUTION
    // SKELETON: (void)global_batch, (void)world, (void)rank, (void)micro_cap, (void)p;
    // SKELETON: DP_TODO();
    // SKELETON: return -1;
}

int resume_position(const elastic_ckpt_t *ck, sampler_t *sampler, const elastic_plan_t *p, resume_t *out) {
    // TODO(12 resume_position): from the checkpoint's step, epoch and consumed (elastic.h): restore
    //   the sampler's epoch (lesson 07's sampler_set_epoch: the lists are drawn for it), and say
    //   where this launch starts: the checkpoint's step, and this rank's slice of it, consumed
    //   positions into the epoch's list (not its start). S = sampler->total_size / B steps make an
    //   epoch. Return -1 for a checkpoint that contradicts itself (elastic.h).
    // BEGIN SOLUTION
    int64_t B = ck->global_batch;
    if (B < 1 || ck->step < 0 || ck->epoch < 0 || ck->consumed < 0 || ck->consumed % B != 0) return -1;
    int64_t S = (int64_t)(sampler->total_size / (size_t)B);
    if (S < 1 || ck->consumed / B >= S || ck->epoch * S + ck->consumed / B != ck->step) return -1;
    sampler_set_epoch(sampler, ck->epoch);
    out->step = ck->step;
    out->position = ck->consumed + p->offset;
    return 0;
    // END SOLUTION
    // SKELETON: (void)ck, (void)sampler, (void)p, (void)out;
    // SKELETON: DP_TODO();
    // SKELETON: return -1;
}
