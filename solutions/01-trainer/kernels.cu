/* kernels.cu — the GPU twins of xent.c and adamw.c (see kernels.h), and the given SGD kernel.
 *
 * Each kernel does what its CPU function does, with the work split over threads instead of loops:
 *
 *   xent_forward_kernel   one thread per example: the softmax of its row and its loss
 *   xent_backward_kernel  one thread per element of dlogits  } grid-stride loops: thread g of G
 *   adamw_kernel          one thread per parameter element   } handles g, g + G, g + 2G, ... < n
 *
 * The launchers (at the end, given) pick the grid; it is capped at 4096 blocks, so an element-wise
 * kernel meets more elements than threads as soon as n > 4096·256, and must loop. Compiled by nvcc
 * whenever the CUDA Toolkit is found; it runs where a GPU is present (grading/grade 01 checks it
 * there against your CPU functions and skips that check elsewhere). */
#include "kernels.h"

#include <cuda_runtime.h>
#include <math.h>

static unsigned blocks_for(size_t n, int threads) {
    size_t b = (n + (size_t)threads - 1) / (size_t)threads;
    if (b > 4096) b = 4096;
    return b ? (unsigned)b : 1u;
}

__global__ void xent_forward_kernel(const float *logits, const int32_t *targets, int B, int V, float *probs,
                                    float *losses) {
    // TODO(01 xent_forward_kernel): for every example b < B, in a grid-stride loop over examples (one
    //   thread per example while there are enough threads), what xent_forward (xent.c) does for row b:
    //   probs[b,·] = the softmax of logits[b,·] (max subtracted first), and losses[b] = −log of the
    //   target's probability, from the log-sum-exp; the same operations in the same precisions as
    //   xent.c, so the two agree to float rounding. The mean over the batch is taken on the host.
    // BEGIN SOLUTION
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < B; b += gridDim.x * blockDim.x) {
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
    // END SOLUTION
    // SKELETON: (void)logits, (void)targets, (void)B, (void)V, (void)probs, (void)losses;
}

__global__ void xent_backward_kernel(const float *probs, const int32_t *targets, int B, int V, float grad_scale,
                                     float *dlogits) {
    // TODO(01 xent_backward_kernel): what xent_backward does, one element per iteration of a
    //   grid-stride loop over the B·V elements of dlogits (element i is example i / V, class i % V):
    //   dlogits[i] = grad_scale · (probs[i] − [class == targets[example]]) / B. Every element is
    //   written (it is an output, not accumulated); probs and targets are only read.
    // BEGIN SOLUTION
    const float scale = grad_scale / (float)B;
    const size_t n = (size_t)B * V, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int b = (int)(i / (size_t)V), v = (int)(i % (size_t)V);
        dlogits[i] = probs[i] * scale - (v == targets[b] ? scale : 0.0f);
    }
    // END SOLUTION
    // SKELETON: (void)probs, (void)targets, (void)B, (void)V, (void)grad_scale, (void)dlogits;
}

__global__ void adamw_kernel(float *p, const float *g, float *m, float *v, size_t n, float decay, float one_minus_b1,
                             float b2, float one_minus_b2, float neg_step, float sqrt_bc2, float eps) {
    // TODO(01 adamw_kernel): the per-element update of adamw_step (adamw.c) for every i < n, in a
    //   grid-stride loop. The scalars come ready from the host (adamw_step_device in device_step.c):
    //   decay = 1 − lr·λ, one_minus_b1 = 1 − β1, b2 = β2, one_minus_b2 = 1 − β2, neg_step =
    //   −lr/(1 − β1ᵗ), sqrt_bc2 = √(1 − β2ᵗ), eps = ε. p, m and v are updated in place, in float.
    // BEGIN SOLUTION
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float gi = g[i];
        float pi = p[i] * decay;
        float mi = m[i] + one_minus_b1 * (gi - m[i]);
        float vi = v[i] * b2 + one_minus_b2 * gi * gi;
        float denom = sqrtf(vi) / sqrt_bc2 + eps;
        p[i] = pi + neg_step * mi / denom;
        m[i] = mi;
        v[i] = vi;
    }
    // END SOLUTION
    // SKELETON: (void)p, (void)g, (void)m, (void)v, (void)n, (void)decay, (void)one_minus_b1, (void)b2;
    // SKELETON: (void)one_minus_b2, (void)neg_step, (void)sqrt_bc2, (void)eps;
}

/* SGD is given, like its CPU version (optim.c's sgd_step). */
__global__ void sgd_kernel(float *p, const float *g, float *buf, size_t n, float wd, float mu, float neg_lr,
                           int first) {
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
    xent_forward_kernel<<<blocks_for((size_t)B, 128), 128, 0, (cudaStream_t)stream>>>(logits, targets, B, V, probs,
                                                                                      losses);
}

extern "C" void xent_backward_cuda(void *stream, const float *probs, const int32_t *targets, int B, int V,
                                   float grad_scale, float *dlogits) {
    xent_backward_kernel<<<blocks_for((size_t)B * V, 256), 256, 0, (cudaStream_t)stream>>>(probs, targets, B, V,
                                                                                           grad_scale, dlogits);
}

extern "C" void adamw_step_cuda(void *stream, float *p, const float *g, float *m, float *v, size_t n, float decay,
                                float one_minus_b1, float b2, float one_minus_b2, float neg_step, float sqrt_bc2,
                                float eps) {
    adamw_kernel<<<blocks_for(n, 256), 256, 0, (cudaStream_t)stream>>>(p, g, m, v, n, decay, one_minus_b1, b2,
                                                                       one_minus_b2, neg_step, sqrt_bc2, eps);
}

extern "C" void sgd_step_cuda(void *stream, float *p, const float *g, float *buf, size_t n, float wd, float mu,
                              float neg_lr, int first) {
    sgd_kernel<<<blocks_for(n, 256), 256, 0, (cudaStream_t)stream>>>(p, g, buf, n, wd, mu, neg_lr, first);
}
