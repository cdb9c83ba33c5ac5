/* gpt_layers.c — LayerNorm, GELU (tanh) and causal self-attention: forward and backward.
 * Sums run in double so that the float32 results stay close to a float64 oracle (the unit test
 * checks gradients by finite differences). See gpt_layers.h for the shapes. */
#include "gpt_layers.h"

#include <math.h>
#include <string.h>

/* ---- LayerNorm --------------------------------------------------------------------------------
 * With x̂ = (x − mean)·rstd and y = x̂·w + b, write g = dy·w (the gradient reaching x̂). Since mean
 * and rstd depend on every channel of the row,
 *   ∂L/∂x = rstd · ( g − mean(g) − x̂ · mean(g·x̂) )
 * and ∂L/∂w = Σ_rows dy·x̂, ∂L/∂b = Σ_rows dy. */

void layernorm_forward(const float *x, const float *w, const float *b, int N, int C, float *y, float *mean,
                       float *rstd) {
    for (int n = 0; n < N; n++) {
        const float *xr = x + (size_t)n * C;
        double s = 0;
        for (int c = 0; c < C; c++) s += xr[c];
        double m = s / C, v = 0;
        for (int c = 0; c < C; c++) v += (xr[c] - m) * (xr[c] - m);
        float r = (float)(1.0 / sqrt(v / C + GPT_LN_EPS)); /* biased variance: divide by C, not C−1 */
        float *yr = y + (size_t)n * C;
        for (int c = 0; c < C; c++) yr[c] = ((xr[c] - (float)m) * r) * w[c] + b[c];
        mean[n] = (float)m;
        rstd[n] = r;
    }
}

void layernorm_backward(const float *x, const float *w, const float *mean, const float *rstd, const float *dy, int N,
                        int C, float *dx, float *dw, float *db) {
    for (int n = 0; n < N; n++) {
        const float *xr = x + (size_t)n * C, *dyr = dy + (size_t)n * C;
        float *dxr = dx + (size_t)n * C;
        double sg = 0, sgx = 0;
        for (int c = 0; c < C; c++) {
            float xhat = (xr[c] - mean[n]) * rstd[n];
            float g = dyr[c] * w[c];
            sg += g;
            sgx += g * xhat;
            dw[c] += dyr[c] * xhat;
            db[c] += dyr[c];
        }
        float mg = (float)(sg / C), mgx = (float)(sgx / C);
        for (int c = 0; c < C; c++) {
            float xhat = (xr[c] - mean[n]) * rstd[n];
            dxr[c] += rstd[n] * (dyr[c] * w[c] - mg - xhat * mgx);
        }
    }
}

/* ---- GELU (tanh approximation) ----------------------------------------------------------------
 * With u = √(2/π)·(x + 0.044715·x³) and y = ½x(1 + tanh u):
 *   y' = ½(1 + tanh u) + ½x·(1 − tanh²u)·√(2/π)·(1 + 3·0.044715·x²)
 * Computed through σ = ½(1 + tanh u) = 1/(1 + e^(−2u)), the same function: one expf instead of
 * tanhf (which costs about twice as much), with 1 − tanh²u = 4σ(1 − σ). No cancellation near
 * u = 0, and e^(−2u) overflowing to inf gives σ = 0 (y = −0, y' = 0), not a NaN. */
#define GELU_K 0.7978845608028654f /* √(2/π) */
#define GELU_A 0.044715f

static inline float gelu_sigma(float v) { return 1.0f / (1.0f + expf(-2.0f * GELU_K * (v + GELU_A * v * v * v))); }

void gelu_forward(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] * gelu_sigma(x[i]);
}

void gelu_backward(const float *x, const float *dy, float *dx, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i], sg = gelu_sigma(v);
        float d = sg + 2.0f * v * sg * (1.0f - sg) * GELU_K * (1.0f + 3.0f * GELU_A * v * v);
        dx[i] = dy[i] * d;
    }
}

