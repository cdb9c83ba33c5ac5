/* bench_gpt — training speed of the GPT CPU reference (gpt.c) in tokens per second.
 *
 *   build/solutions/01-trainer/bench_gpt --model gpt-small --threads 1 --batch 4 --seq 128
 *
 * One step is what a trainer does per batch: zero the gradients, forward, backward, one AdamW step
 * over every parameter (--no-optim leaves the AdamW step out). --warmup steps run untimed (first
 * touches of the activations, OpenBLAS's buffers), then --steps timed ones; the MEDIAN step is
 * reported, as one slow step on a shared machine should not move the result. Tokens are random
 * (uniform over the vocabulary) from a fixed seed, so every run does the same work.
 *
 * --threads is the CPU ops' thread count (common/pool.h): the GEMMs, LayerNorm, GELU, attention, the
 * cross-entropy and AdamW split their work over it so that the result is the same bit for bit at any
 * count.
 *
 * The last line is machine-readable for common/mk/bench.sh:
 *   tokens_per_s <median tokens/s>  fwd_ms <..> bwd_ms <..> optim_ms <..> step_ms <..>
 * (each phase's own median, so they need not add up to step_ms exactly).
 *
 * --dump FILE writes, after one forward and backward from the initial parameters (no optimizer
 * step), what lessons/01-trainer/gpt_torch.py --parity FILE compares PyTorch with:
 *   "GPTDUMP1", int32 V T C NH L B Tn, float32 loss, int32 tokens[B·Tn], int32 targets[B·Tn],
 *   float32 params[numel], float32 grads[numel]   (little-endian, the layout's order) */
#include "cli.h"
#include "gpt.h"
#include "optim.h"
#include "rng.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_all(FILE *f, const char *path, const void *p, size_t size, size_t count) {
    if (fwrite(p, size, count, f) != count) dp_fatal("cannot write %s: %s", path, strerror(errno));
}

static void dump(gpt_t *m, const char *path, const int32_t *tok, const int32_t *tgt, int B, int Tn) {
    gpt_zero_grad(m);
    float loss = gpt_forward(m, tok, tgt, B, Tn);
    gpt_backward(m, 1.0f, NULL, NULL);
    FILE *f = fopen(path, "wb");
    if (!f) dp_fatal("cannot open %s for writing: %s", path, strerror(errno));
    const gpt_config_t *c = &m->cfg;
    int32_t hdr[7] = {c->vocab, c->context, c->channels, c->heads, c->layers, B, Tn};
    write_all(f, path, "GPTDUMP1", 1, 8);
    write_all(f, path, hdr, sizeof hdr[0], 7);
    write_all(f, path, &loss, sizeof loss, 1);
    write_all(f, path, tok, sizeof *tok, (size_t)B * Tn);
    write_all(f, path, tgt, sizeof *tgt, (size_t)B * Tn);
    write_all(f, path, m->params, sizeof(float), gpt_num_params(m));
    write_all(f, path, m->grads, sizeof(float), gpt_num_params(m));
    if (fclose(f) != 0) dp_fatal("cannot write %s: %s", path, strerror(errno));
    printf("wrote %s (loss %.6f after one forward from seed-initialised parameters)\n", path, loss);
}

