/* model.c — the MLP language model: parameters, forward, and the backward walk with its
 * gradient-ready hook. The per-layer math lives in linear.c and xent.c. */
#include "model.h"

#include "gpt.h"
#include "layers.h"
#include "rng.h"
#ifdef DPC_HAVE_CUDA
#include "kernels.h"
#include "ops_cuda.h"
#endif
#include "mixed_precision.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int layer_in(const model_config_t *c, int l) { return l == 0 ? c->context * c->embed : c->hidden; }

/* Softmax cross-entropy where the logits live: the functions of xent.c on the host, the kernels of
 * kernels.cu on a GPU (the per-example losses come back to the host to be averaged in the
 * same order). */
static float xent_fwd(model_t *m, int B) {
#ifdef DPC_HAVE_CUDA
    if (m->ops->backend == OPS_CUDA) {
        xent_forward_cuda(ops_cuda_stream(m->ops), m->logits, m->targets_dev, B, m->cfg.vocab, m->probs, m->losses);
        ops_download(m->ops, m->losses_host, m->losses, (size_t)B * sizeof(float));
        double total = 0;
        for (int b = 0; b < B; b++) total += m->losses_host[b];
        return (float)(total / B);
    }
#endif
    return xent_forward(m->logits, m->targets, B, m->cfg.vocab, m->probs, m->losses);
}

static void xent_bwd(model_t *m, int B, float grad_scale) {
#ifdef DPC_HAVE_CUDA
    if (m->ops->backend == OPS_CUDA) {
        xent_backward_cuda(ops_cuda_stream(m->ops), m->probs, m->targets_dev, B, m->cfg.vocab, grad_scale, m->dlogits);
        return;
    }
#endif
    xent_backward(m->probs, m->targets, B, m->cfg.vocab, grad_scale, m->dlogits);
}

static gpt_config_t gpt_config(const model_config_t *c) {
    return (gpt_config_t){c->vocab, c->context, c->embed, c->heads, c->layers};
}

int model_gpt_preset(const char *name, int vocab, model_config_t *cfg) {
    gpt_config_t g;
    if (gpt_preset(name, &g) != 0) return -1;
    *cfg = (model_config_t){vocab, g.context, g.channels, 4 * g.channels, g.layers, MODEL_GPT, g.heads};
    return 0;
}

void model_config_string(const model_config_t *c, char *out, size_t n) {
    if (c->kind == MODEL_GPT)
        snprintf(out, n, "gpt vocab=%d context=%d channels=%d heads=%d layers=%d", c->vocab, c->context, c->embed,
                 c->heads, c->layers);
    else
        snprintf(out, n, "vocab=%d context=%d embed=%d hidden=%d layers=%d", c->vocab, c->context, c->embed, c->hidden,
                 c->layers);
}

int model_check_config(const model_config_t *c, char *err, size_t errlen) {
    if (c->kind == MODEL_GPT) {
        gpt_config_t g = gpt_config(c);
        return gpt_check_config(&g, err, errlen);
    }
    if (c->kind != MODEL_MLP) return dp_error(err, errlen, "model kind %d is not one this course has", (int)c->kind);
    const struct {
        const char *name;
        int value, max;
    } sizes[] = {{"vocab", c->vocab, 65536},
                 {"context", c->context, 1024},
                 {"embed", c->embed, 65536},
                 {"hidden", c->hidden, 65536},
                 {"layers", c->layers, 256}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].value < 1 || sizes[i].value > sizes[i].max)
            return dp_error(err, errlen, "model size %s=%d is out of range (1..%d)", sizes[i].name, sizes[i].value,
                            sizes[i].max);
    /* within the ranges above every product fits in 64 bits */
    size_t V = (size_t)c->vocab, H = (size_t)c->hidden, in0 = (size_t)c->context * (size_t)c->embed;
    size_t n = V * (size_t)c->embed + H * in0 + H + (size_t)(c->layers - 1) * (H * H + H) + V * H + V;
    if (n > MODEL_MAX_PARAMS)
        return dp_error(err, errlen,
                        "the model (vocab=%d context=%d embed=%d hidden=%d layers=%d) has %zu parameters, "
                        "more than the %zu this course supports; use smaller sizes",
                        c->vocab, c->context, c->embed, c->hidden, c->layers, n, MODEL_MAX_PARAMS);
    return 0;
}

