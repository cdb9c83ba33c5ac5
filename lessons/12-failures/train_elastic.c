/* train_elastic — lesson 12's program: DDP whose global batch and data order outlive its world size.
 *
 *   grading/mpirun -np 3 build/lessons/12-failures/train_elastic --batch-global 12 --micro-cap 4 \
 *       --steps 20 --save ck.safetensors --save-every 10
 *   grading/mpirun -np 2 build/lessons/12-failures/train_elastic --batch-global 12 --micro-cap 4 \
 *       --steps 20 --resume ck.step10.safetensors
 *
 * The second launch finishes the run the first would have: the same batches, step for step, as
 *   train --order sampler --sampler-replicas 3 --batch 12        (one process, same seed and flags).
 * --micro-cap bounds the examples of one forward on a rank (its memory); a rank with more than that
 * runs several micro-batches under no_sync.
 *
 * --fsdp trains with lesson 08's FSDP step instead of DDP: one micro-batch a step and the same share
 * on every rank (B a multiple of the world size, B / N <= --micro-cap). Its --save writes shards;
 * fsdp_consolidate makes the full checkpoint a restart on any N takes. */
#include "elastic_train.h"
#include "fsdp.h"

#include "sampler_oracle.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The run's data order from the checkpoint (or, fresh, from this launch): B and R0 are the first
 * launch's. */
static elastic_ckpt_t run_position(trainer_t *t) {
    int B = t->cfg.global_batch;
    elastic_ckpt_t ck = {.step = 0, .epoch = 0, .consumed = 0, .global_batch = B};
    ck.data_replicas = t->cfg.sampler_replicas ? t->cfg.sampler_replicas : t->world_size;
    if (!t->resumed.loaded) return ck;
    if (!t->resumed.has_position)
        dp_fatal("%s holds no data position (epoch, consumed): it was saved before lesson 12's checkpoint "
                 "metadata; resume from a checkpoint a trainer of this course saved since, or start again",
                 t->cfg.resume);
    if (t->resumed.data_replicas < 1)
        dp_fatal("%s was trained in the course's own order, not the DistributedSampler's: the elastic trainer "
                 "cannot continue it",
                 t->cfg.resume);
    if (t->resumed.global_batch != (uint64_t)B)
        dp_fatal("%s was trained with global batch %llu; a restart keeps the run's global batch: use "
                 "--batch-global %llu",
                 t->cfg.resume, (unsigned long long)t->resumed.global_batch,
                 (unsigned long long)t->resumed.global_batch);
    if (t->cfg.sampler_replicas && t->cfg.sampler_replicas != t->resumed.data_replicas)
        dp_fatal("--sampler-replicas %d, but %s was drawn for %d replicas (the first launch's); leave the flag out",
                 t->cfg.sampler_replicas, t->cfg.resume, t->resumed.data_replicas);
    ck.step = t->resumed.step;
    ck.epoch = t->resumed.epoch;
    ck.consumed = t->resumed.consumed;
    ck.data_replicas = t->resumed.data_replicas;
    return ck;
}

/* Whether argv names --NAME (as "--NAME V" or "--NAME=V"): checked before trainer_init, which sizes
 * the data order by the global batch and would otherwise fail on the per-rank default. */
static bool has_option(int argc, char **argv, const char *name) {
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, name, n) && (!argv[i][2 + n] || argv[i][2 + n] == '='))
            return true;
    return false;
}

