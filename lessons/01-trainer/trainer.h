/* trainer.h — the training loop every lesson shares.
 *
 * Lesson 01 runs it with its own train_step on one process; later lessons reuse all of it
 * (data, schedule, logging, evaluation, checkpoints, dumps for the grader) and plug in a different
 * step function: DDP's, FSDP's, ... The loop:
 *
 *   for step in [start, steps):
 *       batch = this rank's share of global batch `step`     (rank r takes positions r, r+N, ...)
 *       loss  = step_fn(trainer, lr_at(step))                 (zero, forward, backward, clip, update)
 *       log / evaluate / checkpoint every so often
 *
 * --batch is the batch of ONE rank, as in PyTorch's DataLoader under DDP; the global batch is
 * world_size × batch, and a single process run with --batch N·B sees exactly the same examples in
 * every step as N ranks with --batch B (that is what the graders compare). */
#ifndef DPC_TRAINER_H
#define DPC_TRAINER_H

#include "cli.h"
#include "comm.h"
#include "data.h"
#include "log.h"
#include "mem.h"
#include "mixed_precision.h"
#include "model.h"
#include "optim.h"
#include "records.h"
#include "straggler.h"
#include "trace.h"

#include <stdbool.h>

typedef struct {
    /* data */
    const char *data, *val;
    /* model */
    const char *model; /* "mlp", or a GPT preset of gpt.h: "gpt-tiny", "gpt-mini", "gpt-small" */
    const char *preset;
    int context, embed, hidden, layers;
    /* optimisation */
    int batch; /* per rank */
    int steps;
    const char *optimizer;
    double lr, min_lr_ratio, weight_decay, beta1, beta2, eps, momentum, clip;
    int warmup;
    uint64_t seed;
    const char *order;    /* "random": the course's own; "sampler": PyTorch's DistributedSampler order */
    int sampler_replicas; /* the sampler's num_replicas (0: the world size) */
    /* examples per step over all ranks (0: batch × world size). No option of lesson 01's sets it:
     * lesson 12's elastic trainer does (--batch-global), where the global batch outlives the world
     * size and the ranks' shares may differ. */
    int global_batch;
    bool no_shuffle, drop_last;
    /* variable-length examples (common/records.h): "windows" (fixed, the course's) or "records" */
    const char *examples;
    int group_by_length;    /* records: group runs of this many global batches by length (0: off) */
    bool pad_to_context;    /* records: every batch padded to the full context (no cutting) */
    const char *loss_norm;  /* "rank": each rank's mean (DDP's); "tokens": weighted to the global mean */
    int prefetch_depth;     /* batches the loader prepares ahead on its own thread (0: none, loader.h) */
    double loader_delay_ms; /* an emulated slow source: a sleep per batch in the loader */
    /* output */
    int log_every, eval_every, eval_batches, save_every, sample;
    const char *save, *resume, *dump, *loss_csv, *stats, *trace, *sample_out;
    const char *mixed_precision; /* "none", "bf16", "fp16" (mixed_precision.h) */
    /* emulated stragglers (straggler.h, lesson 10): "RANK:FACTOR", "exp:MEAN_MS", ... or NULL */
    const char *straggler, *jitter;
    /* an injected failure (lesson 12): "RANK:STEP", that rank dies at the start of step STEP */
    const char *fail;
    /* machine */
    const char *device;
    int threads;
    comm_opts_t comm;
} trainer_config_t;

typedef struct trainer trainer_t;
#define TRAINER_STATS_COMMS 4
/* One optimisation step on t->ctx/t->targets (this rank's t->local_batch examples) with learning
 * rate lr; returns the mean loss over the GLOBAL batch. */
typedef float (*train_step_fn)(trainer_t *t, double lr);