void model_layout(flat_layout_t *L, const model_config_t *c) {
    if (c->kind == MODEL_GPT) {
        gpt_config_t g = gpt_config(c);
        gpt_layout(L, &g);
        return;
    }
    flat_layout_init(L);
    flat_layout_add(L, "wte", 2, (size_t[]){(size_t)c->vocab, (size_t)c->embed});
    char name[FLAT_MAX_NAME];
    for (int l = 0; l < c->layers; l++) {
        snprintf(name, sizeof name, "h.%d.weight", l);
        flat_layout_add(L, name, 2, (size_t[]){(size_t)c->hidden, (size_t)layer_in(c, l)});
        snprintf(name, sizeof name, "h.%d.bias", l);
        flat_layout_add(L, name, 1, (size_t[]){(size_t)c->hidden});
    }
    flat_layout_add(L, "head.weight", 2, (size_t[]){(size_t)c->vocab, (size_t)c->hidden});
    flat_layout_add(L, "head.bias", 1, (size_t[]){(size_t)c->vocab});
}

int model_unit_of(const model_config_t *c, int i) {
    if (c->kind == MODEL_GPT) return gpt_unit_of(c->layers, i);
    return i == 0 ? 0 : (i - 1) / 2 + 1; /* wte; h.l's weight and bias; the head's */
}

static float *alloc_tracked(model_t *m, mem_cat_t cat, size_t count) {
    if (m->mem) mem_add(m->mem, cat, count * sizeof(float));
    return ops_alloc(m->ops, count);
}

