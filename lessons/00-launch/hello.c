/* hello — the first multi-rank program: who am I, and can I reach my neighbours?
 *
 *   grading/mpirun -np 4 build/lessons/00-launch/hello
 *
 * Every rank prints its rank, the world size and its rank on this machine; then a token travels
 * once around the ring 0 → 1 → ... → N−1 → 0, each rank adding its rank to it, and rank 0 checks the
 * sum (0 + 1 + ... + N−1). */
#define _DEFAULT_SOURCE /* gethostname */
#include "cli.h"
#include "comm.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    cli_opt_t *opts = comm_cli_opts(&o);
    cli_parse(argc, argv, opts, "hello [options]");
    free(opts);
    comm_t *c = comm_init(&argc, &argv, &o);
    int r = comm_rank(c), n = comm_world_size(c);
    char host[256] = "?";
    gethostname(host, sizeof host);
    printf("rank %d of %d on %s (local rank %d of %d, backend %s)\n", r, n, host, comm_local_rank(c),
           comm_local_size(c), comm_backend_name(c));
    fflush(stdout);
    comm_barrier(c);
    if (n > 1) {
        int64_t token = 0;
        if (r == 0) {
            comm_send(c, &token, 1, DT_I64, 1);
            comm_recv(c, &token, 1, DT_I64, n - 1);
            int64_t want = (int64_t)n * (n - 1) / 2;
            printf("the token went around %d ranks and came back as %lld (expected %lld): %s\n", n, (long long)token,
                   (long long)want, token == want ? "ok" : "WRONG");
            if (token != want) dp_fatal("the ring token is wrong");
        } else {
            comm_recv(c, &token, 1, DT_I64, r - 1);
            token += r;
            comm_send(c, &token, 1, DT_I64, (r + 1) % n);
        }
    }
    comm_finalize(c);
    return 0;
}
