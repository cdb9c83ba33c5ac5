/* ddp.c — DDP's machinery around the buckets: construction (broadcast from rank 0), the
 * communication thread that runs the all-reduces, the training step, the options and the log. */
#include "ddp.h"

#include "output.h"
#include "ring.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the communication thread ------------------------------------------------------------------
 * One per rank. It takes launched buckets from a FIFO queue, in launch order, and all-reduces each
 * on its own communicator (a dup: its messages never mix with the compute thread's). The compute
 * thread never waits for it until ddp_finish. On a GPU the same picture holds for two streams:
 *
 *   compute stream  [bwd head][bwd h.1]●ready[0] [bwd h.0][bwd wte]●ready[1]  ◆wait done[0..1] [step]
 *   comm stream               ◆wait ready[0] [all-reduce b0]●done[0] ◆wait ready[1] [all-reduce b1]●done[1]
 *                                                                             (● record, ◆ wait) */

static void *comm_main(void *arg) {
    ddp_t *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (d->completed == d->queued && !d->stop) pthread_cond_wait(&d->cv, &d->lock);
        if (d->completed == d->queued && d->stop) {
            pthread_mutex_unlock(&d->lock);
            return NULL;
        }
        int b = d->queue[d->completed];
        pthread_mutex_unlock(&d->lock);

        ddp_bucket_t *bk = &d->buckets[b];
        double t0 = dp_now();
        ops_wait_event(d->coll.ops, d->ready[b]); /* the bucket's gradients are written */
        d->allreduce(&d->coll, d->t->model.grads + bk->offset, bk->count, REDOP_SUM);
        ops_event_record(d->coll.ops, d->done[b]);
        char name[32];
        snprintf(name, sizeof name, "allreduce b%d", b);
        trace_span(d->t->trace, "comm", name, t0, dp_now());

        pthread_mutex_lock(&d->lock);
        d->completed++;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->lock);
    }
}

/* ddp_launch is the entry the student's hook (lesson 05) and micro-batch loop (lesson 06) drive: a
 * mistake there must end in a line that names it, not in a write past the queue or the log (sized by
 * the bucket count) that surfaces later as an MPI error or a crash. */
static void check_launch(const ddp_t *d, int b) {
    if (d->nbuckets < 1)
        dp_fatal("ddp_launch: bucket %d launched, but there are no buckets (ddp_assign_buckets made none)", b);
    if (b < 0 || b >= d->nbuckets)
        dp_fatal("ddp_launch: bucket %d does not exist: the model has %d buckets, 0..%d", b, d->nbuckets,
                 d->nbuckets - 1);
    /* the queue holds this backward's launches: a bucket in it again is a second launch in the same
     * backward, whatever the bucket count (with one bucket it is also past the step's launches) */
    for (int i = 0; i < d->queued; i++)
        if (d->queue[i] == b)
            dp_fatal("ddp_launch: bucket %d launched twice in one backward: launch each bucket once, when its last "
                     "gradient is ready (and ddp_finish resets the state for the next backward)",
                     b);
    /* lesson 05's step has one backward: ddp_reset has run in ddp_finish, and nothing would wait */
    if (d->finished)
        dp_fatal("ddp_launch: bucket %d launched after ddp_reset, in ddp_finish: nothing waits for that all-reduce "
                 "before the step uses the gradients; launch every bucket before ddp_wait_all and ddp_reset (the "
                 "hook launches them during backward)",
                 b);
    if (d->nlaunched >= d->nbuckets)
        dp_fatal(
            "ddp_launch: bucket %d launched again in the same optimizer step (launches so far: %d): was "
            "require_backward_grad_sync left on for a micro-batch other than the last? Only the last backward of a "
            "step synchronises (no_sync, lesson 06)",
            b, d->nlaunched);
    if (b != d->queued)
        dp_fatal("ddp_launch: bucket %d launched before bucket %d: buckets are launched in order, 0 first (the "
                 "all-reduces must start in the same order on every rank)",
                 b, d->queued);
}

