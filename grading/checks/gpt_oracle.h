/* gpt_oracle.h — gpt.h's transformer in float64, written from the PyTorch definition with plain
 * loops, sharing no code with gpt.c and finding every tensor by its PyTorch name. Two users: the
 * GPT's own unit test (tests/unit/test_gpt.c, against the reference gpt.c) and the grader's lesson-01
 * check (check01 gradcheck_gpt, against gpt.c driven by the student's Linear and cross-entropy).
 *
 * For gradient checks the parameters are re-drawn (gpt_oracle_redraw): N(0, 0.3²), LayerNorm weights
 * 1 + N(0, 0.3²), instead of GPT-2's init — with std 0.02 attention is nearly uniform and the
 * gradients tiny, so a wrong mask or a wrong backward would hide below the tolerance. */
#ifndef DPC_GPT_ORACLE_H
#define DPC_GPT_ORACLE_H

#include "gpt.h"

#include <stddef.h>
#include <stdint.h>

/* The mean cross-entropy over targets >= 0 of m's model with parameters p (layout order, float64) on
 * B sequences of T tokens; logits [B·T, V] too when out_logits is not NULL. */
double gpt_oracle_loss(const gpt_t *m, const double *p, const int32_t *tok, const int32_t *tgt, int B, int T,
                       double *out_logits);
/* The central difference (L(p + eps·u) − L(p − eps·u)) / 2eps along u, a direction over the numel
 * parameters from offset (u NULL: the unit vector of parameter offset alone). p is restored. */
double gpt_oracle_slope(const gpt_t *m, double *p, size_t offset, size_t numel, const double *u, double eps,
                        const int32_t *tok, const int32_t *tgt, int B, int T);
/* m's parameters as float64, malloc'ed. */
double *gpt_oracle_params(const gpt_t *m);
/* Re-draw m's parameters for a gradient check (the header says why), deterministically from seed. */
void gpt_oracle_redraw(gpt_t *m, uint64_t seed);

#endif
