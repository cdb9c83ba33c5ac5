// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: tries to take 64 GB of memory: the address-space limit refuses it
#include <stdlib.h>
#include <string.h>
__attribute__((constructor)) static void hog(void) {
    for (int i = 0; i < 64; i++) {
        char *p = malloc((size_t)1 << 30);
        if (!p) break;
        memset(p, 1, (size_t)1 << 30);
    }
}
