/* Variable-length examples (common/records.h): records found between separators, framed and padded
 * with -1, cut at the window; grouping by length keeps a permutation and evens each batch. */
#include "testutil.h"

#include "records.h"
#include "util.h"

#include <stdlib.h>

static void framing(void **state) {
    (void)state;
    /* "cat", "a", "dog" with separators, a leading one and two in a row */
    uint8_t tok[] = {0, 3, 1, 20, 0, 1, 0, 0, 4, 15, 7};
    dataset_t ds = {.tokens = tok, .n_tokens = sizeof tok};
    records_t r;
    records_index(&ds, &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.len[0], 3);
    assert_int_equal(r.len[1], 1);
    assert_int_equal(r.len[2], 3);
    assert_int_equal(r.start[2], 8);
    int32_t ctx[8], target;
    /* 0 c a t 0 -1 -1 -1, nothing after: 4 positions predict (c, a, t, 0) */
    assert_int_equal(records_example(&ds, &r, 8, 0, ctx, &target), 4);
    const int32_t want[8] = {0, 3, 1, 20, 0, -1, -1, -1};
    assert_memory_equal(ctx, want, sizeof want);
    assert_int_equal(target, -1);
    /* cut at T = 3: 0 d o, and the window's target is g; all 3 positions predict */
    assert_int_equal(records_example(&ds, &r, 3, 2, ctx, &target), 3);
    assert_int_equal(ctx[2], 15);
    assert_int_equal(target, 7);
    /* T = 4 holds 0 d o g: the closing separator is the target */
    assert_int_equal(records_example(&ds, &r, 4, 2, ctx, &target), 4);
    assert_int_equal(target, 0);
    records_free(&r);
}

static void grouping(void **state) {
    (void)state;
    enum { N = 96, BATCH = 4, GROUP = 6 };
    records_t r = {.n = N, .start = dp_calloc(N, sizeof(size_t)), .len = dp_malloc(N * sizeof(uint32_t))};
    for (int i = 0; i < N; i++) r.len[i] = (uint32_t)(1 + (i * 37) % 19);
    uint32_t perm[N], seen[N] = {0};
    for (int i = 0; i < N; i++) perm[i] = (uint32_t)((i * 53) % N);
    records_group_by_length(&r, perm, N, BATCH, GROUP, 7, 0);
    for (int i = 0; i < N; i++) seen[perm[i]]++;
    for (int i = 0; i < N; i++) assert_int_equal(seen[i], 1); /* still a permutation */
    /* within each run of GROUP batches the batches are length-sorted slices: every batch's lengths
     * lie between its neighbours' in the sorted run, so no two batches of a run overlap in length
     * by more than a shared boundary value */
    for (int run = 0; run < N / (BATCH * GROUP); run++) {
        uint32_t lo[GROUP], hi[GROUP];
        for (int b = 0; b < GROUP; b++) {
            lo[b] = 1000, hi[b] = 0;
            for (int j = 0; j < BATCH; j++) {
                uint32_t l = r.len[perm[(run * GROUP + b) * BATCH + j]];
                lo[b] = l < lo[b] ? l : lo[b];
                hi[b] = l > hi[b] ? l : hi[b];
            }
        }
        for (int a = 0; a < GROUP; a++)
            for (int b = 0; b < GROUP; b++)
                if (a != b) assert_true(hi[a] <= lo[b] || hi[b] <= lo[a]);
    }
    /* the batches' order is shuffled, not short to long: some run is not ascending */
    int ascending_runs = 0;
    for (int run = 0; run < N / (BATCH * GROUP); run++) {
        int asc = 1;
        for (int b = 1; b < GROUP; b++)
            asc &= r.len[perm[(run * GROUP + b) * BATCH]] >= r.len[perm[(run * GROUP + b - 1) * BATCH]];
        ascending_runs += asc;
    }
    assert_true(ascending_runs < N / (BATCH * GROUP));
    records_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(framing),
        cmocka_unit_test(grouping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
