/* glibc-compat.c — the functions glibc 2.36 added that the GPU bundle's Debian 12 libraries call
 * (libevent's arc4random), for a GPU machine with an older glibc. tests/gpu/bundle.sh builds it into
 * sys/lib/compat/libdpc-glibc-compat.so and marks those libraries' GLIBC_2.36 requirement weak
 * (build/tests/progs/elf_glibc); run.sh preloads it only where glibc is older than 2.36, so a newer
 * glibc keeps its own. No version script: ld.so binds a weak-versioned reference to an unversioned
 * definition. The randomness is the kernel's (getrandom, glibc 2.25), as in glibc's own. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

uint32_t arc4random(void);
void arc4random_buf(void *buf, size_t n);
uint32_t arc4random_uniform(uint32_t upper);

void arc4random_buf(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            abort(); /* as glibc does: a caller of arc4random cannot handle a failure */
        }
        p += got;
        n -= (size_t)got;
    }
}

uint32_t arc4random(void) {
    uint32_t r;
    arc4random_buf(&r, sizeof r);
    return r;
}

/* uniform in [0, upper): draws below the largest multiple of upper are kept (no modulo bias) */
uint32_t arc4random_uniform(uint32_t upper) {
    if (upper < 2) return 0;
    uint32_t min = -upper % upper;
    for (;;) {
        uint32_t r = arc4random();
        if (r >= min) return r % upper;
    }
}
