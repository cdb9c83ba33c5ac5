/* ops_cpu.c — the CPU backend of ops.h. */
#include "ops.h"

#include "half.h"
#include "pairwise.h"
#include "util.h"

#include <cblas.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef DPC_HAVE_CUDA
#include "ops_cuda.h"
#define ON_GPU(ops) ((ops)->backend == OPS_CUDA)
#else
#define ON_GPU(ops) 0
#define ops_cuda_fail()                                                                                                \
    dp_fatal("this build has no CUDA support: use --device cpu, or install the CUDA Toolkit and make clean; make")
#endif

#ifndef DPC_HAVE_CUDA
bool ops_cuda_available(void) { return false; }
#endif

ops_t *ops_create(ops_backend_t backend, int threads) {
    ops_t *ops = dp_calloc(1, sizeof *ops);
    ops->backend = backend;
    ops->threads = threads > 0 ? threads : 1;
    if (backend == OPS_CUDA) {
#ifdef DPC_HAVE_CUDA
        ops_cuda_init(ops);
#else
        ops_cuda_fail();
#endif
    } else {
        openblas_set_num_threads(1); /* the pool splits the GEMMs (ops_gemm) */
        ops->pool = pool_create(ops->threads);
    }
    return ops;
}

void ops_destroy(ops_t *ops) {
#ifdef DPC_HAVE_CUDA
    if (ON_GPU(ops)) ops_cuda_destroy(ops);
#endif
    pool_destroy(ops->pool);
    free(ops);
}

