/* Token datasets: round trip, damaged files refused, the example order. */
#include "testutil.h"

#include "data.h"
#include "util.h"

static char dir[256];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "%s/dpc-data-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static void round_trip_and_examples(void **state) {
    (void)state;
    char p[512], err[256];
    snprintf(p, sizeof p, "%s/a.tok", dir);
    const uint8_t tok[8] = {1, 2, 0, 3, 3, 1, 0, 2};
    assert_int_equal(dataset_write(p, ".abc", 4, tok, 8), 0);
    dataset_t ds;
    assert_int_equal(dataset_try_load(p, &ds, err, sizeof err), 0);
    assert_int_equal(ds.vocab_size, 4);
    assert_int_equal(ds.n_tokens, 8);
    assert_int_equal(ds.vocab[3], 'c');
    assert_int_equal(dataset_num_examples(&ds, 3), 5);
    int32_t ctx[3], target;
    dataset_example(&ds, 3, 2, ctx, &target);
    assert_int_equal(ctx[0], 0);
    assert_int_equal(ctx[2], 3);
    assert_int_equal(target, 1);
    dataset_free(&ds);
}

static void damaged(const char *name, void (*damage)(unsigned char *, size_t *), const char *needle) {
    char p[512], q[512], err[512];
    snprintf(p, sizeof p, "%s/src.tok", dir);
    snprintf(q, sizeof q, "%s/%s", dir, name);
    const uint8_t tok[6] = {1, 2, 0, 3, 3, 1};
    assert_int_equal(dataset_write(p, ".abc", 4, tok, 6), 0);
    copy_damaged(p, q, damage);
    dataset_t ds;
    assert_int_equal(dataset_try_load(q, &ds, err, sizeof err), -1);
    if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
}

static void bad_magic(unsigned char *b, size_t *n) { (void)n, b[0] = 'X'; }
static void truncated(unsigned char *b, size_t *n) { (void)b, *n -= 2; }
static void flipped(unsigned char *b, size_t *n) { b[*n - 1] ^= 1; }
static void version(unsigned char *b, size_t *n) { (void)n, b[8] = 9; }

static void damaged_files_refused(void **state) {
    (void)state;
    damaged("magic.tok", bad_magic, "bad magic");
    damaged("trunc.tok", truncated, "truncated");
    damaged("flip.tok", flipped, "checksum");
    damaged("ver.tok", version, "version");
    dataset_t ds;
    char err[512];
    assert_int_equal(dataset_try_load("/nonexistent.tok", &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, "not found"));
    assert_non_null(strstr(err, "make dataset"));
}

static void order_is_a_permutation_per_epoch(void **state) {
    (void)state;
    data_order_t o;
    size_t n = 103, batch = 10;
    data_order_init(&o, 9, n, batch);
    assert_int_equal(o.steps_per_epoch, 10);
    int seen[103] = {0};
    uint32_t idx[10], again[10];
    for (uint64_t s = 0; s < 10; s++) {
        data_order_batch(&o, s, idx);
        for (int j = 0; j < 10; j++) seen[idx[j]]++;
    }
    int covered = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(seen[i] <= 1); /* no example twice within an epoch */
        covered += seen[i];
    }
    assert_int_equal(covered, 100); /* the partial last batch (3 examples) is dropped */
    /* deterministic, random access, and a new order next epoch */
    data_order_batch(&o, 3, idx);
    data_order_batch(&o, 13, again);
    data_order_batch(&o, 3, again);
    assert_memory_equal(idx, again, sizeof idx);
    data_order_batch(&o, 10, again);
    data_order_batch(&o, 0, idx);
    assert_true(memcmp(idx, again, sizeof idx) != 0);
    data_order_free(&o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_and_examples),
        cmocka_unit_test(damaged_files_refused),
        cmocka_unit_test(order_is_a_permutation_per_epoch),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
