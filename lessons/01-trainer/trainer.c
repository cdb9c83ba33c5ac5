/* trainer.c — the shared training loop: options, set-up, the step loop, evaluation, and the files a
 * run leaves behind (loss CSV, dump for the grader, stats, trace). */
#define _POSIX_C_SOURCE 200809L
#include "trainer.h"

#include "loader.h"
#include "loss_csv.h"
#include "output.h"
#include "safetensors.h"
#include "sampler_oracle.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int context, embed, hidden, layers;
    const char *what;
} preset_t;

static const preset_t presets[] = {
    {"tiny", 8, 8, 32, 2, "~4 thousand parameters: gradient checks and fast grading"},
    {"small", 8, 16, 128, 2, "~40 thousand parameters: multi-rank tests"},
    {"default", 16, 48, 1024, 3, "~2.9 million parameters: tens of ms per step on one core"},
    {"large", 16, 64, 2048, 6, "~23 million parameters: memory and bucketing demonstrations"},
    {0, 0, 0, 0, 0, 0},
};

static void defaults(trainer_config_t *c) {
    memset(c, 0, sizeof *c);
    c->data = "build/data/words-train.tok";
    c->val = "build/data/words-val.tok";
    c->model = "mlp";
    c->preset = "default";
    c->context = c->embed = c->hidden = c->layers = 0; /* 0: from the preset */
    c->batch = 64;
    c->steps = 1000;
    c->optimizer = "adamw";
    c->lr = 1e-3;
    c->min_lr_ratio = 0.1;
    c->weight_decay = 0.01;
    c->beta1 = 0.9;
    c->beta2 = 0.999;
    c->eps = 1e-8;
    c->momentum = 0.0;
    c->clip = 1.0;
    c->warmup = 0;
    c->seed = 1;
    c->order = "random";
    c->sampler_replicas = 0;
    c->log_every = 100;
    c->eval_every = 0;
    c->eval_batches = 20;
    c->sample = 0;
    c->device = "cpu";
    c->threads = 1;
    c->mixed_precision = "none";
    c->examples = "windows";
    c->loss_norm = "rank";
    comm_opts_default(&c->comm);
}

static cli_opt_t *options(trainer_config_t *c) {
    const cli_opt_t table[] = {
        {"data", CLI_STRING, &c->data, "training set (.tok, see datasets/README.md)"},
        {"val", CLI_STRING, &c->val, "validation set, or 'none'"},
        {"model", CLI_CHOICE, &c->model,
         "the network: the MLP, or a GPT whose preset fixes context, channels, heads and blocks (vocabulary from "
         "--data)",
         .choices = "mlp|gpt-tiny|gpt-mini|gpt-small"},
        {"preset", CLI_CHOICE, &c->preset, "the MLP's size", .choices = "tiny|small|default|large"},
        {"context", CLI_INT, &c->context, "the MLP's context length T (0: from --preset)", .min = 0, .max = 1024},
        {"embed", CLI_INT, &c->embed, "the MLP's embedding width E (0: from --preset)", .min = 0, .max = 65536},
        {"hidden", CLI_INT, &c->hidden, "the MLP's hidden width H (0: from --preset)", .min = 0, .max = 65536},
        {"layers", CLI_INT, &c->layers, "the MLP's hidden layers L (0: from --preset)", .min = 0, .max = 256},
        {"batch", CLI_INT, &c->batch, "examples per step on each rank", .min = 1, .max = 1 << 20},
        {"steps", CLI_INT, &c->steps, "optimizer steps in all", .min = 0, .max = 1 << 30},
        {"optimizer", CLI_CHOICE, &c->optimizer, "update rule", .choices = "adamw|sgd"},
        {"lr", CLI_FLOAT, &c->lr, "peak learning rate", .min = 0, .max = 100},
        {"warmup", CLI_INT, &c->warmup, "linear warmup steps", .min = 0, .max = 1 << 30},
        {"min-lr-ratio", CLI_FLOAT, &c->min_lr_ratio, "cosine decay floor, as a fraction of --lr", .min = 0, .max = 1},
        {"weight-decay", CLI_FLOAT, &c->weight_decay, "AdamW decoupled / SGD L2 weight decay", .min = 0, .max = 10},
        {"beta1", CLI_FLOAT, &c->beta1, "AdamW beta1", .min = 0, .max = 0.999999},
        {"beta2", CLI_FLOAT, &c->beta2, "AdamW beta2", .min = 0, .max = 0.99999999},
        {"eps", CLI_FLOAT, &c->eps, "AdamW epsilon", .min = 1e-30, .max = 1,
         .why = "m / (sqrt(v) + eps) is 0/0, NaN, for a weight whose gradient has always been 0"},
        {"momentum", CLI_FLOAT, &c->momentum, "SGD momentum", .min = 0, .max = 0.999999},
        {"clip", CLI_FLOAT, &c->clip, "max global gradient norm (0: no clipping)", .min = 0, .max = 1e9},
        {"seed", CLI_U64, &c->seed, "seed of the initial parameters and of the data order"},
        {"order", CLI_CHOICE, &c->order, "example order: the course's own, or PyTorch's DistributedSampler",
         .choices = "random|sampler"},
        {"sampler-replicas", CLI_INT, &c->sampler_replicas, "--order sampler: its num_replicas (0: the world size)",
         .min = 0, .max = 1 << 20},
        {"examples", CLI_CHOICE, &c->examples,
         "fixed windows of the context, or each record of the data (a word, a fortune) as a variable-length "
         "example (a GPT only; common/records.h)",
         .choices = "windows|records"},
        {"group-by-length", CLI_INT, &c->group_by_length,
         "--examples records: sort each run of this many global batches by length (0: no grouping)", .min = 0,
         .max = 1 << 20},
        {"pad-to-context", CLI_FLAG, &c->pad_to_context,
         "--examples records: pad every batch to the whole context instead of its longest example"},
        {"loss-norm", CLI_CHOICE, &c->loss_norm,
         "rank: each rank averages over its own positions (DDP's default); tokens: weight ranks by their "
         "positions, so the loss is the global batch's mean",
         .choices = "rank|tokens"},
        {"no-shuffle", CLI_FLAG, &c->no_shuffle, "--order sampler: shuffle=False"},
        {"drop-last", CLI_FLAG, &c->drop_last, "--order sampler: drop_last=True"},
        {"prefetch-depth", CLI_INT, &c->prefetch_depth,
         "batches the data loader prepares ahead, on its own thread (0: each step fetches its own)", .min = 0,
         .max = 64},
        {"loader-delay-ms", CLI_FLOAT, &c->loader_delay_ms,
         "an emulated slow data source: the loader sleeps this long per batch", .min = 0, .max = 60000},
        {"log-every", CLI_INT, &c->log_every, "print a line every N steps", .min = 1, .max = 1 << 30},
        {"eval-every", CLI_INT, &c->eval_every, "validation loss every N steps (0: at the end only)", .min = 0,
         .max = 1 << 30},
        {"eval-batches", CLI_INT, &c->eval_batches, "validation batches per evaluation", .min = 1, .max = 1 << 20},
        {"save", CLI_STRING, &c->save, "write a checkpoint here at the end (and every --save-every)"},
        {"save-every", CLI_INT, &c->save_every,
         "also checkpoint every N steps, to SAVE with .stepN before the extension", .min = 0, .max = 1 << 30},
        {"resume", CLI_STRING, &c->resume, "continue from this checkpoint"},
        {"dump", CLI_STRING, &c->dump, "write losses, first-step gradients and final parameters (for the grader)"},
        {"loss-csv", CLI_STRING, &c->loss_csv,
         "write step,loss,lr,val_loss here, a row per step as it ends (a --resume continues the file)"},
        {"stats", CLI_STRING, &c->stats, "write per-rank traffic, memory and timing (JSON) here"},
        {"trace", CLI_STRING, &c->trace, "write a Chrome trace (open in ui.perfetto.dev) here"},
        {"sample", CLI_INT, &c->sample, "print this many sampled characters at the end", .min = 0, .max = 1 << 20},
        {"sample-out", CLI_STRING, &c->sample_out, "write the samples to this file instead"},
        {"device", CLI_CHOICE, &c->device, "where the math runs", .choices = "cpu|cuda", .env = "DP_DEVICE"},
        {"threads", CLI_INT, &c->threads,
         "threads per rank for the CPU ops (the GEMMs and the other loops; the same bits for any count)", .min = 1,
         .max = 256},
        {"mixed-precision", CLI_CHOICE, &c->mixed_precision,
         "forward and backward on parameters rounded to bf16 or fp16 (fp16: with dynamic loss scaling), "
         "float32 master weights and optimizer state; on a GPU the GEMMs take 16-bit operands and add in float32",
         .choices = "none|bf16|fp16"},
        {"straggler", CLI_STRING, &c->straggler,
         "RANK:FACTOR: that rank's compute takes FACTOR times as long (it sleeps after computing; lesson 10)"},
        {"jitter", CLI_STRING, &c->jitter,
         "exp:MEAN_MS or lognormal:MEAN_MS:SIGMA: a seeded random delay added to every rank's compute each step "
         "(lesson 10)"},
        {"fail", CLI_STRING, &c->fail,
         "RANK:STEP: that rank dies (SIGKILL, as a lost node) at the start of step STEP, once the checkpoints of "
         "the steps before are on disk (lesson 12)"},
        CLI_END,
    };
    cli_opt_t *comm = comm_cli_opts(&c->comm), *all = cli_join(table, comm);
    free(comm);
    return all;
}