int main(int argc, char **argv) {
    const char *model = "gpt-small", *dump_path = NULL;
    int threads = 1, batch = 4, seq = 0, warmup = 3, steps = 10;
    bool no_optim = false;
    uint64_t seed = 1;
    const cli_opt_t opts[] = {
        {"model", CLI_CHOICE, &model, "GPT preset", .choices = "gpt-tiny|gpt-mini|gpt-small"},
        {"threads", CLI_INT, &threads, "threads for every op (the GEMMs and the other loops)", .min = 1, .max = 256,
         .env = "BENCH_GPT_THREADS"},
        {"batch", CLI_INT, &batch, "sequences per step", .min = 1, .max = 4096},
        {"seq", CLI_INT, &seq, "tokens per sequence (0: the preset's block size)", .min = 0, .max = 1 << 20},
        {"warmup", CLI_INT, &warmup, "untimed steps first", .min = 0, .max = 1000},
        {"steps", CLI_INT, &steps, "timed steps (the median is reported)", .min = 1, .max = 100000},
        {"no-optim", CLI_FLAG, &no_optim, "time forward + backward only (no AdamW step)"},
        {"seed", CLI_U64, &seed, "parameters and tokens"},
        {"dump", CLI_STRING, &dump_path, "write parameters, a batch, its loss and gradients here, then exit"},
        CLI_END};
    cli_parse(argc, argv, opts, "bench_gpt [options]");

    gpt_config_t cfg;
    if (gpt_preset(model, &cfg) != 0) cli_usage_error("unknown --model '%s'", model);
    if (seq == 0) seq = cfg.context;
    if (seq > cfg.context) cli_usage_error("--seq %d is longer than %s's block size %d", seq, model, cfg.context);

    ops_t *ops = ops_create(OPS_CPU, threads);
    gpt_t m;
    gpt_init(&m, &cfg, ops, batch, seed, NULL);
    size_t n = gpt_num_params(&m), ntok = (size_t)batch * seq;
    int32_t *tok = dp_malloc(ntok * sizeof *tok), *tgt = dp_malloc(ntok * sizeof *tgt);
    rng_t r;
    rng_init(&r, seed + 1); /* a stream apart from the parameters' */
    for (size_t i = 0; i < ntok; i++) {
        tok[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
        tgt[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
    }
    if (dump_path) {
        dump(&m, dump_path, tok, tgt, batch, seq);
        gpt_free(&m);
        ops_destroy(ops);
        free(tok);
        free(tgt);
        return 0;
    }

    optim_t opt;
    optim_init_on(&opt, OPTIM_ADAMW, n, ops); /* host memory, the context's threads */
    opt.adamw.weight_decay = 0.1;             /* gpt_torch.py uses the same, on every parameter */
    double *t_fwd = dp_malloc((size_t)steps * sizeof(double)), *t_bwd = dp_malloc((size_t)steps * sizeof(double));
    double *t_opt = dp_malloc((size_t)steps * sizeof(double)), *t_step = dp_malloc((size_t)steps * sizeof(double));
    float loss = 0;
    for (int s = -warmup; s < steps; s++) {
        double t0 = dp_now();
        gpt_zero_grad(&m);
        loss = gpt_forward(&m, tok, tgt, batch, seq);
        double t1 = dp_now();
        gpt_backward(&m, 1.0f, NULL, NULL);
        double t2 = dp_now();
        if (!no_optim) optim_step(&opt, m.params, m.grads, 3e-4);
        double t3 = dp_now();
        if (s < 0) continue;
        t_fwd[s] = t1 - t0;
        t_bwd[s] = t2 - t1;
        t_opt[s] = t3 - t2;
        t_step[s] = t3 - t0;
    }
    double step = dp_median(t_step, (size_t)steps);
    printf("%s (%zu parameters), batch %dx%d, %d thread%s, %s: median of %d steps after %d warm-up, last loss %.4f\n",
           model, n, batch, seq, threads, threads == 1 ? "" : "s",
           no_optim ? "forward+backward" : "forward+backward+AdamW", steps, warmup, loss);
    printf("tokens_per_s %.1f  fwd_ms %.2f  bwd_ms %.2f  optim_ms %.2f  step_ms %.2f\n", (double)ntok / step,
           1e3 * dp_median(t_fwd, (size_t)steps), 1e3 * dp_median(t_bwd, (size_t)steps),
           1e3 * dp_median(t_opt, (size_t)steps), 1e3 * step);
    free(t_fwd);
    free(t_bwd);
    free(t_opt);
    free(t_step);
    optim_free(&opt);
    gpt_free(&m);
    ops_destroy(ops);
    free(tok);
    free(tgt);
    return 0;
}
