/* train_ddp — lesson 11's program: lesson 05's DDP with one more all-reduce, --allreduce hier.
 *
 *   grading/mpirun -np 4 build/lessons/11-topology/train_ddp --allreduce hier --topology 2x2
 *
 * --batch is per rank. Without --topology the nodes are the real machines (one machine: one node,
 * where the hierarchical all-reduce is the flat ring). See --help for the DDP options. */
#include "hier.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    trainer_t t;
    ddp_t d;
    ddp_options_t o;
    cli_opt_t *opts = ddp_cli_options_ext(&o, &hier_ddp_ext);
    trainer_init(&t, argc, argv, opts, "train_ddp [options]  — DDP training (lessons 05, 11), under mpirun");
    free(opts);
    ddp_setup(&d, &t, &o);
    t.mixed_precision_ok = true; /* every replica steps on the whole all-reduced gradient */
    trainer_run(&t, ddp_train_step);
    ddp_write_log(&d, o.ddp_log);
    ddp_free(&d);
    trainer_finish(&t);
    return 0;
}
