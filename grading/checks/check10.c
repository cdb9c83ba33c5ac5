/* check10 — lesson 10's straggler model on stated cases (linked with the submission's
 * straggler_model.c): closed forms where there are any, and the grader's own float64 quadrature of
 * the log-normal's expected maximum where there are none. */
#include "checklib.h"
#include "straggler_model.h"
#include "util.h"

#include <math.h>
#include <stdio.h>

static int close_to(const char *what, double got, double want, double rtol, const char *hint) {
    if (fabs(got - want) <= rtol * fabs(want) + 1e-300) return 0;
    printf("FAIL: %s = %.10g, expected %.10g%s%s\n", what, got, want, hint ? " — " : "", hint ? hint : "");
    return 1;
}

/* The student's value, through the tape (named by the call itself). */
#define T(call) ck_tape_double(#call, call)

/* The oracle, written apart from the reference: the DENSITY of the maximum, N·Φ(z)^(N−1)·φ(z), times
 * the delay exp(μ + σz), over z (the reference integrates 1 − Φ^N instead), by composite Simpson on
 * a five times finer grid that reaches further out on both sides. */
static double oracle_max_lognormal(double mu, double sigma, int N) {
    const double lo = -14.0, hi = sigma + 16.0;
    const int n = 20000;
    double h = (hi - lo) / n, sum = 0;
    for (int i = 0; i <= n; i++) {
        double z = lo + i * h;
        double logPhi = log(0.5 * erfc(-z / sqrt(2.0)));
        double f = N * exp((N - 1) * logPhi - 0.5 * z * z + mu + sigma * z) / 2.5066282746310002; /* √(2π) */
        sum += (i == 0 || i == n) ? f : (i % 2 ? 4 * f : 2 * f);
    }
    return sum * h / 3;
}

static double oracle_harmonic(int N) {
    long double h = 0;
    for (int k = 1; k <= N; k++) h += 1.0L / k;
    return (double)h;
}

#define HINT_H   "H_N = 1 + 1/2 + ... + 1/N: N terms, the first one 1"
#define HINT_EXP "the step waits for the SLOWEST of N ranks: E[max] = mean · H_N, which grows with N"
#define HINT_MU  "a log-normal's mean is exp(μ + σ²/2), so μ = ln(mean) − σ²/2"
#define HINT_LN                                                                                                          \
    "E[max] = ∫_0^∞ (1 − F(x)^N) dx: the maximum is below x with probability F(x)^N; check the integration range " \
    "and step (README, hints)"

