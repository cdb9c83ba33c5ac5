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
 * The all-gather and the reduce-scatter are lesson 04's ring halves. */
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
    int world_size, rank;
    int nunits;
    fsdp_unit_t *units;
    size_t shard_numel; /* Σ chunk over the units */
    float *shard_params, *shard_grads;
    coll_t coll;        /* gathers and scatters on the compute thread */
    coll_t host_coll;   /* the same ranks, host memory: for numbers the host holds (Σ g² in fsdp_clip) */
    float **gathered;   /* per unit: the gathered N·c parameters while alive, else NULL */
    float **full_grads; /* per unit: the N·c gradient while its backward runs, else NULL */
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
/* Clip the sharded gradients with the GLOBAL norm: sqrt of the sum over ranks of each rank's Σ g²
 * over its real (non-padding) elements, summed with one all-reduce. Returns the norm. */
double fsdp_clip(fsdp_t *f, double max_norm);

/* ---- given -------------------------------------------------------------------------------------- */

/* Shard the trainer's full model and optimizer state, free the full copies, install the hooks. */
void fsdp_init(fsdp_t *f, trainer_t *t, bool prefetch);
void fsdp_free(fsdp_t *f);
float fsdp_train_step(trainer_t *t, double lr);

#endif
