/* The CPU's threads and pairwise sums (common/pool.h, common/pairwise.h, ops_colsum_acc):
 *   - pool_for covers every item once, in parts fixed by the count alone, on more than one thread;
 *   - a pool that another thread is using runs the caller's parts inline;
 *   - the CPU's tile of columns adds exactly as pairwise1_t does (the GPU kernels' layout), for row
 *     counts around every block and level boundary and widths across a tile;
 *   - ops_colsum_acc and ops_gemm give the same bits at 1, 2 and 3 threads;
 *   - on a bias gradient of 65,536 rows, the pairwise sum's error against float64 is a small part of
 *     a running float32 sum's (it prints both). */
#include "testutil.h"

#include "ops.h"
#include "pairwise.h"
#include "pool.h"
#include "rng.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

typedef struct {
    atomic_int hits[1000];
    atomic_int calls;
    pthread_t callers[8];
    atomic_int ncallers;
    size_t begin[8], end[8];
} cover_t;

static void cover(void *ctx, size_t begin, size_t end, int part) {
    cover_t *c = ctx;
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
    c->begin[part] = begin;
    c->end[part] = end;
    c->callers[atomic_fetch_add(&c->calls, 1)] = pthread_self();
}

static void pool_covers_once(void **state) {
    (void)state;
    pool_t *pool = pool_create(3);
    assert_int_equal(pool_threads(pool), 3);
    assert_null(pool_create(1));
    const size_t counts[] = {1, 2, 3, 7, 100, 999};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        for (size_t grain = 1; grain <= 64; grain *= 4) {
            static cover_t c;
            memset(&c, 0, sizeof c);
            size_t n = counts[k];
            pool_for(pool, n, grain, cover, &c);
            for (size_t i = 0; i < n; i++) assert_int_equal(atomic_load(&c.hits[i]), 1);
            size_t want = n / grain == 0 ? 1 : n / grain < 3 ? n / grain : 3;
            assert_int_equal(atomic_load(&c.calls), (int)want);
            for (size_t p = 0; p < want; p++) { /* the split is a function of n and the parts alone */
                assert_int_equal(c.begin[p], n * p / want);
                assert_int_equal(c.end[p], n * (p + 1) / want);
            }
            if (want == 3) /* three parts ran on three threads, the caller's among them */
                assert_false(pthread_equal(c.callers[0], c.callers[1]) || pthread_equal(c.callers[0], c.callers[2]) ||
                             pthread_equal(c.callers[1], c.callers[2]));
        }
    pool_for(pool, 0, 1, cover, NULL); /* nothing to do: fn is not called */
    pool_destroy(pool);
    pool_destroy(NULL);
}

/* While one thread holds the pool, another's pool_for runs every part itself. */
typedef struct {
    pool_t *pool;
    atomic_int inside, release;
    cover_t inner;
} busy_t;

static void hold(void *ctx, size_t begin, size_t end, int part) {
    busy_t *b = ctx;
    (void)begin, (void)end;
    if (part != 0) return;
    atomic_store(&b->inside, 1);
    while (!atomic_load(&b->release)) sched_yield();
}

static void *holder(void *p) {
    busy_t *b = p;
    pool_for(b->pool, 2, 1, hold, b);
    return NULL;
}

static void busy_pool_runs_inline(void **state) {
    (void)state;
    static busy_t b;
    memset(&b, 0, sizeof b);
    b.pool = pool_create(2);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, holder, &b), 0);
    while (!atomic_load(&b.inside)) sched_yield();
    pool_for(b.pool, 10, 1, cover, &b.inner);
    atomic_store(&b.release, 1);
    pthread_join(t, NULL);
    assert_int_equal(atomic_load(&b.inner.calls), 2);
    for (int p = 0; p < 2; p++) assert_true(pthread_equal(b.inner.callers[p], pthread_self()));
    for (int i = 0; i < 10; i++) assert_int_equal(atomic_load(&b.inner.hits[i]), 1);
    pool_destroy(b.pool);
}

static float *random_rows(int rows, int cols, uint64_t seed, float mean, float spread) {
    rng_t r;
    rng_init(&r, seed);
    float *x = dp_malloc((size_t)rows * cols * sizeof(float));
    for (size_t i = 0; i < (size_t)rows * cols; i++) x[i] = mean + spread * rng_normal(&r);
    return x;
}

