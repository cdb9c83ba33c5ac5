/* crash.c — see crash.h. */
#define _GNU_SOURCE
#include "crash.h"

#include "cli.h"
#include "util.h"

#include <errno.h>
#include <execinfo.h>
#include <elf.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* ASan and TSan have handlers of their own, which report a bad access better (its allocation, its
 * race): nothing to install */
void dp_crash_report_install(void) {}
#else

#define MAX_MODULES 64
#define MAX_FRAMES  32

/* Where each loaded module lies, read at install time: the handler may not call the loader (it
 * takes locks a crashed thread may hold). Module 0 is the program itself. */
typedef struct {
    uintptr_t bias, lo, hi; /* load bias; [lo, hi) covers its PT_LOAD segments */
    char name[64];          /* basename; "" for the program */
} module_t;
static module_t modules[MAX_MODULES];
static int nmodules;
static char exe_path[1024];
static char who[160]; /* "train_fsdp: rank 1" */
static char line[4096];
static char altstack[1 << 16];
static atomic_flag reporting = ATOMIC_FLAG_INIT;
static const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Phdr phdr_t;
#else
typedef Elf32_Phdr phdr_t;
#endif

/* The program: its program headers, where the kernel mapped them (AT_PHDR), give its load bias
 * (PT_PHDR's address minus its p_vaddr: 0 for a program that is not PIE) and its segments.
 * (<link.h>'s dl_iterate_phdr would list every module, but common/link.h, the link emulator,
 * takes that name on this include path.) */
static void add_program(void) {
    const phdr_t *ph = (const phdr_t *)getauxval(AT_PHDR);
    size_t n = (size_t)getauxval(AT_PHNUM);
    if (!ph || !n) return;
    uintptr_t bias = 0, lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == PT_PHDR) bias = (uintptr_t)ph - (uintptr_t)ph[i].p_vaddr;
    for (size_t i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        uintptr_t a = bias + (uintptr_t)ph[i].p_vaddr;
        if (a < lo) lo = a;
        if (a + ph[i].p_memsz > hi) hi = a + ph[i].p_memsz;
    }
    if (hi <= lo) return;
    modules[0] = (module_t){.bias = bias, .lo = lo, .hi = hi};
    nmodules = 1;
}

/* The libraries, from /proc/self/maps: a shared object's first segment has p_vaddr 0, so its bias
 * is where its file offset 0 is mapped. */
static void add_libraries(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char text[1400];
    while (nmodules < MAX_MODULES && fgets(text, sizeof text, f)) {
        unsigned long start, end, offset;
        int path_at = 0;
        if (sscanf(text, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &offset, &path_at) < 3 || !path_at) continue;
        char *path = text + path_at;
        path[strcspn(path, "\n")] = '\0';
        if (path[0] != '/' || !strcmp(path, exe_path) || start == modules[0].lo) continue;
        const char *slash = strrchr(path, '/');
        module_t *m = &modules[nmodules - 1];
        if (nmodules > 1 && !strcmp(m->name, slash + 1)) { /* the same file's next segment */
            if (end > m->hi) m->hi = end;
            continue;
        }
        if (offset != 0) continue;
        m = &modules[nmodules++];
        *m = (module_t){.bias = start, .lo = start, .hi = end};
        snprintf(m->name, sizeof m->name, "%s", slash + 1);
    }
    fclose(f);
}

/* ---- async-signal-safe formatting into line[] ---- */
static size_t len;
static void put(const char *s) {
    while (*s && len < sizeof line - 2) line[len++] = *s++;
}
static void put_num(uintptr_t v, unsigned base) {
    char digits[2 + 2 * sizeof v + 1], *d = digits + sizeof digits;
    *--d = '\0';
    do *--d = "0123456789abcdef"[v % base];
    while (v /= base);
    if (base == 16) *--d = 'x', *--d = '0';
    put(d);
}

/* The faulting instruction and the stack pointer there (0 where this architecture is not known) */
static uintptr_t fault_pc(const void *ctx) {
    const ucontext_t *uc = ctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}
static uintptr_t fault_sp(const void *ctx) {
    const ucontext_t *uc = ctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    return 0;
#endif
}

