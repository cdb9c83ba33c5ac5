/* adamw.c — torch.optim.AdamW, step t (1, 2, ...), for every element i:
 *
 *   θ ← θ·(1 − lr·λ)                         decoupled weight decay, applied first, to θ_{t−1}
 *   m ← m + (1 − β1)·(g − m)                 first moment (torch's lerp form)
 *   v ← β2·v + (1 − β2)·g·g                  second moment
 *   θ ← θ − (lr / (1 − β1ᵗ)) · m / ( √v / √(1 − β2ᵗ) + ε )
 *
 * ε is added AFTER bias-correcting √v. Scalars (1 − lr·λ, 1 − β1, lr/(1 − β1ᵗ), √(1 − β2ᵗ)) are
 * computed in double and rounded to float once, as PyTorch does with its Python-float arguments. */
#include "optim.h"

#include "util.h"

#include <math.h>

void adamw_step(float *params, const float *grads, float *m, float *v, size_t n, int64_t t, const adamw_hparams_t *hp,
                double lr) {
    // TODO(01 adamw_step): apply the update above to the n elements of params, m and v, in place.
    //   t >= 1 is this step's number (already incremented); the scalars follow the rule above.
    (void)params, (void)grads, (void)m, (void)v, (void)n, (void)t, (void)hp, (void)lr;
    DP_TODO();
}
