/* fsdp.c — FSDP's machinery around the sharding: taking the full model apart, the unit hooks that
 * gather and free around every layer, the prefetch worker, the step, and what the trainer's dumps
 * and checkpoints need (the full model on rank 0; a shard file per rank). */
#include "fsdp.h"

#include "gpt.h"
#include "ring.h"
#include "safetensors.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static size_t full_count(const fsdp_t *f, int u) { return (size_t)f->world_size * f->units[u].chunk; }

/* A host copy of n floats of the context's memory (a new array, also on the CPU: the caller frees it). */
static float *host_copy(const ops_t *ops, const float *src, size_t n) {
    float *h = dp_malloc((n ? n : 1) * sizeof(float));
    ops_to_host(ops, h, src, n);
    return h;
}

void fsdp_mem_add(fsdp_t *f, mem_cat_t c, size_t n) {
    size_t b = f->master ? 2 : 4;
    mem_add(&f->t->mem, c, n * b);
    if (b < 4) mem_add(&f->t->mem, MEM_EMULATION, n * (4 - b));
}

void fsdp_mem_sub(fsdp_t *f, mem_cat_t c, size_t n) {
    size_t b = f->master ? 2 : 4;
    mem_sub(&f->t->mem, c, n * b);
    if (b < 4) mem_sub(&f->t->mem, MEM_EMULATION, n * (4 - b));
}

void fsdp_round_params(const fsdp_t *f, float *dst, const float *src, size_t n) {
    if (!f->master) {
        if (dst != src) ops_copy(f->t->ops, src, dst, n);
        return;
    }
    ops_round(f->t->ops, DT_BF16, src, NULL, dst, n); /* where the shards live: host or device */
}

static float *alloc_gathered(fsdp_t *f, int u) {
    fsdp_mem_add(f, MEM_GATHERED, full_count(f, u));
    return ops_alloc(f->t->ops, full_count(f, u));
}

static void release(fsdp_t *f, int u, float **slot) {
    if (!*slot) return;
    ops_free(f->t->ops, *slot);
    fsdp_mem_sub(f, MEM_GATHERED, full_count(f, u));
    *slot = NULL;
}

/* ---- prefetch: a worker thread gathers the NEXT unit while this one computes ------------------ */

