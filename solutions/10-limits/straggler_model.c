/* straggler_model.c — the expected cost of random per-rank delays on a synchronous step (see
 * straggler_model.h). A synchronous step waits for the slowest rank, so what matters is not the mean
 * delay but the mean of the MAXIMUM of N delays, which grows with N. */
#include "straggler_model.h"

#include "util.h"

#include <math.h>

double harmonic_number(int N) {
    // TODO(10 harmonic_number): H_N = 1 + 1/2 + ... + 1/N (README, "The model").
    // BEGIN SOLUTION
    double h = 0;
    for (int k = N; k >= 1; k--) h += 1.0 / k; /* smallest terms first: less rounding */
    return h;
    // END SOLUTION
    // SKELETON: (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double expected_max_exponential(double mean, int N) {
    // TODO(10 expected_max_exponential): E[max of N iid exponential delays of mean `mean`]
    //   (README, "The maximum of N exponentials").
    // BEGIN SOLUTION
    return mean * harmonic_number(N);
    // END SOLUTION
    // SKELETON: (void)mean, (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double lognormal_mu(double mean, double sigma) {
    // TODO(10 lognormal_mu): the μ of ln(D) for a log-normal delay D of mean `mean` whose logarithm
    //   has standard deviation sigma (README, "Log-normal delays").
    // BEGIN SOLUTION
    return log(mean) - 0.5 * sigma * sigma;
    // END SOLUTION
    // SKELETON: (void)mean, (void)sigma;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

// BEGIN SOLUTION
/* 1 − Φ(z)^N without cancellation: with Q = 1 − Φ(z) = erfc(z/√2)/2, it is −expm1(N·log1p(−Q)),
 * accurate whether Φ(z)^N is near 0 (z far left) or near 1 (z far right, Q tiny). */
static double one_minus_cdf_pow(double z, int N) {
    double Q = 0.5 * erfc(z / sqrt(2.0));
    return -expm1(N * log1p(-Q));
}
// END SOLUTION

double expected_max_lognormal(double mu, double sigma, int N) {
    // TODO(10 expected_max_lognormal): E[max] = ∫_0^∞ (1 − F(x)^N) dx with F the log-normal's CDF,
    //   numerically, to a relative 1e-7 (README, "Log-normal delays"; hints 2 and 3 say how).
    // BEGIN SOLUTION
    /* x = exp(μ + σz): dx = σ·exp(μ + σz) dz and F(x) = Φ(z). Below z = −10, Φ(z)^N < 1e-23·N: the
     * integrand is exp(μ + σz)·σ to double precision, whose integral from −∞ is exp(μ − 10σ) exactly.
     * Above z = σ + 12 it is below N·exp(−72 + σ²/2) of the answer. Between, composite Simpson. */
    const double lo = -10.0, hi = sigma + 12.0;
    const int n = 4000; /* even; the integrand is smooth on a scale of 1: h ≈ 0.006 */
    double h = (hi - lo) / n, sum = 0;
    for (int i = 0; i <= n; i++) {
        double z = lo + i * h;
        double f = one_minus_cdf_pow(z, N) * sigma * exp(mu + sigma * z);
        sum += (i == 0 || i == n) ? f : (i % 2 ? 4 * f : 2 * f);
    }
    return exp(mu + sigma * lo) + sum * h / 3;
    // END SOLUTION
    // SKELETON: (void)mu, (void)sigma, (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double predict_step_jitter(const jitter_t *j, double base, int N) {
    // TODO(10 predict_step_jitter): the step without jitter plus what the slowest of N ranks adds,
    //   for j->kind JITTER_NONE, JITTER_EXP (mean j->mean_s) and JITTER_LOGNORMAL (mean j->mean_s,
    //   j->sigma) (README, "The model").
    // BEGIN SOLUTION
    switch (j->kind) {
    case JITTER_EXP:
        return base + expected_max_exponential(j->mean_s, N);
    case JITTER_LOGNORMAL:
        return base + expected_max_lognormal(lognormal_mu(j->mean_s, j->sigma), j->sigma, N);
    default:
        return base;
    }
    // END SOLUTION
    // SKELETON: (void)j, (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return base;
}
