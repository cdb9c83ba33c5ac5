/* check03_index — reduce_add_cpu past 2^32 elements, in a few MiB of memory.
 *
 *   check03_index index64      reduce_add_cpu(acc, in, n) with n = 2^32 + 1001
 *
 * A loop index or count of 32 bits is right for every n a test can allocate and wrong past 2^31 (an
 * int) or 2^32 (an unsigned): n cut to 32 bits, (int)n or an unsigned copy of it, makes 2^32 + 1001
 * into 1001, and an unsigned index compared with a size_t n wraps to 0 at 2^32 and never ends. Only a
 * call with n > 2^32 shows it, and 2 × 16 GiB of floats is more than a grading machine has.
 *
 * So acc and in are views, not memory: one reserved range of 16 GiB each, covered by the same small
 * buffer (a memfd) mapped again and again, so that acc[i] and acc[i + P] are the same float. acc's
 * buffer starts at 0 and every in[i] is 1.0, so afterwards each of acc's P distinct floats holds the
 * number of indices i with i mod P = j that the call added: whole numbers below 2^24, exact in float.
 * From those P counts the judge tells a call that added every i < n once from one that stopped early
 * (the counts of a prefix [0, T)), and from one that wrapped: P = 255 pages is not a divisor of 2^32,
 * so index 2^32 and index 0 land on different floats. The page tables of the views are the only
 * memory that grows with n (64 MiB).
 *
 * A wrong index can also crash or never return. The call therefore runs in a child process; this
 * process watches acc's buffer, which the child shares, stops the child once it has added more than n
 * elements, added nothing for STALL_S seconds or run CAP_S seconds, and tapes how it ended and the P
 * counts (checklib.h, "the tape"). The judge maps nothing (ck_judging): it reads what the run
 * recorded and decides. A run still adding at the cap without having passed n is INCONCLUSIVE (exit
 * 75: the machine was too busy), not a failure: a plain loop takes 3 to 5 s on one busy core.
 *
 * The sandbox gives this check a larger address-space limit (as_check in grading/lessons/03.sh);
 * the child lowers its own to what it has mapped + 256 MiB before it calls the student's code, so
 * the code under test gets no more real memory than any other check's. */
#define _GNU_SOURCE
#include "checklib.h"
#include "collective.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE      4096u
#define ACC_PAGES 255u  /* odd: 2^32 is no multiple of the period, so a wrap to 0 shows */
#define IN_PAGES  1023u /* all ones: any period will do; larger means fewer mappings */
#define P         ((size_t)ACC_PAGES * PAGE / 4)
#define TWO32     ((uint64_t)1 << 32)
#define N         (TWO32 + 1001)
#define CAP_S     40 /* the grader's time limit for the check is 90 s: a run always tapes its end */
#define STALL_S   10 /* no addition for this long: the loop is stuck, whatever the machine's load */
#define SLACK_AS  ((size_t)256 << 20)

/* How the call ended (the run's record; the judge's verdict rests on the counts as much). */
enum { RETURNED, EXITED, SIGNALLED, PAST_N, AT_CAP, STALLED, NO_SETUP };
enum { HOW, CODE, FAULT_ACC, FAULT_IN, MILLIS, SETUP_STEP, NSTATUS };
static const char *const setup_steps[] = {
    "",    "memfd_create", "ftruncate", "mmap of the buffers", "reserving 16 GiB of address space", "mapping the views",
    "fork"};

/* What the child tells this process beyond its exit status (a shared page). It is the child's to
 * write, so nothing in it decides more than the counts allow: a forged "returned" still needs every
 * count right. Whether the views could be made is this process's own finding, before any fork. */
typedef struct {
    volatile int returned;
    volatile uintptr_t fault;
} child_note_t;
static child_note_t *note; /* the child's signal handler writes it */

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void on_fault(int sig, siginfo_t *si, void *ctx) {
    (void)sig, (void)ctx;
    note->fault = (uintptr_t)si->si_addr;
    /* SA_RESETHAND: returning re-runs the access, which now ends the child with the signal */
}

/* A view of `bytes` bytes whose every `period` bytes are the buffer `fd`, between two unmapped
 * guard pages (a step past either end faults instead of writing elsewhere). NULL with *step set
 * when the machine refuses. */