static void *worker_main(void *arg) {
    fsdp_t *f = arg;
    pthread_mutex_lock(&f->lock);
    for (;;) {
        while (f->want_unit < 0 && !f->stop) pthread_cond_wait(&f->cv, &f->lock);
        if (f->stop) break;
        int u = f->want_unit;
        float *buf = f->gathered[u];
        pthread_mutex_unlock(&f->lock);
        double t0 = dp_now();
        ops_wait_event(f->worker_coll.ops, f->asked);
        fsdp_gather(f, &f->worker_coll, u, buf);
        ops_event_record(f->worker_coll.ops, f->gathered_ev);
        char name[32];
        snprintf(name, sizeof name, "all_gather u%d", u);
        trace_span(f->t->trace, "comm", name, t0, dp_now());
        pthread_mutex_lock(&f->lock);
        f->want_unit = -1;
        f->done_unit = u;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

static void prefetch(fsdp_t *f, int u) {
    if (!f->prefetch || u < 0 || u >= f->nunits || f->gathered[u]) return;
    f->gathered[u] = alloc_gathered(f, u);
    ops_event_record(f->t->ops, f->asked); /* after the buffer's zeroing and the last optimizer step */
    pthread_mutex_lock(&f->lock);
    f->want_unit = u;
    f->done_unit = -1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->lock);
}

/* Make unit u's parameters present: wait for its prefetch, or gather it here. */
static void ensure_gathered(fsdp_t *f, int u) {
    if (f->prefetch) {
        double t0 = dp_now();
        pthread_mutex_lock(&f->lock);
        bool pending = f->want_unit == u || f->done_unit == u;
        while (f->want_unit == u) pthread_cond_wait(&f->cv, &f->lock);
        if (f->done_unit == u) f->done_unit = -1;
        pthread_mutex_unlock(&f->lock);
        trainer_add_wait(f->t, dp_now() - t0); /* blocked on the prefetch thread's all-gather */
        if (pending) {
            ops_wait_event(f->t->ops, f->gathered_ev); /* compute waits for the worker's stream */
            return;
        }
    }
    if (!f->gathered[u]) f->gathered[u] = alloc_gathered(f, u);
    double t0 = dp_now();
    fsdp_gather(f, &f->coll, u, f->gathered[u]);
    char name[32];
    snprintf(name, sizeof name, "all_gather u%d", u);
    trace_span(f->t->trace, "comm", name, t0, dp_now());
}

/* ---- the unit hooks ----------------------------------------------------------------------------- */

/* The kept unit (f->keep_unit, the GPT's unit 0 with the head tied to wte) is gathered once, at its
 * first use in forward, and stays until its post_backward: its second use in forward (the head) and
 * its first in backward (the head again) find it there. Gathering it again for each use would cost
 * two more all-gathers of it per step for no memory: its full gradient has to stay live through the
 * whole backward anyway (the head's share comes first, the embedding's last, and one reduce-scatter
 * takes both), and with it the parameters that backward reads at both ends. */
static bool kept(const fsdp_t *f, int u) { return u == f->keep_unit && f->gathered[u]; }

static void pre_forward(void *ctx, int u) {
    fsdp_t *f = ctx;
    /* already here: its second use (the unit after its first was prefetched then), or an evaluation's
     * next forward (no optimizer step since it was gathered) */
    if (kept(f, u)) return;
    ensure_gathered(f, u);
    f->t->model.unit_params[u] = f->gathered[u];
    prefetch(f, u + 1);
}

static void post_forward(void *ctx, int u) {
    fsdp_t *f = ctx;
    if (u == f->keep_unit) return;
    f->t->model.unit_params[u] = NULL;
    release(f, u, &f->gathered[u]); /* reshard after forward: gathered again for backward */
}

static void pre_backward(void *ctx, int u) {
    fsdp_t *f = ctx;
    if (!kept(f, u)) ensure_gathered(f, u);
    f->t->model.unit_params[u] = f->gathered[u];
    f->full_grads[u] = alloc_gathered(f, u); /* zeroed: the padding's gradient stays 0 */
    f->t->model.unit_grads[u] = f->full_grads[u];
    /* backward runs the units last to first — except that the kept unit opens it (the tied head)
     * before the last unit: that one comes next */
    prefetch(f, u == f->keep_unit ? f->nunits - 1 : u - 1);
}

static void post_backward(void *ctx, int u) {
    fsdp_t *f = ctx;
    double t0 = dp_now();
    fsdp_reduce_grads(f, u, f->full_grads[u]); /* the kept unit: once, with both uses' shares */
    char name[32];
    snprintf(name, sizeof name, "reduce_scatter u%d", u);
    trace_span(f->t->trace, "comm", name, t0, dp_now());
    f->t->model.unit_params[u] = NULL;
    f->t->model.unit_grads[u] = NULL;
    release(f, u, &f->full_grads[u]);
    release(f, u, &f->gathered[u]);
}

/* ---- where a rank's shards live (FSDP and every ZeRO stage) -------------------------------------- */

/* The shard helpers are what the student's fsdp_clip and zero_step call, with unit indices from their
 * own loops: a unit that does not exist, or a buffer this stage has not got, stops here in one line
 * rather than as a pointer past the arrays that crashes in the optimizer or the ring. */
static void check_unit(const fsdp_t *f, const char *fn, int u) {
    if (u < 0 || u >= f->nunits)
        dp_fatal("%s: unit %d does not exist: the units are 0..%d (a loop to u <= nunits?)", fn, u, f->nunits - 1);
}

float *fsdp_grad_shard(const fsdp_t *f, int u) {
    check_unit(f, "fsdp_grad_shard", u);
    if (f->zero_stage == 1 && !f->full_grads[u])
        dp_fatal("fsdp_grad_shard: unit %d's full gradient is gone (freed, or never kept): ZeRO stage 1 keeps it "
                 "through the step",
                 u);
    if (f->zero_stage == 1) return f->full_grads[u] + (size_t)f->rank * f->units[u].chunk;
    return f->shard_grads + f->units[u].shard_offset;
}

float *fsdp_param_shard(const fsdp_t *f, int u) {
    check_unit(f, "fsdp_param_shard", u);
    if ((f->zero_stage == 1 || f->zero_stage == 2) && !f->gathered[u])
        dp_fatal("fsdp_param_shard: unit %d's full parameters are gone (freed?): ZeRO stages 1 and 2 keep every "
                 "unit's f->gathered[u] for good",
                 u);
    if (f->zero_stage == 1 || f->zero_stage == 2) return f->gathered[u] + (size_t)f->rank * f->units[u].chunk;
    return f->shard_params + f->units[u].shard_offset;
}

/* ---- what the trainer needs: the full model on rank 0, shard checkpoints ------------------------ */

/* Assemble the parameters or the gradients in full on rank 0 from every rank's shards (chunk(f, u):
 * fsdp_param_shard or fsdp_grad_shard, which know where each stage keeps them), unit by unit. */
static void assemble(trainer_t *t, float *(*chunk)(const fsdp_t *, int), float *out) {
    fsdp_t *f = t->ext;
    /* --hybrid: rank 0's node holds every shard; the other nodes' are copies of them */
    if (f->shard_infra && f->shard_group != 0) return;
    coll_t coll;
    coll_init(&coll, f->shard_infra ? f->shard_infra : t->infra, t->ops);
    for (int u = 0; u < f->nunits; u++) {
        size_t c = f->units[u].chunk, n = full_count(f, u);
        float *tmp = ops_alloc(t->ops, n);
        ops_copy(t->ops, chunk(f, u), tmp + (size_t)f->rank * c, c);
        all_gather(&coll, tmp, n);
        if (t->rank == 0) ops_to_host(t->ops, out + t->model.unit_offset[u], tmp, f->units[u].numel);
        ops_free(t->ops, tmp);
    }
    coll_free(&coll);
}

/* What the optimizer steps: the float32 master's shard in bf16, else the parameters' own. */
static float *master_shard(const fsdp_t *f, int u) {
    return f->master ? f->master + f->units[u].shard_offset : fsdp_param_shard(f, u);
}

/* dumps and checkpoints hold the master, as lesson 01's in mixed precision */
static void full_params(trainer_t *t, float *out) { assemble(t, master_shard, out); }
static void full_grads(trainer_t *t, float *out) { assemble(t, fsdp_grad_shard, out); }

/* This rank's parameter shards, every unit's chunk end to end as in shard_params, on the host (a new
 * array: the caller frees it). */
static float *host_param_shards(const fsdp_t *f) {
    float *h = dp_malloc((f->shard_numel ? f->shard_numel : 1) * sizeof(float));
    for (int u = 0; u < f->nunits; u++)
        ops_to_host(f->t->ops, h + f->units[u].shard_offset, master_shard(f, u), f->units[u].chunk);
    return h;
}

/* The run's identity in its shard files, so that fsdp_consolidate can tell shards of two runs (same
 * step, same path) apart: drawn on rank 0 from the seed, the clock and its pid at the first save and
 * broadcast on the bookkeeping communicator (only runs that save pay that one message). */
static uint64_t run_id(trainer_t *t) {
    fsdp_t *f = t->ext;
    if (!f->run_id) {
        uint64_t id = 0;
        if (t->rank == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            id = t->cfg.seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                 (uint64_t)getpid() << 40;
            id = id ? id : 1;
        }
        comm_lib_broadcast(t->infra, &id, 1, DT_U64, 0);
        f->run_id = id;
    }
    return f->run_id;
}

/* Each rank writes its own file: PATH.rank<r>-of-<N>.safetensors with, per unit, its shard of the
 * parameters and of AdamW's m and v; fsdp_consolidate turns the N files into one lesson-01 checkpoint.
 * --hybrid K: the K ranks of node 0 only, as rank r of K (the other nodes hold the same shards: the
 * replicas' all-reduce gives them the same bits), so the files are those of FSDP on K ranks. */
static void save_shards(trainer_t *t, const char *path) {
    fsdp_t *f = t->ext;
    uint64_t id = run_id(t);
    if (f->shard_group != 0) return;
    char file[4096], name[64], val[256], err[512];
    snprintf(file, sizeof file, "%s.rank%d-of-%d.safetensors", path, f->rank, f->world_size);
    st_writer_t *w = st_writer_new();
    float *p = host_param_shards(f), *m = host_copy(t->ops, t->optim.m, f->shard_numel);
    float *v = t->optim.v ? host_copy(t->ops, t->optim.v, f->shard_numel) : NULL;
    for (int u = 0; u < f->nunits; u++) {
        size_t c = f->units[u].chunk, off = f->units[u].shard_offset;
        snprintf(name, sizeof name, "unit%d.param", u);
        st_writer_add(w, name, DT_F32, 1, &c, p + off);
        snprintf(name, sizeof name, "unit%d.m", u);
        st_writer_add(w, name, DT_F32, 1, &c, m + off);
        if (v) {
            snprintf(name, sizeof name, "unit%d.v", u);
            st_writer_add(w, name, DT_F32, 1, &c, v + off);
        }
    }
    model_config_string(&t->model.cfg, val, sizeof val); /* as a lesson-01 checkpoint says it */
    st_writer_meta(w, "model", val);
    st_writer_meta(w, "format", "dpc-fsdp-shard-1");
    st_writer_meta(w, "optimizer", t->optim.kind == OPTIM_ADAMW ? "adamw" : "sgd");
    snprintf(val, sizeof val, "%d", f->rank);
    st_writer_meta(w, "rank", val);
    snprintf(val, sizeof val, "%d", f->world_size);
    st_writer_meta(w, "world_size", val);
    snprintf(val, sizeof val, "%" PRId64, t->step);
    st_writer_meta(w, "step", val);
    snprintf(val, sizeof val, "%" PRId64, t->optim.t);
    st_writer_meta(w, "optim_t", val);
    snprintf(val, sizeof val, "%" PRIu64, t->cfg.seed);
    st_writer_meta(w, "seed", val);
    snprintf(val, sizeof val, "%zu", t->order.batch);
    st_writer_meta(w, "global_batch", val);
    snprintf(val, sizeof val, "%016" PRIx64, id);
    st_writer_meta(w, "run_id", val);
    /* the data order's place, which fsdp_consolidate passes on (a restart on another N continues there) */
    int replicas;
    int64_t epoch, consumed;
    checkpoint_data_position(t, &replicas, &epoch, &consumed);
    snprintf(val, sizeof val, "%d", replicas);
    st_writer_meta(w, "data_replicas", val);
    snprintf(val, sizeof val, "%" PRId64, epoch);
    st_writer_meta(w, "epoch", val);
    snprintf(val, sizeof val, "%" PRId64, consumed);
    st_writer_meta(w, "consumed", val);
    dp_mkdir_for(file);
    if (st_writer_save(w, file, err, sizeof err) != 0) dp_fatal("%s", err);
    st_writer_free(w);
    free(p);
    free(m);
    free(v);
    if (t->rank == 0)
        logger_line(&t->log,
                    "fsdp: wrote %d shard files %s.rank*-of-%d.safetensors (consolidate with fsdp_consolidate)",
                    f->world_size, path, f->world_size);
}

/* ---- construction --------------------------------------------------------------------------------- */

/* Keep this rank's chunk of every unit of a full array (zero padding). `full` is in the context's
 * memory (host or GPU), and so is `shard` (already zeroed). */
static void take_shards(const fsdp_t *f, const model_t *m, const float *full, float *shard) {
    for (int u = 0; u < f->nunits; u++) {
        const fsdp_unit_t *x = &f->units[u];
        size_t start = (size_t)f->rank * x->chunk;
        size_t real = start >= x->numel ? 0 : (x->numel - start < x->chunk ? x->numel - start : x->chunk);
        if (real) ops_copy(f->t->ops, full + m->unit_offset[u] + start, shard + x->shard_offset, real);
    }
}

/* Everything below sizes its buffers from the layout: one that cannot hold the model stops here, in
 * one line, rather than as a buffer overflow later (grading/checks/check08.c says what is wrong). */
static void check_layout(const fsdp_t *f, const model_t *m) {
    size_t off = 0;
    if (f->nunits != m->nunits || !f->units)
        dp_fatal("fsdp_shard_layout: %d units, the model has %d: unfinished?", f->nunits, m->nunits);
    for (int u = 0; u < f->nunits; u++) {
        const fsdp_unit_t *x = &f->units[u];
        if (x->numel != m->unit_numel[u] || x->chunk * (size_t)f->world_size < x->numel || x->shard_offset != off)
            dp_fatal("fsdp_shard_layout: unit %d has numel %zu, chunk %zu, shard_offset %zu: it cannot hold the "
                     "model's %zu parameters on %d ranks (unfinished? grading/grade 08 says more)",
                     u, x->numel, x->chunk, x->shard_offset, m->unit_numel[u], f->world_size);
        off += x->chunk;
    }
    if (f->shard_numel != off)
        dp_fatal("fsdp_shard_layout: shard_numel %zu, the chunks add up to %zu", f->shard_numel, off);
}

void fsdp_init(fsdp_t *f, trainer_t *t, bool prefetch_on, int zero_stage, int hybrid) {
    memset(f, 0, sizeof *f);
    f->t = t;
    f->zero_stage = zero_stage;
    if (zero_stage < 1 || zero_stage > 3) dp_fatal("--zero-stage %d: the stages are 1, 2 and 3", zero_stage);
    if (prefetch_on && zero_stage < 3)
        dp_fatal("--prefetch gathers parameters before their unit computes: only stage 3 shards them (--zero-stage 3)");
    f->world_size = t->world_size;
    f->rank = t->rank;
    hsdp_setup(f, t, hybrid, zero_stage); /* --hybrid K: the node's K ranks instead */
    f->prefetch = prefetch_on;
    model_t *m = &t->model;
    /* The GPT's LM head is tied to wte (gpt.h): unit 0 is used at both ends of forward and opens
     * backward, so it is the kept unit (see the hooks). The MLP uses every unit once each way. */
    f->keep_unit = m->gpt ? 0 : -1;
    if (t->mp && t->mp->dtype != MP_BF16)
        dp_fatal("--mixed-precision fp16: train_fsdp takes bf16 only (its loss scaling is not sharded)");
    t->mixed_precision_ok = true; /* bf16: the master is sharded with the optimizer state (fsdp.h) */
    if (t->cfg.sample)
        dp_fatal(
            "--sample needs the whole model on one rank: consolidate the checkpoint and sample with train --resume");
    fsdp_shard_layout(f, m);
    check_layout(f, m);
    size_t S = f->shard_numel, P = model_num_params(m);

    /* The trainer built the full model (every rank the same, from --seed or --resume): keep 1/N. */
    f->gathered = dp_calloc((size_t)f->nunits, sizeof(float *));
    f->full_grads = dp_calloc((size_t)f->nunits, sizeof(float *));
    if (t->mp) {
        f->master = ops_alloc(t->ops, S ? S : 1);
        take_shards(f, m, m->params, f->master);
    }
    if (zero_stage == 3) {
        f->shard_params = ops_alloc(t->ops, S ? S : 1);
        f->shard_grads = ops_alloc(t->ops, S ? S : 1);
        take_shards(f, m, m->params, f->shard_params);
        fsdp_round_params(f, f->shard_params, f->shard_params, S);
    }
    optim_t shard_optim;
    optim_init_on(&shard_optim, t->optim.kind, S, t->ops);
    shard_optim.adamw = t->optim.adamw;
    shard_optim.sgd = t->optim.sgd;
    shard_optim.t = t->optim.t;
    take_shards(f, m, t->optim.m, shard_optim.m);
    if (t->optim.v) take_shards(f, m, t->optim.v, shard_optim.v);

    /* stages 1 and 2 keep the parameters (stage 1 the gradients too) in full, unit by unit (zero.c) */
    if (zero_stage < 3) zero_setup(f, m);
    /* Free the flat copies: from here on a rank holds shards (and stages 1-2 their units in full). */
    int nstates = t->optim.v ? 2 : 1;
    if (t->mp) { /* lesson 01's books: a float32 master, bf16 copies (mixed_precision.h) */
        mem_sub(&t->mem, MEM_MASTER, P * sizeof(float));
        fsdp_mem_sub(f, MEM_GRADS, P);
        mp_drop_params(t->mp, &t->mem);
        mem_add(&t->mem, MEM_MASTER, S * sizeof(float));
    } else {
        mem_sub(&t->mem, MEM_PARAMS, P * sizeof(float));
        mem_sub(&t->mem, MEM_GRADS, P * sizeof(float));
    }
    mem_sub(&t->mem, MEM_OPTIM, (size_t)nstates * P * sizeof(float));
    ops_free(t->ops, m->params);
    ops_free(t->ops, m->grads);
    m->params = m->grads = NULL;
    if (m->gpt) m->gpt->params = m->gpt->grads = NULL; /* model_t shares them with its gpt_t (model.h) */
    optim_free(&t->optim);
    t->optim = shard_optim;
    if (zero_stage == 3) {
        fsdp_mem_add(f, MEM_PARAMS, S);
        fsdp_mem_add(f, MEM_GRADS, S);
    }
    mem_add(&t->mem, MEM_OPTIM, (size_t)nstates * S * sizeof(float));
    /* peaks so far were the unsharded model: restart them at the sharded state */
    for (int c = 0; c < MEM_NCATS; c++) t->mem.peak[c] = t->mem.cur[c];
    t->mem.peak_model = t->mem.cur_model;
    t->mem.peak_total = t->mem.cur_total;

    if (zero_stage == 3) {
        for (int u = 0; u < f->nunits; u++) m->unit_params[u] = m->unit_grads[u] = NULL;
        m->unit_hooks = (model_unit_hooks_t){f, pre_forward, post_forward, pre_backward, post_backward};
    }
    /* the ranks that shard the model: every rank, or --hybrid's node */
    comm_t *shard_comm = f->shard_comm ? f->shard_comm : t->comm;
    coll_init(&f->coll, shard_comm, t->ops);
    /* a host context only when t->ops is a GPU's (a second CPU context would reset BLAS's threads) */
    f->host_ops = t->ops->backend == OPS_CPU ? NULL : ops_create(OPS_CPU, t->ops->threads);
    coll_init(&f->host_coll, shard_comm, f->host_ops ? f->host_ops : t->ops);
    if (f->prefetch) {
        pthread_mutex_init(&f->lock, NULL);
        pthread_cond_init(&f->cv, NULL);
        f->want_unit = f->done_unit = -1;
        f->worker_comm = comm_dup(shard_comm, "fsdp-prefetch", true);
        comm_set_wait(f->worker_comm, COMM_WAIT_NAP);
        f->worker_ops = t->ops->backend == OPS_CUDA ? ops_create(OPS_CUDA, 1) : NULL; /* its own stream */
        f->asked = ops_event_create(t->ops);
        f->gathered_ev = ops_event_create(t->ops);
        coll_init(&f->worker_coll, f->worker_comm, f->worker_ops ? f->worker_ops : t->ops);
        if (pthread_create(&f->worker, NULL, worker_main, f) != 0) dp_fatal("cannot start the prefetch thread");
        f->worker_started = true;
    }
    t->ext = f;
    t->full_params = full_params;
    t->full_grads = full_grads;
    t->save = save_shards;
    if (t->rank == 0)
        logger_line(&t->log,
                    "fsdp: ZeRO stage %d, %d units sharded over %d ranks: %zu of %zu parameters per rank (padding "
                    "included), prefetch %s",
                    zero_stage, f->nunits, f->world_size, S, P, f->prefetch ? "on" : "off");
    if (t->rank == 0 && f->replica_comm)
        logger_line(&t->log,
                    "fsdp: --hybrid %d: sharded inside each of %d nodes of %d ranks, replicated across them (the "
                    "gradient shard averaged over %d replicas after backward)",
                    f->world_size, f->replicas, f->world_size, f->replicas);
}

void fsdp_free(fsdp_t *f) {
    if (f->worker_started) {
        pthread_mutex_lock(&f->lock);
        f->stop = true;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->lock);
        pthread_join(f->worker, NULL);
        coll_free(&f->worker_coll);
        comm_free(f->worker_comm);
        ops_event_destroy(f->asked);
        ops_event_destroy(f->gathered_ev);
        if (f->worker_ops) ops_destroy(f->worker_ops);
    }
    coll_free(&f->coll);
    coll_free(&f->host_coll);
    hsdp_free(f);
    if (f->host_ops) ops_destroy(f->host_ops);
    if (f->zero_stage < 3) zero_free(f);
    for (int u = 0; u < f->nunits; u++) {
        release(f, u, &f->gathered[u]);
        release(f, u, &f->full_grads[u]);
    }
    free(f->gathered);
    free(f->full_grads);
    if (f->shard_params) ops_free(f->t->ops, f->shard_params);
    if (f->shard_grads) ops_free(f->t->ops, f->shard_grads);
    if (f->master) ops_free(f->t->ops, f->master);
    free(f->units);
}