struct trainer {
    trainer_config_t cfg;
    comm_t *comm;  /* for the algorithm: its traffic is what the counters report */
    comm_t *infra; /* for bookkeeping (logging, dumps, stats): counted separately */
    int rank, world_size;
    ops_t *ops;
    model_t model;
    optim_t optim;
    dataset_t train, val;
    records_t train_records, val_records; /* --examples records */
    data_order_t order;
    logger_t log;
    trace_t *trace;
    mem_t mem;
    int64_t step;    /* the next step to run */
    int local_batch; /* examples per rank per step */
    int eval_batch;  /* examples per validation forward (0: local_batch), the same on every rank */
    uint32_t *global_idx;
    int32_t *ctx, *targets; /* this rank's batch */
    float *losses;          /* per step, for the dump */
    float *dump_grads;      /* gradients after step `start` (the dump's "grad.*") */
    double step_time_sum;
    int64_t steps_timed;
    /* Per step of this run (index step − first): this rank's compute (the emulated delay included),
     * its wait (blocked in communication) and the emulated delay alone, in seconds: the --stats
     * file's per-rank timing, what lesson 10's straggler_report reads. */
    double *step_compute_s, *step_wait_s, *step_delay_s;
    double added_wait_s; /* waits outside the comm seam (on a communication thread), trainer_add_wait */
    straggler_t straggler;
    jitter_t jitter;
    int fail_rank;     /* --fail: the rank that dies (-1: none) */
    int64_t fail_step; /* ... at the start of this step, counted as the log counts (1 = the first) */
    double *data_wait; /* per step: seconds the step waited for its batch (loader.h) */
    double data_wait_sum;
    void *ext;             /* a later lesson's own state */
    mixed_precision_t *mp; /* --mixed-precision bf16|fp16; NULL: float32 */
    /* Set by a trainer whose step works with mixed precision (its gradients are the model's, on
     * every rank whole after the reduction, so that every rank's optim_step sees the same inf): a
     * trainer that has not set it refuses --mixed-precision (trainer_run). */
    bool mixed_precision_ok;
    /* Hooks a later lesson may replace (defaults: the whole model lives on every rank, and this
     * rank's share of global batch `step` comes from t->order, positions rank, rank + N, ...). */
    /* fill ctx and targets with this rank's batch of `step`; with --prefetch-depth > 0 it runs on the
     * loader's thread, ahead of the step: it may use t->train, t->order, t->cfg, t->global_idx and
     * its fetch_ctx, nothing the step changes */
    void (*fetch)(trainer_t *t, int64_t step, int32_t *ctx, int32_t *targets);
    void *fetch_ctx;
    /* A later lesson's own per-step numbers (lesson 10's noise scale): csv_extra writes the values of
     * the loss CSV's extra columns, named by csv_extra_header ("a,b"), for the step that just ended
     * (rank 0); stats_extra adds to the --stats JSON object (a cJSON *, rank 0). NULL: none. */
    const char *csv_extra_header;
    void (*csv_extra)(trainer_t *t, char *buf, size_t n);
    void (*stats_extra)(trainer_t *t, void *json_root);
    /* A later lesson's own communicators (lesson 08's --hybrid: the node's and the replicas'), whose
     * traffic t->comm's counters miss: --stats reports each rank's on each, by link class, under
     * "comms" and the name. The same names, in the same order, on every rank. */
    struct {
        const char *name;
        comm_t *comm;
    } stats_comms[TRAINER_STATS_COMMS];
    int nstats_comms;
    void (*full_params)(trainer_t *t, float *out); /* every parameter, on rank 0 */
    void (*full_grads)(trainer_t *t, float *out);  /* every gradient, on rank 0 */
    void (*save)(trainer_t *t, const char *path);  /* write a checkpoint (default checkpoint_save) */
    /* What --resume read from the checkpoint (checkpoint_load): where in the data order it stopped.
     * has_position is false for a checkpoint saved before the metadata held it. */
    struct {
        bool loaded, has_position;
        int64_t step, epoch, consumed; /* consumed: positions of the epoch's list already trained on */
        uint64_t global_batch;
        int data_replicas; /* the sampler's num_replicas the order was drawn for (0: the course's own order) */
    } resumed;
};