/* The model's sizes: the MLP's from --preset and the size flags; a GPT's from its preset, with the
 * vocabulary of the data (known later: mc->vocab is set by the caller). c->context becomes the GPT's
 * block size, so that the data pipeline cuts windows of that length. */
static void apply_preset(trainer_config_t *c, model_config_t *mc) {
    if (strcmp(c->model, "mlp") != 0) {
        const char *size_flag = c->context  ? "--context"
                                : c->embed  ? "--embed"
                                : c->hidden ? "--hidden"
                                : c->layers ? "--layers"
                                            : NULL;
        if (size_flag)
            cli_usage_error("%s sizes the MLP; --model %s has its preset's sizes (see lessons/01-trainer/gpt.h)",
                            size_flag, c->model);
        if (model_gpt_preset(c->model, 0, mc) != 0) cli_usage_error("--model %s is not a preset of gpt.h", c->model);
        c->context = mc->context;
        return;
    }
    model_config_t p = {0};
    trainer_mlp_preset(c->preset, &p); /* --preset is a CLI_CHOICE: always one of the table's */
    if (!c->context) c->context = p.context;
    if (!c->embed) c->embed = p.embed;
    if (!c->hidden) c->hidden = p.hidden;
    if (!c->layers) c->layers = p.layers;
    *mc = (model_config_t){0, c->context, c->embed, c->hidden, c->layers, MODEL_MLP, 0};
}

int trainer_mlp_preset(const char *name, model_config_t *mc) {
    for (const preset_t *p = presets; p->name; p++)
        if (!strcmp(p->name, name)) {
            *mc = (model_config_t){0, p->context, p->embed, p->hidden, p->layers, MODEL_MLP, 0};
            return 0;
        }
    return -1;
}

static bool is_none(const char *path) { return !path || !strcmp(path, "none"); }

/* Every file the run will write, checked before the data is even loaded: an unwritable --stats
 * found after an hour of training would lose the hour. Rank 0 writes them (FSDP's shards go next
 * to --save on every rank, in the same directory); its dp_fatal ends the other ranks too. */
static void check_outputs(const trainer_config_t *c) {
    dp_check_output_file("--save", c->save);
    dp_check_output_file("--dump", c->dump);
    dp_check_output("--loss-csv", c->loss_csv);
    dp_check_output("--stats", c->stats);
    dp_check_output("--trace", c->trace);
    if (c->trace) {
        char tsv[4096];
        snprintf(tsv, sizeof tsv, "%s.tsv", c->trace);
        dp_check_output("--trace", tsv);
    }
    if (c->sample > 0) dp_check_output("--sample-out", c->sample_out);
}

