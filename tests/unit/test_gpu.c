/* Every CUDA kernel of the course against its CPU reference (the oracle), on fresh random inputs.
 *
 *   ops_cuda.cu     gemm (4 transposes), colsum, tanh fwd/bwd, embedding fwd/bwd, fill/scale/axpy/copy, sumsq
 *   kernels.cu      softmax cross-entropy fwd/bwd, AdamW, SGD (through optim_step)
 *   gpt_kernels.cu  LayerNorm fwd/bwd, GELU fwd/bwd, causal attention fwd/bwd, token + position
 *                   embedding fwd/bwd, the Linear's bias broadcast (against gpt_layers.c and ops_cpu);
 *                   and the whole GPT: gpt-tiny, 5 SGD steps on the GPU against the same on the CPU
 *   lesson 03       the reference reduce_add_cuda (the student's is graded by grading/grade 03)
 *   mixed precision ops_round bit for bit against the CPU (half_sweep.h and random patterns), the
 *                   16-bit GEMM (cublasGemmEx) against a float64 product of the rounded operands,
 *                   and lesson 01's mixed_precision.c on a GPU model against the same on the CPU
 *
 * Each GPU output is POISONED (NaN) before the kernel runs, so an element the kernel forgets to write
 * fails; accumulating outputs start from the same random values on both sides. Thresholds are
 * relative to the largest reference magnitude and stated per kernel: exact for data movement and
 * element-wise IEEE operations, 1e-5 where the order of a sum or the libm of the device differs.
 *
 * No GPU (or a build without CUDA): one line saying so, exit 77 (tests/run reports SKIP).
 * `test_gpu --bench [MiB]` measures instead: reduce_add bandwidth against a device-to-device copy;
 * `test_gpu --probe` only answers whether a GPU is there (exit 0) or not (77). */
#include "testutil.h"

#include "collective.h"
#include "gpt.h"
#include "gpt_layers.h"
#include "gpt_ops.h"
#include "half.h"
#include "half_sweep.h"
#include "layers.h"
#include "mixed_precision.h"
#include "model.h"
#include "ops.h"
#include "optim.h"
#include "rng.h"

#include <math.h>
#include <time.h>

#ifdef DPC_HAVE_CUDA
#include "kernels.h"

#include <cuda_runtime.h>

static ops_t *gpu, *cpu;
static rng_t rng;

/* ---- helpers: random host arrays, device copies, poisoned outputs, comparison ------------------- */

static float *randn(size_t n, float scale) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(&rng);
    return x;
}

static float *up(const float *host, size_t n) {
    float *d = ops_alloc(gpu, n ? n : 1);
    ops_from_host(gpu, d, host, n);
    return d;
}

static float *poisoned(size_t n) {
    float *d = ops_alloc(gpu, n ? n : 1);
    ops_fill(gpu, d, NAN, n);
    return d;
}

static float *down(const float *dev, size_t n) {
    float *h = malloc((n ? n : 1) * sizeof(float));
    ops_to_host(gpu, h, dev, n);
    return h;
}

/* max |got − want| / max(max |want|, tiny) must be <= tol; NaN (an unwritten element) always fails. */
static void expect_close(const char *what, const float *want, const float *dev_got, size_t n, double tol) {
    float *got = down(dev_got, n);
    double scale = 1e-30, err = 0;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(want[i]));
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (isnan(got[i]) || isnan(e)) e = INFINITY;
        if (e > err) err = e, worst = i;
    }
    if (err / scale > tol)
        fail_msg("%s: element %zu is %.9g, the CPU gives %.9g (relative error %.3g > %.1g%s)", what, worst,
                 (double)got[worst], (double)want[worst], err / scale, tol,
                 isnan(got[worst]) ? ": never written (still the poison)" : "");
    free(got);
}

/* ---- ops_cuda.cu ---------------------------------------------------------------------------------- */

static void gemm_all_transposes(void **state) {
    (void)state;
    const int M = 37, N = 53, K = 29;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            float *A = randn((size_t)M * K, 1), *B = randn((size_t)K * N, 1), *C = randn((size_t)M * N, 1);
            float *dA = up(A, (size_t)M * K), *dB = up(B, (size_t)K * N), *dC = up(C, (size_t)M * N);
            ops_gemm(cpu, ta, tb, M, N, K, 0.7f, A, B, 0.3f, C);
            ops_gemm(gpu, ta, tb, M, N, K, 0.7f, dA, dB, 0.3f, dC);
            char what[64];
            snprintf(what, sizeof what, "gemm transA=%d transB=%d", ta, tb);
            expect_close(what, C, dC, (size_t)M * N, 1e-5);
            ops_free(gpu, dA), ops_free(gpu, dB), ops_free(gpu, dC);
            free(A), free(B), free(C);
        }
}

