/* elastic_train.h — the elastic trainer's given half: the fetch that feeds rank r its slice of each
 * step's global batch, and the step that runs the rank's micro-batches with the plan's weights
 * (elastic.h says what the student's plan and resume position mean). */
#ifndef DPC_ELASTIC_TRAIN_H
#define DPC_ELASTIC_TRAIN_H

#include "ddp.h"
#include "elastic.h"

typedef struct {
    ddp_t *ddp;
    elastic_plan_t plan;
    int64_t global_batch; /* B */
    int data_replicas;    /* R0 */
    int micro_cap;
    sampler_t sampler; /* the run's order (R0 replicas): its epoch is the epoch of first_step */
    int64_t steps_per_epoch;
    resume_t start;           /* resume_position's answer */
    uint32_t *list, *scratch; /* G_e of list_epoch (total_size), and one replica's list */
    int64_t list_epoch;
    size_t len; /* examples in the dataset */
} elastic_t;

/* Check the plan and the resume position (one line when they cannot be right), then make t fetch
 * this rank's slices: t->local_batch becomes b_r, t->step the resume step. elastic_train_step then
 * needs t->ext = e (d: the DDP it steps with; NULL under another step, lesson 08's FSDP). */
void elastic_attach(trainer_t *t, elastic_t *e, ddp_t *d);
void elastic_detach(trainer_t *t, elastic_t *e);
/* One optimizer step: the plan's micro-batches, all but the last under no_sync, weighted b_ri·N/B. */
float elastic_train_step(trainer_t *t, double lr);

#endif
