/* crash.h — one line that says where a process crashed.
 *
 * A segmentation fault in a student's function used to end the run with "exit 139" and nothing
 * else: no line named the function. Once dp_crash_report_install() has run, a process that gets
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT prints, as one line on stderr,
 *
 *     train_fsdp: rank 1 crashed: signal 11 (SIGSEGV, a bad memory access at address 0x0: a NULL
 *     pointer) at /path/to/train_fsdp +0xb4b0 +0xaac5 +0xa809 libc.so.6+0x2724a +0x88e1 (addr2line
 *     -f -e PROGRAM OFFSET names each)
 *
 * then dies of the same signal (its exit status does not change). The stack is innermost first: the
 * faulting instruction, then return addresses, each as an offset into its module (the program, or a
 * library by name) — the address the module's file gives it, whatever address PIE loaded it at — so
 * that the grader, outside the sandbox, can name each frame's function and line from the program's
 * own symbols (grading/symbolize: "in zero_step (lessons/08-fsdp/zero_step.c:29) <- zero_sharded
 * ..."). Naming them here would mean reading the program's symbol table inside a signal handler,
 * after memory went bad; the handler only formats numbers and calls write(). The program's path
 * comes before the frames: a line cut short loses the outermost frames, not the means to name the
 * others.
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