static void colsum_and_tanh(void **state) {
    (void)state;
    const int R = 131, Cc = 67;
    size_t n = (size_t)R * Cc;
    float *x = randn(n, 1), *out = randn((size_t)Cc, 1);
    float *dx = up(x, n), *dout = up(out, (size_t)Cc);
    ops_colsum_acc(cpu, x, R, Cc, out);
    ops_colsum_acc(gpu, dx, R, Cc, dout);
    expect_close("colsum_acc", out, dout, (size_t)Cc, 1e-5);

    float *y = malloc(n * sizeof(float)), *dy = randn(n, 1), *g = malloc(n * sizeof(float));
    float *dyv = poisoned(n), *ddy = up(dy, n), *dg = poisoned(n);
    ops_tanh_forward(cpu, x, y, n);
    ops_tanh_forward(gpu, dx, dyv, n);
    expect_close("tanh_forward", y, dyv, n, 1e-6);
    ops_tanh_backward(cpu, y, dy, g, n);
    ops_from_host(gpu, dyv, y, n); /* the same y on both sides: backward alone is under test */
    ops_tanh_backward(gpu, dyv, ddy, dg, n);
    expect_close("tanh_backward", g, dg, n, 1e-6);
    ops_free(gpu, dx), ops_free(gpu, dout), ops_free(gpu, dyv), ops_free(gpu, ddy), ops_free(gpu, dg);
    free(x), free(out), free(y), free(dy), free(g);
}

static void embedding_with_repeated_rows(void **state) {
    (void)state;
    const int V = 11, E = 24, B = 9, T = 7; /* 63 indices into 11 rows: many repeats (atomics) */
    int32_t idx[63];
    for (int i = 0; i < B * T; i++) idx[i] = (int32_t)rng_below(&rng, V);
    int32_t *didx = ops_alloc_bytes(gpu, sizeof idx);
    ops_upload(gpu, didx, idx, sizeof idx);
    size_t nt = (size_t)V * E, no = (size_t)B * T * E;
    float *table = randn(nt, 1), *out = malloc(no * sizeof(float));
    float *dtable = up(table, nt), *dout = poisoned(no);
    ops_embedding_forward(cpu, table, idx, B, T, E, out);
    ops_embedding_forward(gpu, dtable, didx, B, T, E, dout);
    expect_close("embedding_forward", out, dout, no, 0); /* a gather: exact */
    float *gout = randn(no, 1), *gtab = randn(nt, 1);
    float *dgout = up(gout, no), *dgtab = up(gtab, nt);
    ops_embedding_backward(cpu, gout, idx, B, T, E, gtab);
    ops_embedding_backward(gpu, dgout, didx, B, T, E, dgtab);
    expect_close("embedding_backward", gtab, dgtab, nt, 1e-6); /* atomics: any order */
    ops_free_bytes(gpu, didx);
    ops_free(gpu, dtable), ops_free(gpu, dout), ops_free(gpu, dgout), ops_free(gpu, dgtab);
    free(table), free(out), free(gout), free(gtab);
}

static void elementwise_and_sumsq(void **state) {
    (void)state;
    const size_t sizes[] = {0, 1, 255, 256, 257, 100003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        float *x = randn(n, 1), *y = randn(n, 1);
        float *dx = up(x, n), *dy = up(y, n), *dc = poisoned(n);
        ops_axpy(cpu, -0.37f, x, y, n);
        ops_axpy(gpu, -0.37f, dx, dy, n);
        expect_close("axpy", y, dy, n, 1e-6); /* the device may fuse the multiply-add */
        /* from here on exact: the device's own axpy result is the input on both sides */
        ops_to_host(gpu, y, dy, n);
        ops_scale(cpu, y, 1.5f, n);
        ops_scale(gpu, dy, 1.5f, n);
        expect_close("scale", y, dy, n, 0);
        ops_copy(gpu, dy, dc, n);
        expect_close("copy", y, dc, n, 0);
        double want = ops_sumsq(cpu, y, n), got = ops_sumsq(gpu, dy, n);
        if (fabs(got - want) > 1e-9 * (want > 0 ? want : 1))
            fail_msg("sumsq of %zu elements: %.15g, the CPU gives %.15g", n, got, want);
        ops_fill(cpu, x, 2.25f, n);
        ops_fill(gpu, dc, 2.25f, n);
        expect_close("fill", x, dc, n, 0);
        ops_free(gpu, dx), ops_free(gpu, dy), ops_free(gpu, dc);
        free(x), free(y);
    }
}

/* ---- kernels.cu (lesson 01's GPU twins) ----------------------------------------------------------- */

static void cross_entropy(void **state) {
    (void)state;
    const int B = 33, V = 517;
    size_t n = (size_t)B * V;
    float *logits = randn(n, 3), *probs = malloc(n * sizeof(float)), *losses = malloc(B * sizeof(float));
    float *dl = malloc(n * sizeof(float));
    int32_t tg[33];
    for (int b = 0; b < B; b++) tg[b] = (int32_t)rng_below(&rng, V);
    float *dlogits = up(logits, n), *dprobs = poisoned(n), *dlosses = poisoned(B), *ddl = poisoned(n);
    int32_t *dtg = ops_alloc_bytes(gpu, sizeof tg);
    ops_upload(gpu, dtg, tg, sizeof tg);
    xent_forward(logits, tg, B, V, probs, losses);
    xent_forward_cuda(ops_stream(gpu), dlogits, dtg, B, V, dprobs, dlosses);
    expect_close("xent_forward probs", probs, dprobs, n, 1e-5);
    expect_close("xent_forward losses", losses, dlosses, B, 1e-5);
    xent_backward(probs, tg, B, V, 0.5f, dl);
    ops_from_host(gpu, dprobs, probs, n);
    xent_backward_cuda(ops_stream(gpu), dprobs, dtg, B, V, 0.5f, ddl);
    expect_close("xent_backward", dl, ddl, n, 1e-6);
    ops_free_bytes(gpu, dtg);
    ops_free(gpu, dlogits), ops_free(gpu, dprobs), ops_free(gpu, dlosses), ops_free(gpu, ddl);
    free(logits), free(probs), free(losses), free(dl);
}

