/* check09 — the lesson-09 cost model on stated cases (linked with the submission's scaling.c). */
#include "checklib.h"
#include "scaling.h"
#include "util.h"

#include <math.h>
#include <stdio.h>

static int close_to(const char *what, double got, double want, double rtol, const char *hint) {
    if (fabs(got - want) <= rtol * fabs(want) + 1e-15) return 0;
    printf("FAIL: %s = %.6g, expected %.6g%s%s\n", what, got, want, hint ? " — " : "", hint ? hint : "");
    return 1;
}

/* The student's value, through the tape (named by the call itself). */
#define T(call) ck_tape_double(#call, call)

static int model_check(void) {
    int bad = 0;
    /* Amdahl: 5% serial caps the speed-up at 20 */
    bad |= close_to("amdahl_speedup(0.95, 8)", T(amdahl_speedup(0.95, 8)), 1 / (0.05 + 0.95 / 8), 1e-12, "1/((1−p) + p/N)");
    bad |= close_to("amdahl_speedup(0.95, 1e6)", T(amdahl_speedup(0.95, 1000000)), 1 / (0.05 + 0.95e-6), 1e-9, "tends to 1/(1−p) = 20");
    bad |= close_to("amdahl_speedup(1, 64)", T(amdahl_speedup(1.0, 64)), 64, 1e-12, NULL);
    /* the source chapter: 7B parameters in bf16, |g| = 14 GB, large N: ~2·|g|/B */
    bad |= close_to("ring_allreduce_time(14e9 B, N=1024, α=0, NVLink 600 GB/s)", T(ring_allreduce_time(14e9, 1024, 0, 600e9)),
                    2.0 * 1023 / 1024 * 14e9 / 600e9, 1e-12, "2(N−1)/N · |g| / β: about 47 ms");
    bad |= close_to("ring_allreduce_time(14e9 B, N=64, α=0, InfiniBand 25 GB/s)", T(ring_allreduce_time(14e9, 64, 0, 25e9)),
                    2.0 * 63 / 64 * 14e9 / 25e9, 1e-12, "over a second");
    bad |= close_to("ring_allreduce_time(1e6 B, N=4, α=1e-5, β=1e9)", T(ring_allreduce_time(1e6, 4, 1e-5, 1e9)),
                    6 * 1e-5 + 1.5e-3, 1e-12, "the latency term is 2(N−1)·α");
    bad |= close_to("ring_allreduce_time(1e6, N=1, ...)", T(ring_allreduce_time(1e6, 1, 1e-5, 1e9)), 0, 0, "one rank sends nothing");
    bad |= close_to("ring_allreduce_time(1e6, N=8, α=1e-5, β=0)", T(ring_allreduce_time(1e6, 8, 1e-5, 0)), 14e-5, 1e-12,
                    "β = 0 means infinite bandwidth: the latency term only");
    bad |= close_to("step_time(0.3, 0.2, overlap)", T(step_time(0.3, 0.2, true)), 0.3, 1e-12, "max(compute, comm)");
    bad |= close_to("step_time(0.3, 0.2, no overlap)", T(step_time(0.3, 0.2, false)), 0.5, 1e-12, "compute + comm");
    bad |= close_to("predict_step(0.12 s, N=4, 2 cores, 1e6 B, 1 bucket, α=1e-3, β=1e8, no overlap)",
                    T(predict_step(0.12, 4, 2, 1e6, 1, 1e-3, 1e8, false)), 0.06 + 6e-3 + 1.5e-2, 1e-12,
                    "compute/min(N, cores) + the ring");
    bad |= close_to("predict_step(0.12 s, N=4, 8 cores, 1e6 B, 4 buckets, α=1e-3, β=1e8, no overlap)",
                    T(predict_step(0.12, 4, 8, 1e6, 4, 1e-3, 1e8, false)), 0.03 + 4 * 6e-3 + 1.5e-2, 1e-12,
                    "each bucket pays the latency term, the bytes are shared");
    bad |= close_to("efficiency(100, 30, 4)", T(efficiency(100, 30, 4)), 100.0 / 120, 1e-12, "T1/(N·TN)");
    if (!bad) printf("the cost model gives the stated numbers (Amdahl, ring all-reduce incl. the chapter's 7B example, step, prediction, efficiency)\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check09");
    const ck_entry_t checks[] = {{"model", model_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
