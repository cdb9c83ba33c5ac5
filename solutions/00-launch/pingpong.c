/* pingpong.c — one message, there and back again.
 *
 *   rank 0                      rank 1
 *     │── send b bytes ────────►│
 *     │◄──────── send b bytes ──│      × iters
 *
 *   one-way time = (elapsed on rank 0) / (2 · iters)
 *
 * Only ranks 0 and 1 take part. Use comm_send / comm_recv on DT_U8 with a count of `bytes`, and
 * dp_now() (common/util.h) for the clock. */
#include "pingpong.h"

#include "util.h"

double pingpong(comm_t *c, unsigned char *buf, size_t bytes, int iters) {
    int rank = comm_rank(c);
    if (rank > 1 || comm_world_size(c) < 2) return 0.0;
    // TODO(00 pingpong): ranks 0 and 1 bounce one message of `bytes` bytes `iters` times, as drawn
    //   above (rank 0 sends first), and return the mean ONE-WAY time in seconds. Exactly iters
    //   messages leave each of the two ranks; the other ranks have already returned.
    // BEGIN SOLUTION
    double t0 = dp_now();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            comm_send(c, buf, bytes, DT_U8, 1);
            comm_recv(c, buf, bytes, DT_U8, 1);
        } else {
            comm_recv(c, buf, bytes, DT_U8, 0);
            comm_send(c, buf, bytes, DT_U8, 0);
        }
    }
    return (dp_now() - t0) / (2.0 * iters);
    // END SOLUTION
    // SKELETON: (void)buf, (void)bytes, (void)iters;
    // SKELETON: DP_TODO();
    // SKELETON: return 0.0;
}
