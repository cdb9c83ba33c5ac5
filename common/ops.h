/* ops.h — the math the lessons use but do not teach, behind one seam.
 *
 * Lesson code calls ops_*(ops, ...) on buffers that live where the ops context says (host memory for
 * OPS_CPU, device memory for OPS_CUDA). For the operations below, a new device is a new backend here
 * and nothing else. Not all device code is behind this seam, though: the kernels that ARE lesson
 * material dispatch in lesson code, on `#ifdef DPC_HAVE_CUDA` and ops->backend == OPS_CUDA —
 * lesson 01's cross-entropy (model.c) and optimizer step (optim.c; train.c picks
 * train_step_device), lesson 03's reduce_add (collective.c) — and the trainers choose the backend
 * by name (trainer.c, bench_allreduce.c) and give DDP's and FSDP's communication a context of its
 * own (ddp.c, fsdp.c). A new device needs those too. Matrices are row-major; a [rows, cols] matrix
 * has leading dimension cols.
 *
 * CPU backend: GEMM through CBLAS (OpenBLAS), the rest plain loops in a fixed order, so results are
 * deterministic run to run. One thread per rank by default (ranks are the parallelism); a context of
 * N threads has a pool of N (pool.h) that splits the GEMMs (each part a single-threaded OpenBLAS call)
 * and the loops so that every output element is computed alike whatever N: the bits do not depend on
 * the thread count. */
#ifndef DPC_OPS_H
#define DPC_OPS_H

#include "dtype.h"
#include "pool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { OPS_CPU, OPS_CUDA } ops_backend_t;

typedef struct {
    ops_backend_t backend;
    int threads;  /* CPU: the pool's threads (OpenBLAS itself runs on one) */
    pool_t *pool; /* CPU: the loops' threads (pool.h); NULL with one thread */
    void *device; /* backend state (CUDA handles) */
    /* NULL, or where ops_scale adds how many elements it scaled: the grader's count of the work each
     * rank did (an all-reduce whose every rank scales the whole buffer gets the same bits as one
     * whose ranks scale only their own chunk). One context is used by one thread at a time. */
    uint64_t *scaled;
    /* NULL, or where ops_copy adds how many elements it copied: which context (which GPU stream) a
     * copy was issued on, which the CPU cannot otherwise tell — a copy on the wrong stream gives the
     * same bits here and is a race on a GPU (lesson 08's gather, on its prefetch stream). */
    uint64_t *copied;
    /* The operand type of ops_gemm: DT_F32 (the default), or DT_BF16 / DT_F16 for mixed precision.
     * On a GPU a 16-bit setting makes every GEMM round A and B to that type (as ops_round) and
     * multiply them on the tensor cores, accumulating and writing C in float32: what a bf16 GEMM
     * under torch.autocast does. The CPU has no 16-bit arithmetic and ignores it (its GEMM stays
     * float32 on whatever operands it is given). */
    dtype_t gemm_dtype;
} ops_t;

/* Create a context. threads <= 0 means 1. OPS_CUDA fails with a clear error when no GPU (or no CUDA
 * build) is available. */
ops_t *ops_create(ops_backend_t backend, int threads);
void ops_destroy(ops_t *ops);
bool ops_cuda_available(void);

/* Memory in the context's space. */
float *ops_alloc(const ops_t *ops, size_t count); /* zeroed */
void ops_free(const ops_t *ops, float *p);
void ops_to_host(const ops_t *ops, float *host, const float *src, size_t count);
void ops_from_host(const ops_t *ops, float *dst, const float *host, size_t count);

/* What the allocator holds, process-wide (every context, both backends, every thread), named after
 * torch.cuda.memory_allocated and friends: the bytes ops_alloc / ops_alloc_bytes handed out that
 * ops_free / ops_free_bytes have not taken back yet, and the most that ever were at once since the
 * start or the last reset. Real allocations, not a trainer's bookkeeping (mem.h): what lets the
 * grader see a temporary that is never freed, or one that breaks a memory bound while it lives. */
size_t ops_memory_allocated(void);
size_t ops_max_memory_allocated(void);
void ops_reset_peak_memory_stats(void); /* max = what is allocated now */
/* Bytes the C library's malloc holds for the whole process (glibc's mallinfo2; 0 where unknown):
 * catches host buffers taken with malloc directly, which the counts above never see. */
