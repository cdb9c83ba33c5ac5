/* noise_scale.c — the gradient noise scale from the two batch sizes DDP already has (noise_scale.h).
 *
 * One example's gradient is G plus noise of covariance Σ; a mean over b examples has
 * E|G_b|² = |G|² + tr(Σ)/b. Two batch sizes, two equations, two unknowns:
 *
 *   |G_b|² = |G|² + S/b        small: one rank's b examples (its gradient before the all-reduce)
 *   |G_B|² = |G|² + S/B        big:   all N·b examples (the gradient after it)
 *
 * Subtract for S = tr(Σ); eliminate S for |G|². Each step's pair is an unbiased but noisy estimate;
 * the ratio of two noisy numbers is biased (and |G|²'s estimate may be negative), so average the
 * numerator and the denominator over steps first and divide the averages. */
#include "noise_scale.h"

#include "util.h"

#include <math.h>

void noise_scale_estimates(double small_sq, double big_sq, double b, double B, double *g2, double *trace_sigma) {
    // TODO(10 noise_scale_estimates): in: small_sq = |G_b|² (batch b), big_sq = |G_B|² (batch B > b).
    //   out: *g2, the unbiased estimate of |G|², and *trace_sigma, that of tr(Σ) (the formulas in
    //   noise_scale.h; derive them from E|G_b|² = |G|² + tr(Σ)/b).
    (void)small_sq, (void)big_sq, (void)b, (void)B;
    DP_TODO();
    *g2 = 0, *trace_sigma = 0;
}

double noise_scale_update(noise_scale_t *ns, double small_sq, double big_sq, double b, double B) {
    // TODO(10 noise_scale_update): this step's estimates (noise_scale_estimates) into ns->g2 and
    //   ns->s; each into its running average, avg ← decay·avg + (1 − decay)·estimate (ns->g2_avg,
    //   ns->s_avg; ns->decay; both start at 0); one more in ns->steps. Return the ratio of the
    //   AVERAGES, s_avg / g2_avg (NAN while g2_avg <= 0: no estimate yet) — not an average of ratios.
    (void)ns, (void)small_sq, (void)big_sq, (void)b, (void)B;
    DP_TODO();
    return NAN;
}

float noise_ddp_train_step(trainer_t *t, double lr) {
    noise_ddp_t *nd = (noise_ddp_t *)t->ext;
    model_t *m = &t->model;
    size_t n = model_num_params(m);
    float loss = noise_ddp_forward_backward(nd); /* given: on return nd->local_sq = |this rank's g_b|² */
    double mean_loss, small_sq = 0, big_sq = 0;
    // TODO(10 noise_ddp_train_step): when nd->enabled: nd->small_sq = the MEAN over the ranks of
    //   their |G_b|² (nd->local_sq), nd->big_sq = |G_B|² of the averaged gradient m->grads as the
    //   all-reduce left it, BEFORE clipping (ops_sumsq on t->ops), nd->b_simple from
    //   noise_scale_update (b = t->local_batch, B = b × t->world_size). The ranks' |G_b|² travel in
    //   no extra message: noise_ddp_mean2 averages the loss and one more double in the all-reduce
    //   the loss needs anyway. mean_loss = the loss averaged over the ranks (as trainer_global_mean
    //   does it). When not enabled: mean_loss = trainer_global_mean(t, loss).
    (void)small_sq, (void)big_sq;
    DP_TODO();
    mean_loss = trainer_global_mean(t, loss);
    /* every replica holds the same averaged gradient: clip and step locally, identically */
    double t0 = dp_now();
    clip_grad_norm_ops(t->ops, m->grads, n, t->cfg.clip);
    optim_step(&t->optim, m->params, m->grads, lr);
    trace_span(t->trace, "compute", "clip + optimizer", t0, dp_now());
    return (float)mean_loss;
}