/* --fail RANK:STEP, both whole decimal numbers (STEP from 1, as the log counts steps). The world
 * size and --steps are checked once they are known (trainer_init). */
static void parse_fail(trainer_t *t) {
    t->fail_rank = -1;
    const char *spec = t->cfg.fail;
    if (!spec || !strcmp(spec, "none")) return;
    char *end;
    errno = 0;
    long rank = strtol(spec, &end, 10);
    bool ok = end != spec && *end == ':' && spec[0] >= '0' && spec[0] <= '9' && errno == 0 && rank <= 1 << 20;
    const char *s = end + 1;
    long long step = ok ? strtoll(s, &end, 10) : 0;
    ok = ok && end != s && !*end && s[0] >= '0' && s[0] <= '9' && errno == 0 && step >= 1;
    if (!ok)
        cli_usage_error("--fail expects RANK:STEP, a rank and a step from 1 (e.g. 2:30: rank 2 dies at the start of "
                        "step 30), got '%s'",
                        spec);
    t->fail_rank = (int)rank;
    t->fail_step = step;
}

/* Lesson 12's injected failure, at the start of step s (0-based; the log's step s + 1). Every rank
 * first waits for the others at a barrier, so that the checkpoint of the step before (written by
 * rank 0, or by every rank for FSDP's shards) is on disk before anyone dies: a death in the middle
 * of a save is real, but not what --fail is for (the atomic rename covers it). Then the rank says
 * one line and sends itself SIGKILL rather than calling exit: no atexit handler, no comm_finalize,
 * no flushing of anything but that line — what the OOM killer or a lost node leaves, and exactly
 * what a `kill -9` from outside leaves, so the launcher sees one kind of death for both. */
static void maybe_fail(trainer_t *t, int64_t s) {
    if (t->fail_rank < 0 || s + 1 != t->fail_step) return;
    comm_barrier(t->infra);
    if (t->rank != t->fail_rank) return;
    fprintf(stderr, "%s: rank %d: --fail %s: dying at the start of step %lld (SIGKILL, as a lost node)\n",
            dp_progname(), t->rank, t->cfg.fail, (long long)t->fail_step);
    fflush(stdout);
    fflush(stderr);
    raise(SIGKILL);
}

/* Only the files a run writes are touched by rank 0; every rank reads the inputs. */
/* --trace under --topology: every message sent, on the track of the link it took ("intra" inside a
 * node, "inter" across), named by its peer and size. */
static void trace_message(void *ctx, int world_peer, size_t bytes, link_class_t cls, double t0, double t1) {
    char name[TRACE_NAME];
    snprintf(name, sizeof name, "to %d, %zu B", world_peer, bytes);
    trace_span(ctx, cls == LINK_INTER ? "inter" : "intra", name, t0, t1);
}

