/* ops_cuda.cu — the CUDA backend of ops.h: cuBLAS for GEMM, small kernels for the rest.
 * Everything runs on the context's stream; nothing here synchronises the device except the calls
 * that return a value to the host (ops_cuda_sumsq, copies to the host). */
#include "ops_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "half_bits.h"
#include "pairwise.h"
#include "util.h"

typedef struct {
    cublasHandle_t blas;
    cudaStream_t stream;
    double *partials; /* device scratch for reductions */
    double *host_partials;
    uint16_t *gemm_ws; /* a 16-bit GEMM's rounded A and B (ops_cuda_gemm), grown on demand */
    size_t gemm_ws_bytes;
} cuda_state_t;

#define SUMSQ_BLOCKS 256
#define THREADS      256

static cuda_state_t *st(const ops_t *ops) { return (cuda_state_t *)ops->device; }

static void ck(cudaError_t e, const char *what) {
    if (e != cudaSuccess) dp_fatal("CUDA %s failed: %s", what, cudaGetErrorString(e));
}

static void ckb(cublasStatus_t s, const char *what) {
    if (s != CUBLAS_STATUS_SUCCESS) dp_fatal("cuBLAS %s failed (status %d)", what, (int)s);
}

static unsigned blocks_for(size_t n) {
    size_t b = (n + THREADS - 1) / THREADS;
    if (b > 65535) b = 65535; /* grid-stride loops cover the rest */
    return b ? (unsigned)b : 1u;
}

extern "C" bool ops_cuda_available(void) {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

/* Set once a CUDA context exists in this process. Until then no pointer can be device memory, and
 * ops_is_device_pointer must not touch the runtime: a CPU-only run on a GPU machine would otherwise
 * create a context (and its memory) on every rank just to ask. */
static volatile int cuda_in_use;

/* The GPU for this process: its rank among the ranks on this machine, modulo the GPU count. The
 * launchers say it in the environment (Open MPI, Slurm, torchrun-style), so this works before any
 * communicator exists. Ranks beyond the GPU count share GPUs. */
static int pick_device(int ndev) {
    const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v) % ndev;
    }
    return 0;
}

extern "C" void ops_cuda_init(ops_t *ops) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
        dp_fatal("no CUDA device is available: use --device cpu (and unset DP_DEVICE if it says cuda)");
    ck(cudaSetDevice(pick_device(ndev)), "set device");
    cuda_in_use = 1;
    cuda_state_t *s = (cuda_state_t *)calloc(1, sizeof *s);
    ck(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "stream create");
    ckb(cublasCreate(&s->blas), "create");
    ckb(cublasSetStream(s->blas, s->stream), "set stream");
    /* FP32 GEMM stays FP32: no TF32 shortcut, so the GPU agrees with the CPU oracle. */
    ckb(cublasSetMathMode(s->blas, CUBLAS_PEDANTIC_MATH), "math mode");
    ck(cudaMalloc(&s->partials, SUMSQ_BLOCKS * sizeof(double)), "malloc");
    ck(cudaMallocHost(&s->host_partials, SUMSQ_BLOCKS * sizeof(double)), "malloc host");
    ops->device = s;
}

extern "C" void *ops_cuda_stream(const ops_t *ops) { return st(ops)->stream; }

extern "C" void ops_cuda_destroy(ops_t *ops) {
    cuda_state_t *s = st(ops);
    if (!s) return;
    cudaStreamSynchronize(s->stream);
    if (s->gemm_ws) ops_free_bytes(ops, s->gemm_ws); /* through ops.h: the allocator's count */
    cublasDestroy(s->blas);
    cudaFree(s->partials);
    cudaFreeHost(s->host_partials);
    cudaStreamDestroy(s->stream);
    free(s);
    ops->device = NULL;
}

extern "C" float *ops_cuda_alloc(const ops_t *ops, size_t count) {
    float *p = NULL;
    ck(cudaMalloc(&p, (count ? count : 1) * sizeof(float)), "malloc");
    ck(cudaMemsetAsync(p, 0, (count ? count : 1) * sizeof(float), st(ops)->stream), "memset");
    return p;
}

