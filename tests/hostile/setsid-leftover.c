// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: every process leaves a daemon (new session, double fork) running behind, to outlive the check
#include <signal.h>
#include <unistd.h>
__attribute__((constructor)) static void daemonize(void) {
    if (fork() == 0) {
        setsid();
        signal(SIGHUP, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        if (fork() == 0) {
            for (;;) sleep(1000);
        }
        _exit(0);
    }
}
