/* ops_round on the CPU (common/ops.h): the bf16/fp16 rounding that mixed precision does through the
 * ops seam. Known answers at the edges (ties to even, subnormals, overflow to inf, NaN, -0), then
 * the whole sweep of half_sweep.h against common/half.h for both types: the 16-bit patterns, their
 * widened values (bit for bit, NaNs included), in place, and with either output left out; and the
 * CPU's GEMM ignoring gemm_dtype. The device's ops_round is held to these same bits by
 * tests/unit/test_gpu.c. */
#include "testutil.h"

#include "half.h"
#include "half_bits.h"
#include "half_sweep.h"
#include "ops.h"

#include <math.h>

static ops_t *cpu;

/* One value through ops_round: its 16-bit pattern, and the widened value must be that pattern's. */
static uint16_t round1(dtype_t t, float x) {
    uint16_t h = 0xdead;
    float w = NAN;
    ops_round(cpu, t, &x, &h, &w, 1);
    float want = t == DT_BF16 ? bf16_to_float(h) : fp16_to_float(h);
    if (half_bits_of(w) != half_bits_of(want))
        fail_msg("%s(%a): widened to 0x%08x, pattern 0x%04x widens to 0x%08x", dtype_name(t), (double)x,
                 half_bits_of(w), h, half_bits_of(want));
    return h;
}

static void known_answers(void **state) {
    (void)state;
    /* bf16: ties to even, carries, overflow only from the top of float32's range, subnormals, NaN */
    assert_int_equal(round1(DT_BF16, 1.0f), 0x3f80);
    assert_int_equal(round1(DT_BF16, half_float_of(0x3f808000u)), 0x3f80); /* tie, kept even: down */
    assert_int_equal(round1(DT_BF16, half_float_of(0x3f818000u)), 0x3f82); /* tie, kept odd: up to even */
    assert_int_equal(round1(DT_BF16, half_float_of(0x3f808001u)), 0x3f81); /* above half: up */
    assert_int_equal(round1(DT_BF16, half_float_of(0x3f807fffu)), 0x3f80); /* below half: down */
    assert_int_equal(round1(DT_BF16, half_float_of(0x3fffffffu)), 0x4000); /* carry into the exponent */
    assert_int_equal(round1(DT_BF16, half_float_of(0x7f7fffffu)), 0x7f80); /* FLT_MAX rounds to inf */
    assert_int_equal(round1(DT_BF16, -INFINITY), 0xff80);
    assert_int_equal(round1(DT_BF16, -0.0f), 0x8000);
    assert_int_equal(round1(DT_BF16, half_float_of(0x00018000u)), 0x0002); /* a subnormal tie, odd: up */
    assert_int_equal(round1(DT_BF16, half_float_of(0x00008000u)), 0x0000); /* a subnormal tie, even: 0 */
    assert_int_equal(round1(DT_BF16, half_float_of(0x7f800001u)), 0x7fc0); /* low-bit NaN stays NaN, quiet */
    /* fp16: 65520 and up overflow to inf, subnormals down to 2^-24, ties to even */
    assert_int_equal(round1(DT_F16, 65504.0f), 0x7bff);
    assert_int_equal(round1(DT_F16, 65519.996f), 0x7bff);
    assert_int_equal(round1(DT_F16, 65520.0f), 0x7c00);
    assert_int_equal(round1(DT_F16, -1e10f), 0xfc00);
    assert_int_equal(round1(DT_F16, 1.0f + 0x1p-11f), 0x3c00);     /* tie, even: down */
    assert_int_equal(round1(DT_F16, 1.0f + 3 * 0x1p-11f), 0x3c02); /* tie, odd: up */
    assert_int_equal(round1(DT_F16, 0x1p-24f), 0x0001);
    assert_int_equal(round1(DT_F16, 0x1p-25f), 0x0000);            /* a tie at the bottom: even 0 */
    assert_int_equal(round1(DT_F16, 3 * 0x1p-25f), 0x0002);        /* 1.5 steps: even 2 */
    assert_int_equal(round1(DT_F16, -0x1p-26f), 0x8000);           /* underflow keeps the sign */
    assert_int_equal(round1(DT_F16, 0x1p-14f - 0x1p-25f), 0x0400); /* up into the normals */
    assert_true(isnan(fp16_to_float(round1(DT_F16, NAN))));
}