extern "C" void *ops_cuda_alloc_bytes(const ops_t *ops, size_t bytes) {
    void *p = NULL;
    ck(cudaMalloc(&p, bytes ? bytes : 1), "malloc");
    ck(cudaMemsetAsync(p, 0, bytes ? bytes : 1, st(ops)->stream), "memset");
    return p;
}

extern "C" void ops_cuda_free_bytes(const ops_t *ops, void *p) {
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
    ck(cudaFree(p), "free");
}

extern "C" void ops_cuda_upload(const ops_t *ops, void *dst, const void *host, size_t bytes) {
    if (!bytes) return;
    ck(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, st(ops)->stream), "upload");
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
}

extern "C" void ops_cuda_download(const ops_t *ops, void *host, const void *src, size_t bytes) {
    if (!bytes) return;
    ck(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, st(ops)->stream), "download");
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
}

extern "C" void ops_cuda_sync(const ops_t *ops) { ck(cudaStreamSynchronize(st(ops)->stream), "sync"); }

/* An ops_event_t is a cudaEvent_t; timing off, so recording it costs next to nothing. */
extern "C" ops_event_t *ops_cuda_event_create(void) {
    cudaEvent_t e;
    ck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event create");
    return (ops_event_t *)e;
}

extern "C" void ops_cuda_event_destroy(ops_event_t *ev) { ck(cudaEventDestroy((cudaEvent_t)ev), "event destroy"); }

extern "C" void ops_cuda_event_record(const ops_t *ops, ops_event_t *ev) {
    ck(cudaEventRecord((cudaEvent_t)ev, st(ops)->stream), "event record");
}

extern "C" void ops_cuda_wait_event(const ops_t *ops, ops_event_t *ev) {
    ck(cudaStreamWaitEvent(st(ops)->stream, (cudaEvent_t)ev, 0), "stream wait event");
}

extern "C" bool ops_is_device_pointer(const void *p) {
    if (!p || !cuda_in_use) return false;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* plain host memory on older runtimes: clear the error */
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

extern "C" void ops_cuda_free(const ops_t *ops, float *p) {
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
    ck(cudaFree(p), "free");
}

extern "C" void ops_cuda_to_host(const ops_t *ops, float *host, const float *src, size_t count) {
    ck(cudaMemcpyAsync(host, src, count * sizeof(float), cudaMemcpyDeviceToHost, st(ops)->stream), "copy to host");
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
}

extern "C" void ops_cuda_from_host(const ops_t *ops, float *dst, const float *host, size_t count) {
    ck(cudaMemcpyAsync(dst, host, count * sizeof(float), cudaMemcpyHostToDevice, st(ops)->stream), "copy from host");
    ck(cudaStreamSynchronize(st(ops)->stream), "sync");
}

/* One thread per element, each reading src[i] before writing dst[i]: in place is fine. The
 * conversions are half_bits.h's, the CPU's own code: the two agree to the bit. */
__global__ void round_kernel(int bf16, const float *src, uint16_t *bits, float *dst, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint16_t h = bf16 ? half_float_to_bf16(src[i]) : half_float_to_fp16(src[i]);
        if (bits) bits[i] = h;
        if (dst) dst[i] = bf16 ? half_bf16_to_float(h) : half_fp16_to_float(h);
    }
}

extern "C" void ops_cuda_round(const ops_t *ops, dtype_t dtype, const float *src, uint16_t *bits, float *dst,
                               size_t n) {
    if (n == 0 || (!bits && !dst)) return;
    round_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(dtype == DT_BF16, src, bits, dst, n);
    ck(cudaGetLastError(), "round kernel");
}

extern "C" size_t ops_cuda_gemm_workspace_bytes(const ops_t *ops) { return st(ops)->gemm_ws_bytes; }

/* The 16-bit operand scratch, at least `count` elements. Grown to the largest GEMM seen (the first
 * step sees them all), never shrunk; the old one is freed after the work queued on it. */
