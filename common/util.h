/* util.h — the few helpers every file needs: fatal errors, checked allocation, a clock.
 *
 * Errors in this project are one line, say what is wrong and what to do, and exit non-zero.
 * In a multi-rank job a fatal error on one rank must bring the others down too (otherwise they would
 * wait for it until their timeout): the comm seam installs an abort hook that does that. */
#ifndef DPC_UTIL_H
#define DPC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DP_NORETURN     __attribute__((noreturn))
#else
#define DP_PRINTF(f, a)
#define DP_NORETURN
#endif

/* Print "<prog>: <message>" on stderr and end the job (all ranks) with exit status 1. */
DP_NORETURN void dp_fatal(const char *fmt, ...) DP_PRINTF(1, 2);

/* A function of a student file that is not written yet: its skeleton calls DP_TODO(), which prints
 *     <prog>: f() in lessons/06-accum/f.c is not written yet: write its TODO, then delete the
 *     DP_TODO() line (grading/grade 06 checks it)
 * as one line on stderr and ends the job (all ranks) with exit status 2, instead of letting the
 * program run on zeros. In a multi-rank job every rank reaches it; the line is printed once (the
 * todo hook below). An absolute path is shortened to its last two components (NN-name/f.c). */
DP_NORETURN void dp_todo(const char *func, const char *file);
#define DP_TODO() dp_todo(__func__, __FILE__)

/* The course builds for baseline x86-64 (SSE2), so one binary runs on any x86 machine, the GPU
 * bundle's included. A hot loop marked DP_VECTOR_CLONES gets, on x86 with GCC, one copy per vector
 * width, and the loader picks the widest this CPU has. Every copy computes the same float operations
 * in the same order per element (lanes are independent elements; -ffp-contract=off forbids fusing
 * a multiply and an add), so results are bit for bit the same whichever copy runs. Sanitizer builds
 * keep the one baseline copy: the loader runs the function that picks a copy (an ifunc resolver)
 * before ASan's or TSan's runtime is ready for it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) &&               \
    !defined(__SANITIZE_THREAD__)
#define DP_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DP_VECTOR_CLONES
#endif

/* Called by dp_todo before it prints: returns whether this process prints the line (false: it ends
 * quietly). The comm seam's hook returns at once on rank 0 (and in a job of one), which prints and
 * takes the job down; another rank first waits for that to happen, and prints only if it did not. */
void dp_set_todo_hook(bool (*hook)(void));

/* For functions that report errors into a caller's buffer: format the message into err[0..n) and
 * return -1, so that `return dp_error(err, n, "...", ...);` is one line. */
int dp_error(char *err, size_t n, const char *fmt, ...) DP_PRINTF(3, 4);

/* Program name used as the prefix of error lines (set once from argv[0] by cli_parse or by hand). */
void dp_set_progname(const char *argv0);
const char *dp_progname(void);

/* Called by dp_fatal after printing, before exit(): the comm seam uses it to abort every rank. */
void dp_set_abort_hook(void (*hook)(int status));
/* End the job with `status` after an error already printed: the abort hook, then exit. */
DP_NORETURN void dp_exit(int status);

void *dp_malloc(size_t bytes);              /* never returns NULL; fatal on failure */
void *dp_calloc(size_t count, size_t size); /* zeroed */
void *dp_aligned_alloc(size_t bytes);       /* 64-byte aligned, free() it; fatal on failure */
char *dp_strdup(const char *s);

double dp_now(void); /* monotonic seconds */
/* The median of v[0..n) (n >= 1); sorts v in place. Timings use it: one busy moment moves a mean. */
double dp_median(double *v, size_t n);
void dp_sleep_until(double t); /* sleep (not spin) until dp_now() >= t */

/* Read a whole regular file; returns NULL (and sets *len = 0) when it is missing, unreadable, or not
 * a regular file (a directory, a FIFO, a device). */
unsigned char *dp_read_file(const char *path, size_t *len);
/* mkdir -p for the directory part of path ("a/b/c.txt" creates a/b). Fatal on failure. */
void dp_mkdir_for(const char *path);

#ifdef __cplusplus
}
#endif

#endif
