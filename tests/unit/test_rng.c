/* Philox known answers (Random123's test vectors), determinism, ranges, permutations. */
#include "testutil.h"

#include "rng.h"

static void philox_known_answers(void **state) {
    (void)state;
    uint32_t out[4];
    philox4x32_10((const uint32_t[]){0, 0, 0, 0}, 0, out);
    assert_int_equal(out[0], 0x6627e8d5);
    assert_int_equal(out[1], 0xe169c58d);
    assert_int_equal(out[2], 0xbc57ac4c);
    assert_int_equal(out[3], 0x9b00dbd8);
    philox4x32_10((const uint32_t[]){0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffffffffffffull, out);
    assert_int_equal(out[0], 0x408f276d);
    assert_int_equal(out[3], 0x6d5451fd);
    philox4x32_10((const uint32_t[]){0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0x299f31d0a4093822ull, out);
    assert_int_equal(out[0], 0xd16cfe09);
    assert_int_equal(out[1], 0x94fdcceb);
    assert_int_equal(out[2], 0x5001e420);
    assert_int_equal(out[3], 0x24126ea1);
}

static void sequential_equals_random_access(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, 42);
    for (uint64_t i = 0; i < 1000; i++) assert_int_equal(rng_u32(&r), rng_u32_at(42, i));
    assert_int_equal(r.offset, 1000);
    /* another seed is another stream */
    int same = 0;
    for (uint64_t i = 0; i < 100; i++) same += rng_u32_at(42, i) == rng_u32_at(43, i);
    assert_true(same < 3);
}

static void uniform_and_normal_ranges(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, 7);
    double sum = 0, sumsq = 0;
    int n = 20000;
    for (int i = 0; i < n; i++) {
        float u = rng_uniform(&r);
        assert_true(u >= 0.0f && u < 1.0f);
        float z = rng_normal(&r);
        sum += z;
        sumsq += (double)z * z;
    }
    assert_true(sum / n > -0.05 && sum / n < 0.05);
    assert_true(sumsq / n > 0.95 && sumsq / n < 1.05);
    for (int i = 0; i < 1000; i++) assert_true(rng_below(&r, 7) < 7);
}

static void permutation_is_a_permutation(void **state) {
    (void)state;
    uint32_t n = 1000, p[1000], q[1000];
    rng_t r;
    rng_init(&r, 5);
    rng_permutation(&r, p, n);
    int seen[1000] = {0};
    for (uint32_t i = 0; i < n; i++) seen[p[i]]++;
    for (uint32_t i = 0; i < n; i++) assert_int_equal(seen[i], 1);
    int fixed = 0;
    for (uint32_t i = 0; i < n; i++) fixed += p[i] == i;
    assert_true(fixed < 10); /* shuffled, not the identity */
    rng_init(&r, 5);
    rng_permutation(&r, q, n);
    assert_memory_equal(p, q, sizeof p); /* deterministic */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(philox_known_answers),
        cmocka_unit_test(sequential_equals_random_access),
        cmocka_unit_test(uniform_and_normal_ranges),
        cmocka_unit_test(permutation_is_a_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