static int model_check(void) {
    int bad = 0;
    /* harmonic numbers: stated values, then a large N against the asymptotic series */
    bad |= close_to("harmonic_number(1)", T(harmonic_number(1)), 1.0, 1e-15, HINT_H);
    bad |= close_to("harmonic_number(2)", T(harmonic_number(2)), 1.5, 1e-15, HINT_H);
    bad |= close_to("harmonic_number(4)", T(harmonic_number(4)), 25.0 / 12, 1e-15, HINT_H);
    bad |= close_to("harmonic_number(8)", T(harmonic_number(8)), 761.0 / 280, 1e-15, HINT_H);
    {
        double n = 1e6, gamma = 0.57721566490153286;
        bad |= close_to("harmonic_number(1000000)", T(harmonic_number(1000000)),
                        log(n) + gamma + 1 / (2 * n) - 1 / (12 * n * n), 1e-12, HINT_H " (≈ ln N + 0.5772)");
    }
    /* exponential delays */
    bad |= close_to("expected_max_exponential(0.03, 1)", T(expected_max_exponential(0.03, 1)), 0.03, 1e-14,
                    "one rank waits for nobody: E[max] is the mean");
    const int Ns[] = {2, 3, 8, 64, 512, 1000};
    for (int i = 0; i < 6; i++) {
        char what[96];
        snprintf(what, sizeof what, "expected_max_exponential(0.03, %d)", Ns[i]);
        bad |= close_to(what, ck_tape_double(what, expected_max_exponential(0.03, Ns[i])),
                        0.03 * oracle_harmonic(Ns[i]), 1e-12, HINT_EXP);
    }
    /* the log-normal's parameters */
    bad |= close_to("lognormal_mu(0.03, 0)", T(lognormal_mu(0.03, 0)), log(0.03), 1e-14, "σ = 0: ln(mean)");
    bad |= close_to("lognormal_mu(0.03, 0.5)", T(lognormal_mu(0.03, 0.5)), log(0.03) - 0.125, 1e-14, HINT_MU);
    bad |= close_to("lognormal_mu(20, 1.5)", T(lognormal_mu(20, 1.5)), log(20.0) - 1.125, 1e-14, HINT_MU);
    int mu_bad = bad; /* the step's hint below blames μ only when μ itself was wrong */
    /* the log-normal's maximum: closed forms first (N = 1: the mean; N = 2: 2·e^(μ+σ²/2)·Φ(σ/√2);
     * σ = 0: every delay is e^μ), then the grader's quadrature */
    bad |=
        close_to("expected_max_lognormal(0, 0.5, 1)", T(expected_max_lognormal(0, 0.5, 1)), exp(0.125), 1e-7,
                 "one rank: the mean, exp(μ + σ²/2), which ∫_0^∞ (1 − F(x)^N) dx gives for N = 1: check the integrand "
                 "and the integration range");
    bad |=
        close_to("expected_max_lognormal(-3.5, 1, 1)", T(expected_max_lognormal(-3.5, 1, 1)), exp(-3.0), 1e-7,
                 "one rank: the mean, exp(μ + σ²/2), which ∫_0^∞ (1 − F(x)^N) dx gives for N = 1: check the integrand "
                 "and the integration range");
    bad |= close_to("expected_max_lognormal(0.7, 0.8, 2)", T(expected_max_lognormal(0.7, 0.8, 2)),
                    2 * exp(0.7 + 0.32) * 0.5 * erfc(-0.8 / 2), 1e-7, "two ranks: 2·exp(μ + σ²/2)·Φ(σ/√2)");
    bad |= close_to("expected_max_lognormal(-4, 2, 2)", T(expected_max_lognormal(-4, 2, 2)),
                    2 * exp(-4 + 2.0) * 0.5 * erfc(-2 / 2.0), 1e-7, "two ranks: 2·exp(μ + σ²/2)·Φ(σ/√2)");
    bad |= close_to("expected_max_lognormal(1.2, 0, 16)", T(expected_max_lognormal(1.2, 0, 16)), exp(1.2), 1e-9,
                    "σ = 0: every delay is exp(μ), and so is their maximum");
    if (!bad) {
        const double mus[] = {-3.5, 0, 1.5}, sigmas[] = {0.1, 0.5, 1.0, 2.0};
        const int Ms[] = {3, 4, 8, 16, 64, 1000};
        for (int a = 0; a < 3 && !bad; a++)
            for (int b = 0; b < 4 && !bad; b++)
                for (int c = 0; c < 6 && !bad; c++) {
                    char what[96];
                    snprintf(what, sizeof what, "expected_max_lognormal(%g, %g, %d)", mus[a], sigmas[b], Ms[c]);
                    bad |= close_to(what, ck_tape_double(what, expected_max_lognormal(mus[a], sigmas[b], Ms[c])),
                                    oracle_max_lognormal(mus[a], sigmas[b], Ms[c]), 1e-6, HINT_LN);
                }
    }
    /* the step: its hint names the part that failed above, if one did (a wrong integration range
     * would otherwise show up here as a wrong μ) */
    const char *step_hint = mu_bad ? "base + E[max] of log-normals whose MEAN is 25 ms: μ = ln(mean) − σ²/2, and "
                                     "lognormal_mu failed above"
                            : bad  ? "base + expected_max_lognormal(lognormal_mu(mean_s, σ), σ, N): "
                                     "expected_max_lognormal failed above, fix it first"
                                   : "base + expected_max_lognormal(lognormal_mu(j->mean_s, j->sigma), j->sigma, N)";
    jitter_t none = {JITTER_NONE, 0, 0}, ex = {JITTER_EXP, 0.025, 0}, ln = {JITTER_LOGNORMAL, 0.025, 0.6};
    bad |= close_to("predict_step_jitter(none, base 0.004, N=8)", T(predict_step_jitter(&none, 0.004, 8)), 0.004, 1e-14,
                    "no jitter: the step is the base");
    for (int N = 1; N <= 8; N *= 2) {
        char what[96];
        snprintf(what, sizeof what, "predict_step_jitter(exp:25, base 0.004, N=%d)", N);
        bad |= close_to(what, ck_tape_double(what, predict_step_jitter(&ex, 0.004, N)),
                        0.004 + 0.025 * oracle_harmonic(N), 1e-12, "base + mean·H_N");
        snprintf(what, sizeof what, "predict_step_jitter(lognormal:25:0.6, base 0.004, N=%d)", N);
        bad |= close_to(what, ck_tape_double(what, predict_step_jitter(&ln, 0.004, N)),
                        0.004 + oracle_max_lognormal(log(0.025) - 0.18, 0.6, N), 1e-6, step_hint);
    }
    if (!bad)
        printf("the straggler model gives the stated numbers: H_N (to N = 10^6), E[max] of exponentials (N to 1000), "
               "the log-normal's μ, its E[max] against the closed forms (N = 1, 2, σ = 0) and the grader's quadrature "
               "(72 cases to 1e-6), and the step under jitter\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check10");
    const ck_entry_t checks[] = {{"model", model_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
