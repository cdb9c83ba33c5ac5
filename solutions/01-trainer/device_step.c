/* device_step.c — the training step when the model lives on a GPU (--device cuda), and the host half
 * of its AdamW step. train.c picks train_step_device when the trainer's ops context is a GPU's; optim.c
 * calls adamw_step_device for an AdamW optimizer whose state is on a GPU.
 *
 * On a GPU, t->model.params, grads and the optimizer's m and v are device pointers: the host may pass
 * them to functions that take an ops context (or a stream) but never read or write them itself. The
 * batch (t->ctx, t->targets) stays on the host; model_forward copies it over. grading/grade 01 checks
 * both functions on a GPU against train_step and adamw_step (and skips that check elsewhere). */
#include "trainer.h"

#include "util.h"

#ifdef DPC_HAVE_CUDA
#include "kernels.h"

#include <math.h>
#endif

float train_step_device(trainer_t *t, double lr) {
    model_t *m = &t->model;
    // TODO(01 train_step_device): the same five stages as train_step, in the same order, returning the
    //   loss of the forward pass. Every stage already runs where the model's buffers are except the
    //   clipping: use clip_grad_norm_ops (optim.h) with t->ops, which sums the norm and scales the
    //   gradients on the GPU (clip_grad_norm would read device memory from the host).
    // BEGIN SOLUTION
    model_zero_grad(m);
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    model_backward(m, 1.0f, NULL, NULL);
    clip_grad_norm_ops(t->ops, m->grads, model_num_params(m), t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    return loss;
    // END SOLUTION
    // SKELETON: (void)m, (void)lr;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0f;
}

#ifdef DPC_HAVE_CUDA
void adamw_step_device(void *stream, float *params, const float *grads, float *m, float *v, size_t n, int64_t t,
                       const adamw_hparams_t *hp, double lr) {
    // TODO(01 adamw_step_device): one AdamW step (step number t, already incremented) on n elements
    //   in device memory: compute the seven scalars adamw_step_cuda (kernels.h) takes from hp, t and
    //   lr exactly as adamw_step does (in double, each rounded to float once), then launch it on
    //   stream. Nothing here touches the arrays themselves.
    // BEGIN SOLUTION
    double bc1 = 1.0 - pow(hp->beta1, (double)t), bc2 = 1.0 - pow(hp->beta2, (double)t);
    adamw_step_cuda(stream, params, grads, m, v, n, (float)(1.0 - lr * hp->weight_decay), (float)(1.0 - hp->beta1),
                    (float)hp->beta2, (float)(1.0 - hp->beta2), (float)(-lr / bc1), (float)sqrt(bc2), (float)hp->eps);
    // END SOLUTION
    // SKELETON: (void)stream, (void)params, (void)grads, (void)m, (void)v, (void)n, (void)t, (void)hp, (void)lr;
    // SKELETON: DP_TODO();
}
#endif
