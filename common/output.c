/* output.c — see output.h. */
#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Can a file be created in directory dir? Asked by creating one and removing it again, not with
 * access(2): access answers yes to root for any directory on a read-write file system (/sys, /proc,
 * where creating a file still fails), and knows nothing of NFS root squashing or LSM policies.
 * The probe is O_EXCL with this process's id in its name, so it never touches another file. */
static int can_create_in(const char *dir) {
    char probe[4096];
    if (snprintf(probe, sizeof probe, "%s/.dpc-probe.%ld", dir, (long)getpid()) >= (int)sizeof probe) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        /* left by a killed process that had our id before us: stale, and in the way */
        unlink(probe);
        fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    }
    if (fd < 0) return -1;
    close(fd);
    unlink(probe);
    return 0;
}

void dp_check_output(const char *flag, const char *path) {
    if (!path) return;
    size_t n = strlen(path);
    if (n == 0) dp_fatal("%s: empty path; give a file name", flag);
    if (path[n - 1] == '/') dp_fatal("%s %s names a directory; give a file name", flag, path);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) dp_fatal("%s %s is a directory; give a file name", flag, path);
        if (!S_ISREG(st.st_mode)) {
            /* a device or a FIFO is written in place; opening a FIFO would wait for its reader */
            if (access(path, W_OK) != 0) dp_fatal("%s %s: cannot write: %s", flag, path, strerror(errno));
            return;
        }
        /* no O_TRUNC: the check changes nothing */
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) dp_fatal("%s %s: cannot write: %s", flag, path, strerror(errno));
        close(fd);
    } else if (errno != ENOENT && errno != ENOTDIR) {
        dp_fatal("%s %s: %s", flag, path, strerror(errno));
    }
    /* the nearest directory that exists must take a new file: the writers create the missing ones */
    char *d = dp_strdup(path);
    for (;;) {
        char *slash = strrchr(d, '/');
        const char *dir = !slash ? "." : slash == d ? "/" : (*slash = 0, d);
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) dp_fatal("%s %s: %s is not a directory", flag, path, dir);
            if (can_create_in(dir) != 0)
                dp_fatal("%s %s: cannot create files in %s: %s", flag, path, dir, strerror(errno));
            break;
        }
        if ((errno != ENOENT && errno != ENOTDIR) || dir != d)
            dp_fatal("%s %s: %s: %s", flag, path, dir, strerror(errno));
    }
    free(d);
}

void dp_check_output_file(const char *flag, const char *path) {
    struct stat st;
    if (path && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        dp_fatal("%s %s is not a regular file: this output is written to a temporary file and renamed into place, "
                 "which would replace it",
                 flag, path);
    dp_check_output(flag, path);
}

int dp_out_open(dp_out_t *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    dp_mkdir_for(path);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "w"); /* a device or a FIFO: renaming a file over it would replace it */
        return o->f ? 0 : -1;
    }
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof o->tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    o->f = fopen(o->tmp, "w");
    return o->f ? 0 : -1;
}

int dp_out_close(dp_out_t *o) {
    /* a write that failed earlier (the buffer filled and could not be written) leaves only the
     * stream's error flag; flushing again usually fails the same way and says why */
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int err = bad ? (errno ? errno : EIO) : 0;
    if (fclose(o->f) != 0 && !bad) bad = 1, err = errno;
    o->f = NULL;
    if (!bad && o->tmp[0] && rename(o->tmp, o->path) != 0) bad = 1, err = errno;
    if (bad && o->tmp[0]) unlink(o->tmp);
    errno = err;
    return bad ? -1 : 0;
}

void dp_out_discard(dp_out_t *o) {
    int err = errno;
    fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
    errno = err;
}
