/* noise_scale.h — lesson 10: the gradient noise scale, measured by data parallelism itself.
 *
 * Before DDP's all-reduce every rank holds the gradient of its own b examples, a small-batch
 * estimate G_b of the true gradient G; after it every rank holds their mean, the gradient of the
 * global batch B = N·b. A batch-b gradient has E|G_b|² = |G|² + tr(Σ)/b (Σ: the covariance of one
 * example's gradient), so the two squared norms give both unknowns (McCandlish et al. 2018, "An
 * Empirical Model of Large-Batch Training", appendix A):
 *
 *   |G|²   ≈ (B·|G_B|² − b·|G_b|²) / (B − b)        tr(Σ) ≈ (|G_b|² − |G_B|²) / (1/b − 1/B)
 *
 * Both are unbiased but noisy (|G|²'s estimate can even come out negative), so each is averaged
 * over steps (exponential moving averages) BEFORE the ratio is taken:
 *
 *   B_simple = avg(tr(Σ)) / avg(|G|²)       — the batch size above which a bigger batch stops
 *                                             cutting the number of steps much (the critical batch)
 *
 * The DDP trainer of this lesson (train_noise --noise-scale) measures |G_b|² bucket by bucket as
 * each bucket is launched (the gradient is in cache then, and the all-reduce is about to overwrite
 * it), and carries it in the one all-reduce of the step's loss that every trainer makes anyway:
 * the estimate costs no extra message. */
#ifndef DPC_NOISE_SCALE_H
#define DPC_NOISE_SCALE_H

#include "ddp.h"
#include "util.h"

#include <stdint.h>

typedef struct {
    double decay;         /* α: avg ← α·avg + (1 − α)·estimate */
    double g2_avg, s_avg; /* the running averages of the |G|² and tr(Σ) estimates, from 0 */
    int64_t steps;        /* estimates averaged so far */
    double g2, s;         /* the last step's own estimates */
} noise_scale_t;

/* ---- yours (noise_scale.c) ---------------------------------------------------------------------- */

/* The unbiased estimates of |G|² and tr(Σ) from small_sq = |G_b|² and big_sq = |G_B|², b < B. */
void noise_scale_estimates(double small_sq, double big_sq, double b, double B, double *g2, double *trace_sigma);
/* One step's norms into the running averages; returns B_simple = avg(tr Σ) / avg(|G|²), NAN while
 * avg(|G|²) <= 0. */
double noise_scale_update(noise_scale_t *ns, double small_sq, double big_sq, double b, double B);

/* ---- given: the DDP trainer that measures it (noise_ddp.c) -------------------------------------- */

typedef struct {
    ddp_t ddp;    /* first: t->ext points at it as at lesson 05's ddp_t */
    bool enabled; /* --noise-scale */
    noise_scale_t ns;
    double local_sq; /* this step, so far: Σ over the launched buckets of |this rank's gradient|² */
    /* the step's results, set by noise_ddp_train_step: the mean over the ranks of |G_b|², |G_B|²,
     * and B_simple */
    double small_sq, big_sq, b_simple;
    double *history; /* per step: small_sq, big_sq, g2, tr Σ, B_simple (for --stats) */
} noise_ddp_t;

/* Yours (noise_scale.c): DDP's step, measuring the noise scale when nd->enabled. */
float noise_ddp_train_step(trainer_t *t, double lr);

/* Zero the gradients, forward, backward with the buckets' all-reduces (each bucket adding its
 * squared norm, before the all-reduce, to nd->local_sq, which starts at 0), wait for them: on
 * return every rank holds the averaged gradient (not clipped). Returns this rank's mean loss. */
float noise_ddp_forward_backward(noise_ddp_t *nd);
/* The mean over the ranks of a and of b, in ONE all-reduce of two doubles on the bookkeeping comm
 * (trainer_global_mean's, which every step makes for its loss anyway). */
void noise_ddp_mean2(noise_ddp_t *nd, double a, double b, double *mean_a, double *mean_b);
/* The running averages' values, corrected for their start at 0 (as Adam's moments). */
double noise_scale_g2(const noise_scale_t *ns);
double noise_scale_trace(const noise_scale_t *ns);

/* Options: --noise-scale, --noise-decay. */
typedef struct {
    bool enabled;
    double decay;
} noise_options_t;
cli_opt_t *noise_cli_options(noise_options_t *o, const cli_opt_t *more);
void noise_ddp_setup(noise_ddp_t *nd, trainer_t *t, const ddp_options_t *d, const noise_options_t *o);
/* The step trainer_run calls: noise_ddp_train_step, then the step's numbers into the history. */
float noise_ddp_step_logged(trainer_t *t, double lr);
void noise_ddp_free(noise_ddp_t *nd);

#endif