void trainer_init(trainer_t *t, int argc, char **argv, const cli_opt_t *extra, const char *usage) {
    memset(t, 0, sizeof *t);
    trainer_config_t *c = &t->cfg;
    defaults(c);
    cli_opt_t *opts = options(c);
    if (extra) {
        cli_opt_t *all = cli_join(opts, extra);
        free(opts);
        opts = all;
    }
    cli_parse(argc, argv, opts, usage);
    free(opts);
    char why[256];
    if (straggler_parse(c->straggler, &t->straggler, why, sizeof why) != 0 ||
        jitter_parse(c->jitter, &t->jitter, why, sizeof why) != 0)
        cli_usage_error("%s", why);
    parse_fail(t);
    model_config_t mc;
    apply_preset(c, &mc);

    t->comm = comm_init(&argc, &argv, &c->comm);
    t->infra = comm_dup(t->comm, "infra", false);
    comm_set_emulated(t->infra, false); /* bookkeeping is not part of what the emulator models */
    t->rank = comm_rank(t->comm);
    t->world_size = comm_world_size(t->comm);
    if (t->straggler.rank >= t->world_size)
        cli_usage_error("--straggler %s: there is no rank %d in a world of %d rank%s; pick one of 0..%d", c->straggler,
                        t->straggler.rank, t->world_size, t->world_size > 1 ? "s" : "", t->world_size - 1);
    if (t->fail_rank >= t->world_size)
        cli_usage_error("--fail %s: there is no rank %d in a world of %d rank%s; pick one of 0..%d", c->fail,
                        t->fail_rank, t->world_size, t->world_size > 1 ? "s" : "", t->world_size - 1);
    if (t->fail_rank >= 0 && t->fail_step > c->steps)
        cli_usage_error("--fail %s: step %lld is after the last step (--steps %d); pick one of 1..%d", c->fail,
                        (long long)t->fail_step, c->steps, c->steps);
    if (t->rank == 0) check_outputs(c);
    t->local_batch = c->batch;
    mem_init(&t->mem);
    if (c->trace) t->trace = trace_new(t->rank);
    if (t->trace && comm_has_topology(t->comm)) comm_set_message_hook(t->comm, trace_message, t->trace);

    dataset_load(c->data, &t->train);
    if (!is_none(c->val)) {
        dataset_load(c->val, &t->val);
        if (t->val.vocab_size != t->train.vocab_size || memcmp(t->val.vocab, t->train.vocab, t->train.vocab_size))
            dp_fatal("%s and %s have different vocabularies; build both with the same tool", c->data, c->val);
    }
    bool records = !strcmp(c->examples, "records");
    if (!records && (c->group_by_length || c->pad_to_context))
        cli_usage_error("--group-by-length and --pad-to-context are for --examples records");
    if (records && strcmp(c->model, "mlp") == 0)
        cli_usage_error("--examples records needs a GPT (--model gpt-tiny, ...): the MLP predicts one token per "
                        "window");
    if (records && strcmp(c->order, "random"))
        cli_usage_error("--examples records takes the course's order (--order random), not the sampler's");
    if (records) {
        records_index(&t->train, &t->train_records);
        if (t->val.tokens) records_index(&t->val, &t->val_records);
    }
    size_t global = c->global_batch > 0 ? (size_t)c->global_batch : (size_t)c->batch * (size_t)t->world_size,
           L = records ? t->train_records.n : dataset_num_examples(&t->train, c->context);
    if (!strcmp(c->order, "sampler"))
        data_order_init_sampler(&t->order, c->seed, L, global,
                                c->sampler_replicas ? c->sampler_replicas : t->world_size, !c->no_shuffle,
                                c->drop_last);
    else
        data_order_init(&t->order, c->seed, L, global);
    if (c->group_by_length) {
        t->order.group_records = &t->train_records;
        t->order.group_batches = (size_t)c->group_by_length;
    }

    t->ops = ops_create(!strcmp(c->device, "cuda") ? OPS_CUDA : OPS_CPU, c->threads);
    mc.vocab = (int)t->train.vocab_size;
    mp_dtype_t mpd = mp_dtype_of(c->mixed_precision);
    /* the GEMMs in bf16/fp16 with float32 accumulation (a GPU's; the CPU ignores it: ops.h) */
    if (mpd != MP_NONE) t->ops->gemm_dtype = mp_half_type(mpd);
    if (mpd == MP_NONE) {
        model_init(&t->model, &mc, t->ops, c->batch, c->seed, &t->mem);
    } else {
        /* the float32 model keeps its own books; t->mem gets mixed precision's (mixed_precision.h) */
        t->mp = dp_calloc(1, sizeof *t->mp);
        model_init(&t->model, &mc, t->ops, c->batch, c->seed, &t->mp->model_mem);
        mp_init(t->mp, mpd, &t->model, &t->mem, t->rank);
        t->model.mp = t->mp;
    }
    t->model.trace = t->trace;
    t->model.pad_to_context = c->pad_to_context;
    size_t n = model_num_params(&t->model);
    optim_init_on(&t->optim, !strcmp(c->optimizer, "sgd") ? OPTIM_SGD : OPTIM_ADAMW, n, t->ops);
    if (mpd == MP_FP16) t->optim.scaler = &t->mp->scaler;
    t->optim.adamw = (adamw_hparams_t){c->beta1, c->beta2, c->eps, c->weight_decay};
    t->optim.sgd = (sgd_hparams_t){c->momentum, c->weight_decay};
    mem_add(&t->mem, MEM_OPTIM, n * sizeof(float) * (t->optim.kind == OPTIM_ADAMW ? 2 : 1));

    t->global_idx = dp_malloc(global * sizeof(uint32_t));
    t->ctx = dp_malloc((size_t)c->batch * (size_t)c->context * sizeof(int32_t));
    t->targets = dp_malloc((size_t)c->batch * sizeof(int32_t));
    t->model.batch_ctx = t->ctx, t->model.batch_targets = t->targets, t->model.batch_examples = c->batch;
    t->losses = dp_calloc((size_t)c->steps + 1, sizeof(float));
    t->step_compute_s = dp_calloc((size_t)c->steps + 1, sizeof(double));
    t->step_wait_s = dp_calloc((size_t)c->steps + 1, sizeof(double));
    t->step_delay_s = dp_calloc((size_t)c->steps + 1, sizeof(double));
    t->data_wait = dp_calloc((size_t)c->steps + 1, sizeof(double));
    if (c->resume) checkpoint_load(t, c->resume);
    logger_init(&t->log, c->log_every, c->steps, t->rank);
    if (t->rank == 0 && t->mp)
        logger_line(&t->log, "mixed precision: %s parameters and gradients, float32 master weights and %s state%s",
                    c->mixed_precision, c->optimizer, mpd == MP_FP16 ? ", dynamic loss scaling from 65536" : "");
    if (t->rank == 0 && mc.kind == MODEL_GPT)
        logger_line(
            &t->log,
            "%s: %zu parameters (%s: context %d, channels %d, heads %d, blocks %d), %d rank%s x batch %d, %s on "
            "%s",
            dp_progname(), n, c->model, mc.context, mc.embed, mc.heads, mc.layers, t->world_size,
            t->world_size > 1 ? "s" : "", c->batch, c->optimizer, c->device);
    else if (t->rank == 0)
        logger_line(&t->log,
                    "%s: %zu parameters (context %d, embed %d, hidden %d, layers %d), %d rank%s x batch %d, %s on %s",
                    dp_progname(), n, c->context, c->embed, c->hidden, c->layers, t->world_size,
                    t->world_size > 1 ? "s" : "", c->batch, c->optimizer, c->device);
}

/* This rank's share of global batch `step`: positions rank, rank + N, rank + 2N, ... (the
 * strided assignment of PyTorch's DistributedSampler). */
static void fetch_default(trainer_t *t, int64_t step, int32_t *ctx, int32_t *targets) {
    data_order_batch(&t->order, (uint64_t)step, t->global_idx);
    int N = t->world_size, B = t->local_batch;
    for (int j = 0; j < B; j++) {
        uint32_t example = t->global_idx[(size_t)j * N + (size_t)t->rank];
        trainer_example(t, &t->train, example, ctx + (size_t)j * t->cfg.context, &targets[j]);
    }
}

int trainer_example(const trainer_t *t, const dataset_t *ds, size_t i, int32_t *ctx, int32_t *target) {
    if (t->train_records.n) /* --examples records */
        return records_example(ds, ds == &t->val ? &t->val_records : &t->train_records, t->cfg.context, i, ctx, target);
    dataset_example(ds, t->cfg.context, i, ctx, target);
    return t->cfg.context;
}

/* --loss-norm tokens (common/records.h): this rank's loss and gradient weighted by N·n_r/Σn, n_r the
 * positions it predicts this step, so that averaging the ranks gives the global batch's mean. */
static void weigh_by_tokens(trainer_t *t) {
    int T = t->cfg.context;
    double mine = 0, all = 0;
    for (int b = 0; b < t->local_batch; b++) {
        const int32_t *x = t->ctx + (size_t)b * T;
        for (int p = 0; p < T; p++) mine += x[p] >= 0 && (p + 1 < T ? x[p + 1] : t->targets[b]) >= 0;
    }
    all = mine;
    if (t->world_size > 1) comm_lib_allreduce(t->infra, &mine, &all, 1, DT_F64, REDOP_SUM);
    if (all <= 0) dp_fatal("step %lld: the global batch has no position to predict", (long long)t->step + 1);
    t->model.loss_weight = (float)(t->world_size * mine / all);
}