static void optimizers_three_steps(void **state) {
    (void)state;
    const size_t n = 10007;
    for (int kind = 0; kind < 2; kind++) {
        optim_t oc, og;
        optim_init(&oc, kind ? OPTIM_SGD : OPTIM_ADAMW, n);
        optim_init_on(&og, kind ? OPTIM_SGD : OPTIM_ADAMW, n, gpu);
        oc.sgd = og.sgd = (sgd_hparams_t){0.9, 1e-3};
        float *p = randn(n, 1), *dp = up(p, n);
        for (int s = 0; s < 3; s++) {
            float *g = randn(n, 0.1f), *dg = up(g, n);
            optim_step(&oc, p, g, 1e-2);
            optim_step(&og, dp, dg, 1e-2);
            ops_free(gpu, dg);
            free(g);
        }
        expect_close(kind ? "SGD (momentum, weight decay), 3 steps" : "AdamW, 3 steps", p, dp, n, 1e-5);
        ops_free(gpu, dp);
        free(p);
        optim_free(&oc);
        optim_free(&og);
    }
}

/* ---- gpt_kernels.cu (the GPT's layers) against gpt_layers.c ------------------------------------- */

static int32_t *up_ints(const int32_t *host, size_t n) {
    int32_t *d = ops_alloc_bytes(gpu, (n ? n : 1) * sizeof(int32_t));
    ops_upload(gpu, d, host, n * sizeof(int32_t));
    return d;
}

/* C = 67: rows wider than a warp and not a multiple of it (the warp-per-row kernels' loop tails). */
static void gpt_layernorm(void **state) {
    (void)state;
    const int N = 45, C = 67;
    size_t n = (size_t)N * C;
    float *x = randn(n, 2), *w = randn(C, 1), *b = randn(C, 1), *y = malloc(n * sizeof(float));
    float *mean = malloc(N * sizeof(float)), *rstd = malloc(N * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] += 0.5f; /* a mean away from 0 */
    float *dx_ = up(x, n), *dw_ = up(w, C), *db_ = up(b, C), *dy_ = poisoned(n), *dmean = poisoned(N),
          *drstd = poisoned(N);
    layernorm_forward(x, w, b, N, C, y, mean, rstd);
    gpt_ops_layernorm_forward(gpu, dx_, dw_, db_, N, C, dy_, dmean, drstd);
    expect_close("layernorm_forward y", y, dy_, n, 1e-5);
    expect_close("layernorm_forward mean", mean, dmean, N, 1e-6);
    expect_close("layernorm_forward rstd", rstd, drstd, N, 1e-6);
    /* backward from the CPU's mean and rstd; dx, dw, db start from random values (all accumulate) */
    float *g = randn(n, 1), *gx = randn(n, 1), *gw = randn(C, 1), *gb = randn(C, 1);
    float *dg = up(g, n), *dgx = up(gx, n), *dgw = up(gw, C), *dgb = up(gb, C);
    ops_from_host(gpu, dmean, mean, N);
    ops_from_host(gpu, drstd, rstd, N);
    layernorm_backward(x, w, mean, rstd, g, N, C, gx, gw, gb);
    gpt_ops_layernorm_backward(gpu, dx_, dw_, dmean, drstd, dg, N, C, dgx, dgw, dgb);
    expect_close("layernorm_backward dx (added)", gx, dgx, n, 1e-5);
    expect_close("layernorm_backward dw (accumulated)", gw, dgw, C, 1e-5);
    expect_close("layernorm_backward db (accumulated)", gb, dgb, C, 1e-6);
    float *devs[] = {dx_, dw_, db_, dy_, dmean, drstd, dg, dgx, dgw, dgb};
    for (size_t i = 0; i < sizeof devs / sizeof *devs; i++) ops_free(gpu, devs[i]);
    free(x), free(w), free(b), free(y), free(mean), free(rstd), free(g), free(gx), free(gw), free(gb);
}

/* The device's expf may differ from glibc's by an ulp or two: 1e-5 of the largest value. */
static void gpt_gelu(void **state) {
    (void)state;
    const size_t n = 100003;
    float *x = randn(n, 3), *y = malloc(n * sizeof(float)), *g = randn(n, 1), *gx = malloc(n * sizeof(float));
    float *dx_ = up(x, n), *dy_ = poisoned(n), *dg = up(g, n);
    gelu_forward(x, y, n);
    gpt_ops_gelu_forward(gpu, dx_, dy_, n);
    expect_close("gelu_forward", y, dy_, n, 1e-5);
    gelu_backward(x, g, gx, n);
    gpt_ops_gelu_backward(gpu, dx_, dg, dg, n); /* in place, as gpt.c calls it */
    expect_close("gelu_backward (in place)", gx, dg, n, 1e-5);
    ops_free(gpu, dx_), ops_free(gpu, dy_), ops_free(gpu, dg);
    free(x), free(y), free(g), free(gx);
}

/* Two shapes: small heads, and heads of 80 (wider than the CPU's 64-wide accumulator slices). T = 7
 * is no power of two. att and dqkv are poisoned: the masked future must be written as 0, and every
 * q, k and v gradient written. */
