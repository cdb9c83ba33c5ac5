/* q10.c — lesson 10's quiz: the expected maximum of N delays (solutions/10-limits/straggler_model.c,
 * the reference), the noise scale's two estimates (solutions/10-limits/noise_scale.c), the tokens'
 * weighting of variable-length examples, and the loader's prefetch. */
#include "noise_scale.h"
#include "quiz.h"
#include "straggler_model.h"

#include <stdio.h>

void quiz_10(quiz_t *qz, rng_t *r);

void quiz_10(quiz_t *qz, rng_t *r) {
    /* stragglers: a synchronous step waits for the slowest of N delays */
    double mean = quiz_int(r, 5, 40), base = quiz_int(r, 20, 120);
    int N = quiz_int(r, 3, 16);
    double emax = expected_max_exponential(mean, N);
    quiz_why(quiz_number(qz, emax, 0.01,
                         "Every one of N = %d ranks is delayed each step by an independent exponential delay of mean "
                         "%.0f ms. By how many ms does the synchronous step grow, on average?",
                         N, mean),
             "the step waits for the largest of the %d delays: E[max] = mean * H_N = %.0f * %.4g = %.4g ms (H_N = "
             "1 + 1/2 + ... + 1/N)",
             N, mean, harmonic_number(N), emax);
    jitter_t j = {JITTER_EXP, mean * 1e-3, 0};
    int M = 2 * N;
    double step = predict_step_jitter(&j, base * 1e-3, M) * 1e3;
    quiz_why(quiz_number(qz, step, 0.01,
                         "Without delays the step takes %.0f ms. With the same delays on N = %d ranks, what is the "
                         "expected step time (ms)?",
                         base, M),
             "base + mean * H_%d = %.0f + %.0f * %.4g = %.4g ms", M, base, mean, harmonic_number(M), step);
    double sigma = quiz_pick(r, (const double[]){0.5, 1.0, 1.5}, 3);
    double mu = lognormal_mu(mean, sigma);
    quiz_why(quiz_number(qz, mu, 0.001,
                         "A log-normal delay has mean %.0f ms and sigma = %g (the standard deviation of its "
                         "logarithm). What is its mu (the mean of ln(delay), delay in ms)?",
                         mean, sigma),
             "E[delay] = exp(mu + sigma^2/2), so mu = ln(%.0f) - %g^2/2 = %.4g", mean, sigma, mu);

    /* the noise scale from the two batch sizes DDP sees */
    int b = 1 << quiz_int(r, 3, 6), n = 1 << quiz_int(r, 1, 3), B = b * n;
    double g2 = 0.01 * quiz_int(r, 5, 50), tr = 0.01 * quiz_int(r, 50, 2000);
    /* the question prints 5 digits: the answer is computed from what the student reads */
    char txt[64];
    snprintf(txt, sizeof txt, "%.5g %.5g", g2 + tr / b, g2 + tr / B);
    double small, big, eg2, etr;
    if (sscanf(txt, "%lg %lg", &small, &big) != 2) small = big = 0;
    noise_scale_estimates(small, big, b, B, &eg2, &etr);
    quiz_why(quiz_number(qz, etr / eg2, 0.01,
                         "DDP on %d ranks with %d examples each: the mean over the ranks of |G_b|^2 before the "
                         "all-reduce is %.5g, and |G_B|^2 after it is %.5g. Estimate B_simple = tr(Sigma)/|G|^2.",
                         n, b, small, big),
             "|G|^2 = (B|G_B|^2 - b|G_b|^2)/(B - b) = %.5g, tr(Sigma) = (|G_b|^2 - |G_B|^2)/(1/b - 1/B) = %.5g "
             "(b = %d, B = %d); B_simple = %.4g",
             eg2, etr, b, B, etr / eg2);

    /* variable-length examples: the loss weight that makes DDP average the global batch */
    int R = quiz_int(r, 2, 4), mine = quiz_int(r, 40, 200), total = mine;
    for (int k = 1; k < R; k++) total += quiz_int(r, 40, 200);
    double w = (double)R * mine / total;
    quiz_why(quiz_number(qz, w, 0.01,
                         "Variable-length examples on N = %d ranks: this rank's batch predicts %d positions, the "
                         "global batch %d. Each rank averages its loss over its own positions and DDP averages the "
                         "ranks' gradients. By what factor must this rank's loss be multiplied so that the result is "
                         "the global batch's mean?",
                         R, mine, total),
             "w_r = N * n_r / sum(n) = %d * %d / %d = %.4g: then (1/N) sum_r w_r * (1/n_r) sum ell = (1/sum n) sum "
             "ell",
             R, mine, total, w);

    /* the loader */
    double C = quiz_int(r, 20, 80), D = quiz_int(r, 10, 120);
    double with = C > D ? C : D;
    quiz_why(quiz_number(qz, C + D, 0.01,
                         "A step computes for %.0f ms and its batch takes %.0f ms to load. With no prefetch "
                         "(--prefetch-depth 0), how long is a step (ms)?",
                         C, D),
             "the loading and the compute take turns: %.0f + %.0f = %.0f ms", C, D, C + D);
    quiz_why(quiz_number(qz, with, 0.01,
                         "And with --prefetch-depth 1 (the loader prepares the next batch on its "
                         "own thread), in the steady state?"),
             "the two overlap: max(%.0f, %.0f) = %.0f ms%s", C, D, with,
             D > C ? " (loader-bound: a deeper prefetch does not help)" : "");

    static const char *const why[] = {
        "The step waits for the slowest rank, and the largest of N random delays grows with N (like ln N for "
        "exponential delays)",
        "Each rank's delay grows with N because the all-reduce sends more bytes per rank",
        "The delays add up over the ranks, so the step grows like N times the mean delay",
        "It does not grow: the delays average out over more ranks"};
    quiz_why(quiz_choice(qz, r, why, 4, 0,
                         "Why is random per-rank jitter worse on 512 ranks than on 8, even with the same mean delay?"),
             "E[max of N] = mean * H_N ~ mean * (ln N + 0.58) for exponential delays: every step waits for the "
             "unluckiest rank, and with more ranks someone is more likely to be unlucky");
}
