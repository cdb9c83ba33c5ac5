/* train.c — lesson 01's program: train the model on one process.
 *
 *   build/lessons/01-trainer/train --steps 1000 --sample 200     (see --help) */
#include "trainer.h"

#include <string.h>

int main(int argc, char **argv) {
    trainer_t t;
    trainer_init(&t, argc, argv, NULL, "train [options]  — the single-device trainer of lesson 01");
    if (t.world_size != 1 && t.rank == 0)
        logger_line(&t.log, "note: lesson 01 trains on one process; the %d ranks each train alone", t.world_size);
    t.mixed_precision_ok = true; /* train_step: forward, backward, clip, optim_step on the whole model */
    trainer_run(&t, t.ops->backend == OPS_CUDA ? train_step_device : train_step);
    trainer_finish(&t);
    return 0;
}
