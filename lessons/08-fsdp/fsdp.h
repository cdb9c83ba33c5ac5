/* fsdp.h — lesson 08: fully sharded data parallelism (FSDP, ZeRO stage 3).
 *
 * DDP keeps the whole model on every rank: 16 bytes per parameter with fp32 AdamW (parameter 4,
 * gradient 4, m 4, v 4). FSDP keeps 1/N of everything on each rank and assembles one unit (a layer)
 * at a time, only while it is needed:
 *
 *   each unit (the MLP: wte, h.0, ..., head; a GPT: wte+wpe, block 0, ..., ln_f) flattened, padded to
 *   N·c (c = ceil(n/N)), rank r owns [r·c, (r+1)·c)
 *
 *   forward, per unit:   all-gather the shards ──► full parameters ──► compute ──► free them
 *   backward, per unit:  all-gather again ──► compute the full gradient ──► reduce-scatter (averaged)
 *                        into the rank's gradient shard ──► free both
 *   step:                clip with the global norm (one all-reduce of Σ g² of the shards), AdamW on the
 *                        shard only: optimizer state is sharded too
 *
 * The all-gather and the reduce-scatter are lesson 04's ring halves.
 *
 * --zero-stage 1 and 2 (zero.c, zero_step.c) shard less, with the same layout: every rank keeps every
 * unit's full parameters (f->gathered[u], N·c floats, for good); stage 1 also every unit's full gradient
 * (f->full_grads[u]), reduce-scattered after backward; stage 2 reduce-scatters each unit's gradient
 * into the gradient shard as soon as its backward is done (as stage 3 does) and frees it. Both step
 * the optimizer on the rank's chunk of every unit and all-gather the updated units. */
#ifndef DPC_FSDP_H
#define DPC_FSDP_H

#include "collective.h"
#include "trainer.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct {
    size_t numel;        /* n: the unit's parameters */
    size_t chunk;        /* c = ceil(n / N): every rank's shard, padding included */
    size_t shard_offset; /* where this unit's shard starts in the rank's shard arrays */
} fsdp_unit_t;

typedef struct {
    trainer_t *t;
    int world_size, rank; /* of the ranks that shard the model: every rank, or --hybrid's node */
    int zero_stage;       /* 3: FSDP (parameters, gradients and optimizer state sharded); 2: gradients and
                     * optimizer state; 1: optimizer state only (the README's "ZeRO stages") */
    int nunits;
    fsdp_unit_t *units;
    size_t shard_numel;                /* Σ chunk over the units */
    float *shard_params, *shard_grads; /* stage 3; stage 2: shard_grads only; stage 1: neither (the
                                        * rank's chunks of gathered[u] and full_grads[u] are its shards) */
    coll_t coll;                       /* gathers and scatters on the compute thread */
    coll_t host_coll;   /* the same ranks, host memory: for numbers the host holds (Σ g² in fsdp_clip) */
    float **gathered;   /* per unit: the gathered N·c parameters while alive, else NULL (stages 1-2: always) */
    float **full_grads; /* per unit: the N·c gradient while its backward runs, else NULL (stage 1: always) */
    int keep_unit;      /* a unit used more than once per pass (the GPT's unit 0: its head is tied to
                         * wte), kept gathered from its first use in forward to its post_backward;
                         * -1: none (the MLP) */
    bool prefetch;      /* gather the next unit on a second thread while computing this one */
    /* the prefetch worker: at most one gather in flight */
    comm_t *worker_comm;
    coll_t worker_coll;
    ops_t *worker_ops;        /* GPU: the worker's own stream (NULL on the CPU: it uses t->ops) */
    ops_t *host_ops;          /* CPU context for host_coll when t->ops is a GPU's (else NULL) */
    ops_event_t *asked;       /* recorded on the compute stream when a unit is asked for: the
                              * worker's stream waits for it (the new buffer, the updated shard) */
    ops_event_t *gathered_ev; /* recorded on the worker's stream after a gather: the compute stream
                              * waits for it before using the unit */
    pthread_t worker;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int want_unit; /* unit asked for (-1: none) */
    int done_unit; /* unit whose gather finished (-1: none) */
    bool stop, worker_started;
    uint64_t run_id; /* in every shard file, the same on all ranks (0: not drawn yet; see save_shards) */
    /* --mixed-precision bf16 (the README's "Mixed precision with ZeRO"): parameters and gradients are
     * bf16 wherever they live (the buffers above: float32 holding bf16 values, the CPU's emulation,
     * booked 2 + 2 bytes as lesson 01's), the optimizer steps this float32 master shard (shard_numel,
     * sharded at every stage like m and v) and rounds it into the parameter shard. NULL: float32. */
    float *master;
    /* --hybrid K (HSDP, the README's "Hybrid sharding"): the model is sharded over the K ranks of a
     * node and replicated over the M = N/K nodes. world_size and rank above are then the node's (K, the
     * rank's place in it), coll and host_coll run on shard_comm, and after backward each gradient
     * shard is averaged with its M replicas (the ranks of the same place on the other nodes) on
     * replica_coll. NULL, 0: plain FSDP over every rank. */
    comm_t *shard_comm, *replica_comm;
    comm_t *shard_infra; /* the node's ranks on the bookkeeping communicator: dumps and checkpoints */
    coll_t replica_coll;
    int replicas;    /* M */
    int shard_group; /* this rank's node (0..M-1): node 0 writes the shard checkpoints */
} fsdp_t;

