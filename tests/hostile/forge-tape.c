// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: writes the check's tape itself (an end record only, then a record of the wrong size) and exits 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void fake_tape(void) {
    const char *checks[] = {"linear_backward", "xent_backward", "adamw", "gradcheck"};
    for (int i = 0; i < 4; i++) {
        char p[256];
        snprintf(p, sizeof p, "tape.%s.1.0", checks[i]);
        FILE *f = fopen(p, "wb");
        if (!f) continue;
        unsigned long long n = 1ull << 40;
        fwrite("end of the check", 1, 17, f);
        fwrite(&n, sizeof n, 1, f);
        fclose(f);
    }
    _exit(0);
}
