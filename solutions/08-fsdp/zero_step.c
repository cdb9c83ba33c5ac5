/* zero_step.c — ZeRO stages 1 and 2: the sharded optimizer step.
 *
 * Every rank holds every unit's parameters in full (padded to N·c, FSDP's layout), but only the
 * optimizer state of its own chunk r of each unit. So each rank can update only chunk r:
 *
 *   stage 1: full gradient of u ──► ×1/N ──► reduce_scatter(N·c) ──► chunk r = the average of chunk r
 *            (stage 2 did this during backward, into shard_grads, with fsdp_reduce_grads)
 *   all:     clip with the global norm ──► AdamW on chunk r of each unit ──► all_gather(N·c)
 *
 * The reduce-scatter and the all-gather are the two halves of lesson 04's ring all-reduce: the same
 * bytes as DDP, for a quarter of the optimizer's memory on 4 ranks. Work in place: chunk r of the
 * full parameters IS this rank's parameter shard, chunk r of the full gradient (stage 1) its
 * gradient shard (fsdp_grad_shard says where). */
#include "fsdp.h"

#include "ring.h"
#include "util.h"

void zero_step(fsdp_t *f, double max_norm, double lr) {
    size_t N = (size_t)f->world_size;
    // TODO(08 zero_step, average): stage 1 only (f->zero_stage == 1; stage 2's gradients are averaged
    //   already). in: f->full_grads[u], this rank's gradient of unit u (N·chunk floats, padding 0;
    //   yours to overwrite). out: chunk r of it (fsdp_grad_shard(f, u)) holds the AVERAGE over the
    //   ranks of chunk r. Given: reduce_scatter on f->coll; ops_scale on f->t->ops.
    // BEGIN SOLUTION
    if (f->zero_stage == 1)
        for (int u = 0; u < f->nunits; u++) {
            size_t count = N * f->units[u].chunk;
            if (N > 1) ops_scale(f->t->ops, f->full_grads[u], 1.0f / (float)N, count);
            reduce_scatter(&f->coll, f->full_grads[u], count);
        }
    // END SOLUTION
    // SKELETON: (void)N, (void)lr;
    // SKELETON: DP_TODO();
    fsdp_clip(f, max_norm); /* yours (fsdp_shard.c): the global norm from every rank's gradient shards */
    // TODO(08 zero_step, optimizer): one optimizer step of this rank's chunk of every unit, and of
    //   nothing else: its parameters are chunk r of f->gathered[u] (chunk floats: fsdp_param_shard(f,
    //   u)), its gradients fsdp_grad_shard(f, u). Given: zero_optim_unit (it finds the unit's moments
    //   itself), fsdp_param_shard, fsdp_grad_shard.
    // BEGIN SOLUTION
    for (int u = 0; u < f->nunits; u++) zero_optim_unit(f, u, fsdp_param_shard(f, u), fsdp_grad_shard(f, u), lr);
    // END SOLUTION
    // TODO(08 zero_step, all-gather): every rank's f->gathered[u] ends holding every rank's updated
    //   chunk (each rank updated only its own). Given: all_gather on f->coll; the count is the
    //   padded N·chunk.
    // BEGIN SOLUTION
    for (int u = 0; u < f->nunits; u++) all_gather(&f->coll, f->gathered[u], N * f->units[u].chunk);
    // END SOLUTION
}
