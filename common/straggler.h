/* straggler.h — emulated stragglers: a rank whose compute is slower than the others', and random
 * per-step delays on every rank (lesson 10).
 *
 * Both are added to a rank's compute AFTER it has run, by sleeping: the numerics never change (the
 * same operations in the same order), only when each rank reaches its next communication. The
 * delays are a pure function of (seed, rank, step), drawn with the counter-based generator of rng.h,
 * so a test can recompute every one of them, and two runs with the same flags sleep the same.
 *
 *   --straggler RANK:FACTOR        that rank's compute takes FACTOR times as long (it sleeps
 *                                  (FACTOR − 1) · its measured compute of the step)
 *   --jitter exp:MEAN_MS           every rank sleeps an exponential delay of mean MEAN_MS each step
 *   --jitter lognormal:MEAN_MS:SIGMA   a log-normal delay of mean MEAN_MS whose logarithm has
 *                                  standard deviation SIGMA (so its μ is ln(MEAN) − SIGMA²/2) */
#ifndef DPC_STRAGGLER_H
#define DPC_STRAGGLER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int rank;      /* -1: none */
    double factor; /* >= 1 */
} straggler_t;

typedef enum { JITTER_NONE, JITTER_EXP, JITTER_LOGNORMAL } jitter_kind_t;

typedef struct {
    jitter_kind_t kind;
    double mean_s; /* the delay's mean, seconds */
    double sigma;  /* log-normal: standard deviation of ln(delay) */
} jitter_t;

/* Parse "RANK:FACTOR" / "exp:MEAN_MS" / "lognormal:MEAN_MS:SIGMA" (NULL or "none": none). On bad
 * input return -1 with one line in err saying what is wrong and what to write instead. */
int straggler_parse(const char *spec, straggler_t *out, char *err, size_t errlen);
int jitter_parse(const char *spec, jitter_t *out, char *err, size_t errlen);

/* The delay of `rank` at step `step` (seconds, >= 0; 0 for JITTER_NONE): the same on every call,
 * every machine and every rank that asks. */
double jitter_delay_s(const jitter_t *j, uint64_t seed, int rank, int64_t step);

/* The log-normal's μ (the mean of ln(delay)) for a delay of mean `mean` and σ `sigma`. */
double jitter_lognormal_mu(double mean, double sigma);

#endif
