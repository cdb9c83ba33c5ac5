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
    // TODO(08 fsdp_shard_layout): for every unit: numel = m->unit_numel[u], chunk = ceil(numel / N),
    //   shard_offset = the running total of the chunks before it; then shard_numel = that total.
}

void fsdp_gather(fsdp_t *f, coll_t *coll, int u, float *full) {
    const fsdp_unit_t *x = &f->units[u];
    // TODO(08 fsdp_gather): copy the shard (f->shard_params + shard_offset, chunk floats) to
    //   full + r·chunk with ops_copy on coll->ops (the prefetch thread's coll has its own GPU stream, and
    //   the copy must be ordered before the gather's transfers), then all_gather(coll, full, N·chunk).
    (void)x, (void)coll, (void)full;
}

void fsdp_reduce_grads(fsdp_t *f, int u, float *full_grad) {
    const fsdp_unit_t *x = &f->units[u];
    // TODO(08 fsdp_reduce_grads): scale full_grad (N·chunk) by 1/N, reduce_scatter it on f->coll,
    //   then add chunk r into the gradient shard (f->shard_grads + shard_offset).
    (void)x, (void)full_grad;
}

double fsdp_clip(fsdp_t *f, double max_norm) {
    double sumsq = 0;
    // TODO(08 fsdp_clip): sumsq = Σ g² over this rank's REAL elements of every unit's shard (a shard
    //   holds chunk floats, of which max(0, min(chunk, numel − r·chunk)) are real); all-reduce it over
    //   the ranks with ring_allreduce (lesson 04) on f->host_coll (the number is on the host even when
    //   the shards are on a GPU); then clip_grad_norm_from_sumsq.
    return clip_grad_norm_from_sumsq(f->t->ops, f->shard_grads, f->shard_numel, max_norm, sumsq);
}
