/* testutil.h — what the cmocka tests share: the cmocka includes, running a function in a child
 * process to check that it exits (status and stderr), for the "one clear line and a non-zero exit"
 * promises, and damaged copies of files for the "refused with a reason" ones. */
#ifndef DPC_TESTUTIL_H
#define DPC_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fork, pipe, setenv, mkdtemp */
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h" /* dp_read_file */

/* Run fn(arg) in a child; return its exit status (or 128 + signal) and its stderr in err. */
static inline int run_child(void (*fn)(void *), void *arg, char *err, size_t errlen) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn(arg);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < errlen && (k = read(fds[0], err + n, errlen - 1 - n)) > 0) n += (size_t)k;
    err[n] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Write to dst a copy of the file src after damage(bytes, &length) has changed it. */
static inline void copy_damaged(const char *src, const char *dst, void (*damage)(unsigned char *, size_t *)) {
    size_t n;
    unsigned char *b = dp_read_file(src, &n);
    assert_non_null(b);
    damage(b, &n);
    FILE *f = fopen(dst, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    free(b);
}

/* Number of lines in s. */
static inline int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

#endif
