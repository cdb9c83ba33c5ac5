/* util.c — see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *progname = "dpc";
static void (*abort_hook)(int) = NULL;
static bool (*todo_hook)(void) = NULL;

void dp_set_progname(const char *argv0) {
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    progname = slash ? slash + 1 : (argv0 ? argv0 : "dpc");
}

const char *dp_progname(void) { return progname; }

void dp_set_abort_hook(void (*hook)(int)) { abort_hook = hook; }

void dp_fatal(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", progname, line);
    dp_exit(1);
}

void dp_set_todo_hook(bool (*hook)(void)) { todo_hook = hook; }

void dp_todo(const char *func, const char *file) {
    /* one line per process: a second thread that gets here waits for the first to end it */
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&once))
        for (;;) dp_sleep_until(dp_now() + 1.0);
    bool print = todo_hook ? todo_hook() : true;
    if (print) {
        /* an absolute path (a build elsewhere, the grader's sandbox) is long: NN-name/file.c says it */
        const char *shown = file, *base = strrchr(file, '/');
        if (file[0] == '/' && base) {
            const char *p = base;
            while (p > file && p[-1] != '/') p--;
            shown = p > file ? p : file;
        }
        /* the lesson: the directory NN-name the file is in */
        char lesson[3] = "";
        if (base) {
            const char *dir = base;
            while (dir > file && dir[-1] != '/') dir--;
            if (base - dir > 3 && isdigit((unsigned char)dir[0]) && isdigit((unsigned char)dir[1]) && dir[2] == '-')
                lesson[0] = dir[0], lesson[1] = dir[1];
        }
        fprintf(stderr, "%s: %s() in %s is not written yet: write its TODO, then delete the DP_TODO() line%s%s%s\n",
                progname, func, shown, lesson[0] ? " (grading/grade " : "", lesson, lesson[0] ? " checks it)" : "");
    }
    dp_exit(2);
}

void dp_exit(int status) {
    fflush(stderr);
    fflush(stdout);
    if (abort_hook) abort_hook(status);
    exit(status);
}

/* No machine this course runs on has 2^40 bytes (1 TiB): a larger request is a negative count
 * converted to size_t, or a product that overflowed. One line here, not the allocator's own abort
 * (ASan's "requested allocation size exceeds maximum supported size") or a NULL much later. */
#define DP_ALLOC_MAX ((size_t)1 << 40)

static void check_alloc(const char *fn, size_t count, size_t size) {
    if (size && count > DP_ALLOC_MAX / size)
        dp_fatal("%s(%zu x %zu bytes): more than any machine has (%td as a signed count): a negative count converted "
                 "to size_t, or a size that overflowed",
                 fn, count, size, (ptrdiff_t)count);
}

void *dp_malloc(size_t bytes) {
    check_alloc("dp_malloc", bytes, 1);
    void *p = malloc(bytes ? bytes : 1);
    if (!p) dp_fatal("out of memory allocating %zu bytes", bytes);
    return p;
}

void *dp_calloc(size_t count, size_t size) {
    check_alloc("dp_calloc", count, size);
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) dp_fatal("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *dp_aligned_alloc(size_t bytes) {
    check_alloc("dp_aligned_alloc", bytes, 1);
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) dp_fatal("out of memory allocating %zu bytes", bytes);
    return p;
}

char *dp_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = dp_malloc(n);
    memcpy(d, s, n);
    return d;
}

double dp_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void dp_sleep_until(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

unsigned char *dp_read_file(const char *path, size_t *len) {
    *len = 0;
    /* only a regular file: a FIFO would block the open forever, and a directory opens and seeks to
     * a size of 2^63 on Linux */
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    if (!S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    unsigned char *buf = dp_malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    if (got != (size_t)n) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

void dp_mkdir_for(const char *path) {
    char *d = dp_strdup(path);
    char *slash = strrchr(d, '/');
    if (!slash) {
        free(d);
        return;
    }
    *slash = 0;
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(d, 0777) != 0 && errno != EEXIST) dp_fatal("cannot create directory %s: %s", d, strerror(errno));
        *p = '/';
    }
    if (d[0] && mkdir(d, 0777) != 0 && errno != EEXIST) dp_fatal("cannot create directory %s: %s", d, strerror(errno));
    free(d);
}

int dp_error(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double dp_median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
