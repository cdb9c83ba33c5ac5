/* sampler_fetch.h — plug the lesson-07 sampler into the shared trainer. */
#ifndef DPC_SAMPLER_FETCH_H
#define DPC_SAMPLER_FETCH_H

#include "sampler.h"
#include "trainer.h"

typedef struct {
    sampler_t sampler;
    uint32_t *indices;      /* this rank's list of the current epoch */
    size_t steps_per_epoch; /* num_samples / batch: DataLoader's drop_last=True */
    size_t len;             /* the dataset's examples: every index must be below it */
    int64_t epoch;
} sampler_state_t;

void sampler_attach(trainer_t *t, sampler_state_t *st);
void sampler_detach(trainer_t *t, sampler_state_t *st);

#endif
