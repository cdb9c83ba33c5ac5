/* bf16 and fp16 conversions (common/half.h): exact cases at every edge — ties to even, the largest
 * finite value and overflow, subnormals, NaN, -0 — and every one of the 65536 bit patterns of each
 * format widened to float32 and rounded back. Where the compiler has _Float16, its conversion (the
 * hardware's or libgcc's, round to nearest even) is an independent oracle on a million floats. */
#include "testutil.h"

#include "half.h"
#include "rng.h"

#include <math.h>

static float f_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t u_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void bf16_edges(void **state) {
    (void)state;
    assert_int_equal(float_to_bf16(1.0f), 0x3f80);
    /* 1 + 2^-8 is halfway between 0x3f80 and 0x3f81: to the even one, 0x3f80 */
    assert_int_equal(float_to_bf16(f_of(0x3f808000u)), 0x3f80);
    assert_int_equal(float_to_bf16(f_of(0x3f808001u)), 0x3f81); /* just above half: up */
    assert_int_equal(float_to_bf16(f_of(0x3f807fffu)), 0x3f80); /* just below: down */
    assert_int_equal(float_to_bf16(f_of(0x3f818000u)), 0x3f82); /* halfway from odd 0x3f81: up to even */
    /* the largest finite bf16 is exact; FLT_MAX is above its halfway point to 2^128: inf */
    assert_int_equal(float_to_bf16(f_of(0x7f7f0000u)), 0x7f7f);
    assert_int_equal(float_to_bf16(f_of(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(float_to_bf16(f_of(0x7f7fffffu)), 0x7f80);
    assert_int_equal(float_to_bf16(-f_of(0x7f7fffffu)), 0xff80);
    assert_int_equal(float_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(float_to_bf16(-0.0f), 0x8000);
    assert_true(signbit(bf16_to_float(0x8000)) && bf16_to_float(0x8000) == 0.0f);
    /* subnormals: float32's, truncated to their top half, exact or rounded like normals */
    assert_int_equal(float_to_bf16(f_of(0x00010000u)), 0x0001);
    assert_int_equal(float_to_bf16(f_of(0x00008000u)), 0x0000); /* half of the smallest: to even 0 */
    assert_int_equal(float_to_bf16(f_of(0x00018000u)), 0x0002);
    /* a NaN stays a NaN, even one whose payload is only in the dropped half; the sign is kept */
    assert_true(isnan(bf16_to_float(float_to_bf16(f_of(0x7f800001u)))));
    assert_int_equal(float_to_bf16(f_of(0xff800001u)) & 0x8000, 0x8000);
    assert_true(isnan(bf16_to_float(float_to_bf16(NAN))));
    assert_true(bf16_to_float(0x3f81) == 1.0f + 0x1p-7f);
}

static void fp16_edges(void **state) {
    (void)state;
    assert_int_equal(float_to_fp16(1.0f), 0x3c00);
    assert_int_equal(float_to_fp16(-2.0f), 0xc000);
    /* 1 + 2^-11 is halfway between 0x3c00 and 0x3c01: even 0x3c00; 1 + 3·2^-11: even 0x3c02 */
    assert_int_equal(float_to_fp16(1.0f + 0x1p-11f), 0x3c00);
    assert_int_equal(float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);
    assert_int_equal(float_to_fp16(f_of(0x3f801001u)), 0x3c01);
    /* the largest finite, 65504; 65520 is halfway to 65536 (odd 0x7bff): inf, and so is all above */
    assert_int_equal(float_to_fp16(65504.0f), 0x7bff);
    assert_true(fp16_to_float(0x7bff) == 65504.0f);
    assert_int_equal(float_to_fp16(65519.996f), 0x7bff);
    assert_int_equal(float_to_fp16(65520.0f), 0x7c00);
    assert_int_equal(float_to_fp16(-65520.0f), 0xfc00);
    assert_int_equal(float_to_fp16(1e10f), 0x7c00);
    assert_int_equal(float_to_fp16(f_of(0x7f7fffffu)), 0x7c00);
    assert_int_equal(float_to_fp16(-INFINITY), 0xfc00);
    assert_true(isinf(fp16_to_float(0x7c00)) && fp16_to_float(0xfc00) < 0);
    /* subnormals: multiples of 2^-24 below 2^-14 */
    assert_int_equal(float_to_fp16(0x1p-24f), 0x0001);
    assert_true(fp16_to_float(0x0001) == 0x1p-24f);
    assert_true(fp16_to_float(0x03ff) == 1023 * 0x1p-24f);
    assert_int_equal(float_to_fp16(0x1p-25f), 0x0000);            /* halfway to 2^-24: even 0 */
    assert_int_equal(float_to_fp16(f_of(0x33000001u)), 0x0001);   /* just above: up */
    assert_int_equal(float_to_fp16(3 * 0x1p-25f), 0x0002);        /* 1.5 steps: even 2 */
    assert_int_equal(float_to_fp16(0x1p-26f), 0x0000);            /* under half a step */
    assert_int_equal(float_to_fp16(f_of(0x00000001u)), 0x0000);   /* a float32 subnormal */
    assert_int_equal(float_to_fp16(0x1p-14f), 0x0400);            /* the smallest normal */
    assert_int_equal(float_to_fp16(0x1p-14f - 0x1p-25f), 0x0400); /* halfway from 0x3ff: even */
    assert_int_equal(float_to_fp16(0x1p-14f - 0x1p-24f), 0x03ff); /* the largest subnormal */
    assert_int_equal(float_to_fp16(-0x1p-24f), 0x8001);
    assert_int_equal(float_to_fp16(-0x1p-26f), 0x8000); /* a negative underflow is -0 */
    /* -0 and NaN */
    assert_int_equal(float_to_fp16(-0.0f), 0x8000);
    assert_true(signbit(fp16_to_float(0x8000)) && fp16_to_float(0x8000) == 0.0f);
    assert_true(isnan(fp16_to_float(float_to_fp16(NAN))));
    assert_true(isnan(fp16_to_float(float_to_fp16(f_of(0x7f800001u))))); /* payload below fp16's bits */
    assert_int_equal(float_to_fp16(f_of(0xffc00000u)) & 0x8000, 0x8000);
    assert_true(isnan(fp16_to_float(0x7c01)));
}

/* Every pattern: widening is exact, so rounding back must give the pattern itself (NaNs: a NaN). */
static void round_trip_all_patterns(void **state) {
    (void)state;
    int nan_bf16 = 0, nan_fp16 = 0;
    for (uint32_t h = 0; h <= 0xffff; h++) {
        float b = bf16_to_float((uint16_t)h), f = fp16_to_float((uint16_t)h);
        if (isnan(b)) {
            nan_bf16++;
            assert_true(isnan(bf16_to_float(float_to_bf16(b))));
        } else {
            assert_int_equal(float_to_bf16(b), h);
            assert_int_equal(u_of(b) >> 16, h); /* bf16 is float32's top half */
        }
        if (isnan(f)) {
            nan_fp16++;
            assert_true(isnan(fp16_to_float(float_to_fp16(f))));
        } else {
            assert_int_equal(float_to_fp16(f), h);
        }
    }
    assert_int_equal(nan_bf16, 2 * 127);  /* exponent all ones, mantissa (7 bits) not zero, 2 signs */
    assert_int_equal(nan_fp16, 2 * 1023); /* the same with 10 mantissa bits */
}

/* Rounding picks the nearer neighbour: for random floats in fp16's range, the result is within
 * half a step (ulp) of f and no other pattern is closer. */
static void random_floats_round_to_nearest(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, 11);
    for (int i = 0; i < 1000000; i++) {
        float f = f_of(rng_u32(&r));
        if (isnan(f)) continue;
        uint16_t h = float_to_fp16(f);
#if defined(__FLT16_MAX__)
        _Float16 ref = (_Float16)f;
        uint16_t hr;
        memcpy(&hr, &ref, sizeof hr);
        assert_int_equal(h, hr);
#endif
        float back = fp16_to_float(h);
        if (isinf(back)) {
            assert_true(fabsf(f) >= 65520.0f);
            continue;
        }
        /* the neighbours of h in the direction of f, one pattern away (same sign) */
        double err = fabs((double)back - (double)f);
        uint16_t up = (uint16_t)(h + 1), down = (uint16_t)(h - 1);
        if ((h & 0x7fff) != 0x7bff) assert_true(err <= fabs((double)fp16_to_float(up) - (double)f));
        if ((h & 0x7fff) != 0) assert_true(err <= fabs((double)fp16_to_float(down) - (double)f));
        uint16_t b = float_to_bf16(f);
        double eb = fabs((double)bf16_to_float(b) - (double)f);
        /* relative error at most the unit roundoff 2^-8, for normal floats (subnormals have fewer bits) */
        if (!isinf(bf16_to_float(b)) && fabsf(f) >= 0x1p-126f) assert_true(eb <= fabs((double)f) * 0x1p-8);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bf16_edges),
        cmocka_unit_test(fp16_edges),
        cmocka_unit_test(round_trip_all_patterns),
        cmocka_unit_test(random_floats_round_to_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
