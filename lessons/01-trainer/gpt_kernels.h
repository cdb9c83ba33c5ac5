/* gpt_kernels.h — the GPT's own CUDA kernels (gpt_kernels.cu): the GPU twins of gpt_layers.c
 * (LayerNorm, GELU, causal attention), the token + position embedding, and two helpers of the
 * Linear layer and the cross-entropy. Given code, like gpt_layers.c; gpt_ops.c picks them when the
 * model's buffers are on a GPU. Every launcher runs on `stream` (a cudaStream_t), takes device
 * pointers only, and ends the program with one line naming the kernel if the launch fails.
 *
 * Shapes and conventions are gpt_layers.h's: N = B·T rows of C channels, row-major; parameter
 * gradients ACCUMULATE; the input gradient of LayerNorm is ADDED, the others are WRITTEN.
 *
 * Determinism: no kernel uses atomics. Every sum over rows (LayerNorm's dw and db, the embeddings'
 * gradients, attention's dk and dv) is one thread's loop in a fixed order, so a run repeats bit for
 * bit; LayerNorm's dw and db add in the CPU's pairwise order (common/pairwise.h) and its row
 * statistics in double, as the CPU does. Attention keeps its per-query loops, with its dot products
 * in double: the CPU's are OpenBLAS products now, so the two agree to float rounding, not bit for bit. */
#ifndef DPC_GPT_KERNELS_H
#define DPC_GPT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void gpt_layernorm_forward_cuda(void *stream, const float *x, const float *w, const float *b, int N, int C, float *y,
                                float *mean, float *rstd);
/* ADDS ∂L/∂x into dx; accumulates dw, db. */
void gpt_layernorm_backward_cuda(void *stream, const float *x, const float *w, const float *mean, const float *rstd,
                                 const float *dy, int N, int C, float *dx, float *dw, float *db);

void gpt_gelu_forward_cuda(void *stream, const float *x, float *y, size_t n);
void gpt_gelu_backward_cuda(void *stream, const float *x, const float *dy, float *dx, size_t n); /* dx == dy ok */

/* att [B, NH, T, T] (the masked future stored as 0), y [B·T, C]. */
void gpt_attention_forward_cuda(void *stream, const float *qkv, int B, int T, int C, int NH, float *att, float *y);
/* WRITES every element of dqkv [B·T, 3C]; datt is [B, NH, T, T] scratch (the score gradients). */
void gpt_attention_backward_cuda(void *stream, const float *qkv, const float *att, const float *dy, int B, int T, int C,
                                 int NH, float *dqkv, float *datt);

/* out[b·T + t] = wte[tokens[b·T + t]] + wpe[t], rows of C. */
void gpt_embedding_forward_cuda(void *stream, const float *wte, const float *wpe, const int32_t *tokens, int B, int T,
                                int C, float *out);
/* dwpe[t] += Σ_b dout[b·T + t], b in order. */
void gpt_position_backward_cuda(void *stream, const float *dout, int B, int T, int C, float *dwpe);
/* dwte[v] += Σ over the rows n whose token is v of dout[n], n in order (V·C threads scan the N tokens). */
void gpt_token_backward_cuda(void *stream, const float *dout, const int32_t *tokens, int N, int V, int C, float *dwte);

/* y[n, j] = bias[j] for every row n < N: a Linear's output before its GEMM adds x·Wᵀ. */
void gpt_bias_rows_cuda(void *stream, const float *bias, int N, int out, float *y);
/* Rows n whose target is negative (ignored) are set to 0: x is [N, width]. */
void gpt_zero_ignored_rows_cuda(void *stream, const int32_t *targets, int N, int width, float *x);
/* safe[n] = targets[n], or 0 where it is negative: targets lesson 01's cross-entropy kernels may
 * index with (they know no ignored rows; the rows are zeroed after). */
void gpt_safe_targets_cuda(void *stream, const int32_t *targets, int N, int32_t *safe);
/* One line naming `what` and exit if the last kernel launch on this thread failed: for launchers
 * that do not check (kernels.cu's). */
void gpt_check_launch(const char *what);

#ifdef __cplusplus
}
#endif

#endif
