/* train_accum — lesson 06's program: DDP with gradient accumulation.
 *
 *   grading/mpirun -np 2 build/lessons/06-accum/train_accum --batch 48 --accum-steps 4
 *
 * --batch is the examples per rank per OPTIMIZER step (global batch = ranks × batch); each step
 * runs --accum-steps micro-batches of about batch / accum-steps examples. */
#include "accum.h"

#include <string.h>

#include "util.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    trainer_t t;
    ddp_t d;
    ddp_options_t o;
    accum_t a = {&d, 1};
    const cli_opt_t mine[] = {
        {"accum-steps", CLI_INT, &a.accum_steps, "micro-batches per optimizer step (k)", .min = 1, .max = 1 << 20},
        CLI_END,
    };
    cli_opt_t *ddp_opts = ddp_cli_options(&o), *opts = cli_join(ddp_opts, mine);
    trainer_init(&t, argc, argv, opts,
                 "train_accum [options]  — DDP with gradient accumulation (lesson 06), under mpirun");
    free(opts);
    free(ddp_opts);
    if (a.accum_steps > t.local_batch)
        dp_fatal("--accum-steps %d is more than the %d examples per rank (--batch): some micro-batches would be "
                 "empty; use --accum-steps <= --batch",
                 a.accum_steps, t.local_batch);
    if (a.accum_steps > 1 && !strcmp(t.cfg.loss_norm, "tokens"))
        dp_fatal("--loss-norm tokens with --accum-steps %d: the micro-batches are weighted b_i/B by examples, not by "
                 "the positions they predict; use --accum-steps 1 or --loss-norm rank",
                 a.accum_steps);
    ddp_setup(&d, &t, &o);
    t.ext = &a;
    if (t.rank == 0)
        logger_line(&t.log, "accumulation: %d micro-batches of ~%d examples per rank per optimizer step", a.accum_steps,
                    (t.local_batch + a.accum_steps - 1) / a.accum_steps);
    t.mixed_precision_ok = true; /* every replica steps on the whole all-reduced gradient */
    trainer_run(&t, accum_train_step);
    ddp_write_log(&d, o.ddp_log);
    ddp_free(&d);
    trainer_finish(&t);
    return 0;
}
