// lesson: 09
// base: skeleton
// file: scaling.c
// score: 0
// why: every prediction is NaN, which compares neither below nor above a tolerance
#include "scaling.h"

#include <math.h>

double amdahl_speedup(double p, int N) {
    (void)p, (void)N;
    return NAN;
}
double ring_allreduce_time(double bytes, int N, double alpha, double beta) {
    (void)bytes, (void)N, (void)alpha, (void)beta;
    return NAN;
}
double step_time(double compute, double comm, bool overlap) {
    (void)compute, (void)comm, (void)overlap;
    return NAN;
}
double predict_step(double compute, int N, int cores, double bytes, int buckets, double alpha, double beta,
                    bool overlap) {
    (void)compute, (void)N, (void)cores, (void)bytes, (void)buckets, (void)alpha, (void)beta, (void)overlap;
    return NAN;
}
double efficiency(double t1, double tn, int N) {
    (void)t1, (void)tn, (void)N;
    return NAN;
}
