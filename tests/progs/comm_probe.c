/* comm_probe — small misbehaving (and one well-behaved) programs for tests/sh/comm.sh.
 *
 *   comm_probe deadlock   every rank sends 4 Mi floats to the next before receiving: with a
 *                         rendezvous protocol nobody receives, so the watchdog must end the job
 *   comm_probe skip       the last rank never enters a barrier the others wait in (it is busy
 *                         elsewhere for a minute)
 *   comm_probe self       rank 0 sends to itself (refused)
 *   comm_probe link       time messages under the link emulator: prints "one MS" and "two MS"
 *                         (one message; two back-to-back messages on the same port)
 *   comm_probe todo       every rank calls a function whose skeleton is not written (DP_TODO)
 *   comm_probe todo-late  the same, but rank 0 waits for rank 1 first, for ever: another rank must
 *                         say it */
#include "cli.h"
#include "comm.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void unwritten(void) { DP_TODO(); }

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    const char *pos[1] = {"link"};
    int npos = 0;
    cli_opt_t *opts = comm_cli_opts(&o);
    cli_parse_positional(argc, argv, opts, "comm_probe MODE [options]", pos, 1, &npos);
    free(opts);
    comm_t *c = comm_init(&argc, &argv, &o);
    int r = comm_rank(c), n = comm_world_size(c);
    const char *mode = pos[0];
    if (!strcmp(mode, "deadlock")) {
        size_t count = 4u << 20;
        float *a = dp_calloc(count, 4), *b = dp_calloc(count, 4);
        comm_send(c, a, count, DT_F32, (r + 1) % n);
        comm_recv(c, b, count, DT_F32, (r - 1 + n) % n);
        printf("rank %d: no deadlock?\n", r);
    } else if (!strcmp(mode, "skip")) {
        if (r != n - 1)
            comm_barrier(c);
        else
            dp_sleep_until(dp_now() + 60);
    } else if (!strcmp(mode, "self")) {
        int x = 0;
        if (r == 0) comm_send(c, &x, 1, DT_I32, 0);
    } else if (!strcmp(mode, "link")) {
        size_t count = 1u << 18; /* 1 MiB of floats */
        float *a = dp_calloc(count, 4);
        if (r == 0) comm_send(c, a, count, DT_F32, 1); /* warm-up: first-touch page faults, connection set-up */
        if (r == 1) comm_recv(c, a, count, DT_F32, 0);
        comm_barrier(c);
        if (r == 0) {
            double t0 = dp_now();
            comm_send(c, a, count, DT_F32, 1);
            double t1 = dp_now();
            comm_send(c, a, count, DT_F32, 1);
            comm_send(c, a, count, DT_F32, 1);
            double t2 = dp_now();
            printf("one %.3f\ntwo %.3f\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        } else if (r == 1) {
            for (int i = 0; i < 3; i++) comm_recv(c, a, count, DT_F32, 0);
        }
        free(a);
    } else if (!strcmp(mode, "negative")) { /* a count computed as 1 - 4 in size_t */
        float x[4] = {0};
        size_t count = 1;
        count -= 4;
        if (n > 1 && r == 1) comm_recv(c, x, 4, DT_F32, 0);
        if (n > 1 && r == 0) comm_send(c, x, count, DT_F32, 1);
        if (n == 1) comm_lib_allreduce(c, x, x, count, DT_F32, REDOP_SUM);
    } else if (!strcmp(mode, "todo") || !strcmp(mode, "todo-late")) {
        int x = 0;
        if (r == 0 && n > 1 && !strcmp(mode, "todo-late")) comm_recv(c, &x, 1, DT_I32, 1);
        unwritten();
    } else {
        dp_fatal("unknown mode '%s' (deadlock, skip, self, link, negative, todo, todo-late)", mode);
    }
    comm_finalize(c);
    return 0;
}