static void gpt_attention(void **state) {
    (void)state;
    const int shapes[][4] = {{3, 7, 24, 3}, {2, 5, 160, 2}}; /* B, T, C, NH */
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        int B = shapes[k][0], T = shapes[k][1], C = shapes[k][2], NH = shapes[k][3];
        size_t nq = (size_t)B * T * 3 * C, na = (size_t)B * NH * T * T, ny = (size_t)B * T * C;
        float *qkv = randn(nq, 1), *att = malloc(na * sizeof(float)), *y = malloc(ny * sizeof(float));
        float *dqkv_ = up(qkv, nq), *datt = poisoned(na), *dy_ = poisoned(ny);
        float *scratch = malloc(attention_scratch_floats(T, C, NH) * sizeof(float));
        attention_forward(qkv, B, T, C, NH, att, y);
        gpt_ops_attention_forward(gpu, dqkv_, B, T, C, NH, datt, dy_);
        char what[96];
        snprintf(what, sizeof what, "attention_forward att (B=%d T=%d C=%d NH=%d)", B, T, C, NH);
        expect_close(what, att, datt, na, 1e-5);
        snprintf(what, sizeof what, "attention_forward y (B=%d T=%d C=%d NH=%d)", B, T, C, NH);
        expect_close(what, y, dy_, ny, 1e-5);
        float *g = randn(ny, 1), *gq = malloc(nq * sizeof(float));
        float *dg = up(g, ny), *dgq = poisoned(nq), *dscratch = poisoned(na);
        ops_from_host(gpu, datt, att, na); /* the same probabilities on both sides */
        attention_backward(qkv, att, g, B, T, C, NH, gq, scratch);
        gpt_ops_attention_backward(gpu, dqkv_, datt, dg, B, T, C, NH, dgq, dscratch);
        snprintf(what, sizeof what, "attention_backward dqkv (B=%d T=%d C=%d NH=%d)", B, T, C, NH);
        expect_close(what, gq, dgq, nq, 1e-5);
        ops_free(gpu, dqkv_), ops_free(gpu, datt), ops_free(gpu, dy_), ops_free(gpu, dg), ops_free(gpu, dgq);
        ops_free(gpu, dscratch);
        free(qkv), free(att), free(y), free(g), free(gq), free(scratch);
    }
}

/* Sums of plain adds in the CPU's order, no atomics: the GPU must give the same bits (tolerance 0). */
static void gpt_embedding(void **state) {
    (void)state;
    const int V = 11, T = 7, C = 40, B = 9, N = 63; /* 63 tokens over 11 rows: many repeats */
    int32_t tok[63];
    for (int i = 0; i < N; i++) tok[i] = (int32_t)rng_below(&rng, V);
    tok[0] = tok[N - 1] = V - 1; /* the last row of the table is used */
    int32_t *dtok = up_ints(tok, N);
    size_t ne = (size_t)V * C, np = (size_t)T * C, no = (size_t)N * C;
    float *wte = randn(ne, 1), *wpe = randn(np, 1), *out = malloc(no * sizeof(float));
    float *dwte = up(wte, ne), *dwpe = up(wpe, np), *dout = poisoned(no);
    gpt_ops_embedding_forward(cpu, wte, wpe, tok, B, T, C, out);
    gpt_ops_embedding_forward(gpu, dwte, dwpe, dtok, B, T, C, dout);
    expect_close("embedding_forward (wte + wpe)", out, dout, no, 0);
    float *g = randn(no, 1), *gte = randn(ne, 1), *gpe = randn(np, 1);
    float *dg = up(g, no), *dgte = up(gte, ne), *dgpe = up(gpe, np);
    gpt_ops_position_backward(cpu, g, B, T, C, gpe);
    gpt_ops_position_backward(gpu, dg, B, T, C, dgpe);
    expect_close("position_backward (wpe, accumulated)", gpe, dgpe, np, 0);
    gpt_ops_token_backward(cpu, g, tok, B, T, V, C, gte);
    gpt_ops_token_backward(gpu, dg, dtok, B, T, V, C, dgte);
    expect_close("token_backward (wte, accumulated)", gte, dgte, ne, 0);
    ops_free_bytes(gpu, dtok);
    ops_free(gpu, dwte), ops_free(gpu, dwpe), ops_free(gpu, dout), ops_free(gpu, dg), ops_free(gpu, dgte);
    ops_free(gpu, dgpe);
    free(wte), free(wpe), free(out), free(g), free(gte), free(gpe);
}

static void gpt_linear_bias_rows(void **state) {
    (void)state;
    const int N = 37, in = 29, out = 53;
    float *x = randn((size_t)N * in, 1), *w = randn((size_t)out * in, 1), *b = randn(out, 1);
    float *y = malloc((size_t)N * out * sizeof(float));
    float *dx_ = up(x, (size_t)N * in), *dw_ = up(w, (size_t)out * in), *db_ = up(b, out);
    float *dy_ = poisoned((size_t)N * out);
    linear_forward(cpu, x, w, b, N, in, out, y);
    gpt_ops_linear_forward(gpu, dx_, dw_, db_, N, in, out, dy_);
    expect_close("linear forward (bias rows + sgemm)", y, dy_, (size_t)N * out, 1e-5);
    ops_free(gpu, dx_), ops_free(gpu, dw_), ops_free(gpu, db_), ops_free(gpu, dy_);
    free(x), free(w), free(b), free(y);
}

/* ---- the whole GPT: gpt-tiny on the GPU against the CPU ----------------------------------------- */

typedef struct {
    int order[64]; /* gpt-tiny has 28 parameters */
    int n;
} hook_log_t;

static void log_hook(void *ctx, int index) {
    hook_log_t *h = ctx;
    if (h->n < 64) h->order[h->n] = index;
    h->n++;
}

