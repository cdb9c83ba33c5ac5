/* gpt_kernels.cu — the GPT's layers on a GPU (see gpt_kernels.h): the same arithmetic as
 * gpt_layers.c, with the loops over rows, heads and channels spread over threads.
 *
 *   kernel                      one thread (or warp) per         sums over rows
 *   layernorm_forward           warp per row (row statistics)    -
 *   layernorm_backward_dx       warp per row                     -
 *   layernorm_backward_params   thread per channel               rows pairwise (dw, db)
 *   gelu_forward / backward     thread per element               -
 *   attention_forward           thread per (b, h, t): one query row of scores, softmax and y_t
 *   attention_backward_query    thread per (b, h, t): dscore row, dq_t
 *   attention_backward_key      thread per (b, h, s): dk_s, dv_s over the queries t >= s in order
 *   embedding_forward           thread per element
 *   position_backward           thread per (t, c)                sequences in order
 *   token_backward              thread per (v, c)                rows in order
 *
 * Simple before fast: the course is about data parallelism, and these kernels only have to agree
 * with the CPU oracle (tests/unit/test_gpu.c checks each one). The attention backward is split in
 * two so that no two threads ever add into the same dk or dv: the CPU walks query rows and scatters
 * into the keys, a thread here gathers from the queries instead (no atomics, same order).
 * Every loop is grid-stride, so any grid covers any size. */
#include "gpt_kernels.h"

#include "gpt_layers.h" /* GPT_LN_EPS */
#include "pairwise.h"
#include "util.h" /* dp_fatal */

#include <cuda_runtime.h>
#include <math.h>

#define THREADS 128 /* a multiple of the warp size: the warp-per-row kernels need whole warps */
#define WARP    32

static unsigned grid_for(size_t threads_needed) {
    size_t b = (threads_needed + THREADS - 1) / THREADS;
    if (b > 65535) b = 65535; /* the grid-stride loops cover the rest */
    return b ? (unsigned)b : 1u;
}

/* Launch errors (a bad configuration, no device) surface here; faults during the run surface at the
 * next synchronising call of ops_cuda.cu, which names it. */
extern "C" void gpt_check_launch(const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) dp_fatal("CUDA kernel %s failed to launch: %s", what, cudaGetErrorString(e));
}

static void launched(const char *kernel) { gpt_check_launch(kernel); }

#define GRID_STRIDE(i, n)                                                                                              \
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

