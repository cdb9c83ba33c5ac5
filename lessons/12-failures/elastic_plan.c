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
    (void)global_batch, (void)world, (void)rank, (void)micro_cap, (void)p;
    DP_TODO();
    return -1;
}

int resume_position(const elastic_ckpt_t *ck, sampler_t *sampler, const elastic_plan_t *p, resume_t *out) {
    // TODO(12 resume_position): from the checkpoint's step, epoch and consumed (elastic.h): restore
    //   the sampler's epoch (lesson 07's sampler_set_epoch: the lists are drawn for it), and say
    //   where this launch starts: the checkpoint's step, and this rank's slice of it, consumed
    //   positions into the epoch's list (not its start). S = sampler->total_size / B steps make an
    //   epoch. Return -1 for a checkpoint that contradicts itself (elastic.h).
    (void)ck, (void)sampler, (void)p, (void)out;
    DP_TODO();
    return -1;
}
