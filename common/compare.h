/* compare.h — numerical comparison of float32 arrays, the way the graders report it.
 *
 * Two float32 results of the same computation done in a different order differ by rounding: a few
 * units in the last place (ULP) per operation, growing with the length of the reductions. So an
 * element "agrees" when |a − b| <= atol + rtol·|b| (b: the reference), and the report gives the
 * worst absolute, relative and ULP differences and the first element that disagrees. */
#ifndef DPC_COMPARE_H
#define DPC_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t n;
    double max_abs, max_rel; /* worst |a-b| and |a-b|/|b| (|b| = 0 counts as relative 0 or inf) */
    size_t argmax_abs;
    uint64_t max_ulp;       /* worst ULP distance */
    size_t n_bad;           /* elements outside tolerance */
    size_t first_bad;       /* index of the first one (n when none) */
    float first_a, first_b; /* the two values there */
    bool nonfinite;         /* a NaN or Inf in a where b is finite (or the other way round) */
} cmp_result_t;

/* Distance in representable float32 values between a and b (0 when equal, +0 == -0). NaN: max. */
uint64_t cmp_ulp_distance(float a, float b);

/* Compare a (candidate) with b (reference), elementwise. */
cmp_result_t cmp_f32(const float *a, const float *b, size_t n, double atol, double rtol);

/* ‖a‖₂ / ‖b‖₂ and the cosine between a and b (in double): how a wrong gradient differs — a ratio
 * of 2.0 with cosine 1 is a missing factor, a cosine near 0 is a wrong formula. */
double cmp_norm_ratio(const float *a, const float *b, size_t n);
double cmp_cosine(const float *a, const float *b, size_t n);

#endif
