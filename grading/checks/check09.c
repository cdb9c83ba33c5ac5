/* check09 — the lesson-09 cost model on stated cases (linked with the submission's scaling.c). */
#include "checklib.h"
#include "scaling.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int close_to(const char *what, double got, double want, double rtol, const char *hint) {
    if (fabs(got - want) <= rtol * fabs(want) + 1e-15) return 0;
    printf("FAIL: %s = %.6g, expected %.6g%s%s\n", what, got, want, hint ? " — " : "", hint ? hint : "");
    return 1;
}

/* The student's value, through the tape (named by the call itself). */
#define T(call) ck_tape_double(#call, call)

/* ring_allreduce_time on one case; when it is wrong, the hint names the term that is wrong, found by
 * asking for each term alone (β = 0: latency only; α = 0: bandwidth only) — a wrong total says
 * nothing about which of the two sums is off. Integer division in 2(N−1)/N (README, Hint 2) shows as
 * a whole-number coefficient, and gets its own hint. */
static bool ring_wrong; /* a ring case failed: predict_step's failures follow from it */
static int ring_close(const char *what, double bytes, int N, double alpha, double beta, const char *hint) {
    double got = T(ring_allreduce_time(bytes, N, alpha, beta));
    double want = N <= 1 ? 0 : 2.0 * (N - 1) * alpha + (beta > 0 ? 2.0 * (N - 1) / N * bytes / beta : 0);
    if (fabs(got - want) <= 1e-12 * fabs(want) + 1e-15) return 0;
    ring_wrong = true;
    if (N <= 1 || !(beta > 0)) return close_to(what, got, want, 1e-12, hint); /* one term or none: the hint */
    double lat = T(ring_allreduce_time(bytes, N, alpha, 0)), lat_want = 2.0 * (N - 1) * alpha;
    double bw = T(ring_allreduce_time(bytes, N, 0, beta)), bw_want = 2.0 * (N - 1) / N * bytes / beta;
    bool lat_ok = fabs(lat - lat_want) <= 1e-12 * fabs(lat_want) + 1e-15;
    bool bw_ok = fabs(bw - bw_want) <= 1e-12 * fabs(bw_want) + 1e-15;
    char why[320];
    if (!bw_ok) {
        double coef = bw * beta / bytes; /* what the student multiplies |g|/β by */
        if (fabs(coef - round(coef)) < 1e-9 && fabs(coef - 2.0 * (N - 1) / N) > 1e-9)
            snprintf(why, sizeof why,
                     "the bandwidth term is wrong: its coefficient is %.0f, a whole number, where 2(N−1)/N = %.6g "
                     "for N=%d — 2(N−1)/N computed in integers truncates (README, Hint 2): bring a double in "
                     "before the division",
                     coef, 2.0 * (N - 1) / N, N);
        else
            snprintf(why, sizeof why,
                     "the bandwidth term is wrong: alone (α = 0) it gives %.6g, expected 2(N−1)/N · bytes/β = %.6g", bw,
                     bw_want);
        if (!lat_ok) snprintf(why + strlen(why), sizeof why - strlen(why), "; the latency term too");
    } else if (!lat_ok)
        snprintf(why, sizeof why, "the latency term is wrong: alone (β = 0) it gives %.6g, expected 2(N−1)·α = %.6g",
                 lat, lat_want);
    else
        snprintf(why, sizeof why, "each term alone is right (latency %.6g, bandwidth %.6g): the time is their sum", lat,
                 bw);
    if (hint) snprintf(why + strlen(why), sizeof why - strlen(why), " (%s)", hint);
    ring_wrong = true;
    return close_to(what, got, want, 1e-12, why);
}

/* predict_step is built on ring_allreduce_time: once that is wrong, say so instead of a hint about
 * predict_step's own bookkeeping. */
static const char *predict_hint(const char *hint) {
    return ring_wrong ? "ring_allreduce_time is wrong (above) and predict_step is built on it: fix that first" : hint;
}

