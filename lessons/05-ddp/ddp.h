/* ddp.h — lesson 05: DistributedDataParallel with gradient buckets and overlap.
 *
 * Every rank holds the whole model. Backward produces gradients last layer first; DDP groups them
 * into buckets and all-reduces each bucket as soon as all its gradients are ready, on a
 * communication thread, while backward goes on computing the earlier layers:
 *
 *   compute  [fwd][bwd head][bwd h.2][bwd h.1][bwd h.0][wte]   [clip+step]
 *   comm                   [all-reduce bucket 0     ][all-reduce bucket 1 ]
 *                                                                  ▲ finish: wait for all buckets
 *
 * The gradients already live in one flat array in registration order; a bucket is a run of
 * consecutive parameters taken in REVERSE registration order (the order backward produces them), so
 * every bucket is a contiguous slice of that array — the "gradient_as_bucket_view" design: no
 * copies into and out of separate bucket buffers. */
#ifndef DPC_DDP_H
#define DPC_DDP_H

#include "collective.h"
#include "trainer.h"

#include <pthread.h>
#include <stdbool.h>

#define DDP_MIB (1024.0 * 1024.0)
/* PyTorch's defaults: with bucket_cap_mb left unset (None) the buckets are capped at 25 MiB and the
 * first one at _DEFAULT_FIRST_BUCKET_BYTES = 1 MiB (2^20 bytes, not 10^6), so that communication
 * starts early. An explicit bucket_cap_mb caps every bucket, the first included. */
#define DDP_DEFAULT_BUCKET_CAP_MB 25
#define DDP_FIRST_BUCKET_BYTES    (1024 * 1024) /* PyTorch's _DEFAULT_FIRST_BUCKET_BYTES */

typedef struct {
    int first_param, last_param; /* parameters last_param, last_param-1, ..., first_param */
    size_t offset, count;        /* the bucket's slice of the flat gradient array (elements) */
    int pending;                 /* gradients of this bucket not yet ready in this backward */
} ddp_bucket_t;

typedef struct ddp ddp_t;

/* An all-reduce a later lesson adds to --allreduce's choices (lesson 11's "hier", built on the
 * node's and the nodes' sub-communicators). Lesson 05 knows none by name: a program hands its own
 * to ddp_cli_options_ext. setup runs once, on the main thread, after ddp_init and before the first
 * step (the communication thread is idle until the first launch): it builds what fn needs on the
 * thread's coll_t (in coll->ext, on coll->comm). teardown undoes it in ddp_free. */
typedef struct {
    const char *name;
    allreduce_fn fn;
    void (*setup)(coll_t *coll);
    void (*teardown)(coll_t *coll);
} ddp_allreduce_ext_t;

struct ddp {
    trainer_t *t;
    int world_size, rank;
    /* buckets, in launch order */
    int nbuckets;
    ddp_bucket_t *buckets;
    int *bucket_of;                  /* parameter index -> bucket index */
    int next_bucket;                 /* the next bucket to launch in this backward */
    bool require_backward_grad_sync; /* false inside no_sync (lesson 06) */
    bool overlap;                    /* false: launch every bucket only at finish (to measure what overlap buys) */
    /* launching: ddp_launch by default; the grader swaps in a recorder */
    void (*launch)(ddp_t *d, int bucket);
    /* the communication thread and its queue of launched buckets */
    allreduce_fn allreduce;
    comm_t *comm; /* the thread's own communicator (a dup of t->comm; same counters) */
    coll_t coll;
    /* On a GPU the thread works on its own stream (comm_ops) — the "communication stream". Launching
     * bucket b records ready[b] on the compute stream; the comm stream waits for it before the
     * all-reduce and records done[b] after; ddp_wait_all makes the compute stream wait for every
     * done[b]. Events order the two streams on the device: no device-wide synchronisation in a step.
     * On the CPU comm_ops is t->ops and the events are NULL (no-ops). */
    ops_t *comm_ops;
    ops_event_t **ready, **done;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int *queue; /* bucket indices in launch order (this backward) */
    int queued, completed;
    int waited; /* launches ddp_wait_all has waited for: ddp_reset refuses to forget any other */
    /* ddp_forward_backward's backward has ended (backward_ended), and ddp_reset has run since
     * (finished): a launch then comes after ddp_finish's wait, and ddp_launch refuses it */
    bool backward_ended, finished;
    bool stop, thread_started;
    /* what happened, for the grader: the launch order of the last backward */
    int *launch_log;
    int nlaunched;
    /* the --allreduce of a later lesson, when chosen (its teardown runs in ddp_free); else NULL */
    const ddp_allreduce_ext_t *ext;
};

