/* gpt_layers.c — LayerNorm, GELU (tanh) and causal self-attention: forward and backward.
 * Row statistics and softmax sums run in double so that the float32 results stay close to a float64
 * oracle (the unit test checks gradients by finite differences); sums over rows are pairwise. See
 * gpt_layers.h for the shapes. */
#include "gpt_layers.h"

#include "pairwise.h"
#include "util.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* DP_VECTOR_CLONES (common/util.h): the CPU reference's hot loops outside the GEMMs get one copy per
 * vector width, the same bits from each. */

/* ---- LayerNorm --------------------------------------------------------------------------------
 * With x̂ = (x − mean)·rstd and y = x̂·w + b, write g = dy·w (the gradient reaching x̂). Since mean
 * and rstd depend on every channel of the row,
 *   ∂L/∂x = rstd · ( g − mean(g) − x̂ · mean(g·x̂) )
 * and ∂L/∂w = Σ_rows dy·x̂, ∂L/∂b = Σ_rows dy. */

DP_VECTOR_CLONES void layernorm_forward(const float *x, const float *w, const float *b, int N, int C, float *y,
                                        float *mean, float *rstd) {
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

DP_VECTOR_CLONES void layernorm_backward_dx(const float *x, const float *w, const float *mean, const float *rstd,
                                            const float *dy, int N, int C, float *dx) {
    for (int n = 0; n < N; n++) {
        const float *xr = x + (size_t)n * C, *dyr = dy + (size_t)n * C;
        float *dxr = dx + (size_t)n * C;
        double sg = 0, sgx = 0;
        for (int c = 0; c < C; c++) {
            float xhat = (xr[c] - mean[n]) * rstd[n];
            float g = dyr[c] * w[c];
            sg += g;
            sgx += g * xhat;
        }
        float mg = (float)(sg / C), mgx = (float)(sgx / C);
        for (int c = 0; c < C; c++) {
            float xhat = (xr[c] - mean[n]) * rstd[n];
            dxr[c] += rstd[n] * (dyr[c] * w[c] - mg - xhat * mgx);
        }
    }
}

DP_VECTOR_CLONES void layernorm_backward_params(const float *x, const float *mean, const float *rstd, const float *dy,
                                                int N, int C, int c0, int c1, float *dw, float *db) {
    pairwise_t sw, sb;
    float prod[PAIRWISE_TILE];
    for (int j0 = c0; j0 < c1; j0 += PAIRWISE_TILE) {
        int width = c1 - j0 < PAIRWISE_TILE ? c1 - j0 : PAIRWISE_TILE;
        pairwise_init(&sw, width);
        pairwise_init(&sb, width);
        for (int n = 0; n < N; n++) {
            const float *xr = x + (size_t)n * C + j0, *dyr = dy + (size_t)n * C + j0;
            for (int j = 0; j < width; j++) prod[j] = dyr[j] * ((xr[j] - mean[n]) * rstd[n]);
            pairwise_add(&sw, prod);
            pairwise_add(&sb, dyr);
        }
        pairwise_finish(&sw, dw + j0);
        pairwise_finish(&sb, db + j0);
    }
}

void layernorm_backward(const float *x, const float *w, const float *mean, const float *rstd, const float *dy, int N,
                        int C, float *dx, float *dw, float *db) {
    layernorm_backward_dx(x, w, mean, rstd, dy, N, C, dx);
    layernorm_backward_params(x, mean, rstd, dy, N, C, 0, C, dw, db);
}

/* ---- GELU (tanh approximation) ----------------------------------------------------------------
 * With u = √(2/π)·(x + 0.044715·x³) and y = ½x(1 + tanh u):
 *   y' = ½(1 + tanh u) + ½x·(1 − tanh²u)·√(2/π)·(1 + 3·0.044715·x²)
 * Computed through σ = ½(1 + tanh u) = 1/(1 + e^(−2u)), the same function: one exponential instead
 * of tanhf (which costs about twice as much), with 1 − tanh²u = 4σ(1 − σ). No cancellation near
 * u = 0. The exponential is exp_clamped below, not expf: the C library's expf is a call the
 * compiler cannot make vector instructions of, and GELU is then the CPU step's costliest loop after
 * the GEMMs and attention. */
#define GELU_K 0.7978845608028654f /* √(2/π) */
#define GELU_A 0.044715f

/* e^x within 1.2 ulp of the exact value (measured over [−87, 88]), for x clamped to [−87, 88]:
 * e^x = 2^n · e^r with n = round(x / ln 2) and |r| <= ln 2 / 2, e^r by its Taylor series to r^7
 * (the next term is under 0.1 ulp), 2^n made in the exponent field. Plain float operations in a
 * fixed order, so every vector width gives the same bits. The clamp keeps 2^n a normal float: e^x
 * below e^−87 is e^−87 and above e^88 is e^88 (finite), so σ of a hugely negative u is about 6e−39
 * rather than 0, and y' of −inf is −inf rather than NaN: both non-finite inputs stay non-finite. */
static inline float exp_clamped(float x) {
    x = x > -87.0f ? x : -87.0f; /* two selects, not fmaxf/fminf: those keep NaN rules a loop cannot */
    x = x < 88.0f ? x : 88.0f;
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;   /* round(x·log2 e): 1.5·2^23 */
    float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-6f; /* x − n·ln 2, ln 2 in two parts */
    float p =
        1.0f +
        r * (1.0f +
             r * (0.5f + r * (1.6666667e-1f +
                              r * (4.1666668e-2f + r * (8.3333338e-3f + r * (1.3888889e-3f + r * 1.9841270e-4f))))));
    union {
        int32_t i;
        float f;
    } scale = {.i = ((int32_t)n + 127) << 23};
    return p * scale.f;
}

static inline float gelu_sigma(float v) {
    return 1.0f / (1.0f + exp_clamped(-2.0f * GELU_K * (v + GELU_A * v * v * v)));
}

DP_VECTOR_CLONES void gelu_forward(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] * gelu_sigma(x[i]);
}