void model_init(model_t *m, const model_config_t *cfg, const ops_t *ops, int max_batch, uint64_t seed, mem_t *mem) {
    memset(m, 0, sizeof *m);
    char err[256];
    if (model_check_config(cfg, err, sizeof err) != 0) dp_fatal("%s", err);
    m->cfg = *cfg;
    m->ops = ops;
    m->mem = mem;
    m->max_batch = max_batch;
    if (cfg->kind == MODEL_GPT) {
        /* share the gpt_t's arrays (model.h): one layout, one set of params, grads and units */
        gpt_config_t g = gpt_config(cfg);
        m->gpt = dp_calloc(1, sizeof(gpt_t));
        gpt_init(m->gpt, &g, ops, max_batch, seed, mem);
        m->layout = m->gpt->layout;
        m->params = m->gpt->params;
        m->grads = m->gpt->grads;
        m->nunits = m->gpt->nunits;
        m->unit_offset = m->gpt->unit_offset;
        m->unit_numel = m->gpt->unit_numel;
        m->unit_of = m->gpt->unit_of;
        m->unit_params = m->gpt->unit_params;
        m->unit_grads = m->gpt->unit_grads;
        m->gpt_targets = dp_calloc((size_t)max_batch * (size_t)cfg->context, sizeof(int32_t));
        m->gpt_tokens = dp_calloc((size_t)max_batch * (size_t)cfg->context, sizeof(int32_t));
        m->loss_weight = 1.0f;
        return;
    }
    model_layout(&m->layout, cfg);
    size_t n = m->layout.numel;
    m->params = alloc_tracked(m, MEM_PARAMS, n);
    m->grads = alloc_tracked(m, MEM_GRADS, n);

    model_reset_params(m, seed);

    /* units: wte, h.0 .. h.(L-1), head — contiguous runs of the layout */
    m->nunits = cfg->layers + 2;
    m->unit_offset = dp_calloc((size_t)m->nunits, sizeof(size_t));
    m->unit_numel = dp_calloc((size_t)m->nunits, sizeof(size_t));
    m->unit_of = dp_calloc((size_t)m->layout.count, sizeof(int));
    m->unit_params = dp_calloc((size_t)m->nunits, sizeof(float *));
    m->unit_grads = dp_calloc((size_t)m->nunits, sizeof(float *));
    for (int i = 0; i < m->layout.count; i++) {
        int u = model_unit_of(cfg, i);
        m->unit_of[i] = u;
        if (i == 0 || (i - 1) % 2 == 0) m->unit_offset[u] = m->layout.views[i].offset;
        m->unit_numel[u] += m->layout.views[i].numel;
    }
    for (int u = 0; u < m->nunits; u++) {
        m->unit_params[u] = m->params + m->unit_offset[u];
        m->unit_grads[u] = m->grads + m->unit_offset[u];
    }

    size_t B = (size_t)max_batch, T = (size_t)cfg->context, E = (size_t)cfg->embed;
    size_t H = (size_t)cfg->hidden, V = (size_t)cfg->vocab, widest = H > T * E ? H : T * E;
    m->ctx = dp_calloc(B * T, sizeof(int32_t));
    m->targets = dp_calloc(B, sizeof(int32_t));
    m->losses_host = dp_calloc(B, sizeof(float));
    m->ctx_dev = ops->backend == OPS_CPU ? m->ctx : ops_alloc_bytes(ops, B * T * sizeof(int32_t));
    m->targets_dev = ops->backend == OPS_CPU ? m->targets : ops_alloc_bytes(ops, B * sizeof(int32_t));
    m->x0 = alloc_tracked(m, MEM_ACTIVATIONS, B * T * E);
    m->h = dp_calloc((size_t)cfg->layers, sizeof(float *));
    for (int l = 0; l < cfg->layers; l++) m->h[l] = alloc_tracked(m, MEM_ACTIVATIONS, B * H);
    m->logits = alloc_tracked(m, MEM_ACTIVATIONS, B * V);
    m->probs = alloc_tracked(m, MEM_ACTIVATIONS, B * V);
    m->losses = alloc_tracked(m, MEM_ACTIVATIONS, B);
    m->dlogits = alloc_tracked(m, MEM_ACTIVATIONS, B * V);
    m->dh_a = alloc_tracked(m, MEM_ACTIVATIONS, B * widest);
    m->dh_b = alloc_tracked(m, MEM_ACTIVATIONS, B * widest);
}

void model_reset_params(model_t *m, uint64_t seed) {
    if (m->gpt) {
        gpt_reset_params(m->gpt, seed);
        return;
    }
    /* On the host, in registration order, from one RNG stream. */
    size_t n = m->layout.numel;
    float *host = dp_malloc(n * sizeof(float));
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < m->layout.count; i++) {
        const flat_view_t *v = &m->layout.views[i];
        float *p = host + v->offset;
        if (i == model_wte()) {
            for (size_t k = 0; k < v->numel; k++) p[k] = rng_normal(&r);
        } else {
            /* fan_in of a weight [out, in] is in; a bias uses its weight's fan_in */
            size_t fan_in = v->ndim == 2 ? v->shape[1] : m->layout.views[i - 1].shape[1];
            float bound = 1.0f / sqrtf((float)fan_in);
            for (size_t k = 0; k < v->numel; k++) p[k] = (2.0f * rng_uniform(&r) - 1.0f) * bound;
        }
    }
    ops_from_host(m->ops, m->params, host, n);
    free(host);
}

float *model_param(const model_t *m, int i) {
    int u = m->unit_of[i];
    return m->unit_params[u] + (m->layout.views[i].offset - m->unit_offset[u]);
}

float *model_grad(const model_t *m, int i) {
    int u = m->unit_of[i];
    return m->unit_grads[u] + (m->layout.views[i].offset - m->unit_offset[u]);
}