#ifdef DPC_HAVE_CUDA
#define DISPATCH(call)                                                                                                 \
    do {                                                                                                               \
        if (ON_GPU(ops)) {                                                                                             \
            call;                                                                                                      \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#define DISPATCH_RET(call)                                                                                             \
    do {                                                                                                               \
        if (ON_GPU(ops)) return call;                                                                                  \
    } while (0)
#else
#define DISPATCH(call)     (void)ops
#define DISPATCH_RET(call) (void)ops
#endif

/* ---- the allocator's count (ops.h: ops_memory_allocated) -------------------------------------------
 * Every live allocation's size, by pointer, so that a free knows how much it gives back on both
 * backends (cudaFree tells nothing). Process-wide on purpose, like malloc's own statistics: memory
 * belongs to the process, whichever context or thread took it (FSDP's prefetch thread allocates too).
 * A short list searched from its end is enough: a few hundred live buffers at most, and the newest
 * is usually the first freed. */
typedef struct {
    const void *p;
    size_t bytes;
} live_t;
static struct {
    pthread_mutex_t lock;
    live_t *live;
    size_t n, cap, allocated, max_allocated;
} mem_count = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};

static void count_alloc(const void *p, size_t bytes) {
    pthread_mutex_lock(&mem_count.lock);
    if (mem_count.n == mem_count.cap) {
        size_t cap = mem_count.cap ? 2 * mem_count.cap : 64;
        live_t *grown = realloc(mem_count.live, cap * sizeof(live_t));
        if (!grown) dp_fatal("out of memory counting allocations");
        mem_count.live = grown;
        mem_count.cap = cap;
    }
    mem_count.live[mem_count.n++] = (live_t){p, bytes};
    mem_count.allocated += bytes;
    if (mem_count.allocated > mem_count.max_allocated) mem_count.max_allocated = mem_count.allocated;
    pthread_mutex_unlock(&mem_count.lock);
}

static void count_free(const void *p) {
    if (!p) return;
    pthread_mutex_lock(&mem_count.lock);
    for (size_t i = mem_count.n; i-- > 0;)
        if (mem_count.live[i].p == p) {
            mem_count.allocated -= mem_count.live[i].bytes;
            mem_count.live[i] = mem_count.live[--mem_count.n];
            break;
        }
    pthread_mutex_unlock(&mem_count.lock);
}

size_t ops_memory_allocated(void) {
    pthread_mutex_lock(&mem_count.lock);
    size_t b = mem_count.allocated;
    pthread_mutex_unlock(&mem_count.lock);
    return b;
}

size_t ops_max_memory_allocated(void) {
    pthread_mutex_lock(&mem_count.lock);
    size_t b = mem_count.max_allocated;
    pthread_mutex_unlock(&mem_count.lock);
    return b;
}

void ops_reset_peak_memory_stats(void) {
    pthread_mutex_lock(&mem_count.lock);
    mem_count.max_allocated = mem_count.allocated;
    pthread_mutex_unlock(&mem_count.lock);
}

size_t ops_host_heap_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2(); /* every arena: in use in the heaps, plus mmapped blocks */
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

/* The entry points lessons call with counts they computed: a count past 2^40 elements is a negative
 * int or a subtraction below 0 converted to size_t, and a NULL buffer with a count is one never
 * allocated. Either stops here, in one line naming the op, not as a crash inside the loop or the
 * BLAS (a test and a branch per call: nothing per element). */
#define OPS_COUNT_MAX ((size_t)1 << 40)

static void check_count(const char *op, size_t n) {
    if (n > OPS_COUNT_MAX)
        dp_fatal("%s of %zu elements (%td as a signed number): a negative count converted to size_t; check the "
                 "subtraction or the int that computed it",
                 op, n, (ptrdiff_t)n);
}

static void check_buf(const char *op, const char *name, const void *p, size_t n) {
    check_count(op, n);
    if (n && !p) dp_fatal("%s of %zu elements with %s NULL: was the buffer allocated (ops_alloc)?", op, n, name);
}

static void check_dims(const char *op, const char *what, int a, int b, int c) {
    if (a < 0 || b < 0 || c < 0) dp_fatal("%s with %s %d, %d, %d: a dimension is negative", op, what, a, b, c);
}

static float *alloc_floats(const ops_t *ops, size_t count) {
    DISPATCH_RET(ops_cuda_alloc(ops, count));
    float *p = dp_aligned_alloc(count * sizeof(float));
    memset(p, 0, count * sizeof(float));
    return p;
}

float *ops_alloc(const ops_t *ops, size_t count) {
    check_count("ops_alloc", count);
    float *p = alloc_floats(ops, count);
    count_alloc(p, count * sizeof(float));
    return p;
}

void ops_free(const ops_t *ops, float *p) {
    count_free(p);
    DISPATCH(ops_cuda_free(ops, p));
    free(p);
}

static void *alloc_bytes(const ops_t *ops, size_t bytes) {
    DISPATCH_RET(ops_cuda_alloc_bytes(ops, bytes));
    return dp_calloc(bytes ? bytes : 1, 1);
}

void *ops_alloc_bytes(const ops_t *ops, size_t bytes) {
    check_count("ops_alloc_bytes", bytes);
    void *p = alloc_bytes(ops, bytes);
    count_alloc(p, bytes);
    return p;
}

void ops_free_bytes(const ops_t *ops, void *p) {
    count_free(p);
    DISPATCH(ops_cuda_free_bytes(ops, p));
    free(p);
}

void ops_upload(const ops_t *ops, void *dst, const void *host, size_t bytes) {
    DISPATCH(ops_cuda_upload(ops, dst, host, bytes));
    if (dst != host && bytes) memcpy(dst, host, bytes);
}

void ops_download(const ops_t *ops, void *host, const void *src, size_t bytes) {
    DISPATCH(ops_cuda_download(ops, host, src, bytes));
    if (host != src && bytes) memcpy(host, src, bytes);
}

void ops_sync(const ops_t *ops) { DISPATCH(ops_cuda_sync(ops)); }

ops_event_t *ops_event_create(const ops_t *ops) {
    DISPATCH_RET(ops_cuda_event_create());
    return NULL;
}

void ops_event_destroy(ops_event_t *ev) {
#ifdef DPC_HAVE_CUDA
    if (ev) ops_cuda_event_destroy(ev);
#else
    (void)ev;
#endif
}

void ops_event_record(const ops_t *ops, ops_event_t *ev) {
    DISPATCH(ops_cuda_event_record(ops, ev));
    (void)ev;
}

void ops_wait_event(const ops_t *ops, ops_event_t *ev) {
    DISPATCH(ops_cuda_wait_event(ops, ev));
    (void)ev;
}

void *ops_stream(const ops_t *ops) {
    DISPATCH_RET(ops_cuda_stream(ops));
    return NULL;
}

#ifndef DPC_HAVE_CUDA
bool ops_is_device_pointer(const void *p) {
    (void)p;
    return false;
}
#endif

void ops_to_host(const ops_t *ops, float *host, const float *src, size_t count) {
    DISPATCH(ops_cuda_to_host(ops, host, src, count));
    if (host != src && count) memcpy(host, src, count * sizeof(float));
}

void ops_from_host(const ops_t *ops, float *dst, const float *host, size_t count) {
    DISPATCH(ops_cuda_from_host(ops, dst, host, count));
    if (dst != host && count) memcpy(dst, host, count * sizeof(float));
}

/* The pool's threads take blocks of C, each a single-threaded OpenBLAS GEMM of its own: one set of
 * threads for every op (OpenBLAS's own threads, idle between its calls, spin and yield against the
 * pool's on every core). Blocks are rows of C, or columns where C has fewer rows than columns (a
 * batch of 64 against a 2048-wide layer: split by rows, every thread would read all of the weight).
 * An element of C is the same dot product whatever block holds it: blocks go in multiples of
 * GEMM_UNIT rows or columns, a multiple of the unrolls of OpenBLAS's x86 kernels, so a split never
 * changes which kernel computes an element; the last unit takes the ragged rest. GEMM_MIN_MACS, a
 * part's least work, is about 100 µs on one core, and more than the largest GEMM OpenBLAS gives its
 * small-matrix kernels (M·N·K <= 100³ on x86), which add in another order: every part of a split
 * GEMM, like the whole, goes through the same large kernels. tests/unit/test_pairwise.c holds
 * ops_gemm's bits at 2 and 3 threads to one thread's, over shapes that split either way. */
#define GEMM_UNIT     16
#define GEMM_MIN_MACS (1u << 21)
typedef struct {
    bool transA, transB, by_cols;
    int M, N, K;
    size_t units;
    float alpha;
    const float *A, *B;
    float beta;
    float *C;
} gemm_job_t;

static void gemm_block(void *ctx, size_t u0, size_t u1, int part) {
    const gemm_job_t *j = ctx;
    (void)part;
    int lda = j->transA ? j->M : j->K, ldb = j->transB ? j->K : j->N, extent = j->by_cols ? j->N : j->M;
    int i0 = (int)u0 * GEMM_UNIT, i1 = u1 == j->units ? extent : (int)u1 * GEMM_UNIT;
    const float *A = j->A, *B = j->B;
    float *C = j->C;
    int M = j->M, N = j->N;
    if (j->by_cols) { /* columns i0..i1 of C: B's columns ([K, N]) or rows when transposed ([N, K]) */
        B += j->transB ? (size_t)i0 * j->K : (size_t)i0;
        C += i0;
        N = i1 - i0;
    } else { /* rows i0..i1 of C: A's rows ([M, K]) or columns when transposed ([K, M]) */
        A += j->transA ? (size_t)i0 : (size_t)i0 * j->K;
        C += (size_t)i0 * j->N;
        M = i1 - i0;
    }
    cblas_sgemm(CblasRowMajor, j->transA ? CblasTrans : CblasNoTrans, j->transB ? CblasTrans : CblasNoTrans, M, N, j->K,
                j->alpha, A, lda, B, ldb, j->beta, C, j->N);
}

void ops_gemm(const ops_t *ops, bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
              const float *B, float beta, float *C) {
    check_dims("ops_gemm", "M, N, K", M, N, K);
    if (M && N && (!C || (K && (!A || !B))))
        dp_fatal("ops_gemm (M %d, N %d, K %d) with %s NULL: a product needs its inputs and somewhere to write "
                 "(skip the call when there is nothing to compute)",
                 M, N, K,
                 !C   ? "C, the output,"
                 : !A ? "A"
                      : "B");
    DISPATCH(ops_cuda_gemm(ops, transA, transB, M, N, K, alpha, A, B, beta, C));
    if (M == 0 || N == 0) return;
    if (K == 0) { /* BLAS leaves C alone for K == 0 only when beta == 1: make it exact */
        for (size_t i = 0; i < (size_t)M * (size_t)N; i++) C[i] = beta == 0 ? 0.0f : beta * C[i];
        return;
    }
    bool by_cols = M < N;
    size_t extent = (size_t)(by_cols ? N : M), across = (size_t)(by_cols ? M : N);
    size_t units = extent / GEMM_UNIT ? extent / GEMM_UNIT : 1, macs_per_unit = GEMM_UNIT * across * (size_t)K;
    gemm_job_t job = {transA, transB, by_cols, M, N, K, units, alpha, A, B, beta, C};
    pool_for(ops->pool, units, (GEMM_MIN_MACS + macs_per_unit - 1) / macs_per_unit, gemm_block, &job);
}

size_t ops_gemm_workspace_bytes(const ops_t *ops) {
    DISPATCH_RET(ops_cuda_gemm_workspace_bytes(ops));
    return 0;
}

void ops_round(const ops_t *ops, dtype_t dtype, const float *src, uint16_t *bits, float *dst, size_t n) {
    if (dtype != DT_BF16 && dtype != DT_F16) dp_fatal("ops_round: %s is not a 16-bit float type", dtype_name(dtype));
    DISPATCH(ops_cuda_round(ops, dtype, src, bits, dst, n));
    for (size_t i = 0; i < n; i++) {
        uint16_t h = dtype == DT_BF16 ? float_to_bf16(src[i]) : float_to_fp16(src[i]);
        if (bits) bits[i] = h;
        if (dst) dst[i] = dtype == DT_BF16 ? bf16_to_float(h) : fp16_to_float(h);
    }
}

/* Threads own whole tiles of columns, each summed down all the rows. */
typedef struct {
    const float *x;
    int rows, cols;
    float *out;
} colsum_job_t;

static void colsum_tiles(void *ctx, size_t begin, size_t end, int part) {
    const colsum_job_t *j = ctx;
    (void)part;
    int c1 = (int)end * PAIRWISE_TILE;
    pairwise_colsum(j->x, j->rows, j->cols, (int)begin * PAIRWISE_TILE, c1 < j->cols ? c1 : j->cols, j->out);
}

void ops_colsum_acc(const ops_t *ops, const float *x, int rows, int cols, float *out) {
    check_dims("ops_colsum_acc", "rows, cols (and 0)", rows, cols, 0);
    check_buf("ops_colsum_acc", "x", x, (size_t)rows * (size_t)cols);
    check_buf("ops_colsum_acc", "out", out, (size_t)cols);
    DISPATCH(ops_cuda_colsum_acc(ops, x, rows, cols, out));
    colsum_job_t job = {x, rows, cols, out};
    pool_for(ops->pool, ((size_t)cols + PAIRWISE_TILE - 1) / PAIRWISE_TILE, 1, colsum_tiles, &job);
}

/* Elementwise maps: threads own contiguous ranges of elements. Below MAP_GRAIN elements a part is
 * not worth waking a thread for (a few microseconds each). */
#define MAP_GRAIN 16384
typedef struct {
    const float *a, *b;
    float *out;
} map_job_t;

static void tanh_forward_part(void *ctx, size_t begin, size_t end, int part) {
    const map_job_t *j = ctx;
    (void)part;
    for (size_t i = begin; i < end; i++) j->out[i] = tanhf(j->a[i]);
}

static void tanh_backward_part(void *ctx, size_t begin, size_t end, int part) {
    const map_job_t *j = ctx;
    (void)part;
    for (size_t i = begin; i < end; i++) j->out[i] = j->b[i] * (1.0f - j->a[i] * j->a[i]);
}

void ops_tanh_forward(const ops_t *ops, const float *x, float *y, size_t n) {
    DISPATCH(ops_cuda_tanh_forward(ops, x, y, n));
    map_job_t job = {x, NULL, y};
    pool_for(ops->pool, n, MAP_GRAIN, tanh_forward_part, &job);
}

void ops_tanh_backward(const ops_t *ops, const float *y, const float *dy, float *dx, size_t n) {
    DISPATCH(ops_cuda_tanh_backward(ops, y, dy, dx, n));
    map_job_t job = {y, dy, dx};
    pool_for(ops->pool, n, MAP_GRAIN, tanh_backward_part, &job);
}

void ops_embedding_forward(const ops_t *ops, const float *table, const int32_t *idx, int B, int T, int E, float *out) {
    DISPATCH(ops_cuda_embedding_forward(ops, table, idx, B, T, E, out));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            memcpy(out + ((size_t)b * T + t) * E, table + (size_t)idx[b * T + t] * E, (size_t)E * sizeof(float));
}

void ops_embedding_backward(const ops_t *ops, const float *dout, const int32_t *idx, int B, int T, int E,
                            float *dtable) {
    DISPATCH(ops_cuda_embedding_backward(ops, dout, idx, B, T, E, dtable));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const float *src = dout + ((size_t)b * T + t) * E;
            float *dst = dtable + (size_t)idx[b * T + t] * E;
            for (int e = 0; e < E; e++) dst[e] += src[e];
        }
}