static void loader_fetch(void *ctx, int64_t step, int32_t *tokens, int32_t *targets) {
    trainer_t *t = ctx;
    t->fetch(t, step, tokens, targets);
}

float trainer_global_mean(trainer_t *t, float local_mean) {
    if (t->world_size == 1) return local_mean;
    double v = local_mean, sum = 0;
    comm_lib_allreduce(t->infra, &v, &sum, 1, DT_F64, REDOP_SUM);
    return (float)(sum / t->world_size);
}

float trainer_eval(trainer_t *t) {
    if (!t->val.tokens) return NAN;
    int T = t->cfg.context, B = t->eval_batch ? t->eval_batch : t->local_batch;
    size_t n = t->val_records.n ? t->val_records.n : dataset_num_examples(&t->val, T);
    if (n == 0) return NAN;
    float weight = t->model.loss_weight; /* validation is each batch's own mean */
    t->model.loss_weight = 1.0f;
    int32_t *ctx = dp_malloc((size_t)B * T * sizeof(int32_t)), *tg = dp_malloc((size_t)B * sizeof(int32_t));
    double total = 0;
    int batches = t->cfg.eval_batches;
    for (int k = 0; k < batches; k++) {
        /* batch k: consecutive examples, spread over the validation set, identical on every rank */
        size_t start = (size_t)((double)k / batches * (double)n);
        for (int j = 0; j < B; j++) trainer_example(t, &t->val, (start + (size_t)j) % n, ctx + (size_t)j * T, &tg[j]);
        total += model_forward(&t->model, ctx, tg, B);
    }
    free(ctx);
    free(tg);
    t->model.loss_weight = weight;
    return (float)(total / batches);
}

static void default_full(trainer_t *t, const float *src, float *out) {
    size_t n = model_num_params(&t->model);
    if (t->rank == 0) ops_to_host(t->ops, out, src, n);
}

static void full_params_default(trainer_t *t, float *out) { default_full(t, t->model.params, out); }
static void full_grads_default(trainer_t *t, float *out) { default_full(t, t->model.grads, out); }

/* --dump: every rank writes DUMP.examples.RANK, what its first step's forward passes took from the
 * batch (model_t.batch_hash, batch_seen): summed over the ranks it must be the reference's, or the
 * run trained on other examples — the data order, not the arithmetic (grading/equiv.c). */
static void write_step_examples(const trainer_t *t) {
    char path[1024];
    snprintf(path, sizeof path, "%s.examples.%d", t->cfg.dump, t->rank);
    /* the grader's side note, not the run's result: a run that cannot write it goes on (the grader
     * then says nothing about the examples), with one line saying so */
    dp_mkdir_for(path); /* the dump's folder may not exist yet: rank 0 makes it only at the end */
    FILE *f = fopen(path, "w");
    int ok = f && fprintf(f, "%llu %lld\n", (unsigned long long)t->model.batch_hash, t->model.batch_seen) > 0;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "%s: warning: cannot write %s: %s\n", dp_progname(), path, strerror(errno));
}

static void write_dump(trainer_t *t, int64_t first, int64_t last) {
    const flat_layout_t *L = &t->model.layout;
    float *params = t->rank == 0 ? dp_malloc(L->numel * sizeof(float)) : NULL;
    t->full_params(t, params);
    if (t->rank != 0) return;
    st_writer_t *w = st_writer_new();
    size_t nsteps = (size_t)(last - first);
    st_writer_add(w, "loss", DT_F32, 1, (size_t[]){nsteps}, t->losses + first);
    char name[96];
    for (int i = 0; i < L->count && t->dump_grads; i++) {
        snprintf(name, sizeof name, "grad.%s", L->views[i].name);
        st_writer_add(w, name, DT_F32, L->views[i].ndim, L->views[i].shape, t->dump_grads + L->views[i].offset);
    }
    for (int i = 0; i < L->count; i++) {
        snprintf(name, sizeof name, "param.%s", L->views[i].name);
        st_writer_add(w, name, DT_F32, L->views[i].ndim, L->views[i].shape, params + L->views[i].offset);
    }
    snprintf(name, sizeof name, "%lld", (long long)first);
    st_writer_meta(w, "first_step", name);
    snprintf(name, sizeof name, "%d", t->world_size);
    st_writer_meta(w, "world_size", name);
    char err[512];
    dp_mkdir_for(t->cfg.dump);
    if (st_writer_save(w, t->cfg.dump, err, sizeof err) != 0) dp_fatal("%s", err);
    st_writer_free(w);
    free(params);
}

