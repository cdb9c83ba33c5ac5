/* zero.c — ZeRO stages 1 and 2 (--zero-stage 1|2): the machinery around zero_step.
 *
 * FSDP's layout (fsdp_shard_layout: unit u padded to N·c, rank r owns chunk r) with less sharded:
 *
 *   stage 1   parameters: every unit in full, for good (gathered[u])      4P
 *             gradients:  every unit in full, for good (full_grads[u])    4P
 *             AdamW m, v: this rank's chunks only                         8P/N
 *   stage 2   parameters: as stage 1                                      4P
 *             gradients:  the shard only (shard_grads); a unit's full     4P/N  (+ 4·n of the unit
 *                         gradient lives from its pre_backward to its            whose backward runs)
 *                         post_backward, which reduce-scatters it
 *             AdamW m, v: as stage 1                                      8P/N
 *
 * Forward and backward then run as DDP's do, on parameters that are all there. What replaces the
 * all-reduce is zero_step's reduce-scatter (stage 1; stage 2's happened during backward) and, after
 * the optimizer, an all-gather of the updated chunks: together the same bytes as a ring all-reduce. */
#include "fsdp.h"

#include "ring.h"
#include "util.h"

#include <stdio.h>

static size_t full_count(const fsdp_t *f, int u) { return (size_t)f->world_size * f->units[u].chunk; }

/* Whether the c floats at p lie inside the n floats at base (addresses compared: p may come from
 * anywhere); *at: where p starts, in floats from base. */
static bool inside(const float *p, const float *base, size_t n, size_t c, ptrdiff_t *at) {
    intptr_t d = (intptr_t)(uintptr_t)p - (intptr_t)(uintptr_t)base;
    *at = d / (intptr_t)sizeof(float);
    return base && d >= 0 && (size_t)*at <= n && c <= n - (size_t)*at;
}

void zero_optim_unit(fsdp_t *f, int u, float *params, const float *grads, double lr) {
    /* called from the student's zero_step: a unit that does not exist would index the optimizer state
     * past its end, a NULL shard would crash inside AdamW */
    if (u < 0 || u >= f->nunits)
        dp_fatal("zero_optim_unit: unit %d does not exist: the units are 0..%d (a loop to u <= nunits?)", u,
                 f->nunits - 1);
    if (!params || !grads)
        dp_fatal("zero_optim_unit: unit %d's %s shard is NULL: pass fsdp_param_shard(f, u) and fsdp_grad_shard(f, u)",
                 u, !params ? "parameter" : "gradient");
    /* the step writes c floats at params and reads c at grads: chunks that run out of the unit's
     * buffers would be written past their ends (which chunk inside them is right is the grader's) */
    size_t c = f->units[u].chunk, full = (size_t)f->world_size * c;
    ptrdiff_t at;
    if (!inside(params, f->gathered[u], full, c, &at))
        dp_fatal("zero_optim_unit: unit %d's parameters at gathered[u] %+td floats: its %zu floats run outside the "
                 "unit's N·c = %zu: step this rank's chunk, fsdp_param_shard(f, u) (gathered[u] + r·c)",
                 u, at, c, full);
    const float *gbase = f->zero_stage == 1 ? f->full_grads[u] : f->shard_grads;
    size_t gn = f->zero_stage == 1 ? full : f->shard_numel;
    if (!inside(grads, gbase, gn, c, &at))
        dp_fatal("zero_optim_unit: unit %d's gradients at %s %+td floats: its %zu floats run outside the %zu there: "
                 "pass fsdp_grad_shard(f, u)",
                 u, f->zero_stage == 1 ? "full_grads[u]" : "shard_grads", at, c, gn);
    /* a view of the rank's optimizer state at unit u: its own copy of the step counter, so that every
     * unit takes step t + 1 and the trainer's counter moves once per step */
    optim_t view = f->t->optim;
    size_t off = f->units[u].shard_offset;
    view.n = f->units[u].chunk;
    view.m = view.m ? view.m + off : NULL;
    view.v = view.v ? view.v + off : NULL;
    /* bf16: the step is the float32 master's; the parameters get it rounded */
    optim_step(&view, f->master ? f->master + off : params, grads, lr);
    if (f->master) fsdp_round_params(f, params, f->master + off, view.n);
}

