/* train_noise — lesson 10's program: lesson 05's DDP, with the gradient noise scale measured as it
 * trains (--noise-scale).
 *
 *   grading/mpirun -np 4 build/lessons/10-limits/train_noise --batch 8 --noise-scale --loss-csv out/noise.csv
 *
 * --batch is per rank: b = --batch, B = ranks × batch. The loss CSV gets the columns small_sq
 * (|G_b|², the mean over ranks), big_sq (|G_B|²), g2 and trace_sigma (their running averages) and
 * b_simple; --stats a "noise_scale" object with the same per step. */
#include "noise_scale.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    trainer_t t;
    noise_ddp_t nd;
    ddp_options_t o;
    noise_options_t no;
    cli_opt_t *ddp_opts = ddp_cli_options(&o), *opts = noise_cli_options(&no, ddp_opts);
    free(ddp_opts);
    trainer_init(&t, argc, argv, opts,
                 "train_noise [options]  — DDP measuring the gradient noise scale (lesson 10), under mpirun");
    free(opts);
    noise_ddp_setup(&nd, &t, &o, &no);
    trainer_run(&t, noise_ddp_step_logged);
    ddp_write_log(&nd.ddp, o.ddp_log);
    noise_ddp_free(&nd);
    trainer_finish(&t);
    return 0;
}