/* Five steps of forward, backward and SGD with momentum (linear in the gradient, so rounding is not
 * amplified as AdamW's normalisation would), on batches that vary: full windows, a shorter one
 * (T' = 5, 3), ignored targets, and a batch whose every target is ignored (loss 0, no gradient).
 * The parameters are re-drawn larger than GPT-2's init (N(0, 0.3²)) so that attention is far from
 * uniform and a wrong kernel cannot hide. Tolerances, relative to the largest reference value: loss
 * 1e-5, gradients 1e-4 each step, parameters 1e-5 at the end (float32 GEMMs summed in another
 * order differ by about 1e-6); the hook order must be identical. */
static void gpt_tiny_steps_match_cpu(void **state) {
    (void)state;
    gpt_config_t cfg;
    assert_int_equal(gpt_preset("gpt-tiny", &cfg), 0);
    const int B = 4, steps = 5, lens[5] = {8, 8, 5, 8, 3};
    gpt_t mc, mg;
    gpt_init(&mc, &cfg, cpu, B, 7, NULL);
    gpt_init(&mg, &cfg, gpu, B, 7, NULL);
    size_t n = gpt_num_params(&mc);
    for (size_t i = 0; i < n; i++) mc.params[i] = 0.3f * rng_normal(&rng);
    ops_from_host(gpu, mg.params, mc.params, n);
    optim_t oc, og;
    optim_init(&oc, OPTIM_SGD, n);
    optim_init_on(&og, OPTIM_SGD, n, gpu);
    oc.sgd = og.sgd = (sgd_hparams_t){0.9, 1e-3};
    int32_t tok[32], tgt[32];
    float *grads = malloc(n * sizeof(float));
    for (int s = 0; s < steps; s++) {
        int T = lens[s];
        for (int i = 0; i < B * T; i++) {
            tok[i] = (int32_t)rng_below(&rng, cfg.vocab);
            tgt[i] = s == 3 || rng_below(&rng, 5) == 0 ? -1 : (int32_t)rng_below(&rng, cfg.vocab);
        }
        gpt_zero_grad(&mc);
        gpt_zero_grad(&mg);
        float lc = gpt_forward(&mc, tok, tgt, B, T), lg = gpt_forward(&mg, tok, tgt, B, T);
        if (fabsf(lc - lg) > 1e-5f * fmaxf(fabsf(lc), 1e-30f) || (s == 3 && (lc != 0 || lg != 0)))
            fail_msg("step %d (T'=%d): loss %.9g on the GPU, %.9g on the CPU", s, T, (double)lg, (double)lc);
        hook_log_t hc = {.n = 0}, hg = {.n = 0};
        gpt_backward(&mc, 0.5f, log_hook, &hc);
        gpt_backward(&mg, 0.5f, log_hook, &hg);
        if (hc.n != mc.layout.count || hg.n != hc.n)
            fail_msg("step %d: %d gradient-ready hooks on the GPU, %d on the CPU, %d parameters", s, hg.n, hc.n,
                     mc.layout.count);
        for (int i = 0; i < hc.n; i++)
            if (hc.order[i] != hg.order[i])
                fail_msg("step %d: hook %d fires for parameter %d on the GPU, %d on the CPU", s, i, hg.order[i],
                         hc.order[i]);
        char what[64];
        snprintf(what, sizeof what, "gpt-tiny step %d (T'=%d) gradients", s, T);
        if (s == 3) { /* every target ignored: no gradient at all */
            ops_to_host(gpu, grads, mg.grads, n);
            for (size_t i = 0; i < n; i++)
                if (grads[i] != 0)
                    fail_msg("step 3 (no counted target): gradient %zu is %g, not 0", i, (double)grads[i]);
        }
        expect_close(what, mc.grads, mg.grads, n, 1e-4);
        optim_step(&oc, mc.params, mc.grads, 0.05);
        optim_step(&og, mg.params, mg.grads, 0.05);
    }
    expect_close("gpt-tiny parameters after 5 SGD steps", mc.params, mg.params, n, 1e-5);
    free(grads);
    optim_free(&oc);
    optim_free(&og);
    gpt_free(&mc);
    gpt_free(&mg);
}

/* ---- lesson 03's reduction -------------------------------------------------------------------------- */

static void reduce_add_exact_and_in_bounds(void **state) {
    (void)state;
    const size_t sizes[] = {0, 1, 255, 256, 257, 65535, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s], guard = 64;
        float *acc = randn(n + guard, 1), *in = randn(n + guard, 1);
        float *dacc = up(acc, n + guard), *din = up(in, n + guard);
        reduce_add_cpu(acc, in, n); /* the guard elements past n must stay as they were */
        reduce_add(gpu, dacc, din, n);
        char what[64];
        snprintf(what, sizeof what, "reduce_add n=%zu (+%zu guard elements)", n, guard);
        expect_close(what, acc, dacc, n + guard, 0);
        ops_free(gpu, dacc), ops_free(gpu, din);
        free(acc), free(in);
    }
}

/* ---- mixed precision: ops_round, the 16-bit GEMM, mixed_precision.c on the device ------------------ */

