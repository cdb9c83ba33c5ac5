/* device_step.c — the training step when the model lives on a GPU (--device cuda).
 *
 * The same five stages as your train_step, with the gradient clipping done where the gradients are
 * (ops_sumsq and ops_scale) and the optimizer running the reference kernels of kernels.cu. Your
 * lesson-01 functions are the CPU path; their GPU twins are checked against them by
 * tests/gpu/check.sh. */
#include "trainer.h"

float train_step_device(trainer_t *t, double lr) {
    model_t *m = &t->model;
    model_zero_grad(m);
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    model_backward(m, 1.0f, NULL, NULL);
    clip_grad_norm_ops(t->ops, m->grads, model_num_params(m), t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    return loss;
}
