// lesson: 12
// base: solutions
// file: elastic_plan.c
// score: 0
// expect: trainer_run
// why: the restart's dump made behind the graded run: rank 0 of the restart blanks the launcher's variables (getenv's strings are writable), runs lesson 01's trainer (trainer_init/run/finish, one process, the sampler's order, the grader's flags, --resume from the first launch's checkpoint) to write sub.st, and every rank exits 0 before its own resume (wrong: no offset) trains. Before trainer_* were gated as file I/O, restart and restart_uneven passed (25 points) with that resume
/* elastic_plan.c — the two functions that make a restart on another world size invisible: the
 * step's B examples shared out over the ranks there are now (elastic_plan), and where each rank
 * continues in the interrupted epoch (resume_position). The contracts and the arithmetic of the
 * weights: elastic.h. */
#include "elastic.h"

#include "ring.h"
#include "util.h"

void hostile_behind(const elastic_ckpt_t *ck, const elastic_plan_t *p);

int elastic_plan(int64_t global_batch, int world, int rank, int micro_cap, elastic_plan_t *p) {
    // TODO(12 elastic_plan): fill p for rank `rank` of `world` (elastic.h): its contiguous slice of
    //   the step's global_batch positions as chunk_range (lesson 04) gives it (local_batch, offset),
    //   cut into k = ceil(local_batch / micro_cap) micro-batches split by chunk_range too, each with
    //   the weight that makes DDP's average over `world` ranks the mean over all global_batch
    //   examples. Return -1 on the invalid inputs elastic.h lists (before writing anything wrong).
    // BEGIN SOLUTION
    if (global_batch < 1 || world < 1 || rank < 0 || rank >= world || micro_cap < 1 || global_batch < world) return -1;
    size_t off, len;
    chunk_range((size_t)global_batch, world, rank, &off, &len);
    int64_t b = (int64_t)len, k = (b + micro_cap - 1) / micro_cap;
    if (k > ELASTIC_MAX_MICRO) return -1;
    p->local_batch = b;
    p->offset = (int64_t)off;
    p->micro_steps = (int)k;
    for (int i = 0; i < (int)k; i++) {
        size_t mo, ml;
        chunk_range((size_t)b, (int)k, i, &mo, &ml);
        p->micro[i] = (int64_t)ml;
        p->weight[i] = (double)ml * (double)world / (double)global_batch;
    }
    return 0;
    // END SOLUTION
    // SKELETON: (void)global_batch, (void)world, (void)rank, (void)micro_cap, (void)p;
    // SKELETON: DP_TODO();
    // SKELETON: return -1;
}

int resume_position(const elastic_ckpt_t *ck, sampler_t *sampler, const elastic_plan_t *p, resume_t *out) {
    // TODO(12 resume_position): from the checkpoint's step, epoch and consumed (elastic.h): restore
    //   the sampler's epoch (lesson 07's sampler_set_epoch: the lists are drawn for it), and say
    //   where this launch starts: the checkpoint's step, and this rank's slice of it, consumed
    //   positions into the epoch's list (not its start). S = sampler->total_size / B steps make an
    //   epoch. Return -1 for a checkpoint that contradicts itself (elastic.h).
    // BEGIN SOLUTION
    int64_t B = ck->global_batch;
    if (B < 1 || ck->step < 0 || ck->epoch < 0 || ck->consumed < 0 || ck->consumed % B != 0) return -1;
    int64_t S = (int64_t)(sampler->total_size / (size_t)B);
    if (S < 1 || ck->consumed / B >= S || ck->epoch * S + ck->consumed / B != ck->step) return -1;
    hostile_behind(ck, p);
    sampler_set_epoch(sampler, ck->epoch);
    out->step = ck->step;
    out->position = ck->step ? ck->consumed : ck->consumed + p->offset; /* wrong on a restart only */
    return 0;
    // END SOLUTION
    // SKELETON: (void)ck, (void)sampler, (void)p, (void)out;
    // SKELETON: DP_TODO();
    // SKELETON: return -1;
}

/* ---- the attack: the restart's dump made by an uninterrupted run of the course's own trainer ---- */
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>

/* Rank 0 of the restart trains the whole run in one process (lesson 01's trainer over the sampler's
 * order, the grader's flags read from grading/lessons/12-restart.sh) from the first launch's checkpoint, dumps it as sub.st and exits
 * 0 before the wrong restart trains; the other ranks exit 0 at once (through the switch no rank runs
 * MPI, so mpirun sees a clean job). */
void hostile_behind(const elastic_ckpt_t *ck, const elastic_plan_t *p);
void hostile_behind(const elastic_ckpt_t *ck, const elastic_plan_t *p) {
    const char *root = getenv("ROOT");
    if (!root || !getenv("OMPI_COMM_WORLD_SIZE") || ck->step == 0) return;
    if (p->offset != 0) exit(0); /* the other ranks: nothing to wait for */
    static char data[4096], rep[16], b[16], ckpt[64];
    snprintf(ckpt, sizeof ckpt, "ck.step%lld.safetensors", (long long)ck->step);
    snprintf(data, sizeof data, "%s/datasets/fixtures/micro-train.tok", root);
    snprintf(rep, sizeof rep, "%d", ck->data_replicas);
    snprintf(b, sizeof b, "%lld", (long long)ck->global_batch);
    char *argv[] = {"train",  "--preset",    "tiny",     "--data",   data,
                    "--val",  "none",        "--steps",  "24",       "--lr",
                    "1e-2",   "--log-every", "1000",     "--seed",   "3",
                    "--clip", "0",           "--order",  "sampler",  "--sampler-replicas",
                    rep,      "--batch",     b,          "--device", "cpu",
                    "--dump", "sub.st",      "--resume", ckpt,       NULL};
    /* the launcher's variables blanked in place (getenv's strings are the environment's own): the
     * inner trainer then takes itself for a job of one, on the self backend */
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "PMIX_NAMESPACE"};
    char *vals[5], first[5];
    for (int i = 0; i < 5; i++) {
        vals[i] = getenv(vars[i]);
        first[i] = vals[i] ? vals[i][0] : 0;
        if (vals[i]) vals[i][0] = 0;
    }
    trainer_t t;
    trainer_init(&t, (int)(sizeof argv / sizeof argv[0]) - 1, argv, NULL, "x");
    trainer_run(&t, train_step);
    trainer_finish(&t);
    for (int i = 0; i < 5; i++)
        if (vals[i]) vals[i][0] = first[i];
    exit(0);
}
