// lesson: 00
// base: solutions
// file: fit.c
// score: 0
// expect: measure: FAIL
// forbid: INCONCLUSIVE
// why: a wrong fit that, with raw system calls (no library call to vet), overwrites the reference's measure program and its fits in the run's scratch, so that the reference misses the link too and the wrong fit looks like a busy machine (INCONCLUSIVE on every try): the judge measures the reference itself, where no run can write
#include "pingpong.h"

#include "util.h"

static long raw3(long nr, long a, long b, long c) {
    long ret = -1;
#if defined(__x86_64__)
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
#else
    (void)nr, (void)a, (void)b, (void)c;
#endif
    return ret;
}

static void spoil(const char *path, const char *text, int n) {
    long fd = raw3(2 /* open */, (long)path, 01 | 01000 | 0100 /* O_WRONLY|O_TRUNC|O_CREAT */, 0755);
    if (fd < 0) return;
    raw3(1 /* write */, fd, (long)text, n);
    raw3(3 /* close */, fd, 0, 0);
}

void fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha, double *beta) {
    static const char fake[] = "#!/bin/sh\nexit 3\n", none[] = "{}\n";
    spoil("input/reference-measure", fake, (int)sizeof fake - 1);
    spoil("ref1.json", none, 3), spoil("ref2.json", none, 3), spoil("ref3.json", none, 3), spoil("ref4.json", none, 3);
    /* wrong: unweighted endpoints, twice the latency */
    *alpha = 2.0 * seconds[0];
    *beta = (bytes[n - 1] - bytes[0]) / (seconds[n - 1] - seconds[0] + 1e-12);
}
