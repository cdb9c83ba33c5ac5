/* elastic.h — lesson 12: a restart on another number of ranks that the run cannot tell from the
 * uninterrupted one.
 *
 * A run is fixed by its first launch: the seed, the global batch B and the data order — lesson 07's
 * DistributedSampler over R0 = the first launch's world size. Epoch e's list G_e is the sampler's
 * whole padded list (rank q of R0 takes G_e[q], G_e[q + R0], ...), and global step s trains on
 *
 *   G_e[j·B .. (j+1)·B)      e = s / S, j = s % S, S = total_size / B   (the last partial batch dropped)
 *
 * whatever the world size N — the batches of `train --order sampler --sampler-replicas R0 --batch B`
 * on one process. A checkpoint carries step, epoch e and consumed = j·B (checkpoint.c). After a
 * restart on N ranks, rank r takes the contiguous slice of each step's B positions that chunk_range
 * (lesson 04) gives it, and cuts it into micro-batches of at most micro_cap examples:
 *
 *   B = 12, N = 5:  b = 3 3 2 2 2 (offsets 0 3 6 8 10);  micro_cap 2: rank 0 runs 2 + 1
 *
 * The weights. DDP's all-reduce averages the N ranks' gradients; the step must give the mean over the
 * B examples. Micro-batch i of rank r (b_ri examples, mean loss L_ri) therefore counts with
 *
 *   w_ri = b_ri · N / B         so that   (1/N) Σ_r Σ_i w_ri · L_ri = (1/B) Σ_examples ℓ
 *
 * (1/k is right only when every micro-batch of every rank has the same size; b_ri / b_r, lesson 06's
 * weight, only when every rank has the same b_r). */
#ifndef DPC_ELASTIC_H
#define DPC_ELASTIC_H

#include "sampler.h"

#include <stdint.h>

#define ELASTIC_MAX_MICRO 64

typedef struct {
    int64_t local_batch;              /* b_r: this rank's examples per step */
    int64_t offset;                   /* where its slice starts among the step's B positions */
    int micro_steps;                  /* k_r = ceil(b_r / micro_cap) */
    int64_t micro[ELASTIC_MAX_MICRO]; /* micro-batch i's examples: chunk_range(b_r, k_r, i) */
    double weight[ELASTIC_MAX_MICRO]; /* its gradient (and loss) weight, b_ri · N / B */
} elastic_plan_t;

/* Rank `rank` of `world` ranks, global batch global_batch, at most micro_cap examples per forward.
 * Returns 0 with *p filled; -1 (p left unspecified) when global_batch < 1, world < 1, rank outside
 * [0, world), micro_cap < 1, global_batch < world (a rank would get no example), or k_r above
 * ELASTIC_MAX_MICRO. */
int elastic_plan(int64_t global_batch, int world, int rank, int micro_cap, elastic_plan_t *p);

/* What a checkpoint says about the data (its metadata; a fresh start is step 0, epoch 0, consumed 0). */
typedef struct {
    int64_t step;         /* the next global step to run */
    int64_t epoch;        /* the epoch that step belongs to */
    int64_t consumed;     /* positions of G_epoch already trained on: (step % S) · B */
    int64_t global_batch; /* B */
    int data_replicas;    /* R0 */
} elastic_ckpt_t;

typedef struct {
    int64_t step;     /* the first step this launch runs */
    int64_t position; /* this rank's first position in G_epoch at that step */
} resume_t;

/* Where this rank continues. sampler is freshly initialised for the run's order (R0 replicas, rank
 * 0, epoch 0) and is the one the trainer will draw the lists from: on return its epoch is the
 * checkpoint's. out->step is the checkpoint's step, out->position the rank's slice of the first step
 * to run (not the epoch's start). Returns 0; -1 when the checkpoint contradicts itself: a negative
 * field, B < 1, consumed not a multiple of B or not before the epoch's end (consumed / B < S, with
 * S = sampler->total_size / B steps an epoch), or a step that is not where epoch and consumed put
 * it (step != epoch·S + consumed / B). */
int resume_position(const elastic_ckpt_t *ck, sampler_t *sampler, const elastic_plan_t *p, resume_t *out);

/* How often to checkpoint. C: seconds to write one checkpoint; MTBF: mean seconds between failures
 * (of the whole job); tau: seconds of work between checkpoints.
 *
 * The model (first order, C and tau small beside MTBF): a failure strikes on average halfway through
 * an interval, so it loses tau/2 of work to redo; and between two failures (MTBF seconds) the job
 * writes MTBF/tau checkpoints of C seconds each. The time lost per failure is
 *
 *   lost(tau) = tau/2 + C · MTBF / tau          (its fraction of the run: C/tau + tau/(2·MTBF))
 *
 * smallest at tau* = sqrt(2 · C · MTBF) (Young's interval; Daly's refinements are second order).
 * Both return NAN for an argument that is not finite and > 0. */
double young_daly_interval(double checkpoint_cost_s, double mtbf_s);
double expected_lost_work(double interval_s, double checkpoint_cost_s, double mtbf_s);

#endif
