/* optim.c — SGD, the optimizer state, gradient clipping and the learning-rate schedule. */
#include "optim.h"

#include "grad_scaler.h"
#include "util.h"
#ifdef DPC_HAVE_CUDA
#include "kernels.h"
#include "ops_cuda.h"
#endif

#include <math.h>
#include <stdlib.h>

void sgd_step(float *params, const float *grads, float *buf, size_t n, int64_t t, const sgd_hparams_t *hp, double lr) {
    const float wd = (float)hp->weight_decay, mu = (float)hp->momentum, neg_lr = (float)-lr;
    for (size_t i = 0; i < n; i++) {
        float g = grads[i];
        if (wd != 0) g += wd * params[i]; /* SGD's weight decay is L2: it goes into the gradient */
        if (mu != 0) {
            buf[i] = t == 1 ? g : mu * buf[i] + g; /* torch: the first step copies the gradient */
            g = buf[i];
        }
        params[i] += neg_lr * g;
    }
}

void optim_init(optim_t *o, optim_kind_t kind, size_t n) { optim_init_on(o, kind, n, NULL); }

void optim_init_on(optim_t *o, optim_kind_t kind, size_t n, const ops_t *ops) {
    bool device = ops && ops->backend != OPS_CPU;
    o->ops = device ? ops : NULL;
    o->pool = ops && !device ? ops->pool : NULL;
    o->kind = kind;
    o->n = n;
    o->t = 0;
    o->scaler = NULL; /* the trainer sets one for fp16 */
    o->adamw = (adamw_hparams_t){0.9, 0.999, 1e-8, 0.01};
    o->sgd = (sgd_hparams_t){0.0, 0.0};
    size_t k = n ? n : 1;
    o->m = device ? ops_alloc(ops, k) : dp_calloc(k, sizeof(float));
    o->v = kind != OPTIM_ADAMW ? NULL : device ? ops_alloc(ops, k) : dp_calloc(k, sizeof(float));
}

void optim_free(optim_t *o) {
    if (o->ops && o->ops->backend != OPS_CPU) {
        if (o->m) ops_free(o->ops, o->m);
        if (o->v) ops_free(o->ops, o->v);
    } else {
        free(o->m);
        free(o->v);
    }
    o->m = o->v = NULL;
}

#ifdef DPC_HAVE_CUDA
/* On a GPU: AdamW is device_step.c's adamw_step_device; SGD is the kernel of kernels.cu, with its
 * scalars rounded to float here, as sgd_step rounds them. */
static void step_on_device(optim_t *o, float *params, const float *grads, double lr) {
    void *s = ops_cuda_stream(o->ops);
    if (o->kind == OPTIM_ADAMW)
        adamw_step_device(s, params, grads, o->m, o->v, o->n, o->t, &o->adamw, lr);
    else
        sgd_step_cuda(s, params, grads, o->m, o->n, (float)o->sgd.weight_decay, (float)o->sgd.momentum, (float)-lr,
                      o->t == 1);
}
#endif

/* Any inf or NaN among the gradients? On a GPU the host cannot read them: their sum of squares
 * (accumulated in double, so no finite float32 overflows it) is finite exactly when every one is. */
static bool found_inf(const optim_t *o, const float *grads) {
    if (o->ops) return !isfinite(ops_sumsq(o->ops, grads, o->n));
    return grad_scaler_found_inf(grads, o->n);
}

/* On the CPU's threads: both optimizers are elementwise, so each chunk of elements is a step of its
 * own, computed as one thread would (the same scalars, from the same t) and the bits do not depend
 * on the thread count. */
#define STEP_GRAIN 16384 /* elements: about 30 µs of AdamW, worth a thread's wake-up */
typedef struct {
    const optim_t *o;
    float *params;
    const float *grads;
    double lr;
} step_job_t;

