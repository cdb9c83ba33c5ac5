/* kernels.h — the trainer's own CUDA kernels (kernels.cu): softmax cross-entropy, AdamW and SGD on
 * device buffers, launched on the given stream (a cudaStream_t). They are the GPU twins of xent.c,
 * adamw.c and optim.c's sgd_step; the kernels of the first three are yours to write (the launchers
 * and SGD are given), and grading/grade 01 checks them against the CPU functions where a GPU is. */
#ifndef DPC_KERNELS_H
#define DPC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One thread per example: probs = softmax(logits row), losses[b] = log-sum-exp − logit of the target. */
void xent_forward_cuda(void *stream, const float *logits, const int32_t *targets, int B, int V, float *probs,
                       float *losses);
/* dlogits = grad_scale · (probs − onehot) / B */
void xent_backward_cuda(void *stream, const float *probs, const int32_t *targets, int B, int V, float grad_scale,
                        float *dlogits);
/* The AdamW update of adamw.c, its scalars computed on the host by adamw_step_device (device_step.c):
 * decay = 1 − lr·λ, one_minus_b1 = 1 − β1, b2 = β2, one_minus_b2 = 1 − β2, neg_step = −lr/(1 − β1ᵗ),
 * sqrt_bc2 = √(1 − β2ᵗ), eps = ε. */
void adamw_step_cuda(void *stream, float *p, const float *g, float *m, float *v, size_t n, float decay,
                     float one_minus_b1, float b2, float one_minus_b2, float neg_step, float sqrt_bc2, float eps);
/* SGD with momentum and L2 weight decay (optim.c's sgd_step). */
void sgd_step_cuda(void *stream, float *p, const float *g, float *buf, size_t n, float wd, float mu, float neg_lr,
                   int first);

#ifdef __cplusplus
}
#endif

#endif
