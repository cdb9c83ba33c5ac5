/* gpt_ops.h — each of the GPT's layers where the model's buffers live: gpt_layers.c's loops when
 * its ops context is the CPU's, gpt_kernels.cu's kernels when it is a GPU's. gpt.c walks the model
 * once, through these, whatever the device: the order of the layers, of the unit hooks and of the
 * gradient-ready hook is the same on both, so DDP and accumulation see the same backward.
 *
 * Arguments are gpt_layers.h's (and layers.h's for the Linear), plus the ops context; pointers are
 * in the context's memory, except where a comment says host. */
#ifndef DPC_GPT_OPS_H
#define DPC_GPT_OPS_H

#include "gpt.h"
#include "ops.h"

#include <stddef.h>
#include <stdint.h>

void gpt_ops_layernorm_forward(const ops_t *ops, const float *x, const float *w, const float *b, int N, int C, float *y,
                               float *mean, float *rstd);
void gpt_ops_layernorm_backward(const ops_t *ops, const float *x, const float *w, const float *mean, const float *rstd,
                                const float *dy, int N, int C, float *dx, float *dw, float *db);
void gpt_ops_gelu_forward(const ops_t *ops, const float *x, float *y, size_t n);
void gpt_ops_gelu_backward(const ops_t *ops, const float *x, const float *dy, float *dx, size_t n);
void gpt_ops_attention_forward(const ops_t *ops, const float *qkv, int B, int T, int C, int NH, float *att, float *y);
/* The backward's scratch: gpt_ops_attention_scratch_floats() on the CPU (one
 * attention_scratch_floats() per thread); B·NH·T·T on a GPU, which holds every score row's gradient
 * at once. The forward needs none. */
size_t gpt_ops_attention_scratch_floats(const ops_t *ops, int T, int C, int NH);
void gpt_ops_attention_backward(const ops_t *ops, const float *qkv, const float *att, const float *dy, int B, int T,
                                int C, int NH, float *dqkv, float *scratch);

/* out[b·T + t] = wte[tokens[b·T + t]] + wpe[t]. */
void gpt_ops_embedding_forward(const ops_t *ops, const float *wte, const float *wpe, const int32_t *tokens, int B,
                               int T, int C, float *out);
/* dwpe[t] += Σ_b dout[b·T + t]. */
void gpt_ops_position_backward(const ops_t *ops, const float *dout, int B, int T, int C, float *dwpe);
/* dwte[tokens[n]] += dout[n] for every row n < B·T, in row order. */
void gpt_ops_token_backward(const ops_t *ops, const float *dout, const int32_t *tokens, int B, int T, int V, int C,
                            float *dwte);

/* linear_forward (layers.h); on a GPU the bias is broadcast by one kernel, not one copy per row. */
void gpt_ops_linear_forward(const ops_t *ops, const float *x, const float *w, const float *b, int N, int in, int out,
                            float *y);

/* The cross-entropy of the last forward's logits against its targets (m->targets on the host,
 * m->targets_dev where the model is), ignored rows left out: returns the mean over the counted
 * rows and leaves m->probs and m->losses (0 for ignored rows). Lesson 01's xent functions do the
 * work, one row at a time on the CPU, the whole batch at once with kernels.cu's kernels on a GPU. */
float gpt_ops_cross_entropy_forward(gpt_t *m);
/* m->dlogits = grad_scale · ∂(mean loss)/∂logits; ignored rows get 0. */
void gpt_ops_cross_entropy_backward(gpt_t *m, float grad_scale);

#endif
