// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: fills its scratch with many files, each below the file-size limit: the scratch quota stops it
#include <stdio.h>
#include <string.h>
__attribute__((constructor)) static void fill_disk(void) {
    static char block[1 << 20];
    memset(block, 9, sizeof block);
    for (int k = 0; k < 8; k++) {
        char name[32];
        snprintf(name, sizeof name, "fill%d.bin", k);
        FILE *f = fopen(name, "wb");
        for (int i = 0; f && i < 400; i++)
            if (fwrite(block, 1, sizeof block, f) != sizeof block) break;
        if (f) fclose(f);
    }
}