static void step_chunk(void *ctx, size_t i0, size_t i1, int part) {
    const step_job_t *j = ctx;
    const optim_t *o = j->o;
    (void)part;
    if (o->kind == OPTIM_ADAMW)
        adamw_step(j->params + i0, j->grads + i0, o->m + i0, o->v + i0, i1 - i0, o->t, &o->adamw, j->lr);
    else
        sgd_step(j->params + i0, j->grads + i0, o->m + i0, i1 - i0, o->t, &o->sgd, j->lr);
}

void optim_step(optim_t *o, float *params, const float *grads, double lr) {
    /* student code calls it (lessons 01, 02, 06, 10): a state that optim_free released, or a NULL
     * buffer, would crash inside the step's loop */
    if (!o->m)
        dp_fatal("optim_step with no optimizer state (it was freed): in lesson 02 only the server, rank 0, steps; "
                 "a worker sends its gradients and receives the new parameters");
    if (o->n && (!params || !grads))
        dp_fatal("optim_step of %zu elements with %s NULL", o->n, !params ? "params" : "grads");
    if (o->scaler && grad_scaler_update(o->scaler, found_inf(o, grads))) return;
    o->t++;
#ifdef DPC_HAVE_CUDA
    if (o->ops && o->ops->backend == OPS_CUDA) {
        step_on_device(o, params, grads, lr);
        return;
    }
#endif
    step_job_t job = {o, params, grads, lr};
    pool_for(o->pool, o->n, STEP_GRAIN, step_chunk, &job);
}

/* clip_grad_norm_'s coefficient: max_norm / (norm + 1e-6), never above 1. */
static float clip_coef(double norm, double max_norm) {
    double coef = max_norm / (norm + 1e-6);
    return (float)(coef > 1.0 ? 1.0 : coef);
}

double clip_grad_norm_from_sumsq(const ops_t *ops, float *grads, size_t n, double max_norm, double sumsq) {
    double norm = sqrt(sumsq);
    if (max_norm > 0) ops_scale(ops, grads, clip_coef(norm, max_norm), n);
    return norm;
}

double clip_grad_norm_ops(const ops_t *ops, float *grads, size_t n, double max_norm) {
    return clip_grad_norm_from_sumsq(ops, grads, n, max_norm, ops_sumsq(ops, grads, n));
}

/* Σ g² in double, in SUMSQ_LANES interleaved sums (lane l takes elements l, l + LANES, ...) added
 * at the end in lane order: an order fixed by n alone, which the compiler can make vector
 * instructions of (one running sum is a chain of dependent adds it cannot). */
#define SUMSQ_LANES 8
static double sumsq_lanes(const float *g, size_t n) {
    double lane[SUMSQ_LANES] = {0};
    size_t i = 0;
    for (; i + SUMSQ_LANES <= n; i += SUMSQ_LANES)
        for (int l = 0; l < SUMSQ_LANES; l++) lane[l] += (double)g[i + l] * g[i + l];
    for (; i < n; i++) lane[i % SUMSQ_LANES] += (double)g[i] * g[i];
    double s = 0;
    for (int l = 0; l < SUMSQ_LANES; l++) s += lane[l];
    return s;
}

double clip_grad_norm(float *grads, size_t n, double max_norm) {
    double norm = sqrt(sumsq_lanes(grads, n));
    if (max_norm > 0) {
        float c = clip_coef(norm, max_norm);
        for (size_t i = 0; i < n; i++) grads[i] *= c;
    }
    return norm;
}

double lr_at(int64_t s, double lr, int64_t warmup, int64_t total, double min_ratio) {
    if (s < warmup) return lr * (double)(s + 1) / (double)warmup;
    double span = (double)(total > warmup ? total - warmup : 1);
    double progress = (double)(s - warmup) / span;
    if (progress > 1) progress = 1;
    double lo = lr * min_ratio;
    return lo + 0.5 * (lr - lo) * (1.0 + cos(3.14159265358979323846 * progress));
}
