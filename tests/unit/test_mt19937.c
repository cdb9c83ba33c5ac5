/* PyTorch's generator and randperm: the reference vectors of lessons/pytorch-semantics.md#generator-and-randperm. */
#include "testutil.h"

#include "mt19937.h"

static void mt_check_values(void **state) {
    (void)state;
    mt19937_t mt;
    mt19937_seed(&mt, 5489);
    assert_int_equal(mt19937_next(&mt), 3499211612u); /* the C++ standard's check values */
    for (int i = 2; i < 10000; i++) mt19937_next(&mt);
    assert_int_equal(mt19937_next(&mt), 4123659995u);
}

static void expect_perm(size_t n, uint64_t seed, const uint32_t *want) {
    uint32_t got[16];
    mt19937_randperm(got, n, seed);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("randperm(%zu, seed %llu)[%zu] = %u, PyTorch %u", n, (unsigned long long)seed, i, got[i], want[i]);
}

static void randperm_matches_pytorch(void **state) {
    (void)state;
    expect_perm(10, 0, (const uint32_t[]){4, 1, 7, 5, 3, 9, 0, 8, 6, 2});
    expect_perm(10, 1, (const uint32_t[]){5, 6, 1, 2, 0, 8, 9, 3, 7, 4});
    expect_perm(10, (1ull << 32) + 1, (const uint32_t[]){5, 6, 1, 2, 0, 8, 9, 3, 7, 4}); /* low 32 bits */
    expect_perm(10, (1ull << 53) - 1, (const uint32_t[]){1, 4, 6, 2, 0, 5, 8, 7, 9, 3});
    expect_perm(10, 42, (const uint32_t[]){2, 6, 1, 8, 4, 5, 0, 9, 3, 7});
    expect_perm(8, 0, (const uint32_t[]){4, 0, 7, 3, 2, 5, 1, 6});
    expect_perm(16, 0, (const uint32_t[]){12, 10, 9, 6, 11, 8, 13, 5, 2, 14, 15, 0, 4, 3, 7, 1});
    expect_perm(7, 0, (const uint32_t[]){4, 0, 5, 3, 2, 6, 1});
    expect_perm(5, 7, (const uint32_t[]){0, 1, 3, 2, 4});
    uint32_t one[1] = {99};
    mt19937_randperm(one, 1, 3);
    assert_int_equal(one[0], 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mt_check_values),
        cmocka_unit_test(randperm_matches_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
