/* gpt_layers.c — LayerNorm, GELU (tanh) and causal self-attention: forward and backward.
 * Sums run in double so that the float32 results stay close to a float64 oracle (the unit test
 * checks gradients by finite differences). See gpt_layers.h for the shapes. */
#include "gpt_layers.h"

#include "pairwise.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* HOT_LOOPS (common/util.h): the CPU reference's hot spots outside the GEMMs get one copy per vector
 * width, the same bits from each. */
#define HOT_LOOPS DP_VECTOR_CLONES

/* ---- LayerNorm --------------------------------------------------------------------------------
 * With x̂ = (x − mean)·rstd and y = x̂·w + b, write g = dy·w (the gradient reaching x̂). Since mean
 * and rstd depend on every channel of the row,
 *   ∂L/∂x = rstd · ( g − mean(g) − x̂ · mean(g·x̂) )
 * and ∂L/∂w = Σ_rows dy·x̂, ∂L/∂b = Σ_rows dy. */

HOT_LOOPS void layernorm_forward(const float *x, const float *w, const float *b, int N, int C, float *y, float *mean,
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

HOT_LOOPS void layernorm_backward_dx(const float *x, const float *w, const float *mean, const float *rstd,
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

HOT_LOOPS void layernorm_backward_params(const float *x, const float *mean, const float *rstd, const float *dy, int N,
                                         int C, int c0, int c1, float *dw, float *db) {
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

HOT_LOOPS void gelu_forward(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] * gelu_sigma(x[i]);
}

HOT_LOOPS void gelu_backward(const float *x, const float *dy, float *dx, size_t n) {
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

/* The scratch both directions share (attention_scratch_floats):
 *   | acc: T doubles | row: T floats | tr: hs x T floats |
 * tr holds one head's keys (forward) or values (backward) transposed, tr[i·T + s] = k_s[i]: a dot
 * product q_t·k_s is a sum over i, so "all scores of query t" in this layout is hs passes of
 * acc[s] += q[i]·tr[i][s] over contiguous s, a loop the compiler vectorises, where q·k_s one key
 * at a time is a chain of dependent adds it cannot. Each acc[s] still adds the same terms in the
 * same order (i = 0, 1, ...), in double, so the result is bit for bit the one-key-at-a-time dot. */
size_t attention_scratch_floats(int T, int C, int NH) { return (size_t)T * (2 + 1 + (size_t)(C / NH)); }

typedef struct {
    double *acc;
    float *row, *tr;
} att_scratch_t;

static att_scratch_t att_scratch(float *scratch, int T) {
    return (att_scratch_t){(double *)(void *)scratch, scratch + 2 * (size_t)T, scratch + 3 * (size_t)T};
}

/* tr[i·T + s] = part (1 = k, 2 = v) of head h, token s, for s < T. */
static void transpose_head(const float *qkv, int b, int h, int part, int T, int C, int hs, float *tr) {
    for (int s = 0; s < T; s++) {
        const float *x = qkv + qkv_at(b, s, part, h, T, C, hs);
        for (int i = 0; i < hs; i++) tr[(size_t)i * T + s] = x[i];
    }
}

/* acc[s] = Σ_i x[i]·tr[i][s] for s = 0..t, each a double sum of float products in the order of i. */
HOT_LOOPS static void dots_with_tr(const float *x, const float *tr, int T, int hs, int t, double *acc) {
    for (int s = 0; s <= t; s++) acc[s] = 0;
    for (int i = 0; i < hs; i++) {
        float xi = x[i];
        const float *r = tr + (size_t)i * T;
        for (int s = 0; s <= t; s++) acc[s] += xi * r[s];
    }
}

/* y[i] += a·x[i]. restrict (the rows of dqkv it is used on never overlap the other operand) lets
 * the compiler vectorise without checking for overlap on every call of a 32-float loop. */
static inline void axpy_row(int n, float a, const float *restrict x, float *restrict y) {
    for (int i = 0; i < n; i++) y[i] += a * x[i];
}

#define ATT_SLICE 64 /* doubles of y_t accumulated at once (on the stack) */

HOT_LOOPS void attention_forward_head(const float *qkv, int b, int h, int T, int C, int NH, float *att, float *y,
                                      float *scratch) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    att_scratch_t sc = att_scratch(scratch, T);
    transpose_head(qkv, b, h, 1, T, C, hs, sc.tr);
    for (int t = 0; t < T; t++) {
        const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
        float *p = att + (((size_t)b * NH + h) * T + t) * T;
        dots_with_tr(q, sc.tr, T, hs, t, sc.acc);
        float pmax = -INFINITY;
        for (int s = 0; s <= t; s++) {
            p[s] = (float)sc.acc[s] * scale;
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

void attention_forward(const float *qkv, int B, int T, int C, int NH, float *att, float *y, float *scratch) {
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) attention_forward_head(qkv, b, h, T, C, NH, att, y, scratch);
}

HOT_LOOPS void attention_backward_head(const float *qkv, const float *att, const float *dy, int b, int h, int T, int C,
                                       int NH, float *dqkv, float *scratch) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    att_scratch_t sc = att_scratch(scratch, T);
    float *dp = sc.row; /* dp_s, for s <= t */
    transpose_head(qkv, b, h, 2, T, C, hs, sc.tr);
    for (int t = 0; t < T; t++) {
        const float *p = att + (((size_t)b * NH + h) * T + t) * T;
        const float *dyr = dy + ((size_t)b * T + t) * C + (size_t)h * hs;
        dots_with_tr(dyr, sc.tr, T, hs, t, sc.acc);
        double pdp = 0; /* Σ_r p_r·dp_r */
        for (int s = 0; s <= t; s++) {
            axpy_row(hs, p[s], dyr, dqkv + qkv_at(b, s, 2, h, T, C, hs)); /* dv_s */
            dp[s] = (float)sc.acc[s];
            pdp += p[s] * dp[s];
        }
        const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
        float *dq = dqkv + qkv_at(b, t, 0, h, T, C, hs);
        for (int s = 0; s <= t; s++) {
            float ds = p[s] * (dp[s] - (float)pdp) * scale;
            axpy_row(hs, ds, qkv + qkv_at(b, s, 1, h, T, C, hs), dq); /* dq_t += ds·k_s */
            axpy_row(hs, ds, q, dqkv + qkv_at(b, s, 1, h, T, C, hs)); /* dk_s += ds·q_t */
        }
    }
}

void attention_backward(const float *qkv, const float *att, const float *dy, int B, int T, int C, int NH, float *dqkv,
                        float *scratch) {
    memset(dqkv, 0, (size_t)B * T * 3 * C * sizeof(float));
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) attention_backward_head(qkv, att, dy, b, h, T, C, NH, dqkv, scratch);
}
