/* linear.c — the Linear layer, Y = X·Wᵀ + b.
 *
 *   X [B, in] ──►  ·Wᵀ [in, out]  ──► + b ──► Y [B, out]
 *
 * Backward: every Y[i,j] = Σ_k X[i,k]·W[j,k] + b[j], so with dY = ∂L/∂Y
 *   ∂L/∂X[i,k] = Σ_j dY[i,j]·W[j,k]      dX = dY·W         [B, out]·[out, in]
 *   ∂L/∂W[j,k] = Σ_i dY[i,j]·X[i,k]      dW = dYᵀ·X        [out, B]·[B, in]
 *   ∂L/∂b[j]   = Σ_i dY[i,j]             db = column sums of dY
 * The sums over i run over the batch: that is where a batch's examples meet, and where data
 * parallelism will later split the work. */
#include "layers.h"

#include "util.h"

void linear_forward(const ops_t *ops, const float *x, const float *w, const float *b, int B, int in, int out,
                    float *y) {
    /* y = b broadcast to every row, then y += x·wᵀ */
    for (int i = 0; i < B; i++) ops_copy(ops, b, y + (size_t)i * out, (size_t)out);
    ops_gemm(ops, false, true, B, out, in, 1.0f, x, w, 1.0f, y);
}

void linear_backward(const ops_t *ops, const float *x, const float *w, const float *dy, int B, int in, int out,
                     float *dx, float *dw, float *db) {
    // TODO(01 linear_backward): the three gradients derived above (README, "Linear layer"). dx is
    //   OVERWRITTEN (and skipped when dx == NULL); dw and db are ADDED to (gradients accumulate over
    //   a step). All row-major; every gradient has the shape of what it is the gradient of. Given:
    //   ops_gemm and ops_colsum_acc (common/ops.h) — no loops of your own.
    (void)ops, (void)x, (void)w, (void)dy, (void)B, (void)in, (void)out;
    (void)dx, (void)dw, (void)db;
    DP_TODO();
}
