/* train_step.c — one optimisation step of the single-device trainer:
 *
 *   zero the gradients → forward → backward → clip the global gradient norm → optimizer step
 *
 * The batch is already in t->ctx (t->local_batch contexts of t->model.cfg.context tokens) and
 * t->targets. Everything you need is in model.h (model_zero_grad, model_forward, model_backward)
 * and optim.h (clip_grad_norm, optim_step); the options are in t->cfg (t->cfg.clip). */
#include "trainer.h"

float train_step(trainer_t *t, double lr) {
    model_t *m = &t->model;
    // TODO(01 train_step): zero the gradients, run forward (keep its loss) and backward
    //   (grad_scale 1, no hook), clip to t->cfg.clip, take one optimizer step; return the loss.
    (void)m, (void)lr;
    return 0.0f;
}
