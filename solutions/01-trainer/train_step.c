/* train_step.c — one optimisation step of the single-device trainer:
 *
 *   zero the gradients → forward → backward → clip the global gradient norm → optimizer step
 *
 * The batch is already in t->ctx (t->local_batch contexts of t->model.cfg.context tokens) and
 * t->targets. Everything you need is in model.h (model_zero_grad, model_forward, model_backward)
 * and optim.h (clip_grad_norm, optim_step); the options are in t->cfg (t->cfg.clip). */
#include "trainer.h"

#include "util.h"

float train_step(trainer_t *t, double lr) {
    model_t *m = &t->model;
    // TODO(01 train_step): one step, in the order drawn above (README, "The training step"); return
    //   the loss of this batch. Backward runs with grad_scale 1 and no hook (NULL, NULL); clipping
    //   uses t->cfg.clip; the optimizer state is t->optim.
    // BEGIN SOLUTION
    model_zero_grad(m);
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    model_backward(m, 1.0f, NULL, NULL);
    clip_grad_norm(m->grads, model_num_params(m), t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    return loss;
    // END SOLUTION
    // SKELETON: (void)m, (void)lr;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0f;
}
