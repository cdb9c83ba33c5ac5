/* checklib.c — see checklib.h. */
#include "checklib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ck_random(rng_t *r, float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = 2.0f * rng_uniform(r) - 1.0f;
}

void ck_poison(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = NAN;
}

bool ck_has_nonfinite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return true;
    return false;
}

static double maxabs(const double *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

bool ck_close(const float *got, const double *want, size_t n, double tol) {
    double scale = maxabs(want, n);
    if (scale == 0) scale = 1;
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol * scale)) return false;
    return true;
}

bool ck_close_f(const float *got, const float *want, size_t n, double tol) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)want[i]));
    if (m == 0) m = 1;
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol * m)) return false;
    return true;
}

void ck_describe(const char *name, const float *got, const double *want, size_t n) {
    double worst = 0;
    size_t first = n;
    double scale = maxabs(want, n);
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= 1e-4 * (scale ? scale : 1)) && first == n) first = i;
        if (!(d <= worst)) worst = d;
    }
    if (first < n)
        printf("  %s: max-abs difference %.3g; first wrong element [%zu]: got %.7g, expected %.7g\n", name, worst,
               first, (double)got[first], want[first]);
}

int ck_main(int argc, char **argv, const ck_entry_t *checks) {
    if (argc == 2)
        for (const ck_entry_t *c = checks; c->name; c++)
            if (!strcmp(c->name, argv[1])) {
                int rc = c->fn();
                printf("%s: %s\n", c->name, rc == 0 ? "passed" : "FAILED");
                return rc == 0 ? 0 : 1;
            }
    fprintf(stderr, "usage: %s CHECK, one of:", argv[0]);
    for (const ck_entry_t *c = checks; c->name; c++) fprintf(stderr, " %s", c->name);
    fprintf(stderr, "\n");
    return 2;
}
