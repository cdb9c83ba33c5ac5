/* train_ddp — lesson 05's program: DistributedDataParallel training.
 *
 *   grading/mpirun -np 4 build/lessons/05-ddp/train_ddp --batch 16 --bucket-cap-mb 1 \
 *       --link pcie --trace out/ddp_trace.json
 *
 * --batch is per rank (global batch = ranks × batch). See --help for the DDP options. */
#include "ddp.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    trainer_t t;
    ddp_t d;
    ddp_options_t o;
    cli_opt_t *opts = ddp_cli_options(&o);
    trainer_init(&t, argc, argv, opts, "train_ddp [options]  — DDP training (lesson 05), under mpirun");
    free(opts);
    ddp_setup(&d, &t, &o);
    t.mixed_precision_ok = true; /* every replica steps on the whole all-reduced gradient */
    trainer_run(&t, ddp_train_step);
    ddp_write_log(&d, o.ddp_log);
    ddp_free(&d);
    trainer_finish(&t);
    return 0;
}
