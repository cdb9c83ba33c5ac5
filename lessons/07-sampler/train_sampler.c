/* train_sampler — lesson 07's program: DDP (lesson 05) fed by the DistributedSampler.
 *
 *   grading/mpirun -np 3 build/lessons/07-sampler/train_sampler --batch 16 [--no-shuffle] [--drop-last]
 *
 * Equivalent to the single-process reference run with
 *   train --order sampler --sampler-replicas 3 --batch 48   (same seed, same flags). */
#include "ddp.h"

#include <stdlib.h>
#include "sampler_fetch.h"

int main(int argc, char **argv) {
    trainer_t t;
    ddp_t d;
    ddp_options_t o;
    sampler_state_t st;
    cli_opt_t *opts = ddp_cli_options(&o);
    trainer_init(&t, argc, argv, opts,
                 "train_sampler [options]  — DDP over a DistributedSampler (lesson 07), under mpirun");
    free(opts);
    ddp_setup(&d, &t, &o);
    sampler_attach(&t, &st);
    t.mixed_precision_ok = true; /* every replica steps on the whole all-reduced gradient */
    trainer_run(&t, ddp_train_step);
    ddp_write_log(&d, o.ddp_log);
    sampler_detach(&t, &st);
    ddp_free(&d);
    trainer_finish(&t);
    return 0;
}
