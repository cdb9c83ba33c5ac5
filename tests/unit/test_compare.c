/* The comparison helpers the graders report with. */
#include "testutil.h"

#include "compare.h"

#include <math.h>

static void ulp_distance(void **state) {
    (void)state;
    assert_int_equal(cmp_ulp_distance(1.0f, 1.0f), 0);
    assert_int_equal(cmp_ulp_distance(0.0f, -0.0f), 0);
    assert_int_equal(cmp_ulp_distance(1.0f, nextafterf(1.0f, 2.0f)), 1);
    assert_int_equal(cmp_ulp_distance(-1.0f, nextafterf(-1.0f, -2.0f)), 1);
    /* across zero: the smallest positive and negative subnormals are 2 apart */
    assert_int_equal(cmp_ulp_distance(1e-45f, -1e-45f), 2);
    assert_true(cmp_ulp_distance(NAN, 1.0f) == UINT64_MAX);
    assert_int_equal(cmp_ulp_distance(1.0f, 2.0f), 1u << 23);
}

static void first_divergence_and_counts(void **state) {
    (void)state;
    float ref[5] = {1, 2, 3, 4, 5}, got[5] = {1, 2, 3.1f, 4, 5.5f};
    cmp_result_t r = cmp_f32(got, ref, 5, 0, 1e-3);
    assert_int_equal(r.n_bad, 2);
    assert_int_equal(r.first_bad, 2);
    assert_true(r.first_a == 3.1f && r.first_b == 3.0f);
    assert_int_equal(r.argmax_abs, 4);
    assert_true(fabs(r.max_abs - 0.5) < 1e-6);
    assert_true(fabs(r.max_rel - 0.1) < 1e-6);
    r = cmp_f32(ref, ref, 5, 0, 0);
    assert_int_equal(r.n_bad, 0);
    assert_int_equal(r.first_bad, 5);
}

static void nonfinite_is_never_close(void **state) {
    (void)state;
    float ref[2] = {1, 2}, got[2] = {1, NAN};
    cmp_result_t r = cmp_f32(got, ref, 2, 1e9, 1e9);
    assert_true(r.nonfinite);
    assert_int_equal(r.n_bad, 1);
    float inf[1] = {INFINITY};
    r = cmp_f32(inf, inf, 1, 0, 0);
    assert_int_equal(r.n_bad, 0); /* the same infinity is equal */
}

static void ratio_and_cosine(void **state) {
    (void)state;
    float a[3] = {2, 4, 6}, b[3] = {1, 2, 3}, c[3] = {-1, -2, -3}, z[3] = {0};
    assert_true(fabs(cmp_norm_ratio(a, b, 3) - 2.0) < 1e-12);
    assert_true(fabs(cmp_cosine(a, b, 3) - 1.0) < 1e-12);
    assert_true(fabs(cmp_cosine(c, b, 3) + 1.0) < 1e-12);
    assert_true(cmp_norm_ratio(z, b, 3) == 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ulp_distance),
        cmocka_unit_test(first_divergence_and_counts),
        cmocka_unit_test(nonfinite_is_never_close),
        cmocka_unit_test(ratio_and_cosine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
