/* optim.c — SGD, the optimizer state, gradient clipping and the learning-rate schedule. */
#include "optim.h"

#include "util.h"

#include <math.h>
#include <stdlib.h>

void sgd_step(float *params, const float *grads, float *buf, size_t n, int64_t t,
              const sgd_hparams_t *hp, double lr) {
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

void optim_init(optim_t *o, optim_kind_t kind, size_t n) {
    o->kind = kind;
    o->n = n;
    o->t = 0;
    o->adamw = (adamw_hparams_t){0.9, 0.999, 1e-8, 0.01};
    o->sgd = (sgd_hparams_t){0.0, 0.0};
    o->m = dp_calloc(n ? n : 1, sizeof(float));
    o->v = kind == OPTIM_ADAMW ? dp_calloc(n ? n : 1, sizeof(float)) : NULL;
}

void optim_free(optim_t *o) {
    free(o->m);
    free(o->v);
    o->m = o->v = NULL;
}

void optim_step(optim_t *o, float *params, const float *grads, double lr) {
    o->t++;
    if (o->kind == OPTIM_ADAMW)
        adamw_step(params, grads, o->m, o->v, o->n, o->t, &o->adamw, lr);
    else
        sgd_step(params, grads, o->m, o->n, o->t, &o->sgd, lr);
}

double clip_grad_norm_given(float *grads, size_t n, double max_norm, double sumsq) {
    double norm = sqrt(sumsq);
    if (max_norm <= 0) return norm;
    double coef = max_norm / (norm + 1e-6);
    if (coef > 1.0) coef = 1.0;
    float c = (float)coef;
    for (size_t i = 0; i < n; i++) grads[i] *= c;
    return norm;
}

double clip_grad_norm(float *grads, size_t n, double max_norm) {
    double sumsq = 0;
    for (size_t i = 0; i < n; i++) sumsq += (double)grads[i] * grads[i];
    return clip_grad_norm_given(grads, n, max_norm, sumsq);
}

double lr_at(int64_t s, double lr, int64_t warmup, int64_t total, double min_ratio) {
    if (s < warmup) return lr * (double)(s + 1) / (double)warmup;
    double span = (double)(total > warmup ? total - warmup : 1);
    double progress = (double)(s - warmup) / span;
    if (progress > 1) progress = 1;
    double lo = lr * min_ratio;
    return lo + 0.5 * (lr - lo) * (1.0 + cos(3.14159265358979323846 * progress));
}