static void describe(int sig, const siginfo_t *si, const void *ctx) {
    put("signal ");
    put_num((uintptr_t)sig, 10);
    if (si->si_code <= 0) { /* kill(), raise(): no fault here; where it stood when it came */
        put(sig == SIGABRT ? " (SIGABRT, abort(): a failed assert, or the C library found its memory corrupted)"
                           : " (sent by a process)");
        return;
    }
    switch (sig) {
    case SIGSEGV:
    case SIGBUS:
        put(sig == SIGSEGV ? " (SIGSEGV, a bad memory access at address "
                           : " (SIGBUS, a bad memory access at address ");
        put_num((uintptr_t)si->si_addr, 16);
        /* the first page is never mapped: a NULL pointer, or a small offset from one (p[i], p->x) */
        uintptr_t a = (uintptr_t)si->si_addr, sp = fault_sp(ctx);
        if (a < 4096) put(": a NULL pointer");
        /* at the stack pointer, or just below it: the guard page under a stack that grew too far */
        else if (sig == SIGSEGV && sp && (intptr_t)(a - sp) > -65536 && (intptr_t)(a - sp) < 4096)
            put(": the stack overflowed, a recursion that never ends or a local array too large");
        put(")");
        break;
    case SIGFPE:
        put(si->si_code == FPE_INTDIV ? " (SIGFPE, an integer division by zero)" : " (SIGFPE, an arithmetic error)");
        break;
    case SIGILL:
        put(" (SIGILL, an illegal instruction)");
        break;
    default:
        put(" (SIGABRT)");
        break;
    }
}

static void put_frame(uintptr_t a) {
    put(" ");
    for (int m = 0; m < nmodules; m++)
        if (a >= modules[m].lo && a < modules[m].hi) {
            put(modules[m].name);
            put("+");
            put_num(a - modules[m].bias, 16);
            return;
        }
    put_num(a, 16); /* a module loaded after the report was installed */
}

static void report(int sig, const siginfo_t *si, const void *ctx) {
    len = 0;
    put(who);
    put(" crashed: ");
    describe(sig, si, ctx);
    put(" at "); /* the program before the frames (crash.h) */
    put(exe_path);
    /* backtrace() from here runs through this handler and the kernel's signal frame first: the
     * faulting instruction is the frame equal to the context's pc (without one, assume the frame
     * after the signal trampoline) */
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES), first = n < 2 ? n : 2;
    uintptr_t pc = fault_pc(ctx);
    if (pc) {
        first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if ((uintptr_t)frames[i] == pc) first = i;
        if (first < 0) { /* the unwinder did not get through the signal frame: the pc alone */
            put_frame(pc);
            first = n;
        }
    }
    for (int i = first; i < n; i++) put_frame((uintptr_t)frames[i]);
    put(" (addr2line -f -e PROGRAM OFFSET names each)\n");
    for (size_t done = 0; done < len;) {
        ssize_t w = write(STDERR_FILENO, line + done, len - done);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) done += (size_t)w;
    }
}

static void on_crash(int sig, siginfo_t *si, void *ctx) {
    int saved = errno;
    if (!atomic_flag_test_and_set(&reporting)) {
        report(sig, si, ctx);
    } else { /* another thread is reporting: let it finish, it ends the process */
        struct timespec pause = {0, 100000000};
        for (int i = 0; i < 20; i++) nanosleep(&pause, NULL);
    }
    /* die of the same signal: the exit status says what happened, as without this handler. Blocked
     * here, it is delivered when the handler returns (a fault would recur then; a kill would not). */
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

void dp_crash_report_install(void) {
    static bool prepared;
    if (!prepared) {
        /* the first backtrace() loads the unwinder (libgcc_s) and allocates: never in the handler */
        void *warm[2];
        (void)backtrace(warm, 2);
        ssize_t k = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
        exe_path[k > 0 ? k : 0] = '\0';
        if (k <= 0) snprintf(exe_path, sizeof exe_path, "?");
        prepared = true;
    }
    nmodules = 0; /* again: MPI_Init and CUDA load libraries */
    add_program();
    if (nmodules == 1) add_libraries();
    if (cli_launched() && cli_launcher_size() > 1)
        snprintf(who, sizeof who, "%s: rank %d", dp_progname(), cli_launcher_rank());
    else
        snprintf(who, sizeof who, "%s:", dp_progname());
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &sa, NULL);
}
#endif