static char *view(int fd, size_t period, size_t bytes, int *step) {
    size_t span = (bytes + PAGE - 1) / PAGE * PAGE;
    char *base = mmap(NULL, span + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return *step = 4, NULL;
    for (size_t off = 0; off < span; off += period) {
        size_t len = span - off < period ? span - off : period;
        if (mmap(base + PAGE + off, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
            return *step = 5, NULL;
    }
    return base + PAGE;
}

static _Noreturn void child(float *acc, const float *in) {
    /* the larger limit was for the views: the code under test gets 256 MiB beyond them */
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%ld", &pages) != 1) pages = 0;
    if (statm) fclose(statm);
    size_t mapped = pages > 0 ? (size_t)pages * (size_t)sysconf(_SC_PAGESIZE) : 2 * N * 4 + ((size_t)1 << 30);
    struct rlimit lim = {mapped + SLACK_AS, mapped + SLACK_AS};
    setrlimit(RLIMIT_AS, &lim);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    reduce_add_cpu(acc, in, N);
    note->returned = 1;
    fflush(stdout); /* what the code under test printed */
    _exit(0);
}

static double total(const volatile float *c) {
    double t = 0;
    for (size_t j = 0; j < P; j++) t += c[j];
    return t;
}

static long long element(uintptr_t fault, const float *base) {
    if (!fault) return LLONG_MIN;
    return (long long)((intptr_t)(fault - (uintptr_t)base) / 4);
}

/* Watch the child until it ends, passes n, stalls or reaches the cap; stop it. Returns how. */
static int watch(pid_t pid, const float *acc, int *status) {
    double t0 = seconds(), moved = t0, last = -1;
    int how = -1;
    while (how < 0) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return WIFSIGNALED(*status)                                                ? SIGNALLED
                   : WIFEXITED(*status) && WEXITSTATUS(*status) == 0 && note->returned ? RETURNED
                                                                                       : EXITED;
        double t = total(acc), now = seconds();
        if (t != last) last = t, moved = now;
        if (t > (double)N)
            how = PAST_N;
        else if (now - moved > STALL_S)
            how = STALLED;
        else if (now - t0 > CAP_S)
            how = AT_CAP;
        else
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return how;
}

/* The run: map, fork, watch. Fills st[] and c[] (acc's P floats). */
static void run(long long st[NSTATUS], float *c) {
    size_t acc_bytes = (size_t)ACC_PAGES * PAGE, in_bytes = (size_t)IN_PAGES * PAGE;
    note = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int acc_fd = memfd_create("check03-acc", 0), in_fd = memfd_create("check03-in", 0);
    int step = note == MAP_FAILED ? 3 : acc_fd < 0 || in_fd < 0 ? 1 : 0;
    if (!step && (ftruncate(acc_fd, (off_t)acc_bytes) || ftruncate(in_fd, (off_t)in_bytes))) step = 2;
    float *acc = step ? MAP_FAILED : mmap(NULL, acc_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, acc_fd, 0);
    float *in = step ? MAP_FAILED : mmap(NULL, in_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, in_fd, 0);
    if (!step && (acc == MAP_FAILED || in == MAP_FAILED)) step = 3;
    float *acc_view = step ? NULL : (float *)view(acc_fd, acc_bytes, N * 4, &step);
    const float *in_view = step ? NULL : (const float *)view(in_fd, in_bytes, N * 4, &step);
    pid_t pid = -1;
    if (!step) {
        for (size_t j = 0; j < in_bytes / 4; j++) in[j] = 1.0f;
        fflush(stdout);
        pid = fork();
        if (pid == 0) child(acc_view, in_view);
        if (pid < 0) step = 6;
    }
    if (step) {
        st[HOW] = NO_SETUP, st[CODE] = errno, st[SETUP_STEP] = step;
        return;
    }
    double t0 = seconds();
    int status = 0, how = watch(pid, acc, &status);
    st[HOW] = how;
    st[CODE] = how == SIGNALLED ? WTERMSIG(status) : how == EXITED ? WEXITSTATUS(status) : 0;
    st[FAULT_ACC] = element(note->fault, acc_view);
    st[FAULT_IN] = element(note->fault, in_view);
    st[MILLIS] = (long long)((seconds() - t0) * 1000);
    memcpy(c, acc, P * 4);
}

/* How often a call that adds every index of [0, m) once adds acc's float j. */
static double prefix(size_t j, uint64_t m) { return (double)(m / P + (j < m % P)); }

static const char *const SETUP_NOTE =
    "(acc and in are 16 GiB views of small buffers: acc[i] and acc[i + 261120] are one float, so the check "
    "counts how often each of acc's 261120 floats was added; acc starts at 0, every in[i] is 1)";

static int judge(const long long st[NSTATUS], const float *c) {
    unsigned long long n = N;
    if (st[HOW] == NO_SETUP) {
        int step = st[SETUP_STEP] >= 1 && st[SETUP_STEP] <= 6 ? (int)st[SETUP_STEP] : 0;
        printf("SKIP: this machine did not let the check set up its 2 x 16 GiB views (%s failed: %s): it needs "
               "about 34 GiB of address space (virtual, not memory) and 21,000 mappings (vm.max_map_count)\n",
               setup_steps[step], strerror((int)st[CODE]));
        exit(SKIPPED);
    }
    /* the counts: whole numbers the float holds exactly, and their total */
    double t = 0;
    for (size_t j = 0; j < P; j++) {
        if (!(c[j] >= 0 && c[j] <= 16777216.0f && c[j] == floorf(c[j]))) {
            printf("FAIL: with n = 2^32 + 1001 = %llu, acc[%zu] became %.9g, not a whole number of additions of "
                   "in[i] = 1 %s\n",
                   n, j, (double)c[j], SETUP_NOTE);
            return 1;
        }
        t += c[j];
    }
    unsigned long long T = (unsigned long long)t;
    int is_prefix = 1, wrapped = T > TWO32;
    for (size_t j = 0; j < P; j++) {
        is_prefix &= (double)c[j] == prefix(j, T);
        wrapped &= T > TWO32 && (double)c[j] == prefix(j, TWO32) + prefix(j, T - TWO32);
    }
    double secs = (double)st[MILLIS] / 1000;
    if (st[HOW] == RETURNED && T == n && is_prefix) {
        printf("reduce_add_cpu: exact for n = 2^32 + 1001 = %llu: every element added once (%.1f s, 5 MiB of "
               "memory seen as 2 x 16 GiB)\n",
               n, secs);
        return 0;
    }
    if (wrapped || T > n) {
        printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu %s after index 2^32 - 1 (it had added %llu "
               "elements, more than n, when the check stopped it): a 32-bit unsigned loop index wraps to 0 at 2^32, "
               "so i < n never turns false once n > 2^32 - 1. Make the index size_t, like n\n",
               n, wrapped ? "went back to element 0" : "added elements more than once", T);
        return 1;
    }
    if (st[HOW] == STALLED) {
        printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu added nothing for %d s after %llu additions "
               "and was stopped: a loop that never ends (is i incremented, is its bound n?)\n",
               n, STALL_S, T);
        return 1;
    }
    if (st[HOW] == AT_CAP) {
        printf("INCONCLUSIVE: with n = 2^32 + 1001 = %llu, your reduce_add_cpu had added %llu elements after %d s "
               "and was still going: too slow to decide on a machine this busy (a plain loop takes a few seconds)\n",
               n, T, CAP_S);
        exit(75);
    }
    const char *stopped = "";
    if (T == n % TWO32)
        stopped = ": exactly n mod 2^32, so n was cut to 32 bits on the way ((int)n, or n kept in an "
                  "int or unsigned)";
    else if (T == (unsigned long long)INT_MAX || T == (unsigned long long)INT_MAX + 1)
        stopped = ": the end of a 32-bit int (2^31 - 1)";
    if (st[HOW] == SIGNALLED) {
        long long fa = st[FAULT_ACC], fi = st[FAULT_IN];
        int in_side = fa == LLONG_MIN || (fi != LLONG_MIN && llabs(fi) < llabs(fa));
        long long at = in_side ? fi : fa;
        char where[160] = "";
        if (at != LLONG_MIN)
            snprintf(where, sizeof where, ", at %s[%lld]%s", in_side ? "in" : "acc", at,
                     at < 0 ? ", a negative index (a 32-bit int index past 2^31 - 1 turns negative)" : "");
        printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu crashed (signal %lld, %s) after adding %llu "
               "elements%s. Index and count in size_t, like n\n",
               n, st[CODE], strsignal((int)st[CODE]), T, where);
        return 1;
    }
    if (st[HOW] == EXITED) {
        printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu ended the process (exit status %lld%s) "
               "instead of returning, after adding %llu elements\n",
               n, st[CODE], st[CODE] == 2 ? ": is its DP_TODO() still there?" : "", T);
        return 1;
    }
    if (is_prefix && T < n) {
        printf("FAIL: your reduce_add_cpu stopped at element %llu of n = 2^32 + 1001 = %llu%s: a 32-bit loop index "
               "or count is wrong past 2^31 elements. Keep n and the index in size_t\n",
               T, n, stopped);
        return 1;
    }
    for (size_t j = 0; j < P; j++)
        if ((double)c[j] != prefix(j, n)) {
            printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu added the elements i with i mod 261120 = "
                   "%zu %.0f times, not %.0f; %llu additions in all %s\n",
                   n, j, (double)c[j], prefix(j, n), T, SETUP_NOTE);
            return 1;
        }
    printf("FAIL: with n = 2^32 + 1001 = %llu, your reduce_add_cpu did not end as a call returns (how: %lld)\n", n,
           st[HOW]);
    return 1;
}

static int index64_check(void) {
    long long st[NSTATUS] = {0};
    float *c = dp_calloc(P, 4);
    if (!ck_judging()) run(st, c);
    ck_tape("index64: how the call ended", st, sizeof st);
    ck_tape("index64: acc's 261120 distinct floats after the call", c, P * 4);
    int bad = ck_recording() ? 0 : judge(st, c);
    free(c);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check03_index");
    const ck_entry_t checks[] = {{"index64", index64_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