static uint32_t bits32(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The device rounds to the CPU's bits: patterns and widened values, NaNs included, for the sweep of
 * every edge (half_sweep.h) and 4M random float32 patterns; in place too. The outputs start as
 * 0x5555 patterns and NaN, so an element the kernel skips fails (unless its answer is that). */
static void round_matches_cpu(void **state) {
    (void)state;
    size_t ns = HALF_SWEEP_COUNT, n = ns + ((size_t)1 << 22);
    float *x = malloc(n * sizeof(float)), *wc = malloc(n * sizeof(float)), *wg = malloc(n * sizeof(float));
    uint16_t *hc = malloc(n * sizeof(uint16_t)), *hg = malloc(n * sizeof(uint16_t));
    half_sweep(x);
    for (size_t i = ns; i < n; i++) {
        uint32_t u = rng_u32(&rng);
        memcpy(&x[i], &u, sizeof u);
    }
    float *dx = up(x, n);
    uint16_t *dh = ops_alloc_bytes(gpu, n * sizeof(uint16_t));
    for (int k = 0; k < 2; k++) {
        dtype_t t = k ? DT_F16 : DT_BF16;
        ops_round(cpu, t, x, hc, wc, n);
        float *dw = poisoned(n);
        memset(hg, 0x55, n * sizeof(uint16_t));
        ops_upload(gpu, dh, hg, n * sizeof(uint16_t));
        ops_round(gpu, t, dx, dh, dw, n);
        ops_download(gpu, hg, dh, n * sizeof(uint16_t));
        ops_to_host(gpu, wg, dw, n);
        for (size_t i = 0; i < n; i++)
            if (hg[i] != hc[i] || bits32(wg[i]) != bits32(wc[i]))
                fail_msg("ops_round %s of 0x%08x (element %zu): the GPU gives 0x%04x widened to 0x%08x, the CPU "
                         "0x%04x and 0x%08x",
                         dtype_name(t), bits32(x[i]), i, hg[i], bits32(wg[i]), hc[i], bits32(wc[i]));
        float *din = up(x, n);
        ops_round(gpu, t, din, NULL, din, n);
        ops_to_host(gpu, wg, din, n);
        for (size_t i = 0; i < n; i++)
            if (bits32(wg[i]) != bits32(wc[i]))
                fail_msg("ops_round %s in place of 0x%08x: 0x%08x on the GPU, 0x%08x on the CPU", dtype_name(t),
                         bits32(x[i]), bits32(wg[i]), bits32(wc[i]));
        ops_free(gpu, dw), ops_free(gpu, din);
    }
    ops_free_bytes(gpu, dh);
    ops_free(gpu, dx);
    free(x), free(wc), free(wg), free(hc), free(hg);
}

/* ops_gemm with gemm_dtype bf16 / fp16, every transpose, C = 0.7 op(A) op(B) + 0.3 C, against a
 * float64 product of the operands rounded by half.h. A product of two 16-bit values is exact in
 * float32, so what is left is the float32 accumulation: a sum of K terms in float32 is within
 * K·2^-24 of Σ|a·b| (the classic bound, any order), and alpha, beta and the final add round a few
 * times more. We allow (2K + 4)·2^-24·(0.7 Σ|ab| + 0.3 |c|) per element: twice the round-to-nearest
 * bound, as tensor cores may truncate inside their additions. K = 300 and odd M, N test the shapes
 * tensor cores do not tile evenly. The same product of the UNROUNDED operands must miss that bound
 * somewhere: otherwise the operands were not rounded (an FP32 GEMM) and the test would not know. */
static void gemm_16bit_operands(void **state) {
    (void)state;
    const int M = 37, N = 53, K = 300;
    const float alpha = 0.7f, beta = 0.3f;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    int failed = 0;
    for (int k16 = 0; k16 < 2; k16++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                dtype_t t = k16 ? DT_F16 : DT_BF16;
                float *A = randn(na, 1), *B = randn(nb, 1), *C = randn(nc, 1);
                float *Ar = malloc(na * sizeof(float)), *Br = malloc(nb * sizeof(float));
                ops_round(cpu, t, A, NULL, Ar, na);
                ops_round(cpu, t, B, NULL, Br, nb);
                float *dA = up(A, na), *dB = up(B, nb), *dC = up(C, nc);
                gpu->gemm_dtype = t;
                ops_gemm(gpu, ta, tb, M, N, K, alpha, dA, dB, beta, dC);
                gpu->gemm_dtype = DT_F32;
                float *got = down(dC, nc);
                double worst = 0, unrounded = 0, rel = 0; /* rel: the largest |error| / Σ|ab| */
                int wi = 0, wj = 0;
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) {
                        double s = 0, s0 = 0, mag = 0;
                        for (int q = 0; q < K; q++) {
                            size_t ia = ta ? (size_t)q * M + i : (size_t)i * K + q;
                            size_t ib = tb ? (size_t)j * K + q : (size_t)q * N + j;
                            s += (double)Ar[ia] * Br[ib];
                            s0 += (double)A[ia] * B[ib];
                            mag += fabs((double)Ar[ia] * Br[ib]);
                        }
                        double c = C[(size_t)i * N + j], g = got[(size_t)i * N + j];
                        double tol = (2.0 * K + 4) * 0x1p-24 * (alpha * mag + beta * fabs(c));
                        double r = fabs(g - (alpha * s + beta * c)) / tol, r0 = fabs(g - (alpha * s0 + beta * c)) / tol;
                        if (isnan(g)) r = INFINITY;
                        rel = fmax(rel, fabs(g - (alpha * s + beta * c)) / (alpha * mag + beta * fabs(c)));
                        if (r > worst) worst = r, wi = i, wj = j;
                        if (r0 > unrounded) unrounded = r0;
                    }
                /* every shape is measured before the test fails: the pattern tells an accumulation
                 * narrower than float32 (all shapes, a steady error) from a wrong shape */
                print_message("%s gemm transA=%d transB=%d: worst %.3g of the bound (C[%d,%d] = %.9g); largest "
                              "|error| / sum |terms| = 2^%.1f (float32 sums: about 2^-24 * K = 2^%.1f)\n",
                              dtype_name(t), ta, tb, worst, wi, wj, (double)got[(size_t)wi * N + wj],
                              rel > 0 ? log2(rel) : -INFINITY, log2(K * 0x1p-24));
                if (worst > 1) failed++;
                if (unrounded <= 1)
                    fail_msg("%s gemm transA=%d transB=%d: within the bound of the UNROUNDED operands' product too "
                             "(%.3g of it at most): the operands were not rounded to %s",
                             dtype_name(t), ta, tb, unrounded, dtype_name(t));
                if (ops_gemm_workspace_bytes(gpu) < (na + nb) * sizeof(uint16_t))
                    fail_msg("the GEMM scratch holds %zu bytes, less than A and B in 16 bits (%zu)",
                             ops_gemm_workspace_bytes(gpu), (na + nb) * sizeof(uint16_t));
                ops_free(gpu, dA), ops_free(gpu, dB), ops_free(gpu, dC);
                free(A), free(B), free(C), free(Ar), free(Br), free(got);
            }
    if (failed)
        fail_msg("%d of 8 16-bit GEMMs missed the float32 accumulation bound off the float64 product of the rounded "
                 "operands (each is above)",
                 failed);
}

