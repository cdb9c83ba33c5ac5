// lesson: 05
// base: solutions
// file: ddp_hooks.c
// score: 0
// expect: calls trace_span
// why: no overlap at all (every bucket launched after backward), with all-reduce spans written into the trace while backward runs, so that the overlap check would see communication concurrent with backward
#include "ddp.h"

#include "util.h"

void ddp_grad_ready(void *ctx, int param_index) {
    ddp_t *d = ctx;
    if (!d->require_backward_grad_sync) return;
    ddp_bucket_t *b = &d->buckets[d->bucket_of[param_index]];
    --b->pending;
    /* "communication" during backward, as the overlap check wants to see it */
    double now = dp_now();
    trace_span(d->t->trace, "comm", "allreduce bucket", now, now + 1e-3);
}

void ddp_finish(ddp_t *d) {
    if (d->require_backward_grad_sync) {
        for (int b = 0; b < d->nbuckets; b++) {
            if (d->world_size > 1)
                ops_scale(d->t->ops, d->t->model.grads + d->buckets[b].offset, 1.0f / (float)d->world_size,
                          d->buckets[b].count);
            d->launch(d, b);
        }
        d->next_bucket = d->nbuckets;
    }
    ddp_wait_all(d);
    ddp_reset(d);
}
