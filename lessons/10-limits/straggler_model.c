/* straggler_model.c — the expected cost of random per-rank delays on a synchronous step (see
 * straggler_model.h). A synchronous step waits for the slowest rank, so what matters is not the mean
 * delay but the mean of the MAXIMUM of N delays, which grows with N. */
#include "straggler_model.h"

#include "util.h"

#include <math.h>

double harmonic_number(int N) {
    // TODO(10 harmonic_number): H_N = 1 + 1/2 + ... + 1/N (README, "The model").
    (void)N;
    DP_TODO();
    return 0.0;
}

double expected_max_exponential(double mean, int N) {
    // TODO(10 expected_max_exponential): E[max of N iid exponential delays of mean `mean`]
    //   (README, "The maximum of N exponentials").
    (void)mean, (void)N;
    DP_TODO();
    return 0.0;
}

double lognormal_mu(double mean, double sigma) {
    // TODO(10 lognormal_mu): the μ of ln(D) for a log-normal delay D of mean `mean` whose logarithm
    //   has standard deviation sigma (README, "Log-normal delays").
    (void)mean, (void)sigma;
    DP_TODO();
    return 0.0;
}

double expected_max_lognormal(double mu, double sigma, int N) {
    // TODO(10 expected_max_lognormal): E[max] = ∫_0^∞ (1 − F(x)^N) dx with F the log-normal's CDF,
    //   numerically, to a relative 1e-7 (README, "Log-normal delays"; hints 2 and 3 say how).
    (void)mu, (void)sigma, (void)N;
    DP_TODO();
    return 0.0;
}

double predict_step_jitter(const jitter_t *j, double base, int N) {
    // TODO(10 predict_step_jitter): the step without jitter plus what the slowest of N ranks adds,
    //   for j->kind JITTER_NONE, JITTER_EXP (mean j->mean_s) and JITTER_LOGNORMAL (mean j->mean_s,
    //   j->sigma) (README, "The model").
    (void)j, (void)N;
    DP_TODO();
    return base;
}
