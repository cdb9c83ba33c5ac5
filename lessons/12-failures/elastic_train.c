/* elastic_train.c — the elastic trainer's given half (elastic_train.h). The fetch walks the run's
 * order like a DataLoader that was stopped and restarted: from the sampler's restored epoch and the
 * rank's resume position, B positions a step, into the next epoch when one is used up; it never
 * recomputes the place from the step number, so a resume position or an epoch that is wrong shows in
 * the examples trained on. The step is lesson 06's accumulation under lesson 05's no_sync, with the
 * plan's sizes and weights instead of k equal shares. */
#include "elastic_train.h"

#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* G_e: the padded list of epoch e over R0 replicas, replica q's entries at q, q + R0, ... — drawn
 * from lesson 07's sampler, one replica at a time. */
static void draw_epoch(trainer_t *t, elastic_t *e, int64_t epoch) {
    const sampler_t *base = &e->sampler;
    for (int q = 0; q < e->data_replicas; q++) {
        sampler_t s;
        if (sampler_init(&s, base->dataset_len, e->data_replicas, q, base->shuffle, base->seed, base->drop_last) != 0)
            dp_fatal("sampler_init refused replica %d of %d", q, e->data_replicas);
        if (s.total_size != base->total_size)
            dp_fatal("sampler_init: total_size %zu for replica %d but %zu for replica 0", s.total_size, q,
                     base->total_size);
        sampler_set_epoch(&s, epoch);
        size_t n = sampler_indices(&s, e->scratch);
        if (n != s.num_samples) dp_fatal("sampler_indices returned %zu, num_samples is %zu", n, s.num_samples);
        for (size_t j = 0; j < n; j++) {
            if (e->scratch[j] >= e->len)
                dp_fatal("sampler_indices gave index %u (epoch %lld, replica %d), but the dataset has %zu examples",
                         e->scratch[j], (long long)epoch, q, e->len);
            e->list[(size_t)q + j * (size_t)e->data_replicas] = e->scratch[j];
        }
    }
    e->list_epoch = epoch;
    (void)t;
}

static void fetch(trainer_t *t, int64_t step, int32_t *ctx, int32_t *targets) {
    elastic_t *e = t->fetch_ctx;
    int64_t B = e->global_batch, SB = e->steps_per_epoch * B, b = e->plan.local_batch;
    int64_t a = e->start.position + (step - e->start.step) * B; /* in the restored epoch's coordinates */
    int64_t epoch = e->sampler.epoch + a / SB, pos = a % SB;
    if (pos + b > SB)
        dp_fatal("step %lld: rank %d's slice [%lld, %lld) runs past its epoch's %lld positions: the resume position "
                 "(%lld) must be consumed + the plan's offset",
                 (long long)step + 1, t->rank, (long long)pos, (long long)(pos + b), (long long)SB,
                 (long long)e->start.position);
    if (epoch != e->list_epoch) draw_epoch(t, e, epoch);
    for (int64_t i = 0; i < b; i++)
        trainer_example(t, &t->train, e->list[pos + i], ctx + (size_t)i * (size_t)t->cfg.context, &targets[i]);
}

/* The ranks' slices must tile the step's B positions: gather (offset, size) from every rank. */
static void check_tiling(trainer_t *t, const elastic_t *e) {
    int N = t->world_size;
    double *mine = dp_calloc(2 * (size_t)N, sizeof(double)), *all = dp_calloc(2 * (size_t)N, sizeof(double));
    mine[2 * t->rank] = (double)e->plan.offset;
    mine[2 * t->rank + 1] = (double)e->plan.local_batch;
    comm_lib_allreduce(t->infra, mine, all, 2 * (size_t)N, DT_F64, REDOP_SUM);
    int64_t next = 0;
    for (int r = 0; r < N; r++) {
        int64_t off = (int64_t)all[2 * r], len = (int64_t)all[2 * r + 1];
        if (off != next)
            dp_fatal("elastic_plan: rank %d's slice starts at %lld but rank %d's ends at %lld: the slices %s; each "
                     "rank takes chunk_range(B, N, rank) of the step's B = %lld positions",
                     r, (long long)off, r - 1, (long long)next, off < next ? "overlap" : "skip positions",
                     (long long)e->global_batch);
        next = off + len;
    }
    if (next != e->global_batch)
        dp_fatal("elastic_plan: the %d ranks' slices cover %lld positions a step, not the global batch B = %lld: "
                 "the global batch must stay B whatever the world size",
                 N, (long long)next, (long long)e->global_batch);
    free(mine);
    free(all);
}