void ddp_launch(ddp_t *d, int b) {
    pthread_mutex_lock(&d->lock);
    check_launch(d, b);
    pthread_mutex_unlock(&d->lock);
    ops_event_record(d->t->ops, d->ready[b]); /* after the kernels that wrote bucket b (and its 1/N) */
    /* an instant on the compute track: WHERE the bucket was launched (inside a "hook" span, during
     * "backward", or after it) is what the overlap grader reads, whatever the machine's load */
    char name[32];
    snprintf(name, sizeof name, "launch b%d", b);
    double now = dp_now();
    trace_span(d->t->trace, "compute", name, now, now);
    pthread_mutex_lock(&d->lock);
    d->queue[d->queued++] = b;
    d->launch_log[d->nlaunched++] = b;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->lock);
}

void ddp_wait_all(ddp_t *d) {
    double t0 = dp_now();
    pthread_mutex_lock(&d->lock);
    while (d->completed < d->queued) pthread_cond_wait(&d->cv, &d->lock);
    int n = d->waited = d->queued;
    pthread_mutex_unlock(&d->lock);
    /* blocked on the communication thread: the step's wait, not its compute (--stats, lesson 10) */
    trainer_add_wait(d->t, dp_now() - t0);
    /* the optimizer's kernels, queued next on the compute stream, run after every all-reduce */
    for (int i = 0; d->done && i < n; i++) ops_wait_event(d->t->ops, d->done[d->queue[i]]);
}

void ddp_reset(ddp_t *d) {
    /* Forgetting a launch that was not waited for leaves the communication thread all-reducing a
     * bucket the next step writes, and its counters past the reset queue: a crash or an MPI size
     * mismatch steps later. Whether it happens to have finished is a race: ask for the wait itself. */
    pthread_mutex_lock(&d->lock);
    int queued = d->queued, waited = d->waited, b0 = waited < queued ? d->queue[waited] : -1;
    pthread_mutex_unlock(&d->lock);
    if (waited < queued)
        dp_fatal("ddp_reset: bucket %d's all-reduce was launched but not waited for (%d launched, %d waited for): "
                 "call ddp_wait_all before ddp_reset — every launched all-reduce must finish before the step uses "
                 "the gradients and the state is reset",
                 b0, queued, waited);
    for (int b = 0; b < d->nbuckets; b++)
        d->buckets[b].pending = d->buckets[b].last_param - d->buckets[b].first_param + 1;
    d->next_bucket = 0;
    pthread_mutex_lock(&d->lock);
    d->queued = d->completed = d->waited = 0;
    d->finished = d->backward_ended;
    pthread_mutex_unlock(&d->lock);
}

/* ---- construction ------------------------------------------------------------------------------ */

/* Every replica must start from the same parameters: rank 0's, sent to every other rank. */
static void broadcast_params(ddp_t *d) {
    trainer_t *t = d->t;
    size_t n = model_num_params(&t->model);
    if (t->rank == 0)
        for (int r = 1; r < t->world_size; r++) comm_send(t->comm, t->model.params, n, DT_F32, r);
    else
        comm_recv(t->comm, t->model.params, n, DT_F32, 0);
}

/* The buckets come from the student's ddp_assign_buckets; the hook, the queue and the communication
 * thread index arrays and the gradients with them. One that would make them read or write out of
 * bounds stops here, in one line (which of the rule's results is wrong is the grader's "buckets"
 * check's business: this only refuses what cannot run). */