/* Is every element, times `scale` (a power of two: exact), a bf16 / fp16 value (rounding it again
 * changes nothing)? fp16 gradients are rounded S times too large and stored divided by S. */
static void expect_representable(const char *what, dtype_t t, const float *dev, size_t n, float scale) {
    float *h = down(dev, n), *r = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) h[i] *= scale;
    ops_round(cpu, t, h, NULL, r, n);
    for (size_t i = 0; i < n; i++)
        if (bits32(h[i]) != bits32(r[i]) && !(isnan(h[i]) && isnan(r[i])))
            fail_msg("%s: element %zu (%.9g) is not a %s value", what, i, (double)h[i], dtype_name(t));
    free(h), free(r);
}

/* lesson 01's mixed_precision.c where the model lives on a GPU: gpt-tiny in bf16 and in fp16, four
 * SGD steps with the loss scaler, against the same on the CPU. The GPU's GEMMs stay float32 here
 * (gemm_dtype is the trainer's to set; tests/gpu/check.sh trains with it), so that what is tested
 * is the rounding and the scaling alone. Every gradient must be a bf16/fp16 value (fp16: times the
 * loss scale it was rounded at), and within
 * 1e-4 (the float32 GPT's own GPU-CPU distance, gpt_tiny_steps_match_cpu) plus one rounding step
 * of the CPU's, normwise: a float32 sum in another order may tip an element's rounding, by one
 * step of at most 2^-7 of it (2^-10 in fp16). The losses: the parameters agree to within one
 * rounding, 2^-8. An inf injected at step 2 (fp16) must skip that step on both, as the scaler does
 * any other skip, and leave both scales equal; the masters then agree to 2^-7 (they moved by a few
 * lr-sized steps of such gradients). */
static void mixed_precision_matches_cpu(void **state) {
    (void)state;
    const int B = 4;
    for (int k = 0; k < 2; k++) {
        mp_dtype_t d = k ? MP_FP16 : MP_BF16;
        dtype_t t = mp_half_type(d);
        model_config_t cfg;
        assert_int_equal(model_gpt_preset("gpt-tiny", 27, &cfg), 0);
        model_t mc, mg;
        mixed_precision_t pc, pg;
        memset(&pc, 0, sizeof pc), memset(&pg, 0, sizeof pg);
        mem_t memc, memg;
        mem_init(&memc), mem_init(&memg);
        model_init(&mc, &cfg, cpu, B, 5, &pc.model_mem);
        model_init(&mg, &cfg, gpu, B, 5, &pg.model_mem);
        size_t n = model_num_params(&mc);
        ops_from_host(gpu, mg.params, mc.params, n);
        mp_init(&pc, d, &mc, &memc, 0);
        mp_init(&pg, d, &mg, &memg, 0);
        mc.mp = &pc, mg.mp = &pg;
        pc.inject_step = pg.inject_step = d == MP_FP16 ? 2 : 0;
        optim_t oc, og;
        optim_init(&oc, OPTIM_SGD, n);
        optim_init_on(&og, OPTIM_SGD, n, gpu);
        oc.sgd = og.sgd = (sgd_hparams_t){0.9, 0};
        if (d == MP_FP16) oc.scaler = &pc.scaler, og.scaler = &pg.scaler;
        int32_t *ctx = malloc((size_t)B * cfg.context * sizeof(int32_t)), tgt[4];
        double gtol = (d == MP_FP16 ? 0x1p-10 : 0x1p-7) + 1e-4;
        for (int s = 1; s <= 4; s++) {
            for (int i = 0; i < B * cfg.context; i++) ctx[i] = (int32_t)rng_below(&rng, 27);
            for (int i = 0; i < B; i++) tgt[i] = (int32_t)rng_below(&rng, 27);
            pc.step = pg.step = s;
            model_zero_grad(&mc), model_zero_grad(&mg);
            float lc = model_forward(&mc, ctx, tgt, B), lg = model_forward(&mg, ctx, tgt, B);
            if (fabsf(lc - lg) > 0x1p-8f * fabsf(lc))
                fail_msg("%s step %d: loss %.9g on the GPU, %.9g on the CPU", dtype_name(t), s, (double)lg, (double)lc);
            model_backward(&mc, 1.0f, NULL, NULL);
            model_backward(&mg, 1.0f, NULL, NULL);
            float S = d == MP_FP16 ? (float)pg.scaler.scale : 1.0f; /* what backward scaled by */
            optim_step(&oc, mc.params, mc.grads, 0.05);             /* reads the gradients, leaves them */
            optim_step(&og, mg.params, mg.grads, 0.05);
            bool skipped = d == MP_FP16 && pc.scaler.skipped;
            if (d == MP_FP16 && (pg.scaler.skipped != pc.scaler.skipped || (s == 2 && !pg.scaler.skipped) ||
                                 pg.scaler.scale != pc.scaler.scale))
                fail_msg("fp16 step %d (an inf injected at step 2): skipped on the GPU %d, on the CPU %d; loss scale "
                         "%g on the GPU, %g on the CPU",
                         s, (int)pg.scaler.skipped, (int)pc.scaler.skipped, pg.scaler.scale, pc.scaler.scale);
            if (!skipped) {
                char what[64];
                snprintf(what, sizeof what, "%s step %d gradients", dtype_name(t), s);
                expect_representable(what, t, mg.grads, n, S);
                expect_close(what, mc.grads, mg.grads, n, gtol);
            }
        }
        expect_close("master weights after 4 steps", mc.params, mg.params, n, 0x1p-7);
        free(ctx);
        optim_free(&oc), optim_free(&og);
        mp_free(&pc), mp_free(&pg);
        model_free(&mc), model_free(&mg);
    }
}