static void tile_matches_one_column(void **state) {
    (void)state;
    const int rows_list[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4096, 4097};
    const int cols = 2 * PAIRWISE_TILE + 5;
    for (size_t k = 0; k < sizeof rows_list / sizeof *rows_list; k++) {
        int rows = rows_list[k];
        float *x = random_rows(rows ? rows : 1, cols, 11 + (uint64_t)k, 0.3f, 1.0f);
        float tile[2 * PAIRWISE_TILE + 5], one[2 * PAIRWISE_TILE + 5];
        for (int j = 0; j < cols; j++) tile[j] = one[j] = 0.25f * (float)j; /* out is added to */
        pairwise_colsum(x, rows, cols, 0, cols, tile);
        for (int j = 0; j < cols; j++) {
            pairwise1_t p;
            pairwise1_init(&p);
            for (int i = 0; i < rows; i++) pairwise1_add(&p, x[(size_t)i * cols + j]);
            pairwise1_finish(&p, &one[j]);
        }
        if (memcmp(tile, one, sizeof tile) != 0) fail_msg("%d rows: the tile's sums differ from one column's", rows);
        free(x);
    }
}

static void colsum_same_bits_any_threads(void **state) {
    (void)state;
    const int rows = 777, cols = 5 * PAIRWISE_TILE + 3;
    float *x = random_rows(rows, cols, 5, 0.0f, 1.0f);
    float *want = NULL;
    for (int threads = 1; threads <= 3; threads++) {
        ops_t *ops = ops_create(OPS_CPU, threads);
        float *out = dp_calloc((size_t)cols, sizeof(float));
        ops_colsum_acc(ops, x, rows, cols, out);
        if (!want)
            want = out;
        else {
            if (memcmp(want, out, (size_t)cols * sizeof(float)) != 0)
                fail_msg("ops_colsum_acc at %d threads differs from 1 thread", threads);
            free(out);
        }
        ops_destroy(ops);
    }
    free(want);
    free(x);
}

/* ops_gemm split by the pool (blocks of rows, or of columns when C is wide) against one thread, for the
 * four transposes, over shapes that split either way, with ragged edges, and that stay whole. */
static void gemm_same_bits_any_threads(void **state) {
    (void)state;
    const int shapes[][3] = {{64, 1024, 768}, {64, 27, 1024}, {512, 768, 256}, {256, 256, 512},
                             {33, 700, 65},   {1000, 48, 64}, {7, 5, 3},       {129, 2049, 96}};
    ops_t *ops[3];
    for (int t = 0; t < 3; t++) ops[t] = ops_create(OPS_CPU, t + 1);
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (int tr = 0; tr < 4; tr++) {
            int M = shapes[k][0], N = shapes[k][1], K = shapes[k][2];
            float *A = random_rows(M, K, 21 + k, 0.0f, 1.0f), *B = random_rows(K, N, 31 + k, 0.0f, 1.0f);
            float *C[3];
            for (int t = 0; t < 3; t++) {
                C[t] = random_rows(M, N, 41 + k, 0.0f, 1.0f); /* beta = 0.5: C is read too */
                ops_gemm(ops[t], tr & 1, tr & 2, M, N, K, 0.75f, A, B, 0.5f, C[t]);
            }
            for (int t = 1; t < 3; t++)
                if (memcmp(C[0], C[t], (size_t)M * N * sizeof(float)) != 0)
                    fail_msg("ops_gemm M %d N %d K %d transA %d transB %d: %d threads differ from 1", M, N, K, tr & 1,
                             !!(tr & 2), t + 1);
            for (int t = 0; t < 3; t++) free(C[t]);
            free(A);
            free(B);
        }
    for (int t = 0; t < 3; t++) ops_destroy(ops[t]);
}

/* A bias gradient: the column sums of dy over the rows of a batch. Its terms share a sign more often
 * than not (a mean beside the noise), so a running float32 sum grows and rounds every new term
 * against a large accumulator. */
static void pairwise_error_against_float64(void **state) {
    (void)state;
    const int rows = 65536, cols = 64;
    float *x = random_rows(rows, cols, 9, 1e-3f, 1e-2f);
    float *pair = dp_calloc(cols, sizeof(float));
    ops_t *ops = ops_create(OPS_CPU, 1);
    ops_colsum_acc(ops, x, rows, cols, pair);
    ops_destroy(ops);
    double err_run = 0, err_pair = 0;
    for (int j = 0; j < cols; j++) {
        double exact = 0, abs = 0;
        float running = 0;
        for (int i = 0; i < rows; i++) {
            float v = x[(size_t)i * cols + j];
            exact += v;
            abs += fabs(v);
            running += v;
        }
        err_run = fmax(err_run, fabs(running - exact) / abs);
        err_pair = fmax(err_pair, fabs(pair[j] - exact) / abs);
    }
    printf("bias gradient, %d rows: largest error against float64 (relative to sum |x|): running float32 sum "
           "%.2e, pairwise %.2e\n",
           rows, err_run, err_pair);
    assert_true(err_pair * 8 < err_run);
    free(pair);
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pool_covers_once),           cmocka_unit_test(busy_pool_runs_inline),
        cmocka_unit_test(tile_matches_one_column),    cmocka_unit_test(colsum_same_bits_any_threads),
        cmocka_unit_test(gemm_same_bits_any_threads), cmocka_unit_test(pairwise_error_against_float64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