int main(int argc, char **argv) {
    trainer_t t;
    ddp_t d;
    ddp_options_t o;
    fsdp_t f;
    elastic_t e = {0};
    bool use_fsdp = false;
    /* both point into t.cfg, which trainer_init fills with its defaults before it parses */
    const cli_opt_t mine[] = {
        {"batch-global", CLI_INT, &t.cfg.global_batch,
         "examples per optimizer step over all ranks (B); a restart must give the first launch's", .min = 1,
         .max = 1 << 20},
        {"micro-cap", CLI_INT, &t.cfg.batch, "at most this many examples per forward on a rank (the same as --batch)",
         .min = 1, .max = 1 << 20},
        {"fsdp", CLI_FLAG, &use_fsdp, "lesson 08's FSDP step instead of DDP (equal shares, one micro-batch a step)"},
        CLI_END,
    };
    dp_set_progname(argv[0]);
    if (!has_option(argc, argv, "batch-global") && !has_option(argc, argv, "help"))
        cli_usage_error("--batch-global B is required: the examples per step over all ranks, the first launch's");
    cli_opt_t *ddp_opts = ddp_cli_options(&o), *opts = cli_join(ddp_opts, mine);
    trainer_init(&t, argc, argv, opts,
                 "train_elastic [options]  — DDP that restarts on any number of ranks (lesson 12), under mpirun");
    free(opts);
    free(ddp_opts);
    int B = t.cfg.global_batch, N = t.world_size;
    if (B < N)
        dp_fatal("global batch B=%d cannot feed %d ranks: every rank needs an example a step; restart on at most %d "
                 "ranks",
                 B, N, B);
    elastic_ckpt_t ck = run_position(&t);
    e.global_batch = B;
    e.data_replicas = ck.data_replicas;
    e.micro_cap = t.cfg.batch;
    e.len = dataset_num_examples(&t.train, t.cfg.context);
    /* the order the checkpoint's epoch and consumed count refer to: B positions a step over R0 */
    data_order_free(&t.order);
    data_order_init_sampler(&t.order, t.cfg.seed, e.len, (size_t)B, e.data_replicas, !t.cfg.no_shuffle,
                            t.cfg.drop_last);
    if (elastic_plan(B, N, t.rank, e.micro_cap, &e.plan) != 0) {
        int64_t most = (B + N - 1) / N, k = (most + e.micro_cap - 1) / e.micro_cap;
        if (k > ELASTIC_MAX_MICRO)
            dp_fatal("global batch %d on %d rank%s needs %lld micro-batches of at most --micro-cap %d on a rank, more "
                     "than ELASTIC_MAX_MICRO (%d): raise --micro-cap",
                     B, N, N > 1 ? "s" : "", (long long)k, e.micro_cap, ELASTIC_MAX_MICRO);
        dp_fatal("elastic_plan refused B = %d, %d ranks, rank %d, micro cap %d, which are valid", B, N, t.rank,
                 e.micro_cap);
    }
    if (sampler_init(&e.sampler, e.len, e.data_replicas, 0, !t.cfg.no_shuffle, t.cfg.seed, t.cfg.drop_last) != 0)
        dp_fatal("sampler_init refused %zu examples over %d replicas", e.len, e.data_replicas);
    if (resume_position(&ck, &e.sampler, &e.plan, &e.start) != 0)
        dp_fatal("resume_position refused the checkpoint's step %lld, epoch %lld, consumed %lld (B = %d, R0 = %d)",
                 (long long)ck.step, (long long)ck.epoch, (long long)ck.consumed, B, ck.data_replicas);
    if (use_fsdp && (e.plan.micro_steps != 1 || (int64_t)B != e.plan.local_batch * N))
        dp_fatal("--fsdp: lesson 08's step takes the rank's whole share in one forward, the same share on every rank: "
                 "B=%d on %d ranks needs B %% N == 0 and --micro-cap >= B / N",
                 B, N);
    if (use_fsdp)
        fsdp_init(&f, &t, false, 3, 0);
    else
        ddp_setup(&d, &t, &o);
    elastic_attach(&t, &e, use_fsdp ? NULL : &d);
    if (!use_fsdp) t.ext = &e; /* FSDP's step has its own (fsdp_init) */
    if (t.rank == 0)
        logger_line(&t.log, "elastic: global batch %d over %d rank%s (order of %d replicas), from step %lld", B, N,
                    N > 1 ? "s" : "", e.data_replicas, (long long)t.step);
    logger_line(&t.log, "rank %d: %lld examples a step at offset %lld, %d micro-batch%s", t.rank,
                (long long)e.plan.local_batch, (long long)e.plan.offset, e.plan.micro_steps,
                e.plan.micro_steps > 1 ? "es" : "");
    t.mixed_precision_ok = !use_fsdp; /* every replica steps on the whole all-reduced gradient */
    trainer_run(&t, use_fsdp ? fsdp_train_step : elastic_train_step);
    elastic_detach(&t, &e);
    if (use_fsdp) {
        fsdp_free(&f);
    } else {
        ddp_write_log(&d, o.ddp_log);
        ddp_free(&d);
    }
    trainer_finish(&t);
    return 0;
}
