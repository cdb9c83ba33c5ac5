/* layers.h — the two layers whose backward you derive in lesson 01, and their forwards.
 *
 * Linear: Y = X·Wᵀ + b with X [B, in], W [out, in], b [out], Y [B, out].
 * Softmax cross-entropy of logits Z [B, V] with targets y [B]:
 *   p = softmax(Z) row by row,  loss = (1/B) Σ_b −log p[b, y_b]. */
#ifndef DPC_LAYERS_H
#define DPC_LAYERS_H

#include "ops.h"

#include <stdint.h>

void linear_forward(const ops_t *ops, const float *x, const float *w, const float *b, int B, int in, int out, float *y);

/* Given dY = ∂L/∂Y, ACCUMULATE ∂L/∂W into dw and ∂L/∂b into db, and WRITE ∂L/∂X into dx
 * (dx may be NULL when the input needs no gradient). */
void linear_backward(const ops_t *ops, const float *x, const float *w, const float *dy, int B, int in, int out,
                     float *dx, float *dw, float *db);

/* Softmax of every row of logits into probs, per-example losses −log p[b, y_b] into losses;
 * returns their mean. */
float xent_forward(const float *logits, const int32_t *targets, int B, int V, float *probs, float *losses);

/* dlogits = grad_scale · ∂(mean loss)/∂logits, from the probabilities the forward computed. */
void xent_backward(const float *probs, const int32_t *targets, int B, int V, float grad_scale, float *dlogits);

#endif
