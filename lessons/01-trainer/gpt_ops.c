/* gpt_ops.c — the GPT's layers on the model's device (see gpt_ops.h). On the CPU each function is
 * gpt_layers.c's or layers.h's (the oracle); on a GPU, gpt_kernels.cu's kernels on the context's
 * stream, or lesson 01's own kernels (kernels.cu) for the cross-entropy, so that a student's lesson
 * 01 trains the GPT on the GPU as it does on the CPU. Nothing here waits for the GPU except the
 * cross-entropy's forward, whose losses come back to the host to be averaged. */
#include "gpt_ops.h"

#include "gpt_layers.h"
#include "layers.h"
#include "pairwise.h"
#ifdef DPC_HAVE_CUDA
#include "gpt_kernels.h"
#include "kernels.h"
#endif

#include <string.h>

#ifdef DPC_HAVE_CUDA
#define ON_GPU(ops) ((ops)->backend == OPS_CUDA)
#else
#define ON_GPU(ops) ((void)(ops), 0) /* a build without CUDA has no GPU context to meet */
#endif

/* Calls a launcher of gpt_kernels.h on the context's stream when the context is a GPU's. */
#ifdef DPC_HAVE_CUDA
#define GPU(ops, call)                                                                                                 \
    do {                                                                                                               \
        if (ON_GPU(ops)) {                                                                                             \
            void *stream = ops_stream(ops);                                                                            \
            call;                                                                                                      \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#else
#define GPU(ops, call) (void)(ops)
#endif

/* ---- the CPU's threads ------------------------------------------------------------------------
 * Each op below splits its work over the context's pool (common/pool.h) so that every output element
 * is computed by gpt_layers.c's own loop, on the same inputs in the same order, whichever thread
 * runs it: LayerNorm and the cross-entropy by rows, LayerNorm's parameter gradients by channels,
 * GELU by elements, attention by (sequence, head). The bits are those of one thread. */

typedef struct {
    const float *x, *w, *b, *mean, *rstd, *dy;
    int N, C;
    float *y, *mean_out, *rstd_out, *dx, *dw, *db;
} ln_job_t;

static void ln_forward_rows(void *ctx, size_t n0, size_t n1, int part) {
    const ln_job_t *j = ctx;
    size_t off = n0 * (size_t)j->C;
    (void)part;
    layernorm_forward(j->x + off, j->w, j->b, (int)(n1 - n0), j->C, j->y + off, j->mean_out + n0, j->rstd_out + n0);
}

static void ln_backward_rows(void *ctx, size_t n0, size_t n1, int part) {
    const ln_job_t *j = ctx;
    size_t off = n0 * (size_t)j->C;
    (void)part;
    layernorm_backward_dx(j->x + off, j->w, j->mean + n0, j->rstd + n0, j->dy + off, (int)(n1 - n0), j->C, j->dx + off);
}

/* work items are tiles of PAIRWISE_TILE channels: each thread sums whole tiles, full vector loops */
static void ln_backward_channels(void *ctx, size_t t0, size_t t1, int part) {
    const ln_job_t *j = ctx;
    int c1 = (int)t1 * PAIRWISE_TILE;
    (void)part;
    layernorm_backward_params(j->x, j->mean, j->rstd, j->dy, j->N, j->C, (int)t0 * PAIRWISE_TILE, c1 < j->C ? c1 : j->C,
                              j->dw, j->db);
}

#define ROW_GRAIN  32    /* rows: at C = 256, a few µs of LayerNorm, more of the cross-entropy */
#define ELEM_GRAIN 16384 /* GELU's elements: a part must outweigh waking a thread */

void gpt_ops_layernorm_forward(const ops_t *ops, const float *x, const float *w, const float *b, int N, int C, float *y,
                               float *mean, float *rstd) {
    GPU(ops, gpt_layernorm_forward_cuda(stream, x, w, b, N, C, y, mean, rstd));
    ln_job_t job = {.x = x, .w = w, .b = b, .N = N, .C = C, .y = y, .mean_out = mean, .rstd_out = rstd};
    pool_for(ops->pool, (size_t)N, ROW_GRAIN, ln_forward_rows, &job);
}

void gpt_ops_layernorm_backward(const ops_t *ops, const float *x, const float *w, const float *mean, const float *rstd,
                                const float *dy, int N, int C, float *dx, float *dw, float *db) {
    GPU(ops, gpt_layernorm_backward_cuda(stream, x, w, mean, rstd, dy, N, C, dx, dw, db));
    ln_job_t job = {.x = x, .w = w, .mean = mean, .rstd = rstd, .dy = dy, .N = N, .C = C, .dx = dx, .dw = dw, .db = db};
    pool_for(ops->pool, (size_t)N, ROW_GRAIN, ln_backward_rows, &job);
    pool_for(ops->pool, ((size_t)C + PAIRWISE_TILE - 1) / PAIRWISE_TILE, 1, ln_backward_channels, &job);
}

typedef struct {
    const float *x, *dy;
    float *out;
} gelu_job_t;

static void gelu_forward_part(void *ctx, size_t i0, size_t i1, int part) {
    const gelu_job_t *j = ctx;
    (void)part;
    gelu_forward(j->x + i0, j->out + i0, i1 - i0);
}

static void gelu_backward_part(void *ctx, size_t i0, size_t i1, int part) {
    const gelu_job_t *j = ctx;
    (void)part;
    gelu_backward(j->x + i0, j->dy + i0, j->out + i0, i1 - i0);
}

void gpt_ops_gelu_forward(const ops_t *ops, const float *x, float *y, size_t n) {
    GPU(ops, gpt_gelu_forward_cuda(stream, x, y, n));
    gelu_job_t job = {x, NULL, y};
    pool_for(ops->pool, n, ELEM_GRAIN, gelu_forward_part, &job);
}

void gpt_ops_gelu_backward(const ops_t *ops, const float *x, const float *dy, float *dx, size_t n) {
    GPU(ops, gpt_gelu_backward_cuda(stream, x, dy, dx, n));
    gelu_job_t job = {x, dy, dx};
    pool_for(ops->pool, n, ELEM_GRAIN, gelu_backward_part, &job);
}

/* Each part has its own scratch, a cache line (16 floats) apart: two threads never write one line. */
static size_t scratch_stride(int T, int C, int NH) { return (attention_scratch_floats(T, C, NH) + 15) & ~(size_t)15; }

size_t gpt_ops_attention_scratch_floats(const ops_t *ops, int T, int C, int NH) {
    return scratch_stride(T, C, NH) * (size_t)pool_threads(ops->pool);
}

typedef struct {
    const float *qkv, *att_in, *dy;
    int T, C, NH;
    float *att, *y, *dqkv, *scratch;
} att_job_t;

static void att_forward_heads(void *ctx, size_t p0, size_t p1, int part) {
    const att_job_t *j = ctx;
    (void)part;
    for (size_t p = p0; p < p1; p++)
        attention_forward_head(j->qkv, (int)(p / j->NH), (int)(p % j->NH), j->T, j->C, j->NH, j->att, j->y);
}

static void att_backward_heads(void *ctx, size_t p0, size_t p1, int part) {
    const att_job_t *j = ctx;
    float *scratch = j->scratch + (size_t)part * scratch_stride(j->T, j->C, j->NH);
    for (size_t p = p0; p < p1; p++)
        attention_backward_head(j->qkv, j->att_in, j->dy, (int)(p / j->NH), (int)(p % j->NH), j->T, j->C, j->NH,
                                j->dqkv, scratch);
}

void gpt_ops_attention_forward(const ops_t *ops, const float *qkv, int B, int T, int C, int NH, float *att, float *y) {
    GPU(ops, gpt_attention_forward_cuda(stream, qkv, B, T, C, NH, att, y));
    att_job_t job = {.qkv = qkv, .T = T, .C = C, .NH = NH, .att = att, .y = y};
    pool_for(ops->pool, (size_t)B * NH, 1, att_forward_heads, &job);
}

void gpt_ops_attention_backward(const ops_t *ops, const float *qkv, const float *att, const float *dy, int B, int T,
                                int C, int NH, float *dqkv, float *scratch) {
    GPU(ops, gpt_attention_backward_cuda(stream, qkv, att, dy, B, T, C, NH, dqkv, scratch));
    memset(dqkv, 0, (size_t)B * T * 3 * C * sizeof(float));
    att_job_t job = {.qkv = qkv, .att_in = att, .dy = dy, .T = T, .C = C, .NH = NH, .dqkv = dqkv, .scratch = scratch};
    pool_for(ops->pool, (size_t)B * NH, 1, att_backward_heads, &job);
}

static void add_into(float *y, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] += x[i];
}

void gpt_ops_embedding_forward(const ops_t *ops, const float *wte, const float *wpe, const int32_t *tokens, int B,
                               int T, int C, float *out) {
    GPU(ops, gpt_embedding_forward_cuda(stream, wte, wpe, tokens, B, T, C, out));
    ops_embedding_forward(ops, wte, tokens, B, T, C, out);
    for (int b = 0; b < B; b++) add_into(out + (size_t)b * T * C, wpe, (size_t)T * C);
}

void gpt_ops_position_backward(const ops_t *ops, const float *dout, int B, int T, int C, float *dwpe) {
    GPU(ops, gpt_position_backward_cuda(stream, dout, B, T, C, dwpe));
    for (int b = 0; b < B; b++) add_into(dwpe, dout + (size_t)b * T * C, (size_t)T * C);
}

/* Not ops_embedding_backward on a GPU: its atomics add in any order (the MLP's bits may vary run to
 * run); the GPT's kernel adds in the CPU's order. */
void gpt_ops_token_backward(const ops_t *ops, const float *dout, const int32_t *tokens, int B, int T, int V, int C,
                            float *dwte) {
    GPU(ops, gpt_token_backward_cuda(stream, dout, tokens, B * T, V, C, dwte));
    (void)V;
    ops_embedding_backward(ops, dout, tokens, B, T, C, dwte);
}

void gpt_ops_linear_forward(const ops_t *ops, const float *x, const float *w, const float *b, int N, int in, int out,
                            float *y) {
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(ops)) { /* linear_forward copies the bias row by row: N copies, each a launch on a GPU */
        gpt_bias_rows_cuda(ops_stream(ops), b, N, out, y);
        ops_gemm(ops, false, true, N, out, in, 1.0f, x, w, 1.0f, y);
        return;
    }
#endif
    linear_forward(ops, x, w, b, N, in, out, y);
}

