// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: 200 MB of output from every process: captured output stays a few KB, logs stay small
#include <stdio.h>
#include <string.h>
__attribute__((constructor)) static void flood(void) {
    static char line[1 << 16];
    memset(line, 'x', sizeof line - 1);
    for (int i = 0; i < 3200; i++) fputs(line, stdout), fputs(line, stderr);
}
