/* pingpong.h — lesson 00: measuring the link between two ranks.
 *
 * A message of b bytes takes about T(b) = α + b/β: a fixed start-up cost α (latency: software,
 * the wire, the other side waking up) plus the bytes at bandwidth β. Ping-pong measures T(b): rank 0
 * sends b bytes to rank 1, rank 1 sends them straight back, many times; half a round trip is one
 * message. A straight-line fit of T against b over many sizes gives α (the intercept) and β (one over
 * the slope). These two numbers drive the cost model of every later lesson. */
#ifndef DPC_PINGPONG_H
#define DPC_PINGPONG_H

#include "comm.h"

/* Ranks 0 and 1 bounce a message of `bytes` bytes (buf, at least that big) back and forth `iters`
 * times; every other rank does nothing. Returns, on ranks 0 and 1, the mean ONE-WAY time of one
 * message in seconds (0 on the others). */
double pingpong(comm_t *c, unsigned char *buf, size_t bytes, int iters);

/* Least-squares fit of seconds[i] ≈ alpha + bytes[i] / beta over n points (n >= 2, at least two
 * distinct sizes): alpha in seconds, beta in bytes per second. */
void fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha, double *beta);

#endif