static int model_check(void) {
    int bad = 0;
    /* Amdahl: 5% serial caps the speed-up at 20 */
    bad |= close_to("amdahl_speedup(0.95, 8)", T(amdahl_speedup(0.95, 8)), 1 / (0.05 + 0.95 / 8), 1e-12,
                    "1/((1−p) + p/N)");
    bad |= close_to("amdahl_speedup(0.95, 1e6)", T(amdahl_speedup(0.95, 1000000)), 1 / (0.05 + 0.95e-6), 1e-9,
                    "tends to 1/(1−p) = 20");
    bad |= close_to("amdahl_speedup(1, 64)", T(amdahl_speedup(1.0, 64)), 64, 1e-12, NULL);
    /* the lesson's example: 7B parameters in bf16, |g| = 14 GB, large N: ~2·|g|/β, with β one direction
     * of the link (NVLink 4: 450 GB/s each way, as common/link.c's "nvlink" preset) */
    bad |= ring_close("ring_allreduce_time(14e9 B, N=1024, α=0, NVLink 450 GB/s)", 14e9, 1024, 0, 450e9,
                      "2(N−1)/N · |g| / β: about 62 ms");
    bad |= ring_close("ring_allreduce_time(14e9 B, N=64, α=0, InfiniBand 25 GB/s)", 14e9, 64, 0, 25e9, "over a second");
    bad |= ring_close("ring_allreduce_time(1e6 B, N=4, α=1e-5, β=1e9)", 1e6, 4, 1e-5, 1e9,
                      "2(N−1)·α + 2(N−1)/N · bytes/β");
    bad |= ring_close("ring_allreduce_time(1e6, N=1, ...)", 1e6, 1, 1e-5, 1e9, "one rank sends nothing");
    bad |= ring_close("ring_allreduce_time(1e6, N=8, α=1e-5, β=0)", 1e6, 8, 1e-5, 0,
                      "β = 0 means infinite bandwidth: the latency term only");
    bad |= close_to("step_time(0.3, 0.2, overlap)", T(step_time(0.3, 0.2, true)), 0.3, 1e-12, "max(compute, comm)");
    bad |= close_to("step_time(0.3, 0.2, no overlap)", T(step_time(0.3, 0.2, false)), 0.5, 1e-12, "compute + comm");
    bad |= close_to("predict_step(0.12 s, N=4, 2 cores, 1e6 B, 1 bucket, α=1e-3, β=1e8, no overlap)",
                    T(predict_step(0.12, 4, 2, 1e6, 1, 1e-3, 1e8, false)), 0.06 + 6e-3 + 1.5e-2, 1e-12,
                    predict_hint("compute/min(N, cores) + the ring"));
    bad |= close_to("predict_step(0.12 s, N=4, 8 cores, 1e6 B, 4 buckets, α=1e-3, β=1e8, no overlap)",
                    T(predict_step(0.12, 4, 8, 1e6, 4, 1e-3, 1e8, false)), 0.03 + 4 * 6e-3 + 1.5e-2, 1e-12,
                    predict_hint("each bucket pays the latency term, the bytes are shared"));
    /* with overlap: the step is the larger of the two, whichever it is */
    bad |= close_to("predict_step(0.12 s, N=4, 2 cores, 1e6 B, 1 bucket, α=1e-3, β=1e8, overlap)",
                    T(predict_step(0.12, 4, 2, 1e6, 1, 1e-3, 1e8, true)), 0.06, 1e-12,
                    predict_hint("max(compute/min(N, cores), the ring): compute hides the communication"));
    bad |= close_to("predict_step(0.012 s, N=4, 8 cores, 1e6 B, 4 buckets, α=1e-3, β=1e8, overlap)",
                    T(predict_step(0.012, 4, 8, 1e6, 4, 1e-3, 1e8, true)), 4 * 6e-3 + 1.5e-2, 1e-12,
                    predict_hint("max(compute/min(N, cores), the ring): here the ring is the longer one"));
    bad |= close_to("efficiency(100, 30, 4)", T(efficiency(100, 30, 4)), 100.0 / 120, 1e-12, "T1/(N·TN)");
    /* and the whole model as a function, against the grader's own, overlap off AND on: every
     * combination of ranks, cores, buckets, latency, bandwidth (0 = infinite) */
    if (!bad) {
        const int Ns[] = {1, 2, 3, 5, 8}, cores[] = {1, 2, 6}, buckets[] = {1, 3};
        const double alphas[] = {0, 2.5e-4}, betas[] = {0, 3e8};
        for (int ov = 0; ov < 2 && !bad; ov++)
            for (int a = 0; a < 5 && !bad; a++)
                for (int c = 0; c < 3 && !bad; c++)
                    for (int k = 0; k < 2 && !bad; k++)
                        for (int l = 0; l < 2 && !bad; l++)
                            for (int m = 0; m < 2 && !bad; m++) {
                                int N = Ns[a], par = N < cores[c] ? N : cores[c];
                                double bytes = 7.3e6, compute1 = 0.0917;
                                double ring =
                                    N <= 1
                                        ? 0
                                        : 2.0 * (N - 1) * alphas[l] +
                                              (betas[m] > 0 ? 2.0 * (N - 1) / N * (bytes / buckets[k]) / betas[m] : 0);
                                double comm = buckets[k] * ring, comp = compute1 / par;
                                double want = ov ? fmax(comp, comm) : comp + comm;
                                char what[160];
                                snprintf(what, sizeof what,
                                         "predict_step(%.4g s, N=%d, %d cores, %.3g B, %d bucket(s), α=%g, β=%g, %s)",
                                         compute1, N, cores[c], bytes, buckets[k], alphas[l], betas[m],
                                         ov ? "overlap" : "no overlap");
                                bad |= close_to(
                                    what,
                                    T(predict_step(compute1, N, cores[c], bytes, buckets[k], alphas[l], betas[m], ov)),
                                    want, 1e-12,
                                    predict_hint(
                                        ov ? "with overlap: max(compute1/min(N, cores), buckets · ring(bytes/buckets))"
                                           : "without: compute1/min(N, cores) + buckets · ring(bytes/buckets)"));
                            }
    }
    if (!bad)
        printf("the cost model gives the stated numbers (Amdahl, ring all-reduce incl. the chapter's 7B example, step, "
               "prediction, efficiency) and predict_step equals the grader's model on 240 cases, overlap off and on\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check09");
    const ck_entry_t checks[] = {{"model", model_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
