/* accum.h — lesson 06: gradient accumulation, and no_sync.
 *
 * One optimizer step over k micro-batches:
 *
 *   micro-batch   0            1            ...  k−1
 *   DDP           no_sync      no_sync           sync  ──► all-reduce every bucket once
 *   gradients     g0·w0   +=   g1·w1   +=   ...  g(k−1)·w(k−1)
 *                                                       then clip, optimizer step
 *
 * The first k−1 backward passes run with DDP's require_backward_grad_sync off: the hook does
 * nothing, gradients just accumulate locally. The last one runs with it on: its buckets carry the
 * accumulated sum and are all-reduced as in lesson 05. Communication per optimizer step does not
 * grow with k; the batch does. */
#ifndef DPC_ACCUM_H
#define DPC_ACCUM_H

#include "ddp.h"

typedef struct {
    ddp_t *ddp;
    int accum_steps; /* k */
} accum_t;

/* One optimizer step: t->local_batch examples on this rank, cut into k micro-batches. */
float accum_train_step(trainer_t *t, double lr);

#endif