#define HOOK(m, which, u)                                                                                              \
    do {                                                                                                               \
        if ((m)->unit_hooks.which) (m)->unit_hooks.which((m)->unit_hooks.ctx, (u));                                    \
    } while (0)

void model_free(model_t *m) {
    if (m->gpt) { /* the shared arrays are the gpt_t's: freed once, by gpt_free */
        gpt_free(m->gpt);
        free(m->gpt);
        free(m->gpt_targets);
        free(m->gpt_tokens);
        memset(m, 0, sizeof *m);
        return;
    }
    float *bufs[] = {m->params, m->grads, m->x0, m->logits, m->probs, m->losses, m->dlogits, m->dh_a, m->dh_b};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ops_free(m->ops, bufs[i]);
    for (int l = 0; l < m->cfg.layers; l++) ops_free(m->ops, m->h[l]);
    free(m->h);
    free(m->unit_offset);
    free(m->unit_numel);
    free(m->unit_of);
    free(m->unit_params);
    free(m->unit_grads);
    if (m->ctx_dev != m->ctx) ops_free_bytes(m->ops, m->ctx_dev);
    if (m->targets_dev != m->targets) ops_free_bytes(m->ops, m->targets_dev);
    free(m->ctx);
    free(m->targets);
    free(m->losses_host);
    flat_layout_free(&m->layout);
    memset(m, 0, sizeof *m);
}

size_t model_num_params(const model_t *m) { return m->layout.numel; }

void model_zero_grad(model_t *m) { ops_fill(m->ops, m->grads, 0.0f, m->layout.numel); }

/* The GPT's forward: its targets are the window shifted by one (model.h), and the hooks and trace
 * a later lesson set on m go to the gpt_t that calls them. A batch of variable-length examples
 * (common/records.h: -1 is padding) is cut to its longest one, so that a batch of short examples
 * costs less; fixed windows are never cut. */
static float gpt_model_forward(model_t *m, const int32_t *ctx, const int32_t *targets, int B) {
    int T = m->cfg.context, Tn = m->pad_to_context ? T : 0;
    for (int b = 0; b < B && Tn < T; b++) {
        int len = T;
        while (len > 0 && ctx[(size_t)b * T + len - 1] < 0) len--;
        if (len > Tn) Tn = len;
    }
    if (Tn == 0) dp_fatal("forward on a batch of %d empty examples", B);
    for (int b = 0; b < B; b++) {
        const int32_t *x = ctx + (size_t)b * T;
        int32_t *tok = m->gpt_tokens + (size_t)b * Tn, *tg = m->gpt_targets + (size_t)b * Tn;
        for (int t = 0; t < Tn; t++) {
            tok[t] = x[t] < 0 ? 0 : x[t]; /* padding's token is never predicted from */
            tg[t] = t + 1 < T ? x[t + 1] : targets[b];
        }
    }
    m->gpt->unit_hooks = m->unit_hooks;
    m->gpt->trace = m->trace;
    m->batch = B;
    return m->loss_weight * gpt_forward(m->gpt, m->gpt_tokens, m->gpt_targets, B, Tn);
}

/* Where p lies in base[0 .. n) (an element index), or -1 when outside. */
static long long index_in(const int32_t *p, const int32_t *base, size_t n) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    return base && a >= b && a < b + n * sizeof(int32_t) ? (long long)((a - b) / sizeof(int32_t)) : -1;
}

/* model_forward is the entry a student's micro-batch loop (lesson 06) drives with slices of the
 * trainer's batch: a slice taken with the wrong stride must stop here with a line that names it, not
 * read past the batch into a crash or into other examples' targets. Buffers that are not the
 * trainer's batch (validation, sampling, a check's own) are not looked at. */