DP_VECTOR_CLONES void gelu_backward(const float *x, const float *dy, float *dx, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i], sg = gelu_sigma(v);
        float d = sg + 2.0f * v * sg * (1.0f - sg) * GELU_K * (1.0f + 3.0f * GELU_A * v * v);
        dx[i] = dy[i] * d;
    }
}

/* ---- causal self-attention --------------------------------------------------------------------
 * One (sequence b, head h) at a time, as matrix products over its T tokens. With Q, K, V the head's
 * [T, hs] slices of qkv (rows 3C floats apart) and P = att[b, h], a [T, T] matrix:
 *
 *   S = Q·Kᵀ/√hs    P = softmax of each row t over s <= t (s > t is the future: P = 0 there)
 *   Y = P·V         (into y's channels h·hs .. of the sequence's rows)
 *
 * Backward, from dY:
 *   dP = dY·Vᵀ      dV = Pᵀ·dY
 *   dS[t,s] = P[t,s]·(dP[t,s] − Σ_r P[t,r]·dP[t,r]) / √hs     (softmax's Jacobian, row by row)
 *   dQ = dS·K       dK = dSᵀ·Q
 *
 * The five products are OpenBLAS GEMMs on strided views (single-threaded: the pool splits heads,
 * not products). They compute the upper triangle of S and dP too, which the mask then discards:
 * twice the arithmetic of the triangle, and still far faster than loops over it. */

/* Where head h's q, k or v (part 0, 1, 2) of token t of sequence b starts. */
static size_t qkv_at(int b, int t, int part, int h, int T, int C, int hs) {
    return ((size_t)b * T + t) * 3 * C + (size_t)part * C + (size_t)h * hs;
}

/* The backward's dP, [T, T] (the forward needs none). */
size_t attention_scratch_floats(int T, int C, int NH) {
    (void)C, (void)NH;
    return (size_t)T * (size_t)T;
}

