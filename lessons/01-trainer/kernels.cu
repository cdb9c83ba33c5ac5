/* kernels.cu — see kernels.h. Element-wise kernels use grid-stride loops; the per-example
 * cross-entropy uses one thread per example (the vocabulary is small: at most 256). */
#include "kernels.h"

#include <cuda_runtime.h>
#include <math.h>

static unsigned blocks_for(size_t n, int threads) {
    size_t b = (n + (size_t)threads - 1) / (size_t)threads;
    if (b > 4096) b = 4096;
    return b ? (unsigned)b : 1u;
}

__global__ void xent_forward_kernel(const float *logits, const int32_t *targets, int B, int V, float *probs, float *losses) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    const float *z = logits + (size_t)b * V;
    float *p = probs + (size_t)b * V;
    float zmax = z[0];
    for (int v = 1; v < V; v++) zmax = fmaxf(zmax, z[v]);
    double sum = 0;
    for (int v = 0; v < V; v++) {
        p[v] = expf(z[v] - zmax);
        sum += p[v];
    }
    float inv = (float)(1.0 / sum);
    for (int v = 0; v < V; v++) p[v] *= inv;
    losses[b] = (float)(log(sum) - (double)(z[targets[b]] - zmax));
}

__global__ void xent_backward_kernel(const float *probs, const int32_t *targets, int B, int V, float scale, float *d) {
    size_t n = (size_t)B * V;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int b = (int)(i / V), v = (int)(i % V);
        d[i] = probs[i] * scale - (v == targets[b] ? scale : 0.0f);
    }
}

__global__ void adamw_kernel(float *p, const float *g, float *m, float *v, size_t n, float decay, float omb1, float b2,
                             float omb2, float neg_step, float sqrt_bc2, float eps) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float gi = g[i];
        float pi = p[i] * decay;
        float mi = m[i] + omb1 * (gi - m[i]);
        float vi = v[i] * b2 + omb2 * gi * gi;
        float denom = sqrtf(vi) / sqrt_bc2 + eps;
        p[i] = pi + neg_step * mi / denom;
        m[i] = mi;
        v[i] = vi;
    }
}

__global__ void sgd_kernel(float *p, const float *g, float *buf, size_t n, float wd, float mu, float neg_lr, int first) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float gi = g[i];
        if (wd != 0) gi += wd * p[i];
        if (mu != 0) {
            buf[i] = first ? gi : mu * buf[i] + gi;
            gi = buf[i];
        }
        p[i] += neg_lr * gi;
    }
}

extern "C" void xent_forward_cuda(void *stream, const float *logits, const int32_t *targets, int B, int V, float *probs,
                                  float *losses) {
    xent_forward_kernel<<<blocks_for((size_t)B, 128), 128, 0, (cudaStream_t)stream>>>(logits, targets, B, V, probs, losses);
}

extern "C" void xent_backward_cuda(void *stream, const float *probs, const int32_t *targets, int B, int V,
                                   float grad_scale, float *dlogits) {
    xent_backward_kernel<<<blocks_for((size_t)B * V, 256), 256, 0, (cudaStream_t)stream>>>(probs, targets, B, V,
                                                                                          grad_scale / (float)B, dlogits);
}

extern "C" void adamw_step_cuda(void *stream, float *p, const float *g, float *m, float *v, size_t n, float decay,
                                float one_minus_b1, float b2, float one_minus_b2, float neg_step, float sqrt_bc2, float eps) {
    adamw_kernel<<<blocks_for(n, 256), 256, 0, (cudaStream_t)stream>>>(p, g, m, v, n, decay, one_minus_b1, b2,
                                                                      one_minus_b2, neg_step, sqrt_bc2, eps);
}

extern "C" void sgd_step_cuda(void *stream, float *p, const float *g, float *buf, size_t n, float wd, float mu,
                              float neg_lr, int first) {
    sgd_kernel<<<blocks_for(n, 256), 256, 0, (cudaStream_t)stream>>>(p, g, buf, n, wd, mu, neg_lr, first);
}