static uint16_t *gemm_workspace(const ops_t *ops, size_t count) {
    cuda_state_t *s = st(ops);
    if (count * sizeof(uint16_t) > s->gemm_ws_bytes) {
        if (s->gemm_ws) ops_free_bytes(ops, s->gemm_ws);
        s->gemm_ws_bytes = count * sizeof(uint16_t);
        s->gemm_ws = (uint16_t *)ops_alloc_bytes(ops, s->gemm_ws_bytes);
    }
    return s->gemm_ws;
}

/* cuBLAS is column-major, the course row-major. A row-major [M, N] array read column-major is its
 * transpose [N, M] (leading dimension N), so row-major C = op(A)·op(B) is column-major
 * Cᵀ = op(B)ᵀ·op(A)ᵀ: swap the operands (B first), pass (N, M, K), and give each operand its row
 * length as leading dimension. Nothing is copied or transposed.
 *
 * gemm_dtype DT_F32: cublasSgemm, FP32 throughout: the handle's math mode is CUBLAS_PEDANTIC_MATH
 * (ops_cuda_init), so no TF32, and the GPU agrees with the CPU oracle.
 *
 * DT_BF16 / DT_F16: A and B are rounded (round_kernel, element by element, so a transposed operand
 * is rounded as it is stored) into the scratch, B from a 256-byte boundary, and cublasGemmEx
 * multiplies them with compute type CUBLAS_COMPUTE_32F: products and sums in float32, C written in
 * float32 (beta applied to the float32 C). A product of two bf16 (fp16) values is exact in float32
 * (within its range), so the only roundings are the operands' and the float32 sums'. The explicit
 * compute type is what decides the precision (cublas_api.h: the PEDANTIC math mode stands for the
 * _PEDANTIC compute type only in calls that do not name one); the handle goes to
 * CUBLAS_DEFAULT_MATH for the call all the same, so that nothing keeps it off the tensor cores, and
 * back to pedantic for the FP32 path. */
extern "C" void ops_cuda_gemm(const ops_t *ops, bool transA, bool transB, int M, int N, int K, float alpha,
                              const float *A, const float *B, float beta, float *C) {
    if (M == 0 || N == 0) return;
    cuda_state_t *s = st(ops);
    cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N, opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    int lda = transA ? M : K, ldb = transB ? K : N;
    if (ops->gemm_dtype == DT_F32 || K == 0) {
        ckb(cublasSgemm(s->blas, opB, opA, N, M, K, &alpha, B, ldb, A, lda, &beta, C, N), "sgemm");
        return;
    }
    size_t na = (size_t)M * K, nb = (size_t)K * N, offb = (na + 127) / 128 * 128;
    uint16_t *ws = gemm_workspace(ops, offb + nb);
    ops_cuda_round(ops, ops->gemm_dtype, A, ws, NULL, na);
    ops_cuda_round(ops, ops->gemm_dtype, B, ws + offb, NULL, nb);
    cudaDataType t = ops->gemm_dtype == DT_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    ckb(cublasSetMathMode(s->blas, CUBLAS_DEFAULT_MATH), "math mode");
    ckb(cublasGemmEx(s->blas, opB, opA, N, M, K, &alpha, ws + offb, t, ldb, ws, t, lda, &beta, C, CUDA_R_32F, N,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "gemm (16-bit operands)");
    ckb(cublasSetMathMode(s->blas, CUBLAS_PEDANTIC_MATH), "math mode");
}

/* One thread per column, the rows summed by pairwise.h's tree: the CPU's additions, bit for bit. */
__global__ void colsum_acc_kernel(const float *x, int rows, int cols, float *out) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x) {
        pairwise1_t p;
        pairwise1_init(&p);
        for (int i = 0; i < rows; i++) pairwise1_add(&p, x[(size_t)i * cols + j]);
        pairwise1_finish(&p, &out[j]);
    }
}

extern "C" void ops_cuda_colsum_acc(const ops_t *ops, const float *x, int rows, int cols, float *out) {
    colsum_acc_kernel<<<blocks_for((size_t)cols), THREADS, 0, st(ops)->stream>>>(x, rows, cols, out);
    ck(cudaGetLastError(), "colsum kernel");
}

__global__ void tanh_forward_kernel(const float *x, float *y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = tanhf(x[i]);
}