static void check_batch_slice(model_t *m, const int32_t *ctx, const int32_t *targets, int B) {
    if (!m->batch_ctx || !m->batch_targets) return;
    size_t T = (size_t)m->cfg.context, E = (size_t)m->batch_examples;
    long long ci = index_in(ctx, m->batch_ctx, E * T), ti = index_in(targets, m->batch_targets, E);
    if (ci < 0 && ti < 0) return;
    if (ci >= 0 && ci % (long long)T)
        dp_fatal("model_forward: the contexts start at token %lld of the batch's contexts, inside an example (T = %zu "
                 "tokens each): a micro-batch starting at example off takes t->ctx + off·T",
                 ci, T);
    if (ti < 0)
        dp_fatal("model_forward: the contexts are the batch's examples %lld..%lld, but the targets are not in the "
                 "batch's targets (t->targets, %zu entries, ONE per example): a micro-batch starting at example off "
                 "takes t->targets + off — not off·T",
                 ci / (long long)T, ci / (long long)T + B - 1, E);
    if (ci < 0)
        dp_fatal("model_forward: the targets are the batch's examples %lld..%lld, but the contexts are not in the "
                 "batch's contexts (t->ctx, %zu examples of T = %zu tokens): a micro-batch starting at example off "
                 "takes t->ctx + off·T",
                 ti, ti + B - 1, E, T);
    if (ci / (long long)T != ti)
        dp_fatal("model_forward: the contexts start at example %lld of the batch, the targets at example %lld: a "
                 "micro-batch starting at example off takes t->ctx + off·T and t->targets + off (T = %zu tokens per "
                 "context, one target per example)",
                 ci / (long long)T, ti, T);
    if (ti + B > (long long)E)
        dp_fatal("model_forward: examples %lld..%lld asked for, the batch holds %zu (0..%zu): the micro-batches must "
                 "tile the batch (chunk_range)",
                 ti, ti + B - 1, E, E - 1);
    for (int j = 0; j < B; j++) { /* FNV-1a of the example's tokens and target, then a 64-bit mix */
        uint64_t h = 1469598103934665603ull;
        for (size_t p = 0; p <= T; p++) {
            uint32_t v = (uint32_t)(p < T ? ctx[(size_t)j * T + p] : targets[j]);
            for (int q = 0; q < 4; q++) h = (h ^ ((v >> (8 * q)) & 0xff)) * 1099511628211ull;
        }
        h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33;
        m->batch_hash += h;
        m->batch_seen++;
    }
}

float model_forward(model_t *m, const int32_t *ctx, const int32_t *targets, int B) {
    const model_config_t *c = &m->cfg;
    if (B < 1 || B > m->max_batch) dp_fatal("forward on %d examples, the model was sized for 1..%d", B, m->max_batch);
    if (!ctx || !targets) dp_fatal("model_forward with %s NULL", !ctx ? "ctx" : "targets");
    check_batch_slice(m, ctx, targets, B);
    if (m->mp) mp_cast_params(m->mp);
    if (m->gpt) return gpt_model_forward(m, ctx, targets, B);
    double t0 = dp_now();
    m->batch = B;
    memcpy(m->ctx, ctx, (size_t)B * c->context * sizeof(int32_t));
    memcpy(m->targets, targets, (size_t)B * sizeof(int32_t));
    if (m->ctx_dev != m->ctx) {
        ops_upload(m->ops, m->ctx_dev, m->ctx, (size_t)B * c->context * sizeof(int32_t));
        ops_upload(m->ops, m->targets_dev, m->targets, (size_t)B * sizeof(int32_t));
    }
    HOOK(m, pre_forward, 0);
    ops_embedding_forward(m->ops, model_param(m, model_wte()), m->ctx_dev, B, c->context, c->embed, m->x0);
    HOOK(m, post_forward, 0);
    const float *x = m->x0;
    for (int l = 0; l < c->layers; l++) {
        HOOK(m, pre_forward, 1 + l);
        linear_forward(m->ops, x, model_param(m, model_weight(l)), model_param(m, model_bias(l)), B, layer_in(c, l),
                       c->hidden, m->h[l]);
        HOOK(m, post_forward, 1 + l);
        ops_tanh_forward(m->ops, m->h[l], m->h[l], (size_t)B * c->hidden);
        x = m->h[l];
    }
    int head = c->layers;
    HOOK(m, pre_forward, head + 1);
    linear_forward(m->ops, x, model_param(m, model_weight(head)), model_param(m, model_bias(head)), B, c->hidden,
                   c->vocab, m->logits);
    HOOK(m, post_forward, head + 1);
    float loss = xent_fwd(m, B);
    if (m->trace) { /* with the batch size: the grader counts micro-batches and their examples */
        char span[32];
        snprintf(span, sizeof span, "fwd b=%d", B);
        trace_span(m->trace, "compute", span, t0, dp_now());
    }
    return loss;
}

