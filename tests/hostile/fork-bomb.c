// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// args: --timeout 4
// why: a fork bomb in every process: the process limit stops it, the time limit ends it, nothing is left
#include <unistd.h>
__attribute__((constructor)) static void bomb(void) {
    for (int i = 0; i < 100000; i++) fork();
}
