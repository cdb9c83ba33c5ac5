/* xent.c — softmax cross-entropy, averaged over the batch.
 *
 *   p[b,v] = exp(z[b,v] − max_v z[b,·]) / Σ_u exp(z[b,u] − max)      (subtracting the max keeps
 *   loss   = (1/B) Σ_b −log p[b, y_b]                                  exp() from overflowing)
 *
 * Backward: ∂(−log p[b,y])/∂z[b,v] = p[b,v] − [v = y], and the mean brings a 1/B:
 *   ∂loss/∂z[b,v] = (p[b,v] − [v = y_b]) / B */
#include "layers.h"

#include "util.h"

#include <math.h>

float xent_forward(const float *logits, const int32_t *targets, int B, int V, float *probs, float *losses) {
    double total = 0;
    for (int b = 0; b < B; b++) {
        const float *z = logits + (size_t)b * V;
        float *p = probs + (size_t)b * V;
        float zmax = z[0];
        for (int v = 1; v < V; v++) zmax = fmaxf(zmax, z[v]);
        double sum = 0;
        for (int v = 0; v < V; v++) {
            p[v] = expf(z[v] - zmax);
            sum += p[v];
        }
        float inv = (float)(1.0 / sum);
        for (int v = 0; v < V; v++) p[v] *= inv;
        /* −log p[y] computed from the logits (log-sum-exp), not from the rounded p */
        losses[b] = (float)(log(sum) - (double)(z[targets[b]] - zmax));
        total += losses[b];
    }
    return (float)(total / B);
}

void xent_backward(const float *probs, const int32_t *targets, int B, int V, float grad_scale, float *dlogits) {
    // TODO(01 xent_backward): OVERWRITE dlogits [B, V] with the gradient of grad_scale × the batch's
    //   mean loss with respect to the logits (derived above; README, "Softmax cross-entropy"), from
    //   the probabilities the forward pass left in probs.
    (void)probs, (void)targets, (void)B, (void)V, (void)grad_scale, (void)dlogits;
    DP_TODO();
}