static void ready(grad_ready_fn hook, void *ctx, int index) {
    if (hook) hook(ctx, index);
}

void model_backward(model_t *m, float grad_scale, grad_ready_fn hook, void *hook_ctx) {
    const model_config_t *c = &m->cfg;
    int B = m->batch;
    if (B < 1)
        dp_fatal("model_backward called before any model_forward: backward uses the activations the forward of the "
                 "same batch saved; call model_forward first");
    if (m->gpt) grad_scale *= m->loss_weight;
    mp_ready_t mp_ready;
    if (m->mp) { /* every gradient goes through mp_grad_ready (rounded) before the caller's hook */
        grad_scale = mp_backward_begin(m, grad_scale, &mp_ready, hook, hook_ctx);
        hook = mp_grad_ready;
        hook_ctx = &mp_ready;
    }
    if (m->gpt) {
        m->gpt->unit_hooks = m->unit_hooks;
        m->gpt->trace = m->trace;
        gpt_backward(m->gpt, grad_scale, hook, hook_ctx);
        return;
    }
    double t0 = dp_now();
    char span[32];

    /* head */
    xent_bwd(m, B, grad_scale);
    int head = c->layers;
    float *dh = m->dh_a, *dprev = m->dh_b;
    HOOK(m, pre_backward, head + 1);
    linear_backward(m->ops, m->h[c->layers - 1], model_param(m, model_weight(head)), m->dlogits, B, c->hidden, c->vocab,
                    dh, model_grad(m, model_weight(head)), model_grad(m, model_bias(head)));
    trace_span(m->trace, "compute", "bwd head", t0, dp_now());
    ready(hook, hook_ctx, model_bias(head));
    ready(hook, hook_ctx, model_weight(head));
    HOOK(m, post_backward, head + 1);

    /* hidden layers, last to first: dh is ∂L/∂h[l] on entry */
    for (int l = c->layers - 1; l >= 0; l--) {
        t0 = dp_now();
        ops_tanh_backward(m->ops, m->h[l], dh, dh, (size_t)B * c->hidden); /* now ∂L/∂(pre-activation) */
        const float *x = l == 0 ? m->x0 : m->h[l - 1];
        HOOK(m, pre_backward, 1 + l);
        linear_backward(m->ops, x, model_param(m, model_weight(l)), dh, B, layer_in(c, l), c->hidden, dprev,
                        model_grad(m, model_weight(l)), model_grad(m, model_bias(l)));
        snprintf(span, sizeof span, "bwd h.%d", l);
        trace_span(m->trace, "compute", span, t0, dp_now());
        ready(hook, hook_ctx, model_bias(l));
        ready(hook, hook_ctx, model_weight(l));
        HOOK(m, post_backward, 1 + l);
        float *tmp = dh;
        dh = dprev;
        dprev = tmp;
    }

    /* embedding: dh now holds ∂L/∂x0 */
    t0 = dp_now();
    HOOK(m, pre_backward, 0);
    ops_embedding_backward(m->ops, dh, m->ctx_dev, B, c->context, c->embed, model_grad(m, model_wte()));
    trace_span(m->trace, "compute", "bwd wte", t0, dp_now());
    ready(hook, hook_ctx, model_wte());
    HOOK(m, post_backward, 0);
}