static void xent_forward_rows(void *ctx, size_t n0, size_t n1, int part) {
    gpt_t *m = ctx;
    int V = m->cfg.vocab;
    (void)part;
    for (size_t n = n0; n < n1; n++) {
        m->losses[n] = 0.0f;
        if (m->targets[n] < 0) continue;
        size_t row = n * (size_t)V;
        xent_forward(m->logits + row, m->targets + n, 1, V, m->probs + row, m->losses + n);
    }
}

/* d(mean over counted rows)/dlogits: row n's xent_backward on one row gives ∂(its loss), and the
 * mean over `counted` rows scales it by 1/counted; ignored rows get no gradient */
typedef struct {
    gpt_t *m;
    float scale;
} xent_backward_job_t;

static void xent_backward_rows(void *ctx, size_t n0, size_t n1, int part) {
    const xent_backward_job_t *j = ctx;
    gpt_t *m = j->m;
    int V = m->cfg.vocab;
    (void)part;
    for (size_t n = n0; n < n1; n++) {
        size_t row = n * (size_t)V;
        if (m->targets[n] < 0)
            memset(m->dlogits + row, 0, (size_t)V * sizeof(float));
        else
            xent_backward(m->probs + row, m->targets + n, 1, V, j->scale, m->dlogits + row);
    }
}

