/* compare.c — see compare.h. */
#include "compare.h"

#include <math.h>
#include <string.h>

/* Map a float's bits onto a line where adjacent floats are adjacent integers (negatives mirrored). */
static int64_t ordered(float x) {
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - (int64_t)i : (int64_t)i;
}

uint64_t cmp_ulp_distance(float a, float b) {
    if (isnan(a) || isnan(b)) return UINT64_MAX;
    int64_t d = ordered(a) - ordered(b);
    return (uint64_t)(d < 0 ? -d : d);
}

cmp_result_t cmp_f32(const float *a, const float *b, size_t n, double atol, double rtol) {
    cmp_result_t r = {0};
    r.n = n;
    r.first_bad = n;
    for (size_t i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        bool fin_x = isfinite(x), fin_y = isfinite(y);
        double diff = x == y ? 0.0 : fabs(x - y); /* equal infinities differ by 0, not NaN */
        if (fin_x != fin_y || (!fin_x && !fin_y && !(x == y))) {
            r.nonfinite = true;
            diff = INFINITY;
        }
        double rel = diff == 0 ? 0 : (y != 0 ? diff / fabs(y) : INFINITY);
        uint64_t ulp = cmp_ulp_distance(a[i], b[i]);
        if (diff > r.max_abs || (isinf(diff) && !isinf(r.max_abs))) {
            r.max_abs = diff;
            r.argmax_abs = i;
        }
        if (rel > r.max_rel) r.max_rel = rel;
        if (ulp > r.max_ulp) r.max_ulp = ulp;
        if (diff != 0 && !(diff <= atol + rtol * fabs(y))) {
            if (r.n_bad == 0) {
                r.first_bad = i;
                r.first_a = a[i];
                r.first_b = b[i];
            }
            r.n_bad++;
        }
    }
    return r;
}

double cmp_norm_ratio(const float *a, const float *b, size_t n) {
    double na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        na += (double)a[i] * a[i];
        nb += (double)b[i] * b[i];
    }
    if (nb == 0) return na == 0 ? 1.0 : INFINITY;
    return sqrt(na / nb);
}

double cmp_cosine(const float *a, const float *b, size_t n) {
    double ab = 0, na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        ab += (double)a[i] * b[i];
        na += (double)a[i] * a[i];
        nb += (double)b[i] * b[i];
    }
    if (na == 0 || nb == 0) return (na == 0 && nb == 0) ? 1.0 : 0.0;
    return ab / sqrt(na * nb);
}
