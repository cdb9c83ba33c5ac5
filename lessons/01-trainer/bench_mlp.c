/* bench_mlp — training speed of lesson 01's MLP (model.h) in examples per second, bench_gpt's twin.
 *
 *   build/solutions/01-trainer/bench_mlp --preset large --threads 1 --batch 64
 *
 * --preset is the trainer's (the same sizes as train --preset; lessons/01-trainer/trainer.c), the
 * vocabulary 27, that of the trainer's default data (build/data/words-train.tok). One step is what a
 * trainer does per batch: zero the gradients, forward, backward, one AdamW step (lr 3e-4, weight
 * decay 0.1 on every parameter, as gpt_torch.py bench --model mlp does). --warmup steps run untimed,
 * then --steps timed ones, and the MEDIAN step is reported, as in bench_gpt. Contexts and targets are
 * random from a fixed seed, so every run does the same work.
 *
 * The first line names the sizes as gpt_torch.py bench --mlp takes them ("vocab=27 context=16 ...").
 * The last line is machine-readable for common/mk/bench.sh, in bench_gpt's format; an example is one
 * predicted token, so tokens_per_s is examples per second:
 *   tokens_per_s <median examples/s>  fwd_ms <..> bwd_ms <..> optim_ms <..> step_ms <..> */
#include "cli.h"
#include "model.h"
#include "optim.h"
#include "rng.h"
#include "trainer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    const char *preset = "default";
    int threads = 1, batch = 64, vocab = 27, warmup = 3, steps = 10;
    uint64_t seed = 1;
    const cli_opt_t opts[] = {
        {"preset", CLI_CHOICE, &preset, "the MLP's size, as train --preset", .choices = "tiny|small|default|large"},
        {"threads", CLI_INT, &threads, "CPU threads (ops_create's)", .min = 1, .max = 256},
        {"batch", CLI_INT, &batch, "examples per step", .min = 1, .max = 65536},
        {"vocab", CLI_INT, &vocab, "vocabulary size", .min = 2, .max = 1 << 20},
        {"warmup", CLI_INT, &warmup, "untimed steps first", .min = 0, .max = 1000},
        {"steps", CLI_INT, &steps, "timed steps (the median is reported)", .min = 1, .max = 100000},
        {"seed", CLI_U64, &seed, "parameters and data"},
        CLI_END};
    cli_parse(argc, argv, opts, "bench_mlp [options]");

    model_config_t cfg;
    trainer_mlp_preset(preset, &cfg); /* a CLI_CHOICE: always a known name */
    cfg.vocab = vocab;
    ops_t *ops = ops_create(OPS_CPU, threads);
    model_t m;
    model_init(&m, &cfg, ops, batch, seed, NULL);
    size_t n = model_num_params(&m), nctx = (size_t)batch * cfg.context;
    int32_t *ctx = dp_malloc(nctx * sizeof *ctx), *tgt = dp_malloc((size_t)batch * sizeof *tgt);
    rng_t r;
    rng_init(&r, seed + 1); /* a stream apart from the parameters' */
    for (size_t i = 0; i < nctx; i++) ctx[i] = (int32_t)rng_below(&r, (uint32_t)vocab);
    for (int b = 0; b < batch; b++) tgt[b] = (int32_t)rng_below(&r, (uint32_t)vocab);

    optim_t opt;
    optim_init_on(&opt, OPTIM_ADAMW, n, ops); /* host memory, the context's threads */
    opt.adamw.weight_decay = 0.1;
    double *t = dp_malloc(4 * (size_t)steps * sizeof(double)); /* fwd, bwd, optim, step: steps each */
    float loss = 0;
    for (int s = -warmup; s < steps; s++) {
        double t0 = dp_now();
        model_zero_grad(&m);
        loss = model_forward(&m, ctx, tgt, batch);
        double t1 = dp_now();
        model_backward(&m, 1.0f, NULL, NULL);
        double t2 = dp_now();
        optim_step(&opt, m.params, m.grads, 3e-4);
        double t3 = dp_now();
        if (s < 0) continue;
        t[s] = t1 - t0;
        t[steps + s] = t2 - t1;
        t[2 * steps + s] = t3 - t2;
        t[3 * steps + s] = t3 - t0;
    }
    double step = dp_median(t + 3 * steps, (size_t)steps);
    char sizes[256]; /* "vocab=V context=T embed=E hidden=H layers=L": gpt_torch.py --mlp takes it */
    model_config_string(&cfg, sizes, sizeof sizes);
    printf(
        "mlp --preset %s: %s (%zu parameters), batch %d, %d thread%s, forward+backward+AdamW: median of %d steps after "
        "%d warm-up, last loss %.4f\n",
        preset, sizes, n, batch, threads, threads == 1 ? "" : "s", steps, warmup, loss);
    printf("tokens_per_s %.1f  fwd_ms %.2f  bwd_ms %.2f  optim_ms %.2f  step_ms %.2f\n", batch / step,
           1e3 * dp_median(t, (size_t)steps), 1e3 * dp_median(t + steps, (size_t)steps),
           1e3 * dp_median(t + 2 * steps, (size_t)steps), 1e3 * step);
    free(t);
    optim_free(&opt);
    model_free(&m);
    ops_destroy(ops);
    free(ctx);
    free(tgt);
    return 0;
}