/* ---- causal self-attention --------------------------------------------------------------------
 * One (sequence b, head h, query t) at a time:
 *
 *            keys s = 0 .. t        (s > t is the future: never looked at)
 *   q_t ──►  score_s = q_t·k_s/√hs ──► softmax ──► p_s ──► y_t = Σ_s p_s·v_s
 *
 * Backward of the same row, from dy_t:
 *   dp_s     = dy_t · v_s                      dv_s += p_s · dy_t
 *   dscore_s = p_s · (dp_s − Σ_r p_r·dp_r)     (softmax's Jacobian)
 *   dq_t    += Σ_s dscore_s · k_s / √hs        dk_s += dscore_s · q_t / √hs */

/* Where head h's q, k or v (part 0, 1, 2) of token t of sequence b starts. */
static size_t qkv_at(int b, int t, int part, int h, int T, int C, int hs) {
    return ((size_t)b * T + t) * 3 * C + (size_t)part * C + (size_t)h * hs;
}

#define ATT_SLICE 64 /* doubles of y_t accumulated at once (on the stack) */

void attention_forward(const float *qkv, int B, int T, int C, int NH, float *att, float *y) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int t = 0; t < T; t++) {
                const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
                float *p = att + (((size_t)b * NH + h) * T + t) * T;
                float pmax = -INFINITY;
                for (int s = 0; s <= t; s++) {
                    const float *k = qkv + qkv_at(b, s, 1, h, T, C, hs);
                    double dot = 0;
                    for (int i = 0; i < hs; i++) dot += q[i] * k[i];
                    p[s] = (float)dot * scale;
                    pmax = fmaxf(pmax, p[s]);
                }
                double sum = 0;
                for (int s = 0; s <= t; s++) {
                    p[s] = expf(p[s] - pmax);
                    sum += p[s];
                }
                for (int s = 0; s <= t; s++) p[s] = (float)(p[s] / sum);
                for (int s = t + 1; s < T; s++) p[s] = 0.0f;
                /* y_t = Σ_s p_s·v_s a row of v at a time (rows are contiguous; the other loop order
                 * strides 3C floats per term), each y_t[i] still summed over s = 0..t in order, in
                 * double; heads wider than the accumulator go in slices of it. */
                float *yr = y + ((size_t)b * T + t) * C + (size_t)h * hs;
                for (int i0 = 0; i0 < hs; i0 += ATT_SLICE) {
                    int w = hs - i0 < ATT_SLICE ? hs - i0 : ATT_SLICE;
                    double acc[ATT_SLICE] = {0};
                    for (int s = 0; s <= t; s++) {
                        const float *v = qkv + qkv_at(b, s, 2, h, T, C, hs) + i0;
                        for (int i = 0; i < w; i++) acc[i] += p[s] * v[i];
                    }
                    for (int i = 0; i < w; i++) yr[i0 + i] = (float)acc[i];
                }
            }
}

void attention_backward(const float *qkv, const float *att, const float *dy, int B, int T, int C, int NH, float *dqkv,
                        float *scratch) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    memset(dqkv, 0, (size_t)B * T * 3 * C * sizeof(float));
    float *dp = scratch; /* dp_s, then dscore_s, for s <= t */
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int t = 0; t < T; t++) {
                const float *p = att + (((size_t)b * NH + h) * T + t) * T;
                const float *dyr = dy + ((size_t)b * T + t) * C + (size_t)h * hs;
                double pdp = 0; /* Σ_r p_r·dp_r */
                for (int s = 0; s <= t; s++) {
                    const float *v = qkv + qkv_at(b, s, 2, h, T, C, hs);
                    float *dv = dqkv + qkv_at(b, s, 2, h, T, C, hs);
                    double dot = 0;
                    for (int i = 0; i < hs; i++) {
                        dot += dyr[i] * v[i];
                        dv[i] += p[s] * dyr[i];
                    }
                    dp[s] = (float)dot;
                    pdp += p[s] * dp[s];
                }
                const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
                float *dq = dqkv + qkv_at(b, t, 0, h, T, C, hs);
                for (int s = 0; s <= t; s++) {
                    float ds = p[s] * (dp[s] - (float)pdp) * scale;
                    const float *k = qkv + qkv_at(b, s, 1, h, T, C, hs);
                    float *dk = dqkv + qkv_at(b, s, 1, h, T, C, hs);
                    for (int i = 0; i < hs; i++) {
                        dq[i] += ds * k[i];
                        dk[i] += ds * q[i];
                    }
                }
            }
}
