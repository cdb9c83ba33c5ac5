/* gpt_ops.c — the GPT's layers on the model's device (see gpt_ops.h). On the CPU each function is
 * gpt_layers.c's or layers.h's (the oracle); on a GPU, gpt_kernels.cu's kernels on the context's
 * stream, or lesson 01's own kernels (kernels.cu) for the cross-entropy, so that a student's lesson
 * 01 trains the GPT on the GPU as it does on the CPU. Nothing here waits for the GPU except the
 * cross-entropy's forward, whose losses come back to the host to be averaged. */
#include "gpt_ops.h"

#include "gpt_layers.h"
#include "layers.h"
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

void gpt_ops_layernorm_forward(const ops_t *ops, const float *x, const float *w, const float *b, int N, int C, float *y,
                               float *mean, float *rstd) {
    GPU(ops, gpt_layernorm_forward_cuda(stream, x, w, b, N, C, y, mean, rstd));
    layernorm_forward(x, w, b, N, C, y, mean, rstd);
}

void gpt_ops_layernorm_backward(const ops_t *ops, const float *x, const float *w, const float *mean, const float *rstd,
                                const float *dy, int N, int C, float *dx, float *dw, float *db) {
    GPU(ops, gpt_layernorm_backward_cuda(stream, x, w, mean, rstd, dy, N, C, dx, dw, db));
    layernorm_backward(x, w, mean, rstd, dy, N, C, dx, dw, db);
}

void gpt_ops_gelu_forward(const ops_t *ops, const float *x, float *y, size_t n) {
    GPU(ops, gpt_gelu_forward_cuda(stream, x, y, n));
    gelu_forward(x, y, n);
}

void gpt_ops_gelu_backward(const ops_t *ops, const float *x, const float *dy, float *dx, size_t n) {
    GPU(ops, gpt_gelu_backward_cuda(stream, x, dy, dx, n));
    gelu_backward(x, dy, dx, n);
}

void gpt_ops_attention_forward(const ops_t *ops, const float *qkv, int B, int T, int C, int NH, float *att, float *y,
                               float *scratch) {
    GPU(ops, gpt_attention_forward_cuda(stream, qkv, B, T, C, NH, att, y));
    attention_forward(qkv, B, T, C, NH, att, y, scratch);
}

void gpt_ops_attention_backward(const ops_t *ops, const float *qkv, const float *att, const float *dy, int B, int T,
                                int C, int NH, float *dqkv, float *scratch) {
    GPU(ops, gpt_attention_backward_cuda(stream, qkv, att, dy, B, T, C, NH, dqkv, scratch));
    attention_backward(qkv, att, dy, B, T, C, NH, dqkv, scratch);
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

float gpt_ops_cross_entropy_forward(gpt_t *m) {
    int N = m->batch * m->seq, V = m->cfg.vocab;
    double total = 0;
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(m->ops)) {
        void *stream = ops_stream(m->ops);
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
    /* row by row (xent_forward on one row: its mean is that row's loss), skipping ignored rows */
    for (int n = 0; n < N; n++) {
        m->losses[n] = 0.0f;
        if (m->targets[n] < 0) continue;
        size_t row = (size_t)n * V;
        total += xent_forward(m->logits + row, m->targets + n, 1, V, m->probs + row, m->losses + n);
    }
    return m->counted ? (float)(total / m->counted) : 0.0f;
}

void gpt_ops_cross_entropy_backward(gpt_t *m, float grad_scale) {
    int N = m->batch * m->seq, V = m->cfg.vocab;
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(m->ops)) {
        void *stream = ops_stream(m->ops);
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
    /* d(mean over counted rows)/dlogits: row n's xent_backward on one row gives ∂(its loss), and the
     * mean over `counted` rows scales it by 1/counted; ignored rows get no gradient */
    for (int n = 0; n < N; n++) {
        size_t row = (size_t)n * V;
        if (m->targets[n] < 0)
            memset(m->dlogits + row, 0, (size_t)V * sizeof(float));
        else
            xent_backward(m->probs + row, m->targets + n, 1, V, grad_scale / (float)m->counted, m->dlogits + row);
    }
}