/* ---- the step ------------------------------------------------------------------------------------- */

/* Stage 3's sharded part: the gradient shards are reduced already (the hooks did it in backward). */
static void clip_and_step(fsdp_t *f, double lr) {
    trainer_t *t = f->t;
    hsdp_reduce_replicas(f); /* --hybrid: the node's average → the global one, before the norm needs it */
    fsdp_clip(f, t->cfg.clip);
    /* AdamW on this rank's shard only (bf16: on the float32 master's, rounded into the parameters) */
    optim_step(&t->optim, f->master ? f->master : f->shard_params, f->shard_grads, lr);
    if (f->master) fsdp_round_params(f, f->shard_params, f->master, f->shard_numel);
}

float fsdp_train_step(trainer_t *t, double lr) {
    fsdp_t *f = t->ext;
    if (f->zero_stage < 3) return zero_train_step(t, lr);
    model_t *m = &t->model;
    /* an evaluation's forward (no backward) leaves the kept unit gathered; this step's must gather
     * it anew, after the last optimizer step */
    if (f->keep_unit >= 0) {
        m->unit_params[f->keep_unit] = NULL;
        release(f, f->keep_unit, &f->gathered[f->keep_unit]);
    }
    ops_fill(t->ops, f->shard_grads, 0.0f, f->shard_numel);
    return fsdp_run_step(t, clip_and_step, "clip + optimizer", lr);
}

float fsdp_run_step(trainer_t *t, fsdp_sharded_fn sharded, const char *label, double lr) {
    model_t *m = &t->model;
    double t0 = dp_now();
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    double t1 = dp_now();
    model_backward(m, 1.0f, NULL, NULL);
    double t2 = dp_now();
    sharded(t->ext, lr);
    double t3 = dp_now();
    trace_span(t->trace, "compute", "forward", t0, t1);
    trace_span(t->trace, "compute", "backward", t1, t2);
    trace_span(t->trace, "compute", label, t2, t3);
    return trainer_global_mean(t, loss);
}
