/* checklib.h — helpers shared by the grader's per-lesson checks (checkNN.c): random inputs,
 * poisoned outputs, "does this array match that one" with a report that helps a student. */
#ifndef DPC_CHECKLIB_H
#define DPC_CHECKLIB_H

#include "compare.h"
#include "rng.h"

#include <stdbool.h>
#include <stddef.h>

/* Uniform in [-1, 1). */
void ck_random(rng_t *r, float *x, size_t n);
/* Fill with NaN, so that an output the code under test never writes is noticed. */
void ck_poison(float *x, size_t n);
bool ck_has_nonfinite(const float *x, size_t n);
/* Does got match want (double, the oracle) to |got − want| <= tol · max|want|? */
bool ck_close(const float *got, const double *want, size_t n, double tol);
/* got vs want where want is float. */
bool ck_close_f(const float *got, const float *want, size_t n, double tol);
/* "name: max-abs X, first difference at index i: got vs expected" */
void ck_describe(const char *name, const float *got, const double *want, size_t n);

/* Run the named check from a table; the program's usage is "checkNN CHECK". */
typedef struct {
    const char *name;
    int (*fn)(void); /* 0 = passed */
} ck_entry_t;
int ck_main(int argc, char **argv, const ck_entry_t *checks);

/* Exit status of a check that cannot run on this machine (no GPU): grading/grade reports SKIPPED
 * and the check counts neither for nor against. */
#define SKIPPED 77

#endif