static void check_plan(const trainer_t *t, const elastic_t *e) {
    const elastic_plan_t *p = &e->plan;
    if (p->local_batch < 1 || p->offset < 0 || p->micro_steps < 1 || p->micro_steps > ELASTIC_MAX_MICRO)
        dp_fatal("elastic_plan (rank %d of %d, B = %lld): local_batch %lld, offset %lld, micro_steps %d: out of range",
                 t->rank, t->world_size, (long long)e->global_batch, (long long)p->local_batch, (long long)p->offset,
                 p->micro_steps);
    int64_t sum = 0;
    for (int i = 0; i < p->micro_steps; i++) {
        if (p->micro[i] < 1 || p->micro[i] > e->micro_cap)
            dp_fatal("elastic_plan (rank %d): micro-batch %d has %lld examples; each must hold 1 to --micro-cap %d",
                     t->rank, i, (long long)p->micro[i], e->micro_cap);
        sum += p->micro[i];
    }
    if (sum != p->local_batch)
        dp_fatal("elastic_plan (rank %d): the micro-batches hold %lld examples but local_batch is %lld", t->rank,
                 (long long)sum, (long long)p->local_batch);
}

void elastic_attach(trainer_t *t, elastic_t *e, ddp_t *d) {
    e->ddp = d;
    check_plan(t, e);
    check_tiling(t, e);
    e->steps_per_epoch = (int64_t)(e->sampler.total_size / (size_t)e->global_batch);
    if (e->steps_per_epoch < 1)
        dp_fatal("the sampler's epoch has %zu positions, fewer than one global batch of %lld", e->sampler.total_size,
                 (long long)e->global_batch);
    if (e->start.step < 0 || e->start.step > t->cfg.steps || e->start.position < 0 || e->sampler.epoch < 0)
        dp_fatal("resume_position: step %lld, position %lld, epoch %lld: out of range (the checkpoint is at step "
                 "%lld)",
                 (long long)e->start.step, (long long)e->start.position, (long long)e->sampler.epoch,
                 (long long)t->step);
    t->step = e->start.step;
    size_t room = e->sampler.total_size > e->len ? e->sampler.total_size : e->len;
    e->list = dp_malloc(room * sizeof(uint32_t) + 4);
    e->scratch = dp_malloc(room * sizeof(uint32_t) + 4);
    e->list_epoch = -1;
    /* the rank's whole slice is fetched at once; forwards take at most micro_cap of it (the model's
     * activations are sized for --micro-cap) */
    int T = t->cfg.context;
    /* validation keeps --micro-cap's batch on every rank and every launch: the same numbers whatever
     * slice this launch gave the rank (and no forward over the model's size) */
    t->eval_batch = t->local_batch;
    t->local_batch = (int)e->plan.local_batch;
    free(t->ctx);
    free(t->targets);
    t->ctx = dp_malloc((size_t)t->local_batch * (size_t)T * sizeof(int32_t));
    t->targets = dp_malloc((size_t)t->local_batch * sizeof(int32_t));
    t->model.batch_ctx = t->ctx, t->model.batch_targets = t->targets, t->model.batch_examples = t->local_batch;
    t->fetch = fetch;
    t->fetch_ctx = e;
}

void elastic_detach(trainer_t *t, elastic_t *e) {
    free(e->list);
    free(e->scratch);
    e->list = e->scratch = NULL;
    t->fetch = NULL;
}

float elastic_train_step(trainer_t *t, double lr) {
    elastic_t *e = t->ext;
    ddp_t *d = e->ddp;
    model_t *m = &t->model;
    const elastic_plan_t *p = &e->plan;
    size_t T = (size_t)t->cfg.context, off = 0;
    double loss = 0;
    d->nlaunched = 0;
    model_zero_grad(m);
    for (int i = 0; i < p->micro_steps; i++) {
        d->require_backward_grad_sync = i == p->micro_steps - 1; /* no_sync but for the last */
        double t0 = dp_now();
        float l = model_forward(m, t->ctx + off * T, t->targets + off, (int)p->micro[i]);
        double t1 = dp_now();
        model_backward(m, (float)p->weight[i], ddp_grad_ready, d);
        double t2 = dp_now();
        ddp_finish(d);
        trace_span(t->trace, "compute", "forward", t0, t1);
        trace_span(t->trace, "compute", "backward", t1, t2);
        loss += p->weight[i] * l;
        off += (size_t)p->micro[i];
    }
    d->require_backward_grad_sync = true;
    clip_grad_norm_ops(t->ops, m->grads, model_num_params(m), t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    /* Σ_i w_ri·L_ri averaged over the ranks: Σ_r b_r·L_r / B, the global batch's mean loss */
    return trainer_global_mean(t, (float)loss);
}
