// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: writes a 4 GB file into its scratch: the file-size limit stops it
#include <stdio.h>
#include <string.h>
__attribute__((constructor)) static void fill(void) {
    static char block[1 << 20];
    memset(block, 7, sizeof block);
    FILE *f = fopen("sub.st", "wb");
    for (int i = 0; f && i < 4096; i++)
        if (fwrite(block, 1, sizeof block, f) != sizeof block) break;
    if (f) fclose(f);
}
