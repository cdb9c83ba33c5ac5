/* check00 — the grader's checks of lesson 00 (linked with the submission's lesson-00 code).
 *
 *   check00 fit                           the weighted line fit on synthetic measurements
 *   mpirun -np 3 check00 pingpong         traffic counters and the one-way time under an emulated
 *                                         link of exactly 50 ms latency (the fastest of 3 calls) */
#include "checklib.h"
#include "comm.h"
#include "pingpong.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The grader's own weighted least-squares line over points [lo, hi), weights 1/t^power:
 * alpha = intercept, beta = 1/slope. Also what a fit with other weights, or one that leaves out a
 * point, gives — to name the mistake. */
static void wls_fit(const double *b, const double *t, int n, int power, int lo, int hi, double *alpha, double *beta) {
    (void)n;
    double s1 = 0, sb = 0, st = 0, sbb = 0, sbt = 0;
    for (int i = lo; i < hi; i++) {
        double w = power == 2 ? 1.0 / (t[i] * t[i]) : 1.0 / t[i];
        s1 += w;
        sb += w * b[i];
        st += w * t[i];
        sbb += w * b[i] * b[i];
        sbt += w * b[i] * t[i];
    }
    double slope = (s1 * sbt - sb * st) / (s1 * sbb - sb * sb);
    *alpha = (st - slope * sb) / s1;
    *beta = 1.0 / slope;
}

static int fit_check(void) {
    int bad = 0, n = 0;
    double b[20], t[20], alpha = 0, beta = 0;
    /* exact data: T = 5 µs + b / (2 GB/s) */
    for (double s = 8; s <= 16777216; s *= 4) {
        b[n] = s;
        t[n++] = 5e-6 + s / 2e9;
    }
    fit_alpha_beta(b, t, n, &alpha, &beta);
    alpha = ck_tape_double("fit_alpha_beta alpha, exact data", alpha);
    beta = ck_tape_double("fit_alpha_beta beta, exact data", beta);
    if (!(fabs(alpha - 5e-6) < 1e-9 && fabs(beta / 2e9 - 1) < 1e-6)) {
        bad = 1;
        if (fabs(beta * 2e9 - 1) < 1e-3 || fabs(beta - 5e-10) < 1e-12)
            printf("FAIL: beta = %.4g is the slope of the line (seconds per byte); β is bytes per second, 1/slope\n",
                   beta);
        else if (fabs(alpha - 2e9) < 1e3 || fabs(beta - 5e-6) < 1e-9)
            printf("FAIL: alpha and beta are swapped (alpha = %.4g, beta = %.4g)\n", alpha, beta);
        else
            printf("FAIL: on exact data T = 5 us + b/(2 GB/s) the fit gives alpha = %.4g s, beta = %.4g B/s\n", alpha,
                   beta);
    }
    /* realistic data: large messages 10% slower than the line (caches, page faults). A plain
     * least-squares fit is dominated by them and gets α badly wrong; the relative fit does not. */
    n = 0;
    for (double s = 8; s <= 16777216; s *= 4) {
        b[n] = s;
        t[n++] = (1e-6 + s / 5e9) * (s >= 1048576 ? 1.1 : 1.0);
    }
    fit_alpha_beta(b, t, n, &alpha, &beta);
    alpha = ck_tape_double("fit_alpha_beta alpha, skewed data", alpha);
    beta = ck_tape_double("fit_alpha_beta beta, skewed data", beta);
    if (!bad && !(fabs(alpha / 1e-6 - 1) < 0.25)) {
        bad = 1;
        printf("FAIL: on measurements where the largest messages run 10%% slow, alpha = %.3g s instead of about 1e-6: "
               "an unweighted fit lets the largest messages decide; weight each point by 1/t² (fit relative error)\n",
               alpha);
    }
    /* noisy data, as a real measurement gives: the fit must be THE weighted least-squares line,
     * w = 1/t², over every point — checked against the grader's own to 1e-9. Deterministic: the
     * noise is a fixed pseudo-random sequence, so no machine's load enters this check. */
    n = 0;
    uint32_t x = 12345;
    for (double s = 0; s <= 16777216; s = s ? s * 4 : 8) {
        x = x * 1664525u + 1013904223u; /* a fixed LCG: the same "noise" every time */
        b[n] = s;
        t[n++] = (3e-5 + s / 1e9) * (1.0 + 0.3 * (double)(x >> 8) / 16777216.0);
    }
    fit_alpha_beta(b, t, n, &alpha, &beta);
    alpha = ck_tape_double("fit_alpha_beta alpha, noisy data", alpha);
    beta = ck_tape_double("fit_alpha_beta beta, noisy data", beta);
    double want_a, want_b;
    wls_fit(b, t, n, 2, 0, n, &want_a, &want_b);
    if (!bad && !(fabs(alpha / want_a - 1) < 1e-9 && fabs(beta / want_b - 1) < 1e-9)) {
        bad = 1;
        double a1, b1, af, bf, al, bl;
        wls_fit(b, t, n, 1, 0, n, &a1, &b1);
        wls_fit(b, t, n, 2, 1, n, &af, &bf);
        wls_fit(b, t, n, 2, 0, n - 1, &al, &bl);
        printf("FAIL: on noisy measurements (%d sizes, 0 B .. 16 MiB) the fit gives alpha = %.10g s, beta = %.10g B/s; "
               "the weighted least-squares line (w = 1/t², every point) is alpha = %.10g, beta = %.10g",
               n, alpha, beta, want_a, want_b);
        if (fabs(alpha / a1 - 1) < 1e-6 && fabs(beta / b1 - 1) < 1e-6)
            printf(" — yours weights each point by 1/t: the weight is 1/t² (the squared relative error)\n");
        else if ((fabs(alpha / af - 1) < 1e-6 && fabs(beta / bf - 1) < 1e-6) ||
                 (fabs(alpha / al - 1) < 1e-6 && fabs(beta / bl - 1) < 1e-6))
            printf(" — yours leaves out the %s point: fit all n points\n",
                   fabs(alpha / af - 1) < 1e-6 ? "first" : "last");
        else
            printf("\n");
    }
    if (!bad)
        printf("the fit recovers alpha and beta (exact data to 1e-6, skewed data to 25%%) and is the weighted "
               "least-squares line on noisy data (to 1e-9)\n");
    return bad;
}

