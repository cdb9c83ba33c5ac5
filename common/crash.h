/* crash.h — one line that says where a process crashed.
 *
 * A segmentation fault in a student's function used to end the run with "exit 139" and nothing
 * else: no line named the function. Once dp_crash_report_install() has run, a process that gets
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT prints, as one line on stderr,
 *
 *     train_fsdp: rank 1 crashed: signal 11 (SIGSEGV: invalid memory access at address 0x0, a NULL
 *     pointer); stack: +0x1a2b3 +0x4c5d libc.so.6+0x2724a; program: /path/to/train_fsdp
 *     (addr2line -f -e PROGRAM 0xOFFSET names a frame)
 *
 * then dies of the same signal (its exit status does not change). The stack is innermost first: the
 * faulting instruction, then return addresses, each as an offset into its module (the program, or a
 * library by name) — the address the module's file gives it, whatever address PIE loaded it at — so
 * that the grader, outside the sandbox, can name each frame's function and line from the program's
 * own symbols (grading/symbolize). Printing the names here would take a symbol table this process
 * cannot read safely inside a signal handler; the handler only formats numbers and calls write().
 *
 * Installed by cli_parse (every lesson program), the check programs' ck_main, and again by
 * comm_init once its backend is up (MPI_Init installs Open MPI's own handlers, which print bare
 * addresses). Not in a sanitizer build: ASan reports a bad access better. */
#ifndef DPC_CRASH_H
#define DPC_CRASH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Install (or install again) the crash report in this process; the calling thread also gets an
 * alternate signal stack, so that a stack overflow there is reported too. Idempotent. */
void dp_crash_report_install(void);

#ifdef __cplusplus
}
#endif

#endif