void ops_fill(const ops_t *ops, float *x, float value, size_t n) {
    check_buf("ops_fill", "x", x, n);
    DISPATCH(ops_cuda_fill(ops, x, value, n));
    for (size_t i = 0; i < n; i++) x[i] = value;
}

void ops_scale(const ops_t *ops, float *x, float alpha, size_t n) {
    check_buf("ops_scale", "x", x, n);
    if (ops->scaled) *ops->scaled += n;
    DISPATCH(ops_cuda_scale(ops, x, alpha, n));
    for (size_t i = 0; i < n; i++) x[i] *= alpha;
}

void ops_axpy(const ops_t *ops, float alpha, const float *x, float *y, size_t n) {
    check_buf("ops_axpy", "x", x, n);
    check_buf("ops_axpy", "y", y, n);
    DISPATCH(ops_cuda_axpy(ops, alpha, x, y, n));
    for (size_t i = 0; i < n; i++) y[i] += alpha * x[i];
}

void ops_copy(const ops_t *ops, const float *src, float *dst, size_t n) {
    check_buf("ops_copy", "src", src, n);
    check_buf("ops_copy", "dst", dst, n);
    if (ops->copied) *ops->copied += n;
    DISPATCH(ops_cuda_copy(ops, src, dst, n));
    if (src != dst && n) memmove(dst, src, n * sizeof(float));
}

double ops_sumsq(const ops_t *ops, const float *x, size_t n) {
    check_buf("ops_sumsq", "x", x, n);
    DISPATCH_RET(ops_cuda_sumsq(ops, x, n));
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * (double)x[i];
    return s;
}
