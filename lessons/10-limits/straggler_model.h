/* straggler_model.h — lesson 10: what stragglers cost a synchronous step.
 *
 * Every rank must reach the all-reduce before any rank can leave it, so a step lasts as long as its
 * SLOWEST rank. If each of N ranks is held up by an independent random delay D_r, the step pays
 *
 *   T(N) = compute + comm + E[max(D_1, ..., D_N)]
 *
 * and E[max] grows with N even though no rank got slower:
 *   exponential delays of mean m:   E[max] = m · H_N,  H_N = 1 + 1/2 + ... + 1/N  (≈ ln N + 0.577)
 *   any distribution with CDF F:    E[max] = ∫_0^∞ (1 − F(x)^N) dx    (D ≥ 0)
 *   log-normal, ln D ~ Normal(μ, σ²): F(x) = Φ((ln x − μ)/σ); mean m = exp(μ + σ²/2), no closed form
 *                                   for the maximum beyond N = 2. */
#ifndef DPC_STRAGGLER_MODEL_H
#define DPC_STRAGGLER_MODEL_H

#include "straggler.h"

/* H_N = Σ_{k=1..N} 1/k, N >= 1 */
double harmonic_number(int N);
/* E[max of N iid exponential delays of mean `mean`] */
double expected_max_exponential(double mean, int N);
/* μ of the log-normal whose mean is `mean` and whose ln has standard deviation sigma */
double lognormal_mu(double mean, double sigma);
/* E[max of N iid log-normal delays], ln D ~ Normal(mu, sigma²), sigma >= 0: by numerical
 * integration of 1 − F(x)^N, to a relative 1e-7 or better */
double expected_max_lognormal(double mu, double sigma, int N);
/* The predicted step under jitter j on N ranks, from the step without it (`base`: compute + comm,
 * same unit as j's mean, seconds). */
double predict_step_jitter(const jitter_t *j, double base, int N);

#endif