static void check_buckets(const ddp_t *d, const model_t *m) {
    int P = m->layout.count;
    size_t total = model_num_params(m);
    if (!d->buckets || !d->bucket_of || d->nbuckets < 1 || d->nbuckets > (P ? P : 1))
        dp_fatal("ddp_assign_buckets made %d buckets for %d parameters: there must be 1..%d (one per parameter at "
                 "most); unfinished?",
                 d->nbuckets, P, P ? P : 1);
    for (int b = 0; b < d->nbuckets; b++) {
        const ddp_bucket_t *k = &d->buckets[b];
        if (k->first_param < 0 || k->first_param > k->last_param || k->last_param >= P)
            dp_fatal("ddp_assign_buckets: bucket %d holds parameters %d..%d, but parameters are 0..%d and "
                     "first_param <= last_param",
                     b, k->first_param, k->last_param, P - 1);
        if (k->offset > total || k->count > total - k->offset)
            dp_fatal("ddp_assign_buckets: bucket %d's slice (offset %zu, count %zu) runs past the %zu gradients", b,
                     k->offset, k->count, total);
    }
    for (int i = 0; i < P; i++)
        if (d->bucket_of[i] < 0 || d->bucket_of[i] >= d->nbuckets)
            dp_fatal("ddp_assign_buckets: bucket_of[%d] is %d, but the buckets are 0..%d", i, d->bucket_of[i],
                     d->nbuckets - 1);
}

void ddp_init(ddp_t *d, trainer_t *t, size_t bucket_bytes_cap, size_t first_bucket_bytes_cap, allreduce_fn allreduce) {
    memset(d, 0, sizeof *d);
    d->t = t;
    d->world_size = t->world_size;
    d->rank = t->rank;
    d->require_backward_grad_sync = true;
    d->overlap = true;
    d->launch = ddp_launch;
    d->allreduce = allreduce;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->cv, NULL);
    broadcast_params(d);
    ddp_assign_buckets(d, &t->model.layout, bucket_bytes_cap, first_bucket_bytes_cap);
    check_buckets(d, &t->model);
    int nb = d->nbuckets > 0 ? d->nbuckets : 1;
    d->queue = dp_calloc((size_t)nb, sizeof(int));
    d->launch_log = dp_calloc((size_t)nb, sizeof(int));
    ddp_reset(d);
    d->nlaunched = 0;
    d->comm = comm_dup(t->comm, "ddp-comm-thread", true);
    comm_set_wait(d->comm, COMM_WAIT_NAP); /* leave the core to backward while waiting */
    d->comm_ops = t->ops->backend == OPS_CUDA ? ops_create(OPS_CUDA, 1) : NULL; /* its own stream */
    d->ready = dp_calloc((size_t)nb, sizeof *d->ready);
    d->done = dp_calloc((size_t)nb, sizeof *d->done);
    for (int b = 0; b < nb; b++) {
        d->ready[b] = ops_event_create(t->ops);
        d->done[b] = ops_event_create(t->ops);
    }
    coll_init(&d->coll, d->comm, d->comm_ops ? d->comm_ops : t->ops);
    if (pthread_create(&d->thread, NULL, comm_main, d) != 0) dp_fatal("cannot start DDP's communication thread");
    d->thread_started = true;
    t->ext = d;
}

void ddp_free(ddp_t *d) {
    if (d->thread_started) {
        pthread_mutex_lock(&d->lock);
        d->stop = true;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        if (d->ext && d->ext->teardown) d->ext->teardown(&d->coll);
        coll_free(&d->coll);
        comm_free(d->comm);
        for (int b = 0; b < (d->nbuckets > 0 ? d->nbuckets : 1); b++) {
            ops_event_destroy(d->ready[b]);
            ops_event_destroy(d->done[b]);
        }
        free(d->ready);
        free(d->done);
        if (d->comm_ops) ops_destroy(d->comm_ops);
    }
    free(d->buckets);
    free(d->bucket_of);
    free(d->queue);
    free(d->launch_log);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->cv);
}

/* ---- the step ----------------------------------------------------------------------------------- */

/* The student's gradient-ready hook, traced: each call is a "hook" span on the compute track. Time
 * spent inside the hook is not backward's compute; an all-reduce that both starts and ends inside
 * one (a blocking all-reduce, or a wait right after the launch) is communication NOT overlapped,
 * and the trace shows it as such however busy the machine is. */
