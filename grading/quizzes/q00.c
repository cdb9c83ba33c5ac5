/* q00.c — lesson 00's quiz: the α-β model of a message and its fit (fit_alpha_beta, the reference). */
#include "pingpong.h"
#include "quiz.h"

void quiz_00(quiz_t *qz, rng_t *r);

void quiz_00(quiz_t *qz, rng_t *r) {
    static const double alphas_us[] = {2, 5, 10, 20, 50};
    static const double betas_gbs[] = {1, 2, 5, 10, 25};
    double alpha = quiz_pick(r, alphas_us, 5) * 1e-6, beta = quiz_pick(r, betas_gbs, 5) * 1e9;
    double b = (double)(1u << quiz_int(r, 10, 24));
    double t = alpha + b / beta;
    quiz_why(quiz_number(qz, t * 1e6, 0.01,
                         "A link has latency alpha = %g us and bandwidth beta = %g GB/s (10^9 bytes/s). How long, in "
                         "microseconds, does one message of %.0f bytes take in the alpha-beta model?",
                         alpha * 1e6, beta / 1e9, b),
             "T(b) = alpha + b/beta = %g us + %.0f / %g B/s = %g us + %g us = %g us", alpha * 1e6, b, beta, alpha * 1e6,
             b / beta * 1e6, t * 1e6);

    double half = alpha * beta;
    quiz_why(quiz_number(qz, half, 0.01,
                         "On the same link, at what message size (bytes) does the message take exactly twice its "
                         "latency, i.e. the bandwidth term equals alpha?"),
             "b/beta = alpha gives b = alpha*beta = %g s * %g B/s = %.0f bytes: below it latency dominates, above "
             "it bandwidth",
             alpha, beta, half);

    double eff = b / t / beta;
    quiz_why(quiz_number(qz, eff * 100, 0.01,
                         "What fraction of beta (in percent) does a %.0f-byte message achieve, measured as bytes / "
                         "T(b)?",
                         b),
             "b / T(b) / beta = b / (b + alpha*beta) = %.0f / (%.0f + %.0f) = %.4g%%", b, b, half, eff * 100);

    /* three ping-pong measurements, exactly on the line of a second link, fitted by the reference */
    double a2 = quiz_pick(r, alphas_us, 5) * 1e-6, b2 = quiz_pick(r, betas_gbs, 5) * 1e9;
    double sizes[3] = {1024.0 * quiz_int(r, 1, 8), 65536.0 * quiz_int(r, 1, 8), 1048576.0 * quiz_int(r, 1, 8)};
    double secs[3];
    for (int i = 0; i < 3; i++) secs[i] = a2 + sizes[i] / b2;
    double fa, fb;
    fit_alpha_beta(sizes, secs, 3, &fa, &fb);
    quiz_why(quiz_number(qz, fa * 1e6, 0.01,
                         "Ping-pong on another link measures one-way times of %.6g us for %.0f bytes, %.6g us for "
                         "%.0f bytes and %.6g us for %.0f bytes. What latency alpha (us) does the straight-line fit "
                         "give?",
                         secs[0] * 1e6, sizes[0], secs[1] * 1e6, sizes[1], secs[2] * 1e6, sizes[2]),
             "the points lie on a line T = alpha + b/beta: its slope (T3 - T1)/(b3 - b1) = 1/beta gives beta = %.4g "
             "GB/s and its intercept alpha = T1 - b1/beta = %.4g us",
             fb / 1e9, fa * 1e6);
    quiz_why(quiz_number(qz, fb / 1e9, 0.01, "And what bandwidth beta (GB/s, 10^9 bytes/s) does that fit give?"),
             "beta = (b3 - b1) / (T3 - T1) = %.0f bytes / %.4g us = %.4g GB/s", sizes[2] - sizes[0],
             (secs[2] - secs[0]) * 1e6, fb / 1e9);

    static const char *const pp[] = {
        "Both timestamps are read on rank 0's clock: a send may return before the data arrives, and two ranks' "
        "clocks do not agree to within a message's time",
        "Because alpha is paid only once per round trip, so halving it removes the latency",
        "MPI requires every message to be answered before the next one may be sent",
        "The round trip carries twice the bytes, so beta is measured twice as precisely"};
    quiz_why(quiz_choice(qz, r, pp, 4, 0,
                         "Why does ping-pong time a round trip and halve it, instead of timing one send on rank 0?"),
             "a send returns when its buffer may be reused, not when the message arrived; and the receiver's clock is "
             "not the sender's. Half a round trip, read on one clock, is one message (alpha is paid on each way)");

    static const char *const fit[] = {
        "One size cannot separate alpha from b/beta: only the slope and intercept over many sizes give both",
        "A single measurement is always slower because the first message pays a start-up cost",
        "The fit averages away beta, leaving only alpha",
        "Large messages are split into packets, so each size needs its own beta"};
    quiz_why(quiz_choice(qz, r, fit, 4, 0, "Why does lesson 00 fit a line over many message sizes?"),
             "T(b) = alpha + b/beta has two unknowns; one size gives one equation. Over many sizes the intercept is "
             "alpha and the slope 1/beta (and the noise of single runs averages out)");
}