/* ---- stage 2's hooks: a unit's full gradient lives only through its backward ------------------- */

static void pre_backward(void *ctx, int u) {
    fsdp_t *f = ctx;
    fsdp_mem_add(f, MEM_GATHERED, full_count(f, u));
    f->full_grads[u] = ops_alloc(f->t->ops, full_count(f, u)); /* zeroed: the padding's gradient stays 0 */
    f->t->model.unit_grads[u] = f->full_grads[u];
}

static void post_backward(void *ctx, int u) {
    fsdp_t *f = ctx;
    double t0 = dp_now();
    fsdp_reduce_grads(f, u, f->full_grads[u]); /* stage 3's: averaged, added into the gradient shard */
    char name[32];
    snprintf(name, sizeof name, "reduce_scatter u%d", u);
    trace_span(f->t->trace, "comm", name, t0, dp_now());
    f->t->model.unit_grads[u] = NULL;
    ops_free(f->t->ops, f->full_grads[u]);
    f->full_grads[u] = NULL;
    fsdp_mem_sub(f, MEM_GATHERED, full_count(f, u));
}

/* ---- setup, step, teardown ----------------------------------------------------------------------- */

void zero_setup(fsdp_t *f, model_t *m) {
    const ops_t *ops = f->t->ops;
    size_t padded = 0;
    for (int u = 0; u < f->nunits; u++) {
        padded += full_count(f, u);
        f->gathered[u] = ops_alloc(ops, full_count(f, u)); /* zeroed: padding 0 */
        ops_copy(ops, m->params + m->unit_offset[u], f->gathered[u], f->units[u].numel);
        fsdp_round_params(f, f->gathered[u], f->gathered[u], f->units[u].numel); /* bf16: from the master */
        m->unit_params[u] = f->gathered[u];
        if (f->zero_stage == 1) {
            f->full_grads[u] = ops_alloc(ops, full_count(f, u));
            m->unit_grads[u] = f->full_grads[u];
        }
    }
    fsdp_mem_add(f, MEM_PARAMS, padded);
    if (f->zero_stage == 1) {
        fsdp_mem_add(f, MEM_GRADS, padded);
    } else {
        f->shard_grads = ops_alloc(ops, f->shard_numel ? f->shard_numel : 1);
        fsdp_mem_add(f, MEM_GRADS, f->shard_numel);
        m->unit_hooks = (model_unit_hooks_t){f, NULL, NULL, pre_backward, post_backward};
    }
}

void zero_free(fsdp_t *f) {
    size_t padded = 0;
    for (int u = 0; u < f->nunits; u++) {
        padded += full_count(f, u);
        if (f->gathered[u]) ops_free(f->t->ops, f->gathered[u]);
        if (f->full_grads[u]) ops_free(f->t->ops, f->full_grads[u]);
        f->gathered[u] = f->full_grads[u] = NULL;
    }
    fsdp_mem_sub(f, MEM_PARAMS, padded);
    fsdp_mem_sub(f, MEM_GRADS, f->zero_stage == 1 ? padded : f->shard_numel);
}

static void zero_sharded(fsdp_t *f, double lr) {
    zero_step(f, f->t->cfg.clip, lr);
    f->t->optim.t++; /* every unit took step t + 1 on a view of the state (zero_optim_unit) */
}

float zero_train_step(trainer_t *t, double lr) {
    fsdp_t *f = t->ext;
    if (f->zero_stage == 1)
        for (int u = 0; u < f->nunits; u++) ops_fill(t->ops, f->full_grads[u], 0.0f, full_count(f, u));
    else
        ops_fill(t->ops, f->shard_grads, 0.0f, f->shard_numel);
    return fsdp_run_step(t, zero_sharded, "reduce-scatter + clip + optimizer + all-gather", lr);
}