static void traced_grad_ready(void *ctx, int param_index) {
    ddp_t *d = ctx;
    double t0 = dp_now();
    ddp_grad_ready(ctx, param_index);
    trace_span(d->t->trace, "compute", "hook", t0, dp_now());
}

float ddp_forward_backward(ddp_t *d) {
    trainer_t *t = d->t;
    model_t *m = &t->model;
    d->nlaunched = 0;
    d->backward_ended = d->finished = false;
    model_zero_grad(m);
    double t0 = dp_now();
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    double t1 = dp_now();
    if (d->overlap) {
        model_backward(m, 1.0f, traced_grad_ready, d);
    } else { /* the same launches, all after backward: what DDP would cost without overlap */
        model_backward(m, 1.0f, NULL, NULL);
        for (int i = m->layout.count - 1; i >= 0; i--) traced_grad_ready(d, i);
    }
    double t2 = dp_now();
    d->backward_ended = true; /* the one backward of this step: ddp_finish's ddp_reset ends it */
    ddp_finish(d);
    d->backward_ended = d->finished = false;
    trace_span(t->trace, "compute", "forward", t0, t1);
    trace_span(t->trace, "compute", "backward", t1, t2);
    trace_span(t->trace, "compute", "wait for all-reduces", t2, dp_now());
    return loss;
}

float ddp_train_step(trainer_t *t, double lr) {
    ddp_t *d = t->ext;
    model_t *m = &t->model;
    float loss = ddp_forward_backward(d);
    double t3 = dp_now();
    /* every replica now holds the same averaged gradient: clip and step locally, identically */
    clip_grad_norm_ops(t->ops, m->grads, model_num_params(m), t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    trace_span(t->trace, "compute", "clip + optimizer", t3, dp_now());
    return trainer_global_mean(t, loss);
}

/* ---- options and log ---------------------------------------------------------------------------- */

cli_opt_t *ddp_cli_options(ddp_options_t *o) { return ddp_cli_options_ext(o, NULL); }

cli_opt_t *ddp_cli_options_ext(ddp_options_t *o, const ddp_allreduce_ext_t *ext) {
    o->ext = ext;
    snprintf(o->choices, sizeof o->choices, "ring|tree|naive|lib%s%s", ext ? "|" : "", ext ? ext->name : "");
    o->bucket_cap_mb = 0; /* unset, as PyTorch's bucket_cap_mb=None: ddp_setup picks the defaults */
    o->allreduce = "ring";
    o->no_overlap = false;
    o->init_seed_per_rank = false;
    o->ddp_log = NULL;
    o->reduce_dtype = "fp32";
    const cli_opt_t table[] = {
        {"bucket-cap-mb", CLI_FLOAT, &o->bucket_cap_mb,
         "cap of every bucket, the first included, in MiB of gradients (PyTorch's bucket_cap_mb); 0 = unset: 25 MiB "
         "with a 1 MiB first bucket",
         .min = 0, .max = 1e6},
        {"allreduce", CLI_CHOICE, &o->allreduce,
         "the all-reduce of each bucket (lib: the comm library's, MPI or NCCL under --comm)", .choices = o->choices},
        {"no-overlap", CLI_FLAG, &o->no_overlap, "launch every bucket after backward (to measure what overlap buys)"},
        {"init-seed-per-rank", CLI_FLAG, &o->init_seed_per_rank,
         "initialise ranks other than 0 from other seeds (the broadcast must make them rank 0)"},
        {"reduce-dtype", CLI_CHOICE, &o->reduce_dtype,
         "the gradients' all-reduce: float32 sums, or bf16 messages with a bf16 rounding at every hop (its own "
         "ring, in place of --allreduce)",
         .choices = "fp32|bf16"},
        {"ddp-log", CLI_STRING, &o->ddp_log, "write the buckets and the launch order of the last step (JSON) here"},
        CLI_END,
    };
    return cli_join(table, (const cli_opt_t[]){CLI_END});
}

static void lib_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_lib_allreduce(coll->comm, buf, buf, count, DT_F32, op);
}

