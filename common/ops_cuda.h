/* ops_cuda.h — the CUDA backend of ops.h (compiled by nvcc when the CUDA Toolkit is found).
 * Same contracts as ops.h; pointers are device pointers. */
#ifndef DPC_OPS_CUDA_H
#define DPC_OPS_CUDA_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

void ops_cuda_init(ops_t *ops);
/* The context's stream (a cudaStream_t), for kernels launched outside common/. */
void *ops_cuda_stream(const ops_t *ops);
void ops_cuda_destroy(ops_t *ops);
float *ops_cuda_alloc(const ops_t *ops, size_t count);
void *ops_cuda_alloc_bytes(const ops_t *ops, size_t bytes);
void ops_cuda_free_bytes(const ops_t *ops, void *p);
void ops_cuda_upload(const ops_t *ops, void *dst, const void *host, size_t bytes);
void ops_cuda_download(const ops_t *ops, void *host, const void *src, size_t bytes);
void ops_cuda_sync(const ops_t *ops);
void ops_cuda_free(const ops_t *ops, float *p);
ops_event_t *ops_cuda_event_create(void);
void ops_cuda_event_destroy(ops_event_t *ev);
void ops_cuda_event_record(const ops_t *ops, ops_event_t *ev);
void ops_cuda_wait_event(const ops_t *ops, ops_event_t *ev);
void ops_cuda_to_host(const ops_t *ops, float *host, const float *src, size_t count);
void ops_cuda_from_host(const ops_t *ops, float *dst, const float *host, size_t count);
void ops_cuda_gemm(const ops_t *ops, bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
                   const float *B, float beta, float *C);
size_t ops_cuda_gemm_workspace_bytes(const ops_t *ops);
void ops_cuda_round(const ops_t *ops, dtype_t dtype, const float *src, uint16_t *bits, float *dst, size_t n);
void ops_cuda_colsum_acc(const ops_t *ops, const float *x, int rows, int cols, float *out);
void ops_cuda_tanh_forward(const ops_t *ops, const float *x, float *y, size_t n);
void ops_cuda_tanh_backward(const ops_t *ops, const float *y, const float *dy, float *dx, size_t n);
void ops_cuda_embedding_forward(const ops_t *ops, const float *table, const int32_t *idx, int B, int T, int E,
                                float *out);
void ops_cuda_embedding_backward(const ops_t *ops, const float *dout, const int32_t *idx, int B, int T, int E,
                                 float *dtable);
void ops_cuda_fill(const ops_t *ops, float *x, float value, size_t n);
void ops_cuda_scale(const ops_t *ops, float *x, float alpha, size_t n);
void ops_cuda_axpy(const ops_t *ops, float alpha, const float *x, float *y, size_t n);
void ops_cuda_copy(const ops_t *ops, const float *src, float *dst, size_t n);
double ops_cuda_sumsq(const ops_t *ops, const float *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