static int pingpong_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    o.link_latency_us = 50000; /* every message costs exactly 50 ms, whatever its size: so long that a
                                 * busy machine's late wake-ups (a few ms) cannot pass for a second
                                 * message (a round trip) */
    comm_t *c = comm_init(NULL, NULL, &o);
    /* waiting ranks nap instead of spinning: on a busy 2-core machine a spinning third rank (or a
     * spinning receiver) takes the core the woken sender needs, and every message reads ms late */
    comm_set_wait(c, COMM_WAIT_NAP);
    int r = comm_rank(c), n = comm_world_size(c), bad = 0;
    if (n < 2) dp_fatal("run this check on at least 2 ranks");
    unsigned char buf[4000] = {0};
    int iters = 3, calls = 3;
    size_t bytes = sizeof buf;
    comm_counters_t before = comm_counters(c);
    /* the fastest of 3 calls: a busy machine only ever adds time (a rank not scheduled answers
     * late), never removes any — the emulator sleeps at least 50 ms per message */
    double t = INFINITY;
    for (int k = 0; k < calls; k++)
        t = fmin(t, ck_tape_double("pingpong one-way time", pingpong(c, buf, bytes, iters)));
    comm_counters_t d = comm_counters_diff(comm_counters(c), before);
    iters *= calls; /* the traffic of all the calls */
    /* this rank's view of the student's ping-pong: its measured time and its traffic */
    ck_tape("pingpong comm counter deltas", &d, sizeof d);
    if (r <= 1) {
        if (d.msgs_sent != (uint64_t)iters || d.msgs_recv != (uint64_t)iters || d.bytes_sent != iters * bytes ||
            d.bytes_recv != iters * bytes) {
            printf("FAIL: rank %d sent %llu messages (%llu bytes) and received %llu (%llu bytes); with %d round trips "
                   "of %zu bytes (3 calls) each of ranks 0 and 1 sends and receives %d messages of %zu bytes\n",
                   r, (unsigned long long)d.msgs_sent, (unsigned long long)d.bytes_sent,
                   (unsigned long long)d.msgs_recv, (unsigned long long)d.bytes_recv, iters, bytes, iters, bytes);
            bad = 1;
        } else if (!(t > 47.5e-3 && t < 97e-3)) { /* a round trip reads at least 100 ms, whatever the load */
            bad = 1;
            if (t >= 97e-3 && t < 250e-3)
                printf("FAIL: rank %d returned %.2f ms; each message costs 50 ms, so that is a round trip: divide by "
                       "2·iters\n",
                       r, t * 1e3);
            else if (t > 250e-3)
                printf(
                    "FAIL: rank %d returned %.2f ms: that is the total time; return the mean one-way time (divide by "
                    "2·iters)\n",
                    r, t * 1e3);
            else
                printf("FAIL: rank %d returned %.3g s; each message costs 50 ms on this emulated link\n", r, t);
        }
    } else if (d.msgs_sent || d.msgs_recv || t != 0) {
        printf("FAIL: rank %d took part (sent %llu, received %llu, returned %g); only ranks 0 and 1 ping-pong\n", r,
               (unsigned long long)d.msgs_sent, (unsigned long long)d.msgs_recv, t);
        bad = 1;
    }
    int all = bad;
    comm_lib_allreduce(c, &bad, &all, 1, DT_I32, REDOP_MAX);
    if (r == 0 && !all) {
        printf("ping-pong: %d round trips, right traffic on every rank, one-way time 50 ms as emulated\n", iters);
        printf("margin: rank 0's fastest one-way time %.3f ms (emulated 50 ms; accepted 47.5 .. 97 ms: a round trip is "
               "at least 100)\n",
               t * 1e3);
    }
    comm_finalize(c);
    return all;
}

int main(int argc, char **argv) {
    dp_set_progname("check00");
    const ck_entry_t checks[] = {{"fit", fit_check}, {"pingpong", pingpong_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
