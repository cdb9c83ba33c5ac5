/* straggler.c — parsing the straggler and jitter options, and the seeded delays (straggler.h). */
#include "straggler.h"

#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits that keep a typo from turning a test run into an hour of sleeping. */
#define MAX_FACTOR  1000.0
#define MAX_MEAN_MS 60000.0
#define MAX_SIGMA   4.0
/* A key of its own: the delays never reuse the numbers that initialise the model or order the data. */
#define JITTER_STREAM 0x5354524147474C45ull /* "STRAGGLE" */

static int parse_number(const char *s, const char *end, double *out) {
    if (s == end) return -1;
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *stop;
    double v = strtod(buf, &stop);
    if (*stop || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int straggler_parse(const char *spec, straggler_t *out, char *err, size_t errlen) {
    *out = (straggler_t){-1, 1.0};
    if (!spec || !strcmp(spec, "none")) return 0;
    const char *colon = strchr(spec, ':');
    double rank, factor;
    if (!colon || parse_number(spec, colon, &rank) || parse_number(colon + 1, colon + strlen(colon), &factor) ||
        rank != floor(rank)) {
        snprintf(err, errlen, "--straggler expects RANK:FACTOR (e.g. 2:3, rank 2 three times slower), got '%s'", spec);
        return -1;
    }
    if (rank < 0 || rank > 1e6) {
        snprintf(err, errlen, "--straggler %s: the rank must be 0 or more", spec);
        return -1;
    }
    if (!(factor >= 1 && factor <= MAX_FACTOR)) {
        snprintf(err, errlen,
                 "--straggler %s: the factor must be in [1, %g] (1 = as fast as the others; a rank cannot be made "
                 "faster by sleeping)",
                 spec, MAX_FACTOR);
        return -1;
    }
    *out = (straggler_t){(int)rank, factor};
    return 0;
}

int jitter_parse(const char *spec, jitter_t *out, char *err, size_t errlen) {
    *out = (jitter_t){JITTER_NONE, 0, 0};
    if (!spec || !strcmp(spec, "none")) return 0;
    const char *colon = strchr(spec, ':');
    const char *usage = "--jitter expects exp:MEAN_MS or lognormal:MEAN_MS:SIGMA (e.g. exp:30, lognormal:30:0.5)";
    if (!colon) {
        snprintf(err, errlen, "%s, got '%s'", usage, spec);
        return -1;
    }
    size_t kind_len = (size_t)(colon - spec);
    const char *rest = colon + 1, *colon2 = strchr(rest, ':');
    double mean_ms = 0, sigma = 0;
    if (kind_len == 3 && !strncmp(spec, "exp", 3)) {
        if (colon2 || parse_number(rest, rest + strlen(rest), &mean_ms)) {
            snprintf(err, errlen, "%s, got '%s'", usage, spec);
            return -1;
        }
        out->kind = JITTER_EXP;
    } else if (kind_len == 9 && !strncmp(spec, "lognormal", 9)) {
        if (!colon2 || parse_number(rest, colon2, &mean_ms) ||
            parse_number(colon2 + 1, colon2 + 1 + strlen(colon2 + 1), &sigma)) {
            snprintf(err, errlen, "%s, got '%s'", usage, spec);
            return -1;
        }
        if (!(sigma >= 0 && sigma <= MAX_SIGMA)) {
            snprintf(err, errlen, "--jitter %s: SIGMA must be in [0, %g] (the spread of ln(delay); 0.5 is moderate)",
                     spec, MAX_SIGMA);
            return -1;
        }
        out->kind = JITTER_LOGNORMAL;
    } else {
        snprintf(err, errlen, "--jitter %s: unknown distribution '%.*s'; %s", spec, (int)kind_len, spec, usage);
        return -1;
    }
    if (!(mean_ms > 0 && mean_ms <= MAX_MEAN_MS)) {
        snprintf(err, errlen, "--jitter %s: MEAN_MS must be above 0 and at most %g ms (leave --jitter out for none)",
                 spec, MAX_MEAN_MS);
        return -1;
    }
    out->mean_s = mean_ms * 1e-3;
    out->sigma = sigma;
    return 0;
}

double jitter_lognormal_mu(double mean, double sigma) { return log(mean) - 0.5 * sigma * sigma; }

/* A uniform double in (0, 1) from 32 + 21 random bits: never 0 or 1, so both logarithms stay finite. */
static double open_uniform(uint32_t hi, uint32_t lo) {
    return ((double)((uint64_t)hi << 21 | (lo >> 11)) + 0.5) * (1.0 / 9007199254740992.0);
}

double jitter_delay_s(const jitter_t *j, uint64_t seed, int rank, int64_t step) {
    if (j->kind == JITTER_NONE) return 0;
    /* counter (step, rank): one Philox block per rank and step, four words, all this draw needs */
    uint32_t ctr[4] = {(uint32_t)step, (uint32_t)((uint64_t)step >> 32), (uint32_t)rank, 0};
    uint32_t w[4];
    philox4x32_10(ctr, seed ^ JITTER_STREAM, w);
    double u1 = open_uniform(w[0], w[1]);
    if (j->kind == JITTER_EXP) return -j->mean_s * log(u1);
    double u2 = open_uniform(w[2], w[3]);
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2); /* Box–Muller: one standard normal */
    return exp(jitter_lognormal_mu(j->mean_s, j->sigma) + j->sigma * z);
}
