/* ddp_hooks.c — launching the buckets while backward runs, and waiting for them.
 *
 * ddp_grad_ready(d, i) runs on the compute thread each time backward has finished the gradient of
 * parameter i. It counts down its bucket's pending gradients; when a bucket is complete it is
 * averaged (scaled by 1/N, here, BEFORE the all-reduce, as PyTorch does: the all-reduce then sums
 * values that are already 1/N smaller — no overflow in low precision, and the result is the mean),
 * and launched — but only in bucket order: bucket k goes only once buckets 0..k−1 have gone. Every
 * rank must issue the all-reduces in the same order or they would pair up the wrong buckets.
 *
 *   ready:    h.2 ✓  → bucket 1 complete, but bucket 0 is not: wait
 *             head ✓ → bucket 0 complete: launch 0, then 1 (already complete)
 *
 * ddp_finish runs after backward: by then every bucket must have been launched; wait for all of them
 * (ddp_wait_all) and reset the counters for the next backward (ddp_reset).
 *
 * Use d->launch(d, b) to launch (it returns at once: the communication thread does the all-reduce),
 * ops_scale on the bucket's slice of t->model.grads, and d->require_backward_grad_sync (lesson 06:
 * when it is false, the hook does nothing and gradients just accumulate). */
#include "ddp.h"

#include "util.h"

void ddp_grad_ready(void *ctx, int param_index) {
    ddp_t *d = ctx;
    // TODO(05 ddp_grad_ready): called once per parameter per backward, in no particular order.
    //   When d->require_backward_grad_sync is false: do nothing. Otherwise, on return: a bucket whose
    //   pending count reached 0 has been scaled by 1/N (ops_scale on its slice of d->t->model.grads),
    //   once; buckets 0..d->next_bucket−1 have been handed to d->launch, in that order, and
    //   d->next_bucket is the first bucket that is not complete yet. Never wait for communication.
    // BEGIN SOLUTION
    if (!d->require_backward_grad_sync) return;
    ddp_bucket_t *b = &d->buckets[d->bucket_of[param_index]];
    if (--b->pending == 0 && d->world_size > 1)
        ops_scale(d->t->ops, d->t->model.grads + b->offset, 1.0f / (float)d->world_size, b->count);
    while (d->next_bucket < d->nbuckets && d->buckets[d->next_bucket].pending == 0) d->launch(d, d->next_bucket++);
    // END SOLUTION
    // SKELETON: (void)d, (void)param_index;
    // SKELETON: DP_TODO();
}

void ddp_finish(ddp_t *d) {
    // TODO(05 ddp_finish): runs once after every backward. After a synchronised backward a bucket
    //   that was never launched is an error: dp_fatal naming it (one of its gradients never became
    //   ready). On return every launched all-reduce has finished (ddp_wait_all) and the per-backward
    //   state is fresh for the next one (ddp_reset). Under no_sync nothing was launched.
    // BEGIN SOLUTION
    if (d->require_backward_grad_sync && d->next_bucket < d->nbuckets)
        dp_fatal("rank %d: DDP bucket %d was never launched: a gradient of parameters %d..%d did not become ready "
                 "in this backward",
                 d->rank, d->next_bucket, d->buckets[d->next_bucket].first_param,
                 d->buckets[d->next_bucket].last_param);
    ddp_wait_all(d);
    ddp_reset(d);
    // END SOLUTION
    // SKELETON: (void)d;
    // SKELETON: DP_TODO();
}
