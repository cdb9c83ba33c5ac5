/* gpt_layers.h — the three layers a transformer adds to lesson 01's Linear and cross-entropy:
 * LayerNorm, GELU and causal multi-head self-attention, forward and backward. Given code, CPU
 * only: plain loops, and attention as matrix products (the lessons are about data parallelism, not
 * about fast kernels).
 *
 * Every tensor is row-major over N = B·T rows ("tokens"), one row of C channels each:
 *
 *   x [N, C]:  row b·T + t is token t of sequence b
 *
 * Backward conventions match layers.h: parameter gradients (dw, db) ACCUMULATE; the input
 * gradient is WRITTEN, except where a comment says it is added. */
#ifndef DPC_GPT_LAYERS_H
#define DPC_GPT_LAYERS_H

#include <stddef.h>

/* LayerNorm over the C channels of each row, as torch.nn.LayerNorm(C) with eps = 1e-5:
 *   y = (x − mean) / sqrt(var + eps) · w + b,  var = (1/C) Σ (x − mean)²  (biased, as PyTorch)
 * mean [N] and rstd [N] = 1/sqrt(var + eps) are kept for the backward. */
#define GPT_LN_EPS 1e-5f
void layernorm_forward(const float *x, const float *w, const float *b, int N, int C, float *y, float *mean,
                       float *rstd);
/* ADDS ∂L/∂x into dx (the residual stream's gradient, which already holds the skip path's share);
 * dw and db accumulate sums over the rows, pairwise (common/pairwise.h). The two halves below are
 * what it does, apart so that threads can split the first by rows and the second by channels. */
void layernorm_backward(const float *x, const float *w, const float *mean, const float *rstd, const float *dy, int N,
                        int C, float *dx, float *dw, float *db);
void layernorm_backward_dx(const float *x, const float *w, const float *mean, const float *rstd, const float *dy, int N,
                           int C, float *dx);
/* dw[c] += Σ_n dy·x̂ and db[c] += Σ_n dy for the channels c in [c0, c1). */
void layernorm_backward_params(const float *x, const float *mean, const float *rstd, const float *dy, int N, int C,
                               int c0, int c1, float *dw, float *db);

/* GELU, tanh approximation (GPT-2; torch's approximate='tanh'), elementwise over n values:
 *   y = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) */
void gelu_forward(const float *x, float *y, size_t n);
/* dx = dy · gelu'(x) (dx == dy allowed). */
void gelu_backward(const float *x, const float *dy, float *dx, size_t n);

/* Causal self-attention of NH heads of size hs = C/NH over sequences of T tokens.
 *
 *   qkv [B·T, 3C]:  | q (C) | k (C) | v (C) |   head h owns channels h·hs .. (h+1)·hs of each
 *
 *   att[b,h,t,s] = softmax_s≤t( q_t · k_s / sqrt(hs) )     (s > t: masked out, stored as 0)
 *   y[b,t, h·hs + i] = Σ_s≤t att[b,h,t,s] · v_s[h·hs + i]
 *
 * att [B, NH, T, T] is kept for the backward, whose scratch is attention_scratch_floats(T, C, NH)
 * floats (the forward needs none). */
size_t attention_scratch_floats(int T, int C, int NH);
void attention_forward(const float *qkv, int B, int T, int C, int NH, float *att, float *y);
/* WRITES dqkv [B·T, 3C] from dy [B·T, C]. */
void attention_backward(const float *qkv, const float *att, const float *dy, int B, int T, int C, int NH, float *dqkv,
                        float *scratch);
/* What each of the two does for one (sequence b, head h): the pairs share no output (att's and y's
 * rows and dqkv's channels of head h in sequence b), so threads can take them in any split. The
 * backward's pair ADDS into its part of dqkv, which attention_backward zeroes first. */
void attention_forward_head(const float *qkv, int b, int h, int T, int C, int NH, float *att, float *y);
void attention_backward_head(const float *qkv, const float *att, const float *dy, int b, int h, int T, int C, int NH,
                             float *dqkv, float *scratch);

#endif