/* Build the buckets: walk the parameters in reverse registration order, adding each parameter's
 * gradient bytes to the open bucket; close the bucket when its size reaches its cap (>=). The
 * first bucket closed has cap first_bucket_bytes_cap, every later one bucket_bytes_cap (PyTorch's
 * Reducer arguments of the same names). */
void ddp_assign_buckets(ddp_t *d, const flat_layout_t *layout, size_t bucket_bytes_cap, size_t first_bucket_bytes_cap);

/* The gradient-ready hook (model_backward calls it with the parameter index). */
void ddp_grad_ready(void *ddp, int param_index);
/* After backward: every bucket launched; wait for all of them, in order; reset for the next
 * backward. */
void ddp_finish(ddp_t *d);

/* ---- given: construction, the communication thread, the training step ------------------------ */

/* Broadcast rank 0's parameters to every rank, build the buckets, start the communication thread. */
void ddp_init(ddp_t *d, trainer_t *t, size_t bucket_bytes_cap, size_t first_bucket_bytes_cap, allreduce_fn allreduce);
void ddp_free(ddp_t *d);
/* Hand bucket b to the communication thread (asynchronous: returns at once). */
void ddp_launch(ddp_t *d, int b);
/* Block until every launched bucket's all-reduce has finished. */
void ddp_wait_all(ddp_t *d);
/* Reset the per-backward state (pending counts, next bucket, launch log). Stops with one line when a
 * launched bucket has not been waited for (ddp_wait_all first): its all-reduce would still be running. */
void ddp_reset(ddp_t *d);
/* One DDP training step (t->ext points at the ddp_t). */
float ddp_train_step(trainer_t *t, double lr);
/* Its first half: zero the gradients, forward, backward with the hook launching the buckets, and
 * ddp_finish (traced); returns this rank's loss. Lesson 10's noise scale wraps it. */
float ddp_forward_backward(ddp_t *d);
/* Write the buckets and the launch order of the last step as JSON (for the grader). */
void ddp_write_log(const ddp_t *d, const char *path);

/* The options of a DDP program (bucket_cap_mb, allreduce, overlap, init seeds); call before
 * trainer_init, then ddp_setup after it. */
typedef struct {
    double bucket_cap_mb; /* 0: unset (PyTorch's None): 25 MiB, with a 1 MiB first bucket */
    const char *allreduce;
    bool no_overlap;
    bool init_seed_per_rank;
    const char *ddp_log;
    const char *reduce_dtype;       /* "fp32", or "bf16": ddp_allreduce_bf16 instead of --allreduce */
    const ddp_allreduce_ext_t *ext; /* one more --allreduce choice (ddp_cli_options_ext), or NULL */
    char choices[96];               /* --allreduce's choices, the extension's included */
} ddp_options_t;
cli_opt_t *ddp_cli_options(ddp_options_t *o);
/* The same, with ext->name one more --allreduce choice (lesson 11's train_ddp: "hier"). */
cli_opt_t *ddp_cli_options_ext(ddp_options_t *o, const ddp_allreduce_ext_t *ext);
void ddp_setup(ddp_t *d, trainer_t *t, const ddp_options_t *o);
/* --reduce-dtype bf16 (ddp_bf16.c): a ring all-reduce with bf16 messages, rounding every hop's sum
 * to bf16, as NCCL's all-reduce of bf16 tensors (REDOP_SUM only, host buffers). */
void ddp_allreduce_bf16(coll_t *coll, float *buf, size_t count, redop_t op);

#endif