/* Per-rank traffic, memory and timing, gathered on rank 0 into one JSON file. */
static void write_stats(trainer_t *t) {
    enum { NCOUNTERS = 14, NFIXED = NCOUNTERS + 2 * MEM_NCATS + 4, NPEER = 4, NCOMM = 6 };
    /* Then, per peer, t->comm's point-to-point traffic with it: which ranks a rank talked to and how
     * much, so that a run over several hosts can be checked link by link (tests/sh/multihost.sh);
     * then, per communicator of t->stats_comms, what this rank sent on it, in all and by link class. */
    const size_t npeers = (size_t)NPEER * (size_t)t->world_size;
    const size_t nfields = NFIXED + npeers + (size_t)NCOMM * (size_t)t->nstats_comms;
    comm_counters_t k = comm_counters(t->comm);
    /* Traffic anywhere but on t->comm: point-to-point on any other communicator (a dup, or the
     * bookkeeping one), and library collectives beyond the bookkeeping's own. A trainer whose
     * algorithm sends only on t->comm has none of the first; a grader that counts t->comm alone
     * would miss an extra all-reduce sent on a communicator of the student's own. */
    comm_counters_t other = comm_counters_diff(comm_process_counters(t->comm), k);
    other.lib_calls -= comm_counters(t->infra).lib_calls;
    double *mine = dp_malloc(nfields * sizeof(double));
    const double counters[NCOUNTERS] = {
        (double)k.msgs_sent, (double)k.bytes_sent, (double)k.msgs_recv, (double)k.bytes_recv, (double)k.lib_calls,
        (double)k.lib_bytes, (double)k.ops, (double)other.msgs_sent, (double)other.bytes_sent, (double)other.lib_calls,
        /* what t->comm sent inside a node and across (--topology) */
        (double)k.msgs_intra, (double)k.bytes_intra, (double)k.msgs_inter, (double)k.bytes_inter};
    memcpy(mine, counters, sizeof counters);
    for (int i = 0; i < MEM_NCATS; i++) {
        mine[NCOUNTERS + i] = (double)t->mem.cur[i];
        mine[NCOUNTERS + MEM_NCATS + i] = (double)t->mem.peak[i];
    }
    mine[NCOUNTERS + 2 * MEM_NCATS] = (double)t->mem.peak_total;
    mine[NCOUNTERS + 1 + 2 * MEM_NCATS] = (double)t->mem.peak_model;
    mine[NCOUNTERS + 2 + 2 * MEM_NCATS] = t->steps_timed ? t->step_time_sum / (double)t->steps_timed : 0;
    mine[NCOUNTERS + 3 + 2 * MEM_NCATS] = t->steps_timed ? t->data_wait_sum / (double)t->steps_timed : 0;
    for (int p = 0; p < t->world_size; p++) {
        comm_peer_counters_t pc = comm_peer_counters(t->comm, p);
        double *v = mine + NFIXED + (size_t)NPEER * (size_t)p;
        v[0] = (double)pc.msgs_sent;
        v[1] = (double)pc.bytes_sent;
        v[2] = (double)pc.msgs_recv;
        v[3] = (double)pc.bytes_recv;
    }
    for (int i = 0; i < t->nstats_comms; i++) {
        comm_counters_t sc = comm_counters(t->stats_comms[i].comm);
        const double v[NCOMM] = {(double)sc.msgs_sent,   (double)sc.bytes_sent, (double)sc.msgs_intra,
                                 (double)sc.bytes_intra, (double)sc.msgs_inter, (double)sc.bytes_inter};
        memcpy(mine + NFIXED + npeers + (size_t)NCOMM * (size_t)i, v, sizeof v);
    }
    double *all = t->rank == 0 ? dp_malloc((size_t)t->world_size * nfields * sizeof(double)) : NULL;
    comm_lib_gather(t->infra, mine, all, nfields, DT_F64, 0);
    free(mine);
    /* per step: compute, wait, emulated delay (every rank ran the same steps) */
    const size_t nsteps = (size_t)t->steps_timed, nper = 3 * nsteps;
    double *times = dp_malloc((nper ? nper : 1) * sizeof(double));
    for (size_t i = 0; i < nsteps; i++) {
        times[i] = t->step_compute_s[i];
        times[nsteps + i] = t->step_wait_s[i];
        times[2 * nsteps + i] = t->step_delay_s[i];
    }
    double *all_times = t->rank == 0 ? dp_malloc((size_t)t->world_size * (nper ? nper : 1) * sizeof(double)) : NULL;
    if (nper) comm_lib_gather(t->infra, times, all_times, nper, DT_F64, 0);
    free(times);
    /* every rank's wait for data, step by step (the steps this run ran) */
    size_t first = (size_t)t->step - nsteps;
    double *waits = t->rank == 0 ? dp_malloc(((size_t)t->world_size * nsteps + 1) * sizeof(double)) : NULL;
    comm_lib_gather(t->infra, t->data_wait + first, waits, nsteps, DT_F64, 0);
    if (t->rank != 0) return;
    static const char *names[NCOUNTERS] = {"msgs_sent",
                                           "bytes_sent",
                                           "msgs_recv",
                                           "bytes_recv",
                                           "lib_calls",
                                           "lib_bytes",
                                           "ops",
                                           "other_msgs_sent",
                                           "other_bytes_sent",
                                           "other_lib_calls",
                                           "intra_msgs_sent",
                                           "intra_bytes_sent",
                                           "inter_msgs_sent",
                                           "inter_bytes_sent"};
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "world_size", t->world_size);
    cJSON_AddNumberToObject(root, "params", (double)model_num_params(&t->model));
    cJSON_AddNumberToObject(root, "steps", (double)t->steps_timed);
    cJSON_AddStringToObject(root, "straggler", t->cfg.straggler ? t->cfg.straggler : "none");
    cJSON_AddStringToObject(root, "jitter", t->cfg.jitter ? t->cfg.jitter : "none");
    cJSON *ranks = cJSON_AddArrayToObject(root, "ranks");
    for (int r = 0; r < t->world_size; r++) {
        const double *v = all + (size_t)r * nfields;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", r);
        for (int i = 0; i < NCOUNTERS; i++) cJSON_AddNumberToObject(o, names[i], v[i]);
        cJSON *mem = cJSON_AddObjectToObject(o, "mem_bytes");
        cJSON *peak = cJSON_AddObjectToObject(o, "mem_peak_bytes");
        for (int i = 0; i < MEM_NCATS; i++) {
            cJSON_AddNumberToObject(mem, mem_cat_name((mem_cat_t)i), v[NCOUNTERS + i]);
            cJSON_AddNumberToObject(peak, mem_cat_name((mem_cat_t)i), v[NCOUNTERS + MEM_NCATS + i]);
        }
        cJSON_AddNumberToObject(o, "mem_peak_total_bytes", v[NCOUNTERS + 2 * MEM_NCATS]);
        cJSON_AddNumberToObject(o, "mem_peak_model_bytes", v[NCOUNTERS + 1 + 2 * MEM_NCATS]);
        cJSON_AddNumberToObject(o, "step_ms_mean", v[NCOUNTERS + 2 + 2 * MEM_NCATS] * 1e3);
        /* per step, in ms: compute (emulated delay included), wait (blocked in communication), delay */
        static const char *step_names[3] = {"compute_ms", "wait_ms", "delay_ms"};
        for (int q = 0; q < 3; q++) {
            cJSON *a = cJSON_AddArrayToObject(o, step_names[q]);
            for (size_t i = 0; i < nsteps; i++)
                cJSON_AddItemToArray(a, cJSON_CreateNumber(all_times[(size_t)r * nper + (size_t)q * nsteps + i] * 1e3));
        }
        cJSON_AddNumberToObject(o, "data_wait_ms_mean", v[NCOUNTERS + 3 + 2 * MEM_NCATS] * 1e3);
        cJSON *wait = cJSON_AddArrayToObject(o, "data_wait_ms");
        for (size_t i = 0; i < nsteps; i++)
            cJSON_AddItemToArray(wait, cJSON_CreateNumber(waits[(size_t)r * nsteps + i] * 1e3));
        cJSON *peers = cJSON_AddArrayToObject(o, "peers");
        static const char *peer_names[NPEER] = {"msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv"};
        for (int p = 0; p < t->world_size; p++) {
            cJSON *po = cJSON_CreateObject();
            cJSON_AddNumberToObject(po, "peer", p);
            for (int i = 0; i < NPEER; i++)
                cJSON_AddNumberToObject(po, peer_names[i], v[NFIXED + (size_t)NPEER * (size_t)p + (size_t)i]);
            cJSON_AddItemToArray(peers, po);
        }
        if (t->nstats_comms) {
            static const char *comm_names[NCOMM] = {"msgs_sent",        "bytes_sent",      "intra_msgs_sent",
                                                    "intra_bytes_sent", "inter_msgs_sent", "inter_bytes_sent"};
            cJSON *comms = cJSON_AddObjectToObject(o, "comms");
            for (int i = 0; i < t->nstats_comms; i++) {
                cJSON *co = cJSON_AddObjectToObject(comms, t->stats_comms[i].name);
                for (int q = 0; q < NCOMM; q++)
                    cJSON_AddNumberToObject(co, comm_names[q],
                                            v[NFIXED + npeers + (size_t)NCOMM * (size_t)i + (size_t)q]);
            }
        }
        cJSON_AddItemToArray(ranks, o);
    }
    if (t->stats_extra) t->stats_extra(t, root);
    char *s = cJSON_Print(root);
    dp_out_t o;
    if (dp_out_open(&o, t->cfg.stats) != 0 || (fputs(s, o.f), dp_out_close(&o) != 0))
        dp_fatal("cannot write %s: %s", t->cfg.stats, strerror(errno));
    free(s);
    cJSON_Delete(root);
    free(all);
    free(all_times);
    free(waits);
}

