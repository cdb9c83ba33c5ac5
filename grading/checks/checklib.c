/* checklib.c — see checklib.h. */
#include "checklib.h"

#include "crash.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- the tape (see checklib.h) ------------------------------------------------------------------ */

enum { TAPE_OFF, TAPE_RUN, TAPE_JUDGE };
typedef struct {
    int phase;
    FILE *f;
    char path[4096];
    const char *check;
    unsigned long records;
} tape_t;
static tape_t tape; /* one per process: the grader's bookkeeping, not algorithm state */

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

static void tape_fail(const char *what, const char *why) {
    fflush(stdout);
    printf("FAIL: the run of your code %s (%s, record %lu of its results): it crashed, hung, exited early or wrote "
           "something else (its output, if any, is below)\n",
           why, what, tape.records + 1);
    fflush(stdout);
    exit(1);
}

static void tape_start(const char *check) {
    tape.check = check;
    /* the judge says so (CK_PHASE=judge); the run is told only where to write (CK_TAPE_DIR): no
     * variable names its phase */
    const char *phase = getenv("CK_PHASE"), *dir = getenv("CK_TAPE_DIR");
    tape.phase = phase && !strcmp(phase, "judge") ? TAPE_JUDGE : !phase && dir && *dir ? TAPE_RUN : TAPE_OFF;
    if (tape.phase == TAPE_OFF) return;
    snprintf(tape.path, sizeof tape.path, "%s/tape.%s.%s.%s", env_or("CK_TAPE_DIR", "."), check,
             env_or("OMPI_COMM_WORLD_SIZE", "1"), env_or("OMPI_COMM_WORLD_RANK", "0"));
    tape.f = fopen(tape.path, tape.phase == TAPE_RUN ? "wb" : "rb");
    if (!tape.f && tape.phase == TAPE_RUN) {
        fprintf(stderr, "check: cannot write %s\n", tape.path);
        exit(2);
    }
    if (!tape.f) tape_fail("its first result", "recorded no result at all");
}

/* A record: the name (NUL-terminated, at most 127 bytes), the byte count (u64), the bytes. */
void ck_tape(const char *what, void *data, size_t bytes) {
    if (tape.phase == TAPE_OFF) return;
    char name[128] = {0};
    snprintf(name, sizeof name, "%s", what);
    uint64_t n = bytes;
    if (tape.phase == TAPE_RUN) {
        fwrite(name, 1, strlen(name) + 1, tape.f);
        fwrite(&n, sizeof n, 1, tape.f);
        if (bytes) fwrite(data, 1, bytes, tape.f);
        fflush(tape.f); /* a crash later leaves everything before it */
        tape.records++;
        return;
    }
    char got[128];
    size_t len = 0;
    int ch;
    while (len < sizeof got && (ch = fgetc(tape.f)) != EOF && (got[len++] = (char)ch)) {
    }
    if (len == 0) tape_fail(what, "stopped before producing this");
    if (len == sizeof got || got[len - 1] != 0) tape_fail(what, "wrote a damaged record");
    uint64_t have = 0;
    if (fread(&have, sizeof have, 1, tape.f) != 1) tape_fail(what, "stopped while producing this");
    if (strcmp(got, name) || have != n) tape_fail(what, "recorded something else here");
    if (bytes && fread(data, 1, bytes, tape.f) != bytes) tape_fail(what, "stopped while producing this");
    tape.records++;
}

double ck_tape_double(const char *what, double value) {
    ck_tape(what, &value, sizeof value);
    return value;
}

long long ck_tape_ll(const char *what, long long value) {
    ck_tape(what, &value, sizeof value);
    return value;
}

bool ck_tape_ends_here(void) {
    if (tape.phase != TAPE_JUDGE) return false;
    int ch = fgetc(tape.f);
    if (ch == EOF) return true;
    ungetc(ch, tape.f);
    return false;
}

bool ck_recording(void) { return tape.phase == TAPE_RUN; }

bool ck_judging(void) { return tape.phase == TAPE_JUDGE; }

int ck_main(int argc, char **argv, const ck_entry_t *checks) {
    dp_crash_report_install(); /* a crash in the code under test names its function (common/crash.h) */
    if (argc == 2)
        for (const ck_entry_t *c = checks; c->name; c++)
            if (!strcmp(c->name, argv[1])) {
                tape_start(c->name);
                int rc = c->fn();
                ck_tape("end of the check", NULL, 0);
                if (tape.phase == TAPE_JUDGE && fgetc(tape.f) != EOF)
                    tape_fail("end of the check", "recorded more than the check asked for");
                if (tape.f) fclose(tape.f);
                if (tape.phase == TAPE_RUN) {
                    printf("%s: results recorded; the grader judges them\n", c->name);
                    return 0;
                }
                /* the results held; were the counters they rest on the traffic that happened? */
                if (tape.phase == TAPE_JUDGE && rc == 0 && !ck_switch_agrees()) rc = 1;
                printf("%s: %s\n", c->name, rc == 0 ? "passed" : "FAILED");
                return rc == 0 ? 0 : 1;
            }
    fprintf(stderr, "usage: %s CHECK, one of:", argv[0]);
    for (const ck_entry_t *c = checks; c->name; c++) fprintf(stderr, " %s", c->name);
    fprintf(stderr, "\n");
    return 2;
}
