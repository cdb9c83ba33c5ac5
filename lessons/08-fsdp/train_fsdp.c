/* train_fsdp — lesson 08's program: fully sharded data-parallel training.
 *
 *   grading/mpirun -np 4 build/lessons/08-fsdp/train_fsdp --preset large --batch 16 --stats out/fsdp.json
 *
 * --zero-stage 1|2|3 (default 3, FSDP): shard the optimizer state (1), and the gradients (2), and the
 * parameters (3). --prefetch gathers the next unit on a second thread while the current one computes.
 * --save writes one shard file per rank; fsdp_consolidate makes one lesson-01 checkpoint of them,
 * and --resume takes such a full checkpoint on ANY number of ranks (an elastic restart). */
#include "fsdp.h"

int main(int argc, char **argv) {
    trainer_t t;
    fsdp_t f;
    bool prefetch = false;
    int zero_stage = 3, hybrid = 0;
    const cli_opt_t mine[] = {
        {"prefetch", CLI_FLAG, &prefetch, "gather the next unit while computing this one (stage 3)"},
        {"zero-stage", CLI_INT, &zero_stage, "1: optimizer state sharded, 2: and gradients, 3: and parameters (FSDP)",
         .min = 1, .max = 3},
        {"hybrid", CLI_INT, &hybrid,
         "K: shard over the K ranks of a node (--topology's, else K consecutive ranks), replicate across nodes "
         "(HSDP; 0: shard over every rank)",
         .min = 0, .max = 4096},
        CLI_END,
    };
    trainer_init(&t, argc, argv, mine, "train_fsdp [options]  — FSDP training (lesson 08), under mpirun");
    fsdp_init(&f, &t, prefetch, zero_stage, hybrid);
    trainer_run(&t, fsdp_train_step);
    fsdp_free(&f);
    trainer_finish(&t);
    return 0;
}