/* The sweep against half.h, for both types, through each way of calling ops_round. */
static void sweep_matches_half(void **state) {
    (void)state;
    size_t n = HALF_SWEEP_COUNT;
    float *x = malloc(n * sizeof(float)), *w = malloc(n * sizeof(float)), *inplace = malloc(n * sizeof(float));
    uint16_t *h = malloc(n * sizeof(uint16_t)), *h2 = malloc(n * sizeof(uint16_t));
    half_sweep(x);
    for (int k = 0; k < 2; k++) {
        dtype_t t = k ? DT_F16 : DT_BF16;
        memset(w, 0xff, n * sizeof(float));
        memset(h, 0xff, n * sizeof(uint16_t));
        ops_round(cpu, t, x, h, w, n);
        memcpy(inplace, x, n * sizeof(float));
        ops_round(cpu, t, inplace, NULL, inplace, n); /* dst == src, no patterns */
        memset(h2, 0xff, n * sizeof(uint16_t));
        ops_round(cpu, t, x, h2, NULL, n); /* patterns only */
        for (size_t i = 0; i < n; i++) {
            uint16_t want = t == DT_BF16 ? float_to_bf16(x[i]) : float_to_fp16(x[i]);
            float wide = t == DT_BF16 ? bf16_to_float(want) : fp16_to_float(want);
            if (h[i] != want || h2[i] != want || half_bits_of(w[i]) != half_bits_of(wide) ||
                half_bits_of(inplace[i]) != half_bits_of(wide))
                fail_msg("%s of 0x%08x: pattern 0x%04x (alone 0x%04x), widened 0x%08x (in place 0x%08x); half.h "
                         "gives 0x%04x, 0x%08x",
                         dtype_name(t), half_bits_of(x[i]), h[i], h2[i], half_bits_of(w[i]), half_bits_of(inplace[i]),
                         want, half_bits_of(wide));
        }
    }
    free(x), free(w), free(inplace), free(h), free(h2);
}

/* Nothing past n is written, and n == 0 writes nothing. */
static void writes_only_n(void **state) {
    (void)state;
    float x[4] = {1.1f, 2.2f, 3.3f, 4.4f}, w[4] = {-1, -1, -1, -1};
    uint16_t h[4] = {7, 7, 7, 7};
    ops_round(cpu, DT_BF16, x, h, w, 0);
    ops_round(cpu, DT_BF16, x, h, w, 3);
    assert_true(w[3] == -1 && h[3] == 7);
    assert_int_equal(h[2], float_to_bf16(3.3f));
}

/* The CPU has no 16-bit arithmetic: gemm_dtype changes nothing there (ops.h), so the CPU's mixed
 * precision stays what it was, float32 GEMMs on rounded parameters, to the bit. */
static void cpu_gemm_ignores_gemm_dtype(void **state) {
    (void)state;
    enum { M = 5, N = 7, K = 9 };
    float A[M * K], B[K * N], C32[M * N], C16[M * N];
    for (int i = 0; i < M * K; i++) A[i] = 1.0f / (float)(i + 3); /* none of them a bf16 value */
    for (int i = 0; i < K * N; i++) B[i] = 1.0f / (float)(i + 7);
    for (int i = 0; i < M * N; i++) C32[i] = C16[i] = 0.5f;
    ops_gemm(cpu, false, true, M, N, K, 1.0f, A, B, 1.0f, C32); /* B read as [N, K]: any shape will do */
    cpu->gemm_dtype = DT_BF16;
    ops_gemm(cpu, false, true, M, N, K, 1.0f, A, B, 1.0f, C16);
    cpu->gemm_dtype = DT_F32;
    assert_memory_equal(C32, C16, sizeof C32);
}

static void refuses_other_types(void *arg) {
    (void)arg;
    float x = 1, y;
    ops_round(cpu, DT_F32, &x, NULL, &y, 1);
}

static void only_16_bit_types(void **state) {
    (void)state;
    char err[512];
    int rc = run_child(refuses_other_types, NULL, err, sizeof err);
    assert_true(rc != 0);
    assert_non_null(strstr(err, "F32 is not a 16-bit float type"));
}

int main(void) {
    cpu = ops_create(OPS_CPU, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_answers),
        cmocka_unit_test(sweep_matches_half),
        cmocka_unit_test(writes_only_n),
        cmocka_unit_test(only_16_bit_types),
        cmocka_unit_test(cpu_gemm_ignores_gemm_dtype),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ops_destroy(cpu);
    return rc;
}