/* The MLP's sizes under --preset NAME (tiny, small, default, large) into mc, its vocabulary 0 (the
 * data's, set later): 0, or -1 for an unknown name. bench_mlp times the same networks. */
int trainer_mlp_preset(const char *name, model_config_t *mc);

/* Parse the command line (the trainer's options plus `extra`, may be NULL), start the comm seam,
 * load the data, build the model and the optimizer, resume if asked. */
void trainer_init(trainer_t *t, int argc, char **argv, const cli_opt_t *extra, const char *usage);
/* Run the remaining steps with step_fn; evaluate, log, save, dump as configured. */
void trainer_run(trainer_t *t, train_step_fn step_fn);
void trainer_finish(trainer_t *t);

/* Example i of ds (t->train or t->val) as the trainer cuts them: a window, or with --examples
 * records a record padded with -1 (common/records.h). Returns the positions with a target. */
int trainer_example(const trainer_t *t, const dataset_t *ds, size_t i, int32_t *ctx, int32_t *target);
/* A wait of this rank's training thread that the comm seam does not see (for a communication thread
 * to finish, say): counted in the step's wait time, not its compute. */
void trainer_add_wait(trainer_t *t, double seconds);

/* Mean loss over the global batch from this rank's mean (an all-reduce on the infra comm). */
float trainer_global_mean(trainer_t *t, float local_mean);
/* Validation loss over cfg.eval_batches batches of the validation set (same on every rank). */
float trainer_eval(trainer_t *t);

/* Checkpoints (checkpoint.c): the model, optimizer state, step and seed in one safetensors file. */
void checkpoint_save(trainer_t *t, const char *path);
/* The same file from its parts (lesson 08's consolidation writes one from the shards). m and v may
 * be NULL-v for SGD (v == NULL). */
typedef struct {
    const model_config_t *model;
    const flat_layout_t *layout;
    const float *params, *m, *v;
    const char *optimizer;
    int64_t step, optim_t;
    uint64_t seed;
    size_t global_batch;
    /* the data order's place (metadata data_replicas, epoch, consumed; checkpoint_data_position):
     * left out when has_position is false (a file assembled where the order is not known) */
    bool has_position;
    int data_replicas;
    int64_t epoch, consumed;
    const struct grad_scaler *scaler; /* fp16's loss scale (NULL: none to save) */
} checkpoint_parts_t;
void checkpoint_write(const checkpoint_parts_t *parts, const char *path);
/* Where t->step stands in the data order, as the checkpoints record it: the order's replicas (0: the
 * course's own order), the epoch, and the positions of that epoch's list already trained on. */
void checkpoint_data_position(const trainer_t *t, int *replicas, int64_t *epoch, int64_t *consumed);
void checkpoint_load(trainer_t *t, const char *path);

/* Text sampling (sample.c): n characters from the model, starting from an empty context. */
void sample_text(model_t *m, const dataset_t *vocab, int n, uint64_t seed, char *out);

/* The single-process step of lesson 01 (train_step.c), and its GPU twin (device_step.c). */
float train_step(trainer_t *t, double lr);
float train_step_device(trainer_t *t, double lr);

/* The newest complete, undamaged checkpoint that a run with --save SAVE --save-every K left: the
 * files SAVE with ".stepN" before the extension, or FSDP's sets of shards of them
 * (<that>.rankR-of-W.safetensors, R = 0..W−1). Each is loaded and checked (header, checksums, its
 * step), newest first; a damaged one, or a shard set with a shard missing, is skipped with a note on
 * stderr. Lesson 12's launcher restarts from it. Returns 1 with *out filled, 0 when there is none (nor
 * the directory yet), -1 with err when the directory cannot be read. */
typedef struct {
    int64_t step;
    int shards;      /* 0: one file; W: a set of W shard files */
    char path[4096]; /* the file; for shards, the path fsdp_consolidate --shards takes */
} checkpoint_found_t;
int checkpoint_last_good(const char *save, checkpoint_found_t *out, char *err, size_t errlen);

#endif