static void write_samples(trainer_t *t) {
    if (t->rank != 0 || t->cfg.sample <= 0) return;
    char *text = dp_malloc((size_t)t->cfg.sample + 1);
    sample_text(&t->model, &t->train, t->cfg.sample, t->cfg.seed + 7, text);
    if (t->cfg.sample_out) {
        dp_out_t o;
        if (dp_out_open(&o, t->cfg.sample_out) != 0)
            dp_fatal("cannot write %s: %s", t->cfg.sample_out, strerror(errno));
        /* Token 0 separates records: the word list's '.' becomes one word a line; in text whose
         * token 0 is the newline already (the fortune corpus) every character stays as it is. */
        for (char *p = text; *p; p++) fputc(*p == t->train.vocab[0] ? '\n' : *p, o.f);
        fputc('\n', o.f);
        if (dp_out_close(&o) != 0) dp_fatal("cannot write %s: %s", t->cfg.sample_out, strerror(errno));
        logger_line(&t->log, "samples written to %s", t->cfg.sample_out);
    } else {
        logger_line(&t->log, "samples: %s", text);
    }
    free(text);
}

/* "ck.safetensors" at step 10 -> "ck.step10.safetensors" */
static void step_path(char *out, size_t n, const char *path, int64_t step) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(out, n, "%.*s.step%lld%s", (int)(dot - path), path, (long long)step, dot);
}

/* Tokens the model predicts per step: one per example for the MLP, every position of the window for
 * a GPT (what tok/s means in both). */
static double tokens_per_step(const trainer_t *t) {
    double per_example = t->model.cfg.kind == MODEL_GPT ? t->cfg.context : 1;
    return (double)t->local_batch * t->world_size * per_example;
}

void trainer_add_wait(trainer_t *t, double seconds) { t->added_wait_s += seconds; }

/* Lesson 10's emulated slowness for this rank at step s, after a compute of `compute` seconds: the
 * straggler's extra (FACTOR − 1)·compute, plus the seeded jitter. Slept AFTER the step's own work,
 * so it delays this rank's next communication (where the others wait for it) and changes no number. */
static double emulated_delay(const trainer_t *t, int64_t s, double compute) {
    double d = jitter_delay_s(&t->jitter, t->cfg.seed, t->rank, s);
    if (t->rank == t->straggler.rank && compute > 0) d += (t->straggler.factor - 1) * compute;
    return d;
}

