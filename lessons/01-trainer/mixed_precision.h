/* mixed_precision.h — --mixed-precision bf16|fp16: PyTorch's mixed-precision semantics, on the CPU
 * and on a GPU.
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
 * What is COMPUTED. The model's code is float32 code, and its units point at a float32 working copy
 * of the rounded parameters (m->unit_params; widening a bf16/fp16 value to float32 is exact). Every
 * rounding goes through the ops seam (ops_round, ops.h), so the same code runs where the model
 * lives, host or device, and rounds to the same bits on both.
 *  - On the CPU there is no bf16 arithmetic: forward and backward compute in float32 on the rounded
 *    parameters, each product and sum rounded to float32. What this emulates is the rounding of the
 *    parameters and of the gradients, the part that changes the training, not that of the
 *    activations.
 *  - On a GPU (--device cuda) the trainer also sets the ops context's gemm_dtype: every GEMM of
 *    forward and backward (ops_gemm: the Linear layers, the MLP's and the GPT's, and the GPT's
 *    tied head) rounds both its operands to bf16/fp16 (the activations and output gradients too,
 *    as the parameters already are) and multiplies them on the tensor cores with float32
 *    accumulation and a float32 result, as a bf16 GEMM under torch.autocast. The other kernels
 *    (LayerNorm, GELU, tanh, the cross-entropy, and the GPT's attention, whose own kernel autocast
 *    would run in bf16) compute in float32. So a GPU run rounds more than the CPU's: the two agree
 *    in loss to bf16's resolution, not in bits.
 * The gradients are kept in the model's float32 m->grads, each rounded to bf16/fp16 (so every value
 * is one of theirs); the optimizer reads them as float32, as torch's AdamW upcasts a bf16 gradient
 * onto a float32 master.
 *
 * What is COUNTED besides the table ("emulation" in --stats, outside the model state): the buffers
 * that stand in for a storage type this code does not have: the float32 working copy (4Ψ), the
 * float32 width of the gradients (2Ψ more than their 2Ψ), and on a GPU the GEMMs' 16-bit operand
 * scratch (ops_gemm_workspace_bytes: the largest GEMM's A and B, which a model keeping its
 * activations in bf16 would not copy; mp_count_workspace books its growth).
 *
 * fp16 adds dynamic loss scaling (grad_scaler.h): backward runs on a loss multiplied by S, the
 * gradients are rounded to fp16 while S times too large (so small ones do not flush to 0) and
 * divided by S as they are stored; since S is a power of two, that division is exact and commutes
 * with the all-reduce's float32 sum, so unscaling before the reduction is unscaling after it. A
 * step whose reduced gradient holds an inf or NaN is skipped by optim_step (optim.h). On a GPU the
 * backward GEMMs take S-times-scaled output gradients as fp16 operands, as torch's do: one that
 * overflows becomes an inf there and skips the step like any other.
 *
 * Checkpoints hold the master and the optimizer state, and under fp16 the loss scale with its count
 * of good steps (checkpoint.c), so bf16 and fp16 runs both resume bit-identically. */
#ifndef DPC_MIXED_PRECISION_H
#define DPC_MIXED_PRECISION_H

#include "dtype.h"
#include "grad_scaler.h"
#include "mem.h"
#include "model.h"
#include "ops.h"

#include <stdint.h>

typedef enum { MP_NONE = 0, MP_BF16, MP_FP16 } mp_dtype_t;

typedef struct mixed_precision {
    mp_dtype_t dtype;
    size_t n;
    const ops_t *ops;         /* the model's: where the buffers below live */
    const float *master;      /* the model's m->params (not owned) */
    uint16_t *lowp;           /* [n] the parameters in bf16/fp16: what forward and backward use */
    float *work;              /* [n] lowp widened to float32: the model's code computes in float32 */
    size_t workspace_counted; /* the GEMM scratch already in the books (mp_count_workspace) */
    grad_scaler_t scaler;     /* fp16 only */
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
/* DT_BF16 or DT_F16: the ops seam's name of the type (ops_round, ops_t.gemm_dtype) */
dtype_t mp_half_type(mp_dtype_t d);

/* After model_init(m, ..., &mp->model_mem): allocate the low-precision copy and the working copy,
 * point m's units at the working copy, and record the model state in `mem` by the table above. */
void mp_init(mixed_precision_t *mp, mp_dtype_t dtype, model_t *m, mem_t *mem, int rank);
void mp_free(mixed_precision_t *mp);
/* Book the growth of the GEMMs' 16-bit operand scratch (0 on the CPU) as emulation in `mem`: the
 * trainer calls it after every step (the first step grows it to its size). */
void mp_count_workspace(mixed_precision_t *mp, mem_t *mem);
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
