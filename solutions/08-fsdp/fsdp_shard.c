/* fsdp_shard.c — the sharding itself: layout, gather, reduce-scatter, and the global norm.
 *
 * A unit of n parameters is padded to N·c, c = ceil(n/N); rank r owns elements [r·c, (r+1)·c),
 * the padding (zeros) at the very end, so only the last rank(s) hold any:
 *
 *   n = 10, N = 4, c = 3:   [0 1 2][3 4 5][6 7 8][9 · ·]        (· = padding, always 0)
 *                            rank 0 rank 1 rank 2 rank 3
 *
 * This is lesson 04's chunking with count = N·c (all chunks equal), so its all_gather and
 * reduce_scatter work on the padded buffer unchanged:
 *   gather:  my shard → chunk r of the full buffer; all_gather(N·c) → every chunk filled
 *   scatter: full gradient × 1/N; reduce_scatter(N·c) → chunk r holds the average; add it to my shard
 *
 * The global gradient norm for clipping needs every rank's Σ g² — but only once, so padding must
 * not count (it is zero anyway, and so contributes nothing, but a shard must never be counted twice):
 *   norm² = Σ_ranks Σ_{my real elements} g²        one all-reduce of one number (ring_allreduce) */
#include "fsdp.h"

#include "ring.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

void fsdp_shard_layout(fsdp_t *f, const model_t *m) {
    f->nunits = m->nunits;
    f->units = dp_calloc((size_t)m->nunits, sizeof(fsdp_unit_t));
    f->shard_numel = 0;
    // TODO(08 fsdp_shard_layout): fill f->units[u] (numel, chunk, shard_offset) for every unit and
    //   f->shard_numel, for the layout drawn above (README, "The layout"). chunk is the same on every
    //   rank; a rank's chunks of all units lie end to end in unit order in its shard arrays, so
    //   shard_offset is where unit u starts there and shard_numel is the whole length. Units can
    //   pass 2^32 elements: every size and offset is exact size_t arithmetic.
    // BEGIN SOLUTION
    size_t N = (size_t)f->world_size;
    for (int u = 0; u < m->nunits; u++) {
        f->units[u].numel = m->unit_numel[u];
        f->units[u].chunk = (m->unit_numel[u] + N - 1) / N;
        f->units[u].shard_offset = f->shard_numel;
        f->shard_numel += f->units[u].chunk;
    }
    // END SOLUTION
    // SKELETON: DP_TODO();
}

void fsdp_gather(fsdp_t *f, coll_t *coll, int u, float *full) {
    const fsdp_unit_t *x = &f->units[u];
    // TODO(08 fsdp_gather): in: this rank's shard of unit u (f->shard_params + shard_offset, chunk
    //   floats). out: full (N·chunk floats) holds the whole padded unit, the same on every rank.
    //   Given: all_gather (ring.h) on coll; ops_copy on coll->ops, not on the trainer's: the
    //   prefetch thread's coll has its own GPU stream, and a copy must be ordered before its gather.
    // BEGIN SOLUTION
    ops_copy(coll->ops, f->shard_params + x->shard_offset, full + (size_t)f->rank * x->chunk, x->chunk);
    all_gather(coll, full, (size_t)f->world_size * x->chunk);
    // END SOLUTION
    // SKELETON: (void)x, (void)coll, (void)full;
    // SKELETON: DP_TODO();
}

void fsdp_reduce_grads(fsdp_t *f, int u, float *full_grad) {
    const fsdp_unit_t *x = &f->units[u];
    // TODO(08 fsdp_reduce_grads): in: full_grad, this rank's gradient of the whole unit u (N·chunk
    //   floats, padding 0; yours to overwrite). out: the gradient shard (f->shard_grads +
    //   shard_offset) has the AVERAGE over ranks of its chunk ADDED to what it held (gradients
    //   accumulate). Given: reduce_scatter on f->coll; ops_scale, ops_axpy on f->t->ops. No new buffers.
    // BEGIN SOLUTION
    size_t count = (size_t)f->world_size * x->chunk;
    if (f->world_size > 1) ops_scale(f->t->ops, full_grad, 1.0f / (float)f->world_size, count);
    reduce_scatter(&f->coll, full_grad, count);
    ops_axpy(f->t->ops, 1.0f, full_grad + (size_t)f->rank * x->chunk, f->shard_grads + x->shard_offset, x->chunk);
    // END SOLUTION
    // SKELETON: (void)x, (void)full_grad;
    // SKELETON: DP_TODO();
}

double fsdp_clip(fsdp_t *f, double max_norm) {
    double sumsq = 0;
    // TODO(08 fsdp_clip): leave in sumsq the Σ g² of the WHOLE model's gradient, the same value on
    //   every rank: each real element counted once, padding never (README, "The layout": which
    //   elements of a shard are real). Unit u's gradient shard is fsdp_grad_shard(f, u) (c floats).
    //   Given: ops_sumsq over a shard; ring_allreduce on f->host_coll (this one number lives on the
    //   host even when the shards are on a GPU).
    // BEGIN SOLUTION
    for (int u = 0; u < f->nunits; u++) {
        const fsdp_unit_t *x = &f->units[u];
        size_t start = (size_t)f->rank * x->chunk;
        size_t real = start >= x->numel ? 0 : (x->numel - start < x->chunk ? x->numel - start : x->chunk);
        sumsq += ops_sumsq(f->t->ops, fsdp_grad_shard(f, u), real);
    }
    float total = (float)sumsq;
    ring_allreduce(&f->host_coll, &total, 1, REDOP_SUM);
    sumsq = total;
    // END SOLUTION
    // SKELETON: DP_TODO();
    /* the same coefficient on every rank and every unit: each call scales one unit's shard */
    double norm = 0;
    for (int u = 0; u < f->nunits; u++)
        norm = clip_grad_norm_from_sumsq(f->t->ops, fsdp_grad_shard(f, u), f->units[u].chunk, max_norm, sumsq);
    return f->nunits ? norm : 0;
}