/* ---- your part ---------------------------------------------------------------------------------- */

/* Fill f->units[u] (numel from the model's unit_numel, chunk, shard_offset) and f->shard_numel. */
void fsdp_shard_layout(fsdp_t *f, const model_t *m);
/* Assemble unit u in full (N·c floats) from every rank's shard with lesson 04's all_gather: put this
 * rank's shard at chunk r of `full`, then all-gather. */
void fsdp_gather(fsdp_t *f, coll_t *coll, int u, float *full);
/* full_grad holds this rank's gradient of unit u (N·c, zero padding): average it over the ranks with
 * lesson 04's reduce_scatter (pre-dividing by N) and ADD chunk r into this rank's gradient shard. */
void fsdp_reduce_grads(fsdp_t *f, int u, float *full_grad);
/* Clip the sharded gradients (fsdp_grad_shard(f, u) for every unit u: FSDP's and every ZeRO stage's)
 * with the GLOBAL norm: sqrt of the sum over ranks of each rank's Σ g² over its real (non-padding)
 * elements, summed with one all-reduce. Returns the norm. */
double fsdp_clip(fsdp_t *f, double max_norm);

/* zero_step.c — ZeRO stages 1 and 2, after backward: every rank holds every unit's full parameters
 * (f->gathered[u], N·c floats, padding 0). Stage 1: f->full_grads[u] hold this rank's own gradient of
 * every unit (N·c, padding 0); stage 2: they are gone, already averaged into f->shard_grads. Leave
 * the average over the ranks of chunk r of every unit's gradient in fsdp_grad_shard(f, u) (stage 1),
 * clip with your fsdp_clip (it finds each stage's gradient shards), step the optimizer on chunk r of every unit's parameters only (zero_optim_unit),
 * and all-gather every unit, so that every rank ends with the same, fully updated parameters. */
void zero_step(fsdp_t *f, double max_norm, double lr);

/* ---- given -------------------------------------------------------------------------------------- */

/* Shard the trainer's full model and optimizer state (ZeRO stage 1, 2 or 3), free the full copies,
 * install the hooks. hybrid: 0 (or the world size) shards over every rank; K, stage 3 only, shards
 * over groups of K ranks (--topology's nodes, else K consecutive ranks) and replicates across them. */
void fsdp_init(fsdp_t *f, trainer_t *t, bool prefetch, int zero_stage, int hybrid);
void fsdp_free(fsdp_t *f);
float fsdp_train_step(trainer_t *t, double lr);

/* fsdp.c: where this rank's shards of unit u live, c floats each, whatever the stage.
 * Gradients: chunk r of full_grads[u] (ZeRO stage 1), or its place in shard_grads (stage 2, FSDP). */
float *fsdp_grad_shard(const fsdp_t *f, int u);
/* Parameters: chunk r of gathered[u] (ZeRO stages 1 and 2), or its place in shard_params (FSDP). */
float *fsdp_param_shard(const fsdp_t *f, int u);

/* hsdp.c: --hybrid K. In fsdp_init, before the layout: check K against the job (one line if it cannot
 * be), split the node's and the replicas' communicators, and make f->world_size and f->rank the node's
 * (K = 0 or the world size: nothing, plain FSDP). After backward: average the gradient shard over the
 * replicas. Both do nothing without --hybrid. */
void hsdp_setup(fsdp_t *f, trainer_t *t, int hybrid, int zero_stage);
void hsdp_reduce_replicas(fsdp_t *f);
void hsdp_free(fsdp_t *f);

/* zero.c: the given part of stages 1 and 2. */
/* One optimizer step (AdamW or SGD, the trainer's) of unit u's c elements at `params` with the
 * gradients `grads` and the moments of unit u's place in the rank's optimizer state. Every unit takes
 * the same step t + 1; the trainer's step counts it once, after zero_step. */
void zero_optim_unit(fsdp_t *f, int u, float *params, const float *grads, double lr);
/* Stages 1 and 2 in fsdp_init, after the layout and the sharded optimizer state: the full parameters
 * per unit from the trainer's flat model (and stage 1's full gradients, stage 2's gradient shard). */
void zero_setup(fsdp_t *f, model_t *m);
/* Book (or release) n parameters' or gradients' worth of category c: 4 bytes each in float32; in bf16
 * 2, and the float32 buffer's other 2 as emulation (common/mem.h). */
void fsdp_mem_add(fsdp_t *f, mem_cat_t c, size_t n);
void fsdp_mem_sub(fsdp_t *f, mem_cat_t c, size_t n);
/* dst = src rounded to bf16 (in place when dst == src); a copy in float32. */
void fsdp_round_params(const fsdp_t *f, float *dst, const float *src, size_t n);
void zero_free(fsdp_t *f);
float zero_train_step(trainer_t *t, double lr);
/* The part of a step every stage shares: forward and backward (timed and traced), then `sharded`
 * (the stage's communication and optimizer step, traced as `label`); returns the global mean loss. */
typedef void (*fsdp_sharded_fn)(fsdp_t *f, double lr);
float fsdp_run_step(trainer_t *t, fsdp_sharded_fn sharded, const char *label, double lr);

#endif
