/* mixed_precision.c — see mixed_precision.h. */
#define _POSIX_C_SOURCE 200809L
#include "mixed_precision.h"

#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

mp_dtype_t mp_dtype_of(const char *name) {
    return !strcmp(name, "bf16") ? MP_BF16 : !strcmp(name, "fp16") ? MP_FP16 : MP_NONE;
}

dtype_t mp_half_type(mp_dtype_t d) { return d == MP_FP16 ? DT_F16 : DT_BF16; }

void mp_init(mixed_precision_t *mp, mp_dtype_t dtype, model_t *m, mem_t *mem, int rank) {
    size_t n = model_num_params(m);
    mp->dtype = dtype;
    mp->n = n;
    mp->ops = m->ops;
    mp->master = m->params;
    mp->lowp = ops_alloc_bytes(m->ops, (n ? n : 1) * sizeof(uint16_t));
    mp->work = ops_alloc(m->ops, n ? n : 1);
    mp->rank = rank;
    mp->workspace_counted = 0;
    grad_scaler_init(&mp->scaler);
    const char *inject = getenv("DP_MP_INJECT_INF");
    mp->inject_step = inject ? strtoll(inject, NULL, 10) : 0;
    for (int u = 0; u < m->nunits; u++) m->unit_params[u] = mp->work + m->unit_offset[u];
    mp_cast_params(mp);

    /* The books: the float32 model's own categories, but its float32 params are the master and
     * its float32 grads half gradients (2 bytes of the 4 count as grads, 2 as emulation). */
    const mem_t *own = &mp->model_mem;
    for (int c = 0; c < MEM_NCATS; c++)
        if (c != MEM_PARAMS && c != MEM_GRADS) mem_add(mem, (mem_cat_t)c, own->cur[c]);
    mem_add(mem, MEM_MASTER, own->cur[MEM_PARAMS]);
    mem_add(mem, MEM_PARAMS, n * sizeof(uint16_t));
    mem_add(mem, MEM_GRADS, own->cur[MEM_GRADS] / 2);
    mem_add(mem, MEM_EMULATION, own->cur[MEM_GRADS] - own->cur[MEM_GRADS] / 2 + n * sizeof(float));
}

void mp_count_workspace(mixed_precision_t *mp, mem_t *mem) {
    if (!mp->ops) return;
    size_t now = ops_gemm_workspace_bytes(mp->ops);
    if (now > mp->workspace_counted) mem_add(mem, MEM_EMULATION, now - mp->workspace_counted);
    mp->workspace_counted = now > mp->workspace_counted ? now : mp->workspace_counted;
}

void mp_free(mixed_precision_t *mp) {
    if (mp->lowp) ops_free_bytes(mp->ops, mp->lowp);
    if (mp->work) ops_free(mp->ops, mp->work);
    mp->lowp = NULL;
    mp->work = NULL;
}

void mp_drop_params(mixed_precision_t *mp, mem_t *mem) {
    mem_sub(mem, MEM_PARAMS, mp->n * sizeof(uint16_t));
    mem_sub(mem, MEM_EMULATION, mp->n * sizeof(float));
    mp_free(mp);
    mp->n = 0; /* mp_cast_params: nothing left to cast */
    mp->master = NULL;
}

void mp_cast_params(mixed_precision_t *mp) {
    ops_round(mp->ops, mp_half_type(mp->dtype), mp->master, mp->lowp, mp->work, mp->n);
}

float mp_backward_begin(model_t *m, float grad_scale, mp_ready_t *w, grad_ready_fn hook, void *hook_ctx) {
    *w = (mp_ready_t){m, hook, hook_ctx};
    mixed_precision_t *mp = m->mp;
    if (mp->dtype != MP_FP16) return grad_scale;
    /* fp16 gradients are stored S times too large; ours are stored unscaled (mp_grad_ready), so a
     * backward that accumulates onto them (micro-batches) first scales them back: exact, S = 2^k */
    float S = (float)mp->scaler.scale;
    ops_scale(m->ops, m->grads, S, model_num_params(m));
    return grad_scale * S;
}

void mp_grad_ready(void *ctx, int i) {
    mp_ready_t *w = ctx;
    model_t *m = w->m;
    mixed_precision_t *mp = m->mp;
    float *g = model_grad(m, i);
    size_t n = m->layout.views[i].numel;
    ops_round(m->ops, mp_half_type(mp->dtype), g, NULL, g, n);
    if (mp->dtype == MP_FP16) {
        ops_scale(m->ops, g, (float)(1.0 / mp->scaler.scale), n); /* a power of two: g / S exactly */
        if (mp->inject_step == mp->step && mp->rank == 0 && !mp->injected && n > 0) {
            const float inf = INFINITY;
            ops_from_host(m->ops, g, &inf, 1);
            mp->injected = true;
        }
    }
    if (w->hook) w->hook(w->ctx, i);
}
