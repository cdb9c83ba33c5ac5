/* scaling.c — the cost model of data parallelism, in five formulas (see scaling.h).
 *
 * Amdahl's law: if a fraction p of the work speeds up N-fold and 1 − p does not, the time goes from
 * 1 to (1 − p) + p/N. For DDP the part that does not shrink is the communication that is not hidden:
 * with the ring it does not even shrink with N — it tends to 2·|g|/β — so efficiency falls as the
 * computation per rank shrinks towards it. */
#include "scaling.h"

#include "util.h"

#include <math.h>

double amdahl_speedup(double p, int N) {
    // TODO(09 amdahl_speedup): S(N) of Amdahl's law for a parallel fraction p (README, "The model").
    // BEGIN SOLUTION
    return 1.0 / ((1.0 - p) + p / N);
    // END SOLUTION
    // SKELETON: (void)p, (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double ring_allreduce_time(double bytes, int N, double alpha, double beta) {
    // TODO(09 ring_allreduce_time): T_ar(N) of the ring (README, "The model"), in whatever units it
    //   is given. N = 1 sends nothing: 0. beta = 0 stands for infinite bandwidth: latency only.
    // BEGIN SOLUTION
    if (N <= 1) return 0.0;
    double t = 2.0 * (N - 1) * alpha;
    if (beta > 0) t += 2.0 * (N - 1) / N * bytes / beta;
    return t;
    // END SOLUTION
    // SKELETON: (void)bytes, (void)N, (void)alpha, (void)beta;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double step_time(double compute, double comm, bool overlap) {
    // TODO(09 step_time): the model's step from its compute and communication times, without and
    //   with overlap (README, "A step": the bound the model uses).
    // BEGIN SOLUTION
    return overlap ? fmax(compute, comm) : compute + comm;
    // END SOLUTION
    // SKELETON: (void)compute, (void)comm, (void)overlap;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double predict_step(double compute1, int N, int cores, double bytes, int buckets, double alpha, double beta,
                    bool overlap) {
    // TODO(09 predict_step): the predicted step on N ranks, from one rank's compute time compute1:
    //   strong scaling over `cores` shared cores, and the gradient's `bytes` sent as `buckets` equal
    //   ring all-reduces (README, "The model"). Build it from the functions above.
    // BEGIN SOLUTION
    int parallel = N < cores ? N : cores;
    double comm = buckets * ring_allreduce_time(bytes / buckets, N, alpha, beta);
    return step_time(compute1 / parallel, comm, overlap);
    // END SOLUTION
    // SKELETON: (void)compute1, (void)N, (void)cores, (void)bytes, (void)buckets, (void)alpha, (void)beta;
    // SKELETON: (void)overlap;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}

double efficiency(double t1, double tn, int N) {
    // TODO(09 efficiency): the strong-scaling efficiency of a step of tn on N ranks against t1 on one
    //   (README, "Strong scaling").
    // BEGIN SOLUTION
    return t1 / (N * tn);
    // END SOLUTION
    // SKELETON: (void)t1, (void)tn, (void)N;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}