size_t ops_host_heap_bytes(void);

/* Raw bytes in the context's space (indices, staging), and copies to and from the host. */
void *ops_alloc_bytes(const ops_t *ops, size_t bytes); /* zeroed */
void ops_free_bytes(const ops_t *ops, void *p);
void ops_upload(const ops_t *ops, void *dst, const void *host, size_t bytes);
void ops_download(const ops_t *ops, void *host, const void *src, size_t bytes);
/* Wait until everything queued on the context has finished (a no-op on the CPU). */
void ops_sync(const ops_t *ops);
/* Ordering between two contexts (two streams on one GPU: compute and communication). An event
 * marks "everything queued on ops so far"; ops_wait_event makes LATER work queued on another context
 * wait for it on the device, without blocking the host. On the CPU work is done when queued: the
 * event is NULL and both calls do nothing. */
typedef struct ops_event ops_event_t;
ops_event_t *ops_event_create(const ops_t *ops);
void ops_event_destroy(ops_event_t *ev);
void ops_event_record(const ops_t *ops, ops_event_t *ev);
void ops_wait_event(const ops_t *ops, ops_event_t *ev);
/* The context's CUDA stream (NULL on the CPU): what the comm seam orders device buffers with. */
void *ops_stream(const ops_t *ops);
/* Is p device memory (false without CUDA)? Lets the comm seam stage device buffers through the host. */
bool ops_is_device_pointer(const void *p);

/* C[M,N] = alpha * op(A) * op(B) + beta * C, op(X) = X or Xᵀ; A is [M,K] (or [K,M] if transA). */
void ops_gemm(const ops_t *ops, bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
              const float *B, float beta, float *C);

/* The GEMM's 16-bit operand scratch the context holds now (0 on the CPU, or with gemm_dtype DT_F32):
 * it grows to the largest GEMM's A and B, and ops_memory_allocated counts it too. */
size_t ops_gemm_workspace_bytes(const ops_t *ops);

/* Round to a 16-bit float (dtype DT_BF16 or DT_F16) with round-to-nearest-even, exactly as
 * common/half.h: bits[i] (if bits is not NULL) gets the 16-bit pattern of src[i], and dst[i] (if
 * dst is not NULL) its value widened back to float32, which is exact. dst == src is allowed. */
void ops_round(const ops_t *ops, dtype_t dtype, const float *src, uint16_t *bits, float *dst, size_t n);

/* out[j] += Σ_i x[i, j] over rows i (x is [rows, cols]), summed pairwise (pairwise.h): on every
 * device and for any thread count the same bits, with a tree's rounding error, not a running sum's. */
void ops_colsum_acc(const ops_t *ops, const float *x, int rows, int cols, float *out);

/* y = tanh(x) (x == y allowed); dx = dy ⊙ (1 − y²) (dx == dy allowed). */
void ops_tanh_forward(const ops_t *ops, const float *x, float *y, size_t n);
void ops_tanh_backward(const ops_t *ops, const float *y, const float *dy, float *dx, size_t n);

/* Embedding: out[b, t*E + e] = table[idx[b*T + t], e] for B*T indices;
 * backward accumulates dtable[idx[b*T+t], e] += dout[b, t*E + e] in (b, t) order. */
void ops_embedding_forward(const ops_t *ops, const float *table, const int32_t *idx, int B, int T, int E, float *out);
void ops_embedding_backward(const ops_t *ops, const float *dout, const int32_t *idx, int B, int T, int E,
                            float *dtable);

void ops_fill(const ops_t *ops, float *x, float value, size_t n);
void ops_scale(const ops_t *ops, float *x, float alpha, size_t n);                /* x *= alpha */
void ops_axpy(const ops_t *ops, float alpha, const float *x, float *y, size_t n); /* y += alpha x */
void ops_copy(const ops_t *ops, const float *src, float *dst, size_t n);
double ops_sumsq(const ops_t *ops, const float *x, size_t n); /* Σ x², accumulated in double */

#ifdef __cplusplus
}
#endif

#endif
