/* testutil.h — what the cmocka tests share: the cmocka includes, and running a function in a child
 * process to check that it exits (status and stderr), for the "one clear line and a non-zero exit"
 * promises. */
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

/* Number of lines in s. */
static inline int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

#endif
