/* mixed_precision.h — --mixed-precision bf16|fp16: PyTorch's mixed-precision semantics on the CPU.
 *
 * What is STORED, per parameter (Ψ parameters):
 *   master    float32   4Ψ  the model's m->params: what AdamW updates, what checkpoints and dumps hold
 *   params    uint16    2Ψ  the master rounded to bf16/fp16 (common/half.h) before every forward
 *   grads               2Ψ  gradients rounded to bf16/fp16 as each becomes final in backward
 *   optim     float32   8Ψ  AdamW's m and v, as in float32 training
 * 2 + 2 + 12 = 16 bytes per parameter, as float32 training's 4 + 4 + 8: mixed precision saves no
 * model-state memory; it halves the parameters and gradients that forward, backward and the
 * gradient all-reduce touch (and, on a GPU, the activations), and runs the math on tensor cores.
 *
 * What is COMPUTED: a CPU has no bf16 arithmetic, so forward and backward run the model's own
 * float32 code on the rounded parameters widened back to float32 (exactly: every bf16/fp16 value
 * is a float32), in a float32 working copy that the model's units point at (m->unit_params). Each
 * product and sum is then rounded to float32, not to bf16 as a GPU's bf16 kernel would round its
 * output: what this emulates is the rounding of the parameters and of the gradients — the part
 * that changes the training — not that of every activation. The gradients are kept in the model's
 * float32 m->grads, each rounded to bf16/fp16 (so every value is one of theirs); the optimizer
 * reads them as float32, as torch's AdamW upcasts a bf16 gradient onto a float32 master. The two
 * float32 buffers the CPU needs for this (the working copy, 4Ψ, and the float32 width of the
 * gradients, 2Ψ more than their 2Ψ) are counted as "emulation" in --stats, outside the model state.
 *
 * fp16 adds dynamic loss scaling (grad_scaler.h): backward runs on a loss multiplied by S, the
 * gradients are rounded to fp16 while S times too large (so small ones do not flush to 0) and
 * divided by S as they are stored; since S is a power of two, that division is exact and commutes
 * with the all-reduce's float32 sum, so unscaling before the reduction is unscaling after it. A
 * step whose reduced gradient holds an inf or NaN is skipped by optim_step (optim.h).
 *
 * Checkpoints hold the master and the optimizer state, and under fp16 the loss scale with its count
 * of good steps (checkpoint.c), so bf16 and fp16 runs both resume bit-identically. */
#ifndef DPC_MIXED_PRECISION_H
#define DPC_MIXED_PRECISION_H

#include "grad_scaler.h"
#include "mem.h"
#include "model.h"

#include <stdint.h>

typedef enum { MP_NONE = 0, MP_BF16, MP_FP16 } mp_dtype_t;

typedef struct mixed_precision {
    mp_dtype_t dtype;
    size_t n;
    const float *master;  /* the model's m->params (not owned) */
    uint16_t *lowp;       /* [n] the parameters in bf16/fp16: what forward and backward use */
    float *work;          /* [n] lowp widened to float32: the CPU computes in float32 */
    grad_scaler_t scaler; /* fp16 only */
    /* The float32 model's own accounting (it allocates float32 params and grads): the trainer's
     * books get the categories above instead (mp_init). */
    mem_t model_mem;
    /* Testing: at this step (1-based; 0: never) rank 0 makes one gradient inf, as an fp16 overflow
     * would (the environment's DP_MP_INJECT_INF). */
    int64_t step, inject_step;
    int rank;
    bool injected;
} mixed_precision_t;

/* "none" | "bf16" | "fp16" */
mp_dtype_t mp_dtype_of(const char *name);

/* After model_init(m, ..., &mp->model_mem): allocate the low-precision copy and the working copy,
 * point m's units at the working copy, and record the model state in `mem` by the table above. */
void mp_init(mixed_precision_t *mp, mp_dtype_t dtype, model_t *m, mem_t *mem, int rank);
void mp_free(mixed_precision_t *mp);
/* Lesson 08 (FSDP, ZeRO) shards the float32 master and rounds it into its own bf16 buffers: drop
 * the full-size low-precision and working copies (and their bytes from `mem`). Forward then casts
 * nothing; backward still rounds every gradient as it becomes final. */
void mp_drop_params(mixed_precision_t *mp, mem_t *mem);

/* Round the master into the low-precision copy and widen it into the working copy (model_forward
 * calls it first: the parameters are those of the latest optimizer step). */
void mp_cast_params(mixed_precision_t *mp);

/* model_backward's part. mp_backward_begin returns the gradient scale to backpropagate with (fp16:
 * times S, with the gradients already accumulated brought back to S times) and wraps hook so that
 * each gradient is rounded (and unscaled) as it becomes final, before the hook sees it. */
typedef struct {
    model_t *m;
    grad_ready_fn hook;
    void *ctx;
} mp_ready_t;
float mp_backward_begin(model_t *m, float grad_scale, mp_ready_t *w, grad_ready_fn hook, void *hook_ctx);
void mp_grad_ready(void *w, int param_index);

#endif
