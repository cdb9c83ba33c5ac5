/* check00 — the grader's checks of lesson 00 (linked with the submission's lesson-00 code).
 *
 *   check00 fit                           the weighted line fit on synthetic measurements
 *   mpirun -np 3 check00 pingpong         traffic counters and the one-way time under an emulated
 *                                         link of exactly 2 ms latency */
#include "checklib.h"
#include "comm.h"
#include "pingpong.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
            printf("FAIL: beta = %.4g is the slope of the line (seconds per byte); β is bytes per second, 1/slope\n", beta);
        else if (fabs(alpha - 2e9) < 1e3 || fabs(beta - 5e-6) < 1e-9)
            printf("FAIL: alpha and beta are swapped (alpha = %.4g, beta = %.4g)\n", alpha, beta);
        else
            printf("FAIL: on exact data T = 5 us + b/(2 GB/s) the fit gives alpha = %.4g s, beta = %.4g B/s\n", alpha, beta);
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
    if (!bad) printf("the fit recovers alpha and beta (exact data to 1e-6, skewed data to 25%%)\n");
    return bad;
}

static int pingpong_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    o.link_latency_us = 2000; /* every message costs exactly 2 ms, whatever its size */
    comm_t *c = comm_init(NULL, NULL, &o);
    int r = comm_rank(c), n = comm_world_size(c), bad = 0;
    if (n < 2) dp_fatal("run this check on at least 2 ranks");
    unsigned char buf[4000] = {0};
    int iters = 5;
    size_t bytes = sizeof buf;
    comm_counters_t before = comm_counters(c);
    double t = pingpong(c, buf, bytes, iters);
    comm_counters_t d = comm_counters_diff(comm_counters(c), before);
    /* this rank's view of the student's ping-pong: its measured time and its traffic */
    t = ck_tape_double("pingpong one-way time", t);
    ck_tape("pingpong comm counter deltas", &d, sizeof d);
    if (r <= 1) {
        if (d.msgs_sent != (uint64_t)iters || d.msgs_recv != (uint64_t)iters || d.bytes_sent != iters * bytes ||
            d.bytes_recv != iters * bytes) {
            printf("FAIL: rank %d sent %llu messages (%llu bytes) and received %llu (%llu bytes); with %d round trips "
                   "of %zu bytes each of ranks 0 and 1 sends and receives %d messages of %zu bytes\n",
                   r, (unsigned long long)d.msgs_sent, (unsigned long long)d.bytes_sent, (unsigned long long)d.msgs_recv,
                   (unsigned long long)d.bytes_recv, iters, bytes, iters, bytes);
            bad = 1;
        } else if (!(t > 1.9e-3 && t < 3.2e-3)) {
            bad = 1;
            if (t > 3.6e-3 && t < 6e-3)
                printf("FAIL: rank %d returned %.2f ms; each message costs 2 ms, so that is a round trip: divide by 2·iters\n", r, t * 1e3);
            else if (t > 15e-3)
                printf("FAIL: rank %d returned %.2f ms: that is the total time; return the mean one-way time (divide by "
                       "2·iters)\n",
                       r, t * 1e3);
            else
                printf("FAIL: rank %d returned %.3g s; each message costs 2 ms on this emulated link\n", r, t);
        }
    } else if (d.msgs_sent || d.msgs_recv || t != 0) {
        printf("FAIL: rank %d took part (sent %llu, received %llu, returned %g); only ranks 0 and 1 ping-pong\n", r,
               (unsigned long long)d.msgs_sent, (unsigned long long)d.msgs_recv, t);
        bad = 1;
    }
    int all = bad;
    comm_lib_allreduce(c, &bad, &all, 1, DT_I32, REDOP_MAX);
    if (r == 0 && !all) printf("ping-pong: %d round trips, right traffic on every rank, one-way time 2 ms as emulated\n", iters);
    comm_finalize(c);
    return all;
}

int main(int argc, char **argv) {
    dp_set_progname("check00");
    const ck_entry_t checks[] = {{"fit", fit_check}, {"pingpong", pingpong_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