void trainer_run(trainer_t *t, train_step_fn step_fn) {
    trainer_config_t *c = &t->cfg;
    if (!t->full_params) t->full_params = full_params_default;
    if (!t->full_grads) t->full_grads = full_grads_default;
    if (!t->fetch) t->fetch = fetch_default;
    if (!t->save) t->save = checkpoint_save;
    int64_t first = t->step;
    loss_csv_t csv = {.extra_header = t->csv_extra_header};
    if (c->loss_csv && t->rank == 0) loss_csv_open(&csv, c->loss_csv, first);
    loader_t *loader =
        loader_start(loader_fetch, t, (size_t)t->local_batch * (size_t)c->context, (size_t)t->local_batch,
                     c->prefetch_depth, c->loader_delay_ms * 1e-3, first, c->steps);
    float final_val = NAN;
    if (t->mp && !t->mixed_precision_ok)
        dp_fatal("--mixed-precision %s: %s does not support it (the trainers of lessons 01 and 05-07 do, and 02 and 08 "
                 "in bf16)",
                 c->mixed_precision, dp_progname());
    for (int64_t s = first; s < c->steps; s++) {
        maybe_fail(t, s);
        double d0 = dp_now();
        t->data_wait[s] = loader_next(loader, s, t->ctx, t->targets);
        t->data_wait_sum += t->data_wait[s];
        if (c->prefetch_depth > 0 || c->loader_delay_ms > 0)
            trace_span(t->trace, "compute", "wait for data", d0, d0 + t->data_wait[s]);
        if (!strcmp(c->loss_norm, "tokens")) weigh_by_tokens(t);
        if (t->mp) t->mp->step = s + 1;
        double lr = lr_at(s, c->lr, c->warmup, c->steps, c->min_lr_ratio);
        double w0 = comm_thread_wait_s() + t->added_wait_s;
        t->model.batch_hash = 0, t->model.batch_seen = 0;
        double t0 = dp_now();
        float loss = step_fn(t, lr);
        double t1 = dp_now();
        if (s == first && c->dump) write_step_examples(t);
        double wait = comm_thread_wait_s() + t->added_wait_s - w0;
        double delay = emulated_delay(t, s, t1 - t0 - wait);
        if (delay > 0) {
            dp_sleep_until(t1 + delay);
            trace_span(t->trace, "compute", "emulated delay", t1, dp_now());
        }
        double dt = dp_now() - t0;
        if (t->mp) mp_count_workspace(t->mp, &t->mem);
        trace_span(t->trace, "compute", "step", t0, t0 + dt);
        t->step_compute_s[t->steps_timed] = dt - wait;
        t->step_wait_s[t->steps_timed] = wait;
        t->step_delay_s[t->steps_timed] = delay;
        t->step = s + 1;
        t->step_time_sum += dt;
        t->steps_timed++;
        t->losses[s] = loss;
        if (t->mp && t->optim.scaler && t->optim.scaler->skipped) /* every rank: they must agree */
            printf("rank %d: step %lld skipped: inf/nan in the fp16 gradients at loss scale %g, now %g\n", t->rank,
                   (long long)s + 1, t->optim.scaler->last_scale, t->optim.scaler->scale);
        if (!isfinite(loss))
            dp_fatal("the loss became %g at step %lld; lower --lr or check the gradients", (double)loss,
                     (long long)s + 1);
        /* Cross-entropy is never exactly 0 (a softmax gives no class probability 1): an exact 0 on the
         * first step this run takes, fresh or resumed from a checkpoint, is what an unfinished lesson
         * 01 gives once its DP_TODO() lines are deleted (a step that still returns 0), and the run
         * would otherwise print zero losses at billions of tokens/s as if it worked. */
        if (s == first && loss == 0.0f && t->rank == 0)
            fprintf(stderr,
                    "%s: warning: the loss is exactly 0 at step %lld, which cross-entropy cannot give: "
                    "lesson 01's functions look unfinished (run 'grading/grade 01')\n",
                    dp_progname(), (long long)s + 1);
        if (s == first && c->dump) {
            t->dump_grads = t->rank == 0 ? dp_malloc(model_num_params(&t->model) * sizeof(float)) : NULL;
            t->full_grads(t, t->dump_grads);
        }
        logger_step(&t->log, (int)s, loss, lr, dt, tokens_per_step(t));
        float val = NAN;
        /* the final evaluation too, so that it goes into the last step's CSV row: one row per step */
        bool last = s + 1 == c->steps;
        if (last || (c->eval_every > 0 && (s + 1) % c->eval_every == 0)) {
            val = trainer_eval(t);
            if (!last) logger_line(&t->log, "step %6lld | val loss %.4f", (long long)s + 1, val);
        }
        if (last) final_val = val;
        char extra[256] = "";
        if (csv.f && t->csv_extra) t->csv_extra(t, extra, sizeof extra);
        loss_csv_row_extra(&csv, s + 1, loss, lr, val, extra);
        if (c->save && c->save_every > 0 && (s + 1) % c->save_every == 0 && s + 1 < c->steps) {
            char path[4096];
            step_path(path, sizeof path, c->save, s + 1);
            t->save(t, path);
        }
    }
    loader_stop(loader);
    logger_done(&t->log);
    /* a run with no steps left (resumed at --steps) evaluates here, and adds no CSV row */
    float val = first < c->steps ? final_val : trainer_eval(t);
    if (!isnan(val)) logger_line(&t->log, "final val loss %.4f after %lld steps", val, (long long)t->step);
    loss_csv_close(&csv);
    if (t->steps_timed > 0)
        logger_line(&t->log, "mean %.2f ms/step, %.0f tokens/s over %lld steps",
                    1e3 * t->step_time_sum / t->steps_timed,
                    tokens_per_step(t) * (double)t->steps_timed / t->step_time_sum, (long long)t->steps_timed);
    if (t->steps_timed > 0 && (c->prefetch_depth > 0 || c->loader_delay_ms > 0))
        logger_line(&t->log, "data loader: prefetch depth %d, delay %g ms: mean %.2f ms/step waiting for data",
                    c->prefetch_depth, c->loader_delay_ms, 1e3 * t->data_wait_sum / (double)t->steps_timed);
    if (c->save) t->save(t, c->save);
    if (c->dump) write_dump(t, first, t->step);
    if (t->mp) mp_count_workspace(t->mp, &t->mem); /* the final evaluation's GEMMs too */
    if (c->stats) write_stats(t);
    if (c->trace && trace_write(t->trace, t->infra, c->trace) != 0)
        dp_fatal("cannot write %s: %s", c->trace, strerror(errno));
    write_samples(t);
}

void trainer_finish(trainer_t *t) {
    model_free(&t->model);
    if (t->mp) mp_free(t->mp);
    free(t->mp);
    optim_free(&t->optim);
    dataset_free(&t->train);
    dataset_free(&t->val);
    data_order_free(&t->order);
    trace_free(t->trace);
    free(t->global_idx);
    free(t->ctx);
    free(t->targets);
    records_free(&t->train_records);
    records_free(&t->val_records);
    free(t->losses);
    free(t->step_compute_s);
    free(t->step_wait_s);
    free(t->step_delay_s);
    free(t->data_wait);
    free(t->dump_grads);
    ops_destroy(t->ops);
    comm_free(t->infra);
    comm_finalize(t->comm);
}