/* ---- the benchmark ---------------------------------------------------------------------------------- */

static int bench(size_t mib) {
    size_t n = mib * 1024 * 1024 / sizeof(float);
    float *a = ops_alloc(gpu, n), *b = ops_alloc(gpu, n);
    cudaStream_t st = (cudaStream_t)ops_stream(gpu);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const int iters = 20;
    float ms_copy = 0, ms_red = 0;
    for (int warm = 0; warm < 2; warm++) { /* pass 0 warms up; pass 1 is measured */
        cudaEventRecord(e0, st);
        for (int i = 0; i < iters; i++) cudaMemcpyAsync(a, b, n * sizeof(float), cudaMemcpyDeviceToDevice, st);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms_copy, e0, e1);
        cudaEventRecord(e0, st);
        for (int i = 0; i < iters; i++) reduce_add(gpu, a, b, n);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms_red, e0, e1);
    }
    /* bytes moved: a copy reads and writes n floats; acc += in reads two and writes one */
    double copy_gbs = 2.0 * n * 4 * iters / (ms_copy * 1e-3) / 1e9;
    double red_gbs = 3.0 * n * 4 * iters / (ms_red * 1e-3) / 1e9;
    printf("kernel\tMiB\ttime_us\tGB/s\tvs_copy\n");
    printf("cudaMemcpy D2D\t%zu\t%.1f\t%.1f\t1.00\n", mib, ms_copy * 1e3 / iters, copy_gbs);
    printf("reduce_add\t%zu\t%.1f\t%.1f\t%.2f\n", mib, ms_red * 1e3 / iters, red_gbs, red_gbs / copy_gbs);
    ops_free(gpu, a);
    ops_free(gpu, b);
    return 0;
}

int main(int argc, char **argv) {
    if (!ops_cuda_available()) {
        printf("test_gpu: SKIP — no CUDA device visible (the GPU kernels are built but cannot run here)\n");
        return 77;
    }
    if (argc > 1 && !strcmp(argv[1], "--probe")) return 0; /* for scripts: is there a GPU? */
    gpu = ops_create(OPS_CUDA, 1);
    cpu = ops_create(OPS_CPU, 1);
    const char *seed = getenv("DP_TEST_SEED"); /* fresh inputs each run; the seed is printed to replay */
    uint64_t s = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL);
    rng_init(&rng, s);
    if (argc > 1 && !strcmp(argv[1], "--bench")) return bench(argc > 2 ? (size_t)atol(argv[2]) : 256);
    printf("test_gpu: inputs from seed %llu (DP_TEST_SEED=%llu replays them)\n", (unsigned long long)s,
           (unsigned long long)s);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_matches_cpu),
        cmocka_unit_test(gemm_16bit_operands),
        cmocka_unit_test(gemm_all_transposes), /* after the 16-bit ones: the FP32 path is as it was */
        cmocka_unit_test(colsum_and_tanh),
        cmocka_unit_test(embedding_with_repeated_rows),
        cmocka_unit_test(elementwise_and_sumsq),
        cmocka_unit_test(cross_entropy),
        cmocka_unit_test(optimizers_three_steps),
        cmocka_unit_test(gpt_layernorm),
        cmocka_unit_test(gpt_gelu),
        cmocka_unit_test(gpt_attention),
        cmocka_unit_test(gpt_embedding),
        cmocka_unit_test(gpt_linear_bias_rows),
        cmocka_unit_test(gpt_tiny_steps_match_cpu),
        cmocka_unit_test(reduce_add_exact_and_in_bounds),
        cmocka_unit_test(mixed_precision_matches_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void) {
    printf("test_gpu: SKIP — built without CUDA (make NO_CUDA=1, or no CUDA Toolkit found)\n");
    return 77;
}
#endif