/* The sum of v over the warp's 32 lanes, in every lane (butterfly exchange). */
__device__ static double warp_sum(double v) {
    for (int o = WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* ---- LayerNorm ---------------------------------------------------------------------------------- */

/* The row index is the same in all 32 lanes of a warp, so a warp enters and leaves the loop whole
 * and warp_sum always has every lane. */
__global__ void layernorm_forward_kernel(const float *x, const float *w, const float *b, int N, int C, float *y,
                                         float *mean, float *rstd) {
    int lane = threadIdx.x % WARP;
    size_t warps = (size_t)gridDim.x * blockDim.x / WARP;
    for (size_t n = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP; n < (size_t)N; n += warps) {
        const float *xr = x + n * C;
        double s = 0, v = 0;
        for (int c = lane; c < C; c += WARP) s += xr[c];
        double m = warp_sum(s) / C;
        for (int c = lane; c < C; c += WARP) v += (xr[c] - m) * (xr[c] - m);
        float r = (float)(1.0 / sqrt(warp_sum(v) / C + GPT_LN_EPS)); /* biased variance, as the CPU */
        float *yr = y + n * C;
        for (int c = lane; c < C; c += WARP) yr[c] = ((xr[c] - (float)m) * r) * w[c] + b[c];
        if (lane == 0) mean[n] = (float)m, rstd[n] = r;
    }
}

__global__ void layernorm_backward_dx_kernel(const float *x, const float *w, const float *mean, const float *rstd,
                                             const float *dy, int N, int C, float *dx) {
    int lane = threadIdx.x % WARP;
    size_t warps = (size_t)gridDim.x * blockDim.x / WARP;
    for (size_t n = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / WARP; n < (size_t)N; n += warps) {
        const float *xr = x + n * C, *dyr = dy + n * C;
        float mu = mean[n], rs = rstd[n];
        double sg = 0, sgx = 0;
        for (int c = lane; c < C; c += WARP) {
            float xhat = (xr[c] - mu) * rs, g = dyr[c] * w[c];
            sg += g;
            sgx += g * xhat;
        }
        float mg = (float)(warp_sum(sg) / C), mgx = (float)(warp_sum(sgx) / C);
        float *dxr = dx + n * C;
        for (int c = lane; c < C; c += WARP) {
            float xhat = (xr[c] - mu) * rs;
            dxr[c] += rs * (dyr[c] * w[c] - mg - xhat * mgx);
        }
    }
}

/* One thread per channel sums the rows by pairwise.h's tree: the CPU's products and additions, bit
 * for bit, without atomics. */
__global__ void layernorm_backward_params_kernel(const float *x, const float *mean, const float *rstd, const float *dy,
                                                 int N, int C, float *dw, float *db) {
    GRID_STRIDE(c, (size_t)C) {
        pairwise1_t gw, gb;
        pairwise1_init(&gw);
        pairwise1_init(&gb);
        for (int n = 0; n < N; n++) {
            size_t i = (size_t)n * C + c;
            /* __fmul_rn: a product the compiler may not fuse with the sum's add (nvcc fuses by default) */
            pairwise1_add(&gw, __fmul_rn(dy[i], __fmul_rn(x[i] - mean[n], rstd[n])));
            pairwise1_add(&gb, dy[i]);
        }
        pairwise1_finish(&gw, &dw[c]);
        pairwise1_finish(&gb, &db[c]);
    }
}

extern "C" void gpt_layernorm_forward_cuda(void *stream, const float *x, const float *w, const float *b, int N, int C,
                                           float *y, float *mean, float *rstd) {
    layernorm_forward_kernel<<<grid_for((size_t)N * WARP), THREADS, 0, (cudaStream_t)stream>>>(x, w, b, N, C, y, mean,
                                                                                               rstd);
    launched("layernorm_forward_kernel");
}

extern "C" void gpt_layernorm_backward_cuda(void *stream, const float *x, const float *w, const float *mean,
                                            const float *rstd, const float *dy, int N, int C, float *dx, float *dw,
                                            float *db) {
    cudaStream_t s = (cudaStream_t)stream;
    layernorm_backward_dx_kernel<<<grid_for((size_t)N * WARP), THREADS, 0, s>>>(x, w, mean, rstd, dy, N, C, dx);
    launched("layernorm_backward_dx_kernel");
    layernorm_backward_params_kernel<<<grid_for((size_t)C), THREADS, 0, s>>>(x, mean, rstd, dy, N, C, dw, db);
    launched("layernorm_backward_params_kernel");
}

/* ---- GELU (tanh approximation, through the logistic function as gpt_layers.c explains) --------- */

#define GELU_K 0.7978845608028654f /* √(2/π) */
#define GELU_A 0.044715f

__device__ static float gelu_sigma(float v) { return 1.0f / (1.0f + expf(-2.0f * GELU_K * (v + GELU_A * v * v * v))); }

__global__ void gelu_forward_kernel(const float *x, float *y, size_t n) {
    GRID_STRIDE(i, n) y[i] = x[i] * gelu_sigma(x[i]);
}

/* dx may be dy: each thread reads its dy[i] before writing dx[i]. */
__global__ void gelu_backward_kernel(const float *x, const float *dy, float *dx, size_t n) {
    GRID_STRIDE(i, n) {
        float v = x[i], sg = gelu_sigma(v);
        float d = sg + 2.0f * v * sg * (1.0f - sg) * GELU_K * (1.0f + 3.0f * GELU_A * v * v);
        dx[i] = dy[i] * d;
    }
}

extern "C" void gpt_gelu_forward_cuda(void *stream, const float *x, float *y, size_t n) {
    gelu_forward_kernel<<<grid_for(n), THREADS, 0, (cudaStream_t)stream>>>(x, y, n);
    launched("gelu_forward_kernel");
}

extern "C" void gpt_gelu_backward_cuda(void *stream, const float *x, const float *dy, float *dx, size_t n) {
    gelu_backward_kernel<<<grid_for(n), THREADS, 0, (cudaStream_t)stream>>>(x, dy, dx, n);
    launched("gelu_backward_kernel");
}

/* ---- causal self-attention ---------------------------------------------------------------------- */

/* Where head h's q, k or v (part 0, 1, 2) of token t of sequence b starts (gpt_layers.c's qkv_at). */
__device__ static size_t qkv_at(int b, int t, int part, int h, int T, int C, int hs) {
    return ((size_t)b * T + t) * 3 * C + (size_t)part * C + (size_t)h * hs;
}

/* Row r of att is (b, h, t) = (r / (NH·T), r / T % NH, r % T), as att's layout [B, NH, T, T] says. */
__global__ void attention_forward_kernel(const float *qkv, int B, int T, int C, int NH, float scale, float *att,
                                         float *y) {
    int hs = C / NH;
    GRID_STRIDE(r, (size_t)B * NH * T) {
        int t = (int)(r % T), h = (int)(r / T % NH), b = (int)(r / ((size_t)T * NH));
        const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
        float *p = att + r * T;
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
        float *yr = y + ((size_t)b * T + t) * C + (size_t)h * hs;
        for (int i = 0; i < hs; i++) {
            double acc = 0;
            for (int s = 0; s <= t; s++) acc += p[s] * qkv[qkv_at(b, s, 2, h, T, C, hs) + i];
            yr[i] = (float)acc;
        }
    }
}

/* Query row (b, h, t): dp_s = dy_t·v_s, then dscore_s = p_s·(dp_s − Σ_r p_r·dp_r)·scale into datt's row
 * (what the key pass reads), and dq_t = Σ_s dscore_s·k_s, written whole. */
__global__ void attention_backward_query_kernel(const float *qkv, const float *att, const float *dy, int B, int T,
                                                int C, int NH, float scale, float *dqkv, float *datt) {
    int hs = C / NH;
    GRID_STRIDE(r, (size_t)B * NH * T) {
        int t = (int)(r % T), h = (int)(r / T % NH), b = (int)(r / ((size_t)T * NH));
        const float *p = att + r * T;
        float *d = datt + r * T;
        const float *dyr = dy + ((size_t)b * T + t) * C + (size_t)h * hs;
        double pdp = 0;
        for (int s = 0; s <= t; s++) {
            const float *v = qkv + qkv_at(b, s, 2, h, T, C, hs);
            double dot = 0;
            for (int i = 0; i < hs; i++) dot += dyr[i] * v[i];
            d[s] = (float)dot;
            pdp += p[s] * d[s];
        }
        float *dq = dqkv + qkv_at(b, t, 0, h, T, C, hs);
        for (int i = 0; i < hs; i++) dq[i] = 0.0f;
        for (int s = 0; s <= t; s++) {
            float ds = p[s] * (d[s] - (float)pdp) * scale;
            d[s] = ds;
            const float *k = qkv + qkv_at(b, s, 1, h, T, C, hs);
            for (int i = 0; i < hs; i++) dq[i] += ds * k[i];
        }
    }
}

/* Key row (b, h, s): dk_s = Σ_{t≥s} dscore[t, s]·q_t and dv_s = Σ_{t≥s} p[t, s]·dy_t, t in increasing
 * order (the order in which the CPU's query loop adds into them), both written whole. */
__global__ void attention_backward_key_kernel(const float *qkv, const float *att, const float *datt, const float *dy,
                                              int B, int T, int C, int NH, float *dqkv) {
    int hs = C / NH;
    GRID_STRIDE(r, (size_t)B * NH * T) {
        int s = (int)(r % T), h = (int)(r / T % NH), b = (int)(r / ((size_t)T * NH));
        float *dk = dqkv + qkv_at(b, s, 1, h, T, C, hs), *dv = dqkv + qkv_at(b, s, 2, h, T, C, hs);
        for (int i = 0; i < hs; i++) dk[i] = dv[i] = 0.0f;
        size_t row0 = r - s; /* the row of query t = 0 in this (b, h) */
        for (int t = s; t < T; t++) {
            float ds = datt[(row0 + t) * T + s], pts = att[(row0 + t) * T + s];
            const float *q = qkv + qkv_at(b, t, 0, h, T, C, hs);
            const float *dyr = dy + ((size_t)b * T + t) * C + (size_t)h * hs;
            for (int i = 0; i < hs; i++) {
                dk[i] += ds * q[i];
                dv[i] += pts * dyr[i];
            }
        }
    }
}

extern "C" void gpt_attention_forward_cuda(void *stream, const float *qkv, int B, int T, int C, int NH, float *att,
                                           float *y) {
    float scale = 1.0f / sqrtf((float)(C / NH)); /* on the host, as the CPU computes it */
    attention_forward_kernel<<<grid_for((size_t)B * NH * T), THREADS, 0, (cudaStream_t)stream>>>(qkv, B, T, C, NH,
                                                                                                 scale, att, y);
    launched("attention_forward_kernel");
}

extern "C" void gpt_attention_backward_cuda(void *stream, const float *qkv, const float *att, const float *dy, int B,
                                            int T, int C, int NH, float *dqkv, float *datt) {
    cudaStream_t s = (cudaStream_t)stream;
    float scale = 1.0f / sqrtf((float)(C / NH));
    unsigned grid = grid_for((size_t)B * NH * T);
    attention_backward_query_kernel<<<grid, THREADS, 0, s>>>(qkv, att, dy, B, T, C, NH, scale, dqkv, datt);
    launched("attention_backward_query_kernel");
    /* same stream: starts after every dscore row is written */
    attention_backward_key_kernel<<<grid, THREADS, 0, s>>>(qkv, att, datt, dy, B, T, C, NH, dqkv);
    launched("attention_backward_key_kernel");
}

/* ---- token + position embedding ----------------------------------------------------------------- */

__global__ void embedding_forward_kernel(const float *wte, const float *wpe, const int32_t *tokens, int N, int T, int C,
                                         float *out) {
    GRID_STRIDE(i, (size_t)N * C) {
        size_t n = i / C, c = i % C;
        out[i] = wte[(size_t)tokens[n] * C + c] + wpe[(n % T) * C + c];
    }
}

__global__ void position_backward_kernel(const float *dout, int B, int T, int C, float *dwpe) {
    GRID_STRIDE(i, (size_t)T * C) { /* i = t·C + c */
        float g = dwpe[i];
        for (int b = 0; b < B; b++) g += dout[(size_t)b * T * C + i];
        dwpe[i] = g;
    }
}

/* Gathering (each table entry scans the tokens) instead of scattering (each token adds into its row)
 * needs no atomics and adds in the CPU's order, at the price of V·C·N comparisons: a few
 * milliseconds at gpt-small's sizes. */
__global__ void token_backward_kernel(const float *dout, const int32_t *tokens, int N, int V, int C, float *dwte) {
    GRID_STRIDE(i, (size_t)V * C) { /* i = v·C + c */
        int v = (int)(i / C);
        size_t c = i % C;
        float g = dwte[i];
        for (int n = 0; n < N; n++)
            if (tokens[n] == v) g += dout[(size_t)n * C + c];
        dwte[i] = g;
    }
}

extern "C" void gpt_embedding_forward_cuda(void *stream, const float *wte, const float *wpe, const int32_t *tokens,
                                           int B, int T, int C, float *out) {
    size_t n = (size_t)B * T * C;
    embedding_forward_kernel<<<grid_for(n), THREADS, 0, (cudaStream_t)stream>>>(wte, wpe, tokens, B * T, T, C, out);
    launched("embedding_forward_kernel");
}

extern "C" void gpt_position_backward_cuda(void *stream, const float *dout, int B, int T, int C, float *dwpe) {
    position_backward_kernel<<<grid_for((size_t)T * C), THREADS, 0, (cudaStream_t)stream>>>(dout, B, T, C, dwpe);
    launched("position_backward_kernel");
}

extern "C" void gpt_token_backward_cuda(void *stream, const float *dout, const int32_t *tokens, int N, int V, int C,
                                        float *dwte) {
    token_backward_kernel<<<grid_for((size_t)V * C), THREADS, 0, (cudaStream_t)stream>>>(dout, tokens, N, V, C, dwte);
    launched("token_backward_kernel");
}

/* ---- helpers of the Linear layer and the cross-entropy ------------------------------------------ */

__global__ void bias_rows_kernel(const float *bias, int N, int out, float *y) {
    GRID_STRIDE(i, (size_t)N * out) y[i] = bias[i % out];
}

__global__ void zero_ignored_rows_kernel(const int32_t *targets, int N, int width, float *x) {
    GRID_STRIDE(i, (size_t)N * width) {
        if (targets[i / width] < 0) x[i] = 0.0f;
    }
}

extern "C" void gpt_bias_rows_cuda(void *stream, const float *bias, int N, int out, float *y) {
    bias_rows_kernel<<<grid_for((size_t)N * out), THREADS, 0, (cudaStream_t)stream>>>(bias, N, out, y);
    launched("bias_rows_kernel");
}

extern "C" void gpt_zero_ignored_rows_cuda(void *stream, const int32_t *targets, int N, int width, float *x) {
    zero_ignored_rows_kernel<<<grid_for((size_t)N * width), THREADS, 0, (cudaStream_t)stream>>>(targets, N, width, x);
    launched("zero_ignored_rows_kernel");
}

__global__ void safe_targets_kernel(const int32_t *targets, int N, int32_t *safe) {
    GRID_STRIDE(n, (size_t)N) safe[n] = targets[n] < 0 ? 0 : targets[n];
}

extern "C" void gpt_safe_targets_cuda(void *stream, const int32_t *targets, int N, int32_t *safe) {
    safe_targets_kernel<<<grid_for((size_t)N), THREADS, 0, (cudaStream_t)stream>>>(targets, N, safe);
    launched("safe_targets_kernel");
}