float gpt_ops_cross_entropy_forward(gpt_t *m) {
    int N = m->batch * m->seq;
    double total = 0;
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(m->ops)) {
        void *stream = ops_stream(m->ops);
        int V = m->cfg.vocab;
        if (!m->counted) {
            ops_fill(m->ops, m->losses, 0.0f, (size_t)N);
            return 0.0f;
        }
        /* lesson 01's kernel knows no ignored row: give it a target it may index, zero the row after */
        const int32_t *tg = m->targets_dev;
        if (m->counted < N) {
            gpt_safe_targets_cuda(stream, m->targets_dev, N, m->xent_targets_dev);
            tg = m->xent_targets_dev;
        }
        xent_forward_cuda(stream, m->logits, tg, N, V, m->probs, m->losses);
        gpt_check_launch("xent_forward_kernel (kernels.cu)");
        if (m->counted < N) gpt_zero_ignored_rows_cuda(stream, m->targets_dev, N, 1, m->losses);
        ops_download(m->ops, m->losses_host, m->losses, (size_t)N * sizeof(float));
        for (int n = 0; n < N; n++) /* the CPU's order, in double */
            if (m->targets[n] >= 0) total += m->losses_host[n];
        return (float)(total / m->counted);
    }
#endif
    /* row by row (xent_forward on one row: its mean is that row's loss), skipping ignored rows; the
     * rows on the threads, their losses added here in row order */
    pool_for(m->ops->pool, (size_t)N, ROW_GRAIN, xent_forward_rows, m);
    for (int n = 0; n < N; n++)
        if (m->targets[n] >= 0) total += m->losses[n];
    return m->counted ? (float)(total / m->counted) : 0.0f;
}

void gpt_ops_cross_entropy_backward(gpt_t *m, float grad_scale) {
    int N = m->batch * m->seq;
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(m->ops)) {
        void *stream = ops_stream(m->ops);
        int V = m->cfg.vocab;
        if (!m->counted) {
            ops_fill(m->ops, m->dlogits, 0.0f, (size_t)N * V);
            return;
        }
        /* xent_backward_cuda divides by its batch, N rows here; the mean is over the counted rows:
         * scaled so that each row gets grad_scale / counted, the CPU's factor (to a rounding) */
        float scale = (float)((double)grad_scale * N / m->counted);
        xent_backward_cuda(stream, m->probs, m->counted < N ? m->xent_targets_dev : m->targets_dev, N, V, scale,
                           m->dlogits);
        gpt_check_launch("xent_backward_kernel (kernels.cu)");
        if (m->counted < N) gpt_zero_ignored_rows_cuda(stream, m->targets_dev, N, V, m->dlogits);
        return;
    }
#endif
    xent_backward_job_t job = {m, grad_scale / (float)m->counted};
    pool_for(m->ops->pool, (size_t)N, ROW_GRAIN, xent_backward_rows, &job);
}
