// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: fills the sandbox's /dev/shm and /tmp (memory, not disk): their size limits stop it
#include <stdio.h>
#include <string.h>
__attribute__((constructor)) static void fill_memory_fs(void) {
    static char block[1 << 20];
    memset(block, 5, sizeof block);
    const char *names[] = {"/dev/shm/fill", "/tmp/fill"};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(names[k], "wb");
        for (int i = 0; f && i < 2048; i++)
            if (fwrite(block, 1, sizeof block, f) != sizeof block) break;
        if (f) fclose(f);
    }
}
