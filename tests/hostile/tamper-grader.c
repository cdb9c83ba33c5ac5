// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: overwrites the programs it is run from, the grader's scripts and tools, and the reference build
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void tamper(void) {
    const char *victims[] = {"/work/main/grading/lessons/01.sh",
                             "/work/main/grading/lessons/train-equiv.sh",
                             "/work/main/build/grading/equiv",
                             "/work/main/build/solutions/01-trainer/train",
                             "/work/main/grading/grade",
                             "/proc/self/exe",
                             NULL};
    char p[4096];
    for (int i = 0; victims[i]; i++) {
        FILE *f = fopen(victims[i], "w");
        if (f) fputs("#!/bin/sh\nexit 0\n", f), fclose(f);
    }
    const char *progs = getenv("PROGS");
    if (progs) {
        snprintf(p, sizeof p, "%s/grading/check01", progs);
        FILE *f = fopen(p, "w");
        if (f) fputs("#!/bin/sh\nexit 0\n", f), fclose(f);
    }
}