/* C[M,N] = alpha·op(A)·op(B) + beta·C, row-major with leading dimensions. */
static void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                 float beta, float *C, int ldc) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda,
                B, ldb, beta, C, ldc);
}

void attention_forward_head(const float *qkv, int b, int h, int T, int C, int NH, float *att, float *y) {
    int hs = C / NH, ld = 3 * C;
    const float *Q = qkv + qkv_at(b, 0, 0, h, T, C, hs), *K = qkv + qkv_at(b, 0, 1, h, T, C, hs);
    const float *V = qkv + qkv_at(b, 0, 2, h, T, C, hs);
    float *P = att + ((size_t)b * NH + h) * T * T;
    gemm(false, true, T, T, hs, 1.0f / sqrtf((float)hs), Q, ld, K, ld, 0.0f, P, T); /* S */
    for (int t = 0; t < T; t++) {
        float *p = P + (size_t)t * T, pmax = -INFINITY;
        for (int s = 0; s <= t; s++) pmax = p[s] > pmax ? p[s] : pmax; /* fmaxf's answer, without a call */
        double sum = 0;
        for (int s = 0; s <= t; s++) {
            p[s] = expf(p[s] - pmax);
            sum += p[s];
        }
        for (int s = 0; s <= t; s++) p[s] = (float)(p[s] / sum);
        for (int s = t + 1; s < T; s++) p[s] = 0.0f;
    }
    gemm(false, false, T, hs, T, 1.0f, P, T, V, ld, 0.0f, y + (size_t)b * T * C + (size_t)h * hs, C); /* Y */
}

void attention_forward(const float *qkv, int B, int T, int C, int NH, float *att, float *y) {
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) attention_forward_head(qkv, b, h, T, C, NH, att, y);
}

void attention_backward_head(const float *qkv, const float *att, const float *dy, int b, int h, int T, int C, int NH,
                             float *dqkv, float *scratch) {
    int hs = C / NH, ld = 3 * C;
    const float *Q = qkv + qkv_at(b, 0, 0, h, T, C, hs), *K = qkv + qkv_at(b, 0, 1, h, T, C, hs);
    const float *V = qkv + qkv_at(b, 0, 2, h, T, C, hs);
    const float *P = att + ((size_t)b * NH + h) * T * T, *dY = dy + (size_t)b * T * C + (size_t)h * hs;
    float *dQ = dqkv + qkv_at(b, 0, 0, h, T, C, hs), *dK = dqkv + qkv_at(b, 0, 1, h, T, C, hs);
    float *dV = dqkv + qkv_at(b, 0, 2, h, T, C, hs), *dS = scratch;
    float scale = 1.0f / sqrtf((float)hs);
    gemm(false, true, T, T, hs, 1.0f, dY, C, V, ld, 0.0f, dS, T); /* dP, turned into dS below */
    gemm(true, false, T, hs, T, 1.0f, P, T, dY, C, 1.0f, dV, ld); /* dV += Pᵀ·dY */
    for (int t = 0; t < T; t++) {
        const float *p = P + (size_t)t * T;
        float *d = dS + (size_t)t * T;
        double pdp = 0; /* Σ_r P[t,r]·dP[t,r] */
        for (int s = 0; s <= t; s++) pdp += p[s] * d[s];
        for (int s = 0; s <= t; s++) d[s] = p[s] * (d[s] - (float)pdp) * scale;
        for (int s = t + 1; s < T; s++) d[s] = 0.0f;
    }
    gemm(false, false, T, hs, T, 1.0f, dS, T, K, ld, 1.0f, dQ, ld); /* dQ += dS·K */
    gemm(true, false, T, hs, T, 1.0f, dS, T, Q, ld, 1.0f, dK, ld);  /* dK += dSᵀ·Q */
}

void attention_backward(const float *qkv, const float *att, const float *dy, int B, int T, int C, int NH, float *dqkv,
                        float *scratch) {
    memset(dqkv, 0, (size_t)B * T * 3 * C * sizeof(float));
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) attention_backward_head(qkv, att, dy, b, h, T, C, NH, dqkv, scratch);
}