void ddp_setup(ddp_t *d, trainer_t *t, const ddp_options_t *o) {
    /* rank 0 keeps --seed: after the broadcast every rank must hold exactly what rank 0 drew */
    if (o->init_seed_per_rank && t->rank != 0) model_reset_params(&t->model, t->cfg.seed + 1000 + (uint64_t)t->rank);
    bool ext = o->ext && !strcmp(o->allreduce, o->ext->name);
    allreduce_fn fn = ext                              ? o->ext->fn
                      : !strcmp(o->allreduce, "tree")  ? tree_allreduce
                      : !strcmp(o->allreduce, "naive") ? naive_allreduce
                      : !strcmp(o->allreduce, "lib")   ? lib_allreduce
                                                       : ring_allreduce;
    if (!strcmp(o->reduce_dtype, "bf16")) {
        if (t->ops->backend != OPS_CPU) cli_usage_error("--reduce-dtype bf16 runs on --device cpu only");
        if (ext) cli_usage_error("--reduce-dtype bf16 is its own flat ring: leave --allreduce %s out", o->ext->name);
        fn = ddp_allreduce_bf16;
    }
    /* PyTorch: first_bucket_bytes_cap = _DEFAULT_FIRST_BUCKET_BYTES only when bucket_cap_mb was left
     * None; an explicit bucket_cap_mb (even 25) caps every bucket, the first included */
    bool unset = o->bucket_cap_mb == 0;
    size_t cap = (size_t)((unset ? DDP_DEFAULT_BUCKET_CAP_MB : o->bucket_cap_mb) * DDP_MIB);
    ddp_init(d, t, cap, unset ? DDP_FIRST_BUCKET_BYTES : cap, fn);
    if (ext) { /* the thread has launched nothing yet: its communicator is free for the setup */
        d->ext = o->ext;
        if (d->ext->setup) d->ext->setup(&d->coll);
    }
    d->overlap = !o->no_overlap;
    /* before the first step, not after the last (ddp_write_log) */
    if (t->rank == 0) dp_check_output("--ddp-log", o->ddp_log);
    if (t->rank == 0)
        logger_line(&t->log, "ddp: %d bucket%s (bucket_cap_mb %s%g%s), %s all-reduce, overlap %s", d->nbuckets,
                    d->nbuckets == 1 ? "" : "s", unset ? "unset: " : "",
                    unset ? (double)DDP_DEFAULT_BUCKET_CAP_MB : o->bucket_cap_mb, unset ? ", first bucket 1 MiB" : "",
                    o->allreduce, d->overlap ? "on" : "off");
}

void ddp_write_log(const ddp_t *d, const char *path) {
    if (d->rank != 0 || !path) return;
    dp_out_t o;
    if (dp_out_open(&o, path) != 0) dp_fatal("cannot write %s: %s", path, strerror(errno));
    FILE *f = o.f;
    fprintf(f, "{\n  \"world_size\": %d,\n  \"nbuckets\": %d,\n  \"buckets\": [\n", d->world_size, d->nbuckets);
    for (int b = 0; b < d->nbuckets; b++) {
        const ddp_bucket_t *k = &d->buckets[b];
        fprintf(f, "    {\"params\": [");
        for (int i = k->last_param; i >= k->first_param; i--) fprintf(f, "%d%s", i, i > k->first_param ? ", " : "");
        fprintf(f, "], \"offset\": %zu, \"count\": %zu}%s\n", k->offset, k->count, b + 1 < d->nbuckets ? "," : "");
    }
    fprintf(f, "  ],\n  \"launch_order\": [");
    for (int i = 0; i < d->nlaunched; i++) fprintf(f, "%d%s", d->launch_log[i], i + 1 < d->nlaunched ? ", " : "");
    fprintf(f, "]\n}\n");
    if (dp_out_close(&o) != 0) dp_fatal("cannot write %s: %s", path, strerror(errno));
}
