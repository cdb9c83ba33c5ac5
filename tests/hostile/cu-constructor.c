// lesson: 01
// base: solutions
// append: kernels.cu
// score: 0
// expect: FORBIDDEN: kernels.cu calls
// why: the CUDA file (never vetted before) runs a constructor and a dynamic initialiser before main that open files, fork, wait and register an exit hook
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void hostile_bye(void) {}
__attribute__((constructor)) static void hostile_init(void) {
    FILE *f = fopen("/etc/hostname", "r");
    if (f) fclose(f);
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, NULL, 0);
    atexit(hostile_bye);
}
static int hostile_pid(void) { return (int)getpid(); }
static int hostile_x = hostile_pid();
int hostile_get(void) { return hostile_x; }
