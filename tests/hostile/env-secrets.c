// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// forbid: hostile-env-secret-42
// why: prints the environment it runs in, where a grading service may keep tokens (the runner sets one)
#include <stdio.h>
extern char **environ;
__attribute__((constructor)) static void dump_environment(void) {
    for (char **e = environ; *e; e++) printf("%s\n", *e);
}
