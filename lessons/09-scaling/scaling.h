/* scaling.h — lesson 09: how fast should data-parallel training be on N ranks? A cost model.
 *
 *   Amdahl:            S(N) = 1 / ((1 − p) + p/N)               p = the fraction that parallelises
 *   ring all-reduce:   T_ar(N) = 2(N−1)·α + 2(N−1)/N · |g| / β   (lesson 04)
 *   DDP's buckets:     b all-reduces of |g|/b bytes: b·2(N−1)·α + 2(N−1)/N · |g| / β
 *   one step:          T(N) = T_compute(N) + T_ar(N)             without overlap
 *                      T(N) = max(T_compute(N), T_ar(N))         with overlap: a lower bound of
 *                                   T_fwd + max(T_bwd, T_ar) + T_opt (only backward hides it, lesson 05)
 *   compute:           T_compute(N) = T_compute(1) / min(N, cores)   (a fixed global batch split N
 *                                     ways, on a machine with `cores` cores for all the ranks)
 *   speed-up S = T(1)/T(N);  efficiency E = T(1) / (N · T(N)) */
#ifndef DPC_SCALING_H
#define DPC_SCALING_H

#include <stdbool.h>

double amdahl_speedup(double p, int N);
/* bytes of gradient; alpha and the result in one unit of time, beta in bytes per that unit (0:
 * infinite): seconds and bytes/s in the lesson's formulas, milliseconds and bytes/ms in
 * scaling_model.c */
double ring_allreduce_time(double bytes, int N, double alpha, double beta);
double step_time(double compute, double comm, bool overlap);
/* The whole prediction: a step of T1 seconds of compute on one rank, split over N ranks that share
 * `cores` cores, plus `buckets` ring all-reduces that together carry `bytes` over the link. */
double predict_step(double compute1, int N, int cores, double bytes, int buckets, double alpha, double beta,
                    bool overlap);
double efficiency(double t1, double tn, int N);

#endif
