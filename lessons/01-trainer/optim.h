/* optim.h — optimizers on flat arrays (the whole model, or one rank's shard of it), gradient
 * clipping and the learning-rate schedule. Semantics follow PyTorch (torch.optim.AdamW, SGD,
 * torch.nn.utils.clip_grad_norm_); see the lesson text for the formulas. */
#ifndef DPC_OPTIM_H
#define DPC_OPTIM_H

#include "ops.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    double beta1, beta2, eps, weight_decay;
} adamw_hparams_t;

typedef struct {
    double momentum, weight_decay;
} sgd_hparams_t;

typedef enum { OPTIM_ADAMW, OPTIM_SGD } optim_kind_t;

struct grad_scaler;

typedef struct {
    optim_kind_t kind;
    adamw_hparams_t adamw;
    sgd_hparams_t sgd;
    size_t n;         /* elements it updates */
    int64_t t;        /* steps taken (AdamW's bias-correction counter) */
    float *m, *v;     /* AdamW: first and second moments; SGD: m is the momentum buffer */
    const ops_t *ops; /* where m and v live (NULL: host memory) */
    pool_t *pool;     /* host memory: the CPU context's threads, which step chunks of elements */
    /* fp16 (grad_scaler.h): optim_step skips a step whose gradient holds an inf or NaN and moves
     * the loss scale; NULL: every step is taken */
    struct grad_scaler *scaler;
} optim_t;

/* One AdamW step (t = the step number, starting at 1) on n elements, exactly as
 * torch.optim.AdamW: decoupled weight decay first, then the moments, then the bias-corrected
 * update with eps added after the square root. */
void adamw_step(float *params, const float *grads, float *m, float *v, size_t n, int64_t t, const adamw_hparams_t *hp,
                double lr);

#ifdef DPC_HAVE_CUDA
/* The same step on arrays in a GPU's memory, queued on stream (a cudaStream_t): the scalars are
 * computed on the host and the update runs in adamw_step_cuda's kernel (device_step.c, kernels.cu). */
void adamw_step_device(void *stream, float *params, const float *grads, float *m, float *v, size_t n, int64_t t,
                       const adamw_hparams_t *hp, double lr);
#endif

/* One SGD step with optional momentum and (coupled, L2) weight decay, as torch.optim.SGD. */
void sgd_step(float *params, const float *grads, float *momentum_buf, size_t n, int64_t t, const sgd_hparams_t *hp,
              double lr);

void optim_init(optim_t *o, optim_kind_t kind, size_t n);
/* The same with the state in a context's memory (a GPU's): optim_step then runs there, AdamW with
 * adamw_step_device, SGD with the kernel of kernels.cu. */
void optim_init_on(optim_t *o, optim_kind_t kind, size_t n, const ops_t *ops);
void optim_free(optim_t *o);
/* t += 1, then one step of the configured optimizer over params[0..n). With o->scaler: nothing
 * at all (t unchanged) when grads holds an inf or NaN, and the scale moves either way. */
void optim_step(optim_t *o, float *params, const float *grads, double lr);

/* Scale grads so that their global 2-norm is at most max_norm (no-op when max_norm <= 0);
 * returns the norm before clipping. Like clip_grad_norm_: coef = max_norm / (norm + 1e-6),
 * clamped to 1, and the gradients are always multiplied by it. */
double clip_grad_norm(float *grads, size_t n, double max_norm);
/* The same for gradients in a context's memory (a GPU's), with ops_sumsq and ops_scale. */
double clip_grad_norm_ops(const ops_t *ops, float *grads, size_t n, double max_norm);
/* The same, given the squared norm already (the sharded version of lesson 08 sums it first). */
double clip_grad_norm_from_sumsq(const ops_t *ops, float *grads, size_t n, double max_norm, double sumsq);

/* Learning rate at step s (0-based): linear warmup over `warmup` steps from lr/warmup to lr, then
 * cosine decay to lr·min_ratio at step `total`. */
double lr_at(int64_t s, double lr, int64_t warmup, int64_t total, double min_ratio);

#endif
