/* scaling.c — the cost model of data parallelism, in five formulas (see scaling.h).
 *
 * Amdahl's law: if a fraction p of the work speeds up N-fold and 1 − p does not, the time goes from
 * 1 to (1 − p) + p/N. For DDP the part that does not shrink is the communication that is not hidden:
 * with the ring it does not even shrink with N — it tends to 2·|g|/β — so efficiency falls as the
 * computation per rank shrinks towards it. */
#include "scaling.h"

#include <math.h>

double amdahl_speedup(double p, int N) {
    // TODO(09 amdahl_speedup): 1 / ((1 − p) + p / N)
    (void)p, (void)N;
    return 0.0;
}

double ring_allreduce_time(double bytes, int N, double alpha, double beta) {
    // TODO(09 ring_allreduce_time): 2(N−1)·alpha + 2(N−1)/N · bytes / beta; 0 for N = 1; beta = 0
    //   means infinite bandwidth (only the latency term).
    (void)bytes, (void)N, (void)alpha, (void)beta;
    return 0.0;
}

double step_time(double compute, double comm, bool overlap) {
    // TODO(09 step_time): the sum, or the larger of the two with overlap.
    (void)compute, (void)comm, (void)overlap;
    return 0.0;
}

double predict_step(double compute1, int N, int cores, double bytes, int buckets, double alpha, double beta,
                    bool overlap) {
    // TODO(09 predict_step): compute1 / min(N, cores); communication = `buckets` ring all-reduces of
    //   bytes / buckets each; then step_time.
    (void)compute1, (void)N, (void)cores, (void)bytes, (void)buckets, (void)alpha, (void)beta;
    (void)overlap;
    return 0.0;
}

double efficiency(double t1, double tn, int N) {
    // TODO(09 efficiency): T(1) / (N · T(N))
    (void)t1, (void)tn, (void)N;
    return 0.0;
}
