/* regular.h — open a file the student's run left behind, for reading, only if it is a regular file.
 *
 * The grader's tools read files (stats, traces, results) from a directory the sandboxed run could
 * write: a FIFO there would block fopen forever (the tool hangs, the grade never comes) and a
 * directory opens and reads as nothing. Opening with O_NONBLOCK never waits, and fstat on the open
 * descriptor checks the very file that will be read (no window to swap it after the check). */
#ifndef DPC_GRADING_REGULAR_H
#define DPC_GRADING_REGULAR_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static inline FILE *fopen_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) close(fd);
    return f;
}

#endif