__global__ void tanh_backward_kernel(const float *y, const float *dy, float *dx, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

extern "C" void ops_cuda_tanh_forward(const ops_t *ops, const float *x, float *y, size_t n) {
    tanh_forward_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(x, y, n);
    ck(cudaGetLastError(), "tanh kernel");
}

extern "C" void ops_cuda_tanh_backward(const ops_t *ops, const float *y, const float *dy, float *dx, size_t n) {
    tanh_backward_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(y, dy, dx, n);
    ck(cudaGetLastError(), "tanh backward kernel");
}

__global__ void embedding_forward_kernel(const float *table, const int *idx, size_t rows, int E, float *out) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * E; i += (size_t)gridDim.x * blockDim.x)
        out[i] = table[(size_t)idx[i / E] * E + i % E];
}

/* Rows of the table receive from many positions: atomics (order varies, so bits may too). */
__global__ void embedding_backward_kernel(const float *dout, const int *idx, size_t rows, int E, float *dtable) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * E; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&dtable[(size_t)idx[i / E] * E + i % E], dout[i]);
}

extern "C" void ops_cuda_embedding_forward(const ops_t *ops, const float *table, const int32_t *idx, int B, int T,
                                           int E, float *out) {
    size_t rows = (size_t)B * T;
    embedding_forward_kernel<<<blocks_for(rows * E), THREADS, 0, st(ops)->stream>>>(table, idx, rows, E, out);
    ck(cudaGetLastError(), "embedding kernel");
}

extern "C" void ops_cuda_embedding_backward(const ops_t *ops, const float *dout, const int32_t *idx, int B, int T,
                                            int E, float *dtable) {
    size_t rows = (size_t)B * T;
    embedding_backward_kernel<<<blocks_for(rows * E), THREADS, 0, st(ops)->stream>>>(dout, idx, rows, E, dtable);
    ck(cudaGetLastError(), "embedding backward kernel");
}

__global__ void fill_kernel(float *x, float v, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x[i] = v;
}

__global__ void scale_kernel(float *x, float a, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] *= a;
}

__global__ void axpy_kernel(float a, const float *x, float *y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] += a * x[i];
}

extern "C" void ops_cuda_fill(const ops_t *ops, float *x, float value, size_t n) {
    fill_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(x, value, n);
    ck(cudaGetLastError(), "fill kernel");
}

extern "C" void ops_cuda_scale(const ops_t *ops, float *x, float alpha, size_t n) {
    scale_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(x, alpha, n);
    ck(cudaGetLastError(), "scale kernel");
}

extern "C" void ops_cuda_axpy(const ops_t *ops, float alpha, const float *x, float *y, size_t n) {
    axpy_kernel<<<blocks_for(n), THREADS, 0, st(ops)->stream>>>(alpha, x, y, n);
    ck(cudaGetLastError(), "axpy kernel");
}

extern "C" void ops_cuda_copy(const ops_t *ops, const float *src, float *dst, size_t n) {
    if (src == dst || n == 0) return;
    ck(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, st(ops)->stream), "copy");
}

/* Each block writes one partial sum (tree reduction in shared memory); the host adds the partials
 * in block order, so the result does not depend on scheduling. */
__global__ void sumsq_kernel(const float *x, size_t n, double *partials) {
    __shared__ double sh[THREADS];
    double s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += (double)x[i] * (double)x[i];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

extern "C" double ops_cuda_sumsq(const ops_t *ops, const float *x, size_t n) {
    cuda_state_t *s = st(ops);
    sumsq_kernel<<<SUMSQ_BLOCKS, THREADS, 0, s->stream>>>(x, n, s->partials);
    ck(cudaGetLastError(), "sumsq kernel");
    ck(cudaMemcpyAsync(s->host_partials, s->partials, SUMSQ_BLOCKS * sizeof(double), cudaMemcpyDeviceToHost, s->stream),
       "copy partials");
    ck(cudaStreamSynchronize(s->stream), "sync");
    double total = 0;
    for (int b = 0; b < SUMSQ_BLOCKS; b++) total += s->host_partials[b];
    return total;
}
