/* accum_step.c — k micro-batches, one synchronisation, one optimizer step.
 *
 * The rank's B examples (t->ctx, t->targets) are cut like the ring's chunks (chunk_range, lesson
 * 04): micro-batch i has b_i examples, the first B % k of them one longer. The loss of the step is
 * the mean over all B examples, so micro-batch i's mean loss counts with weight w_i = b_i / B:
 *
 *   L = (1/B) Σ_examples ℓ  =  Σ_i (b_i/B) · ( (1/b_i) Σ_{x in micro-batch i} ℓ(x) )  =  Σ_i w_i · L_i
 *
 * and its gradient likewise: backward with grad_scale w_i (= 1/k when the micro-batches are equal).
 * Forgetting the weight makes the accumulated gradient k times too large.
 *
 * The inputs: t->ctx holds the rank's B contexts of T = t->cfg.context tokens each, one after
 * another, and t->targets their B targets. */
#include "accum.h"

#include "ring.h"
#include "util.h"

float accum_train_step(trainer_t *t, double lr) {
    accum_t *a = t->ext;
    ddp_t *d = a->ddp;
    model_t *m = &t->model;
    int B = t->local_batch, k = a->accum_steps, T = t->cfg.context;
    double loss = 0;
    d->nlaunched = 0;
    model_zero_grad(m);
    // TODO(06 accum_train_step): one optimizer step over the rank's B examples, run as k micro-batches
    //   split as chunk_range splits (lesson 04). Afterwards: m->grads held the gradient of the mean
    //   loss over all B, averaged over the ranks by ONE synchronised backward (the last; the others
    //   under no_sync, README "no_sync"); it was clipped once and one optim_step taken; loss is the
    //   step's mean loss (weights: README, "The arithmetic"); d->require_backward_grad_sync is true.
    //   Given: model_forward, model_backward with ddp_grad_ready, ddp_finish, clip_grad_norm_ops, optim_step.
    (void)d, (void)m, (void)B, (void)k, (void)T, (void)lr;
    DP_TODO();
    return trainer_global_mean(t, (float)loss);
}
