/* Every CUDA kernel of the course against its CPU reference (the oracle), on fresh random inputs.
 *
 *   ops_cuda.cu     gemm (4 transposes), colsum, tanh fwd/bwd, embedding fwd/bwd, fill/scale/axpy/copy, sumsq
 *   kernels.cu      softmax cross-entropy fwd/bwd, AdamW, SGD (through optim_step)
 *   lesson 03       the reference reduce_add_cuda (the student's is graded by grading/grade 03)
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
#include "layers.h"
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
        cmocka_unit_test(gemm_all_transposes),
        cmocka_unit_test(colsum_and_tanh),
        cmocka_unit_test(embedding_with_repeated_rows),
        cmocka_unit_test(elementwise_and_sumsq),
        cmocka_unit_test(cross_entropy),
        cmocka_unit_test(optimizers_three_steps),
        cmocka_unit_test(reduce_add_exact_and_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void) {
    printf("test_gpu: SKIP — built without CUDA (make NO_CUDA=1, or no CUDA Toolkit found)\n");
    return 77;
}
#endif
