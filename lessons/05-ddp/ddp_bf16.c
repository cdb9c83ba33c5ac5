/* ddp_bf16.c — --reduce-dtype bf16: the buckets' all-reduce in bf16, as NCCL's on bf16 tensors.
 *
 * A ring all-reduce (lesson 04's algorithm: reduce-scatter, then all-gather, N−1 steps each) whose
 * messages are bf16, half the bytes of float32, and whose every hop adds the incoming partial sum
 * to its own chunk in float32 and rounds the result back to bf16 before passing it on. That is what
 * a bf16 reduction costs in precision: N−1 roundings of at most u = 2^-8 on the way, on top of the
 * rounding of each rank's contribution, against none for --reduce-dtype fp32 (PyTorch's
 * reduce_dtype=float32: the bf16 gradients summed in float32). The result is widened back into the
 * float32 gradient buffer, every rank holding the same bf16 values.
 *
 * Given code (not a lesson's algorithm to write): it reuses the comm seam's point-to-point calls
 * with DT_BF16 (bit patterns, copied, never reduced by the seam) and common/half.h. */
#include "ddp.h"

#include "half.h"
#include "util.h"

#include <stdlib.h>

/* chunk k of N over count elements: [k·count/N, (k+1)·count/N) */
static size_t chunk_at(size_t count, int N, int k) { return count * (size_t)k / (size_t)N; }

void ddp_allreduce_bf16(coll_t *coll, float *buf, size_t count, redop_t op) {
    if (op != REDOP_SUM) dp_fatal("--reduce-dtype bf16 sums (DDP divides by the world size first)");
    int N = comm_world_size(coll->comm), r = comm_rank(coll->comm);
    uint16_t *mine = dp_malloc((count ? count : 1) * sizeof(uint16_t));
    uint16_t *in = dp_malloc((count / (size_t)N + 2) * sizeof(uint16_t));
    for (size_t i = 0; i < count; i++) mine[i] = float_to_bf16(buf[i]);
    int next = (r + 1) % N, prev = (r + N - 1) % N;
    /* reduce-scatter: at step s rank r sends chunk r − s and adds chunk r − s − 1 from prev; after
     * N − 1 steps it holds chunk r + 1 summed over every rank */
    for (int s = 0; s < N - 1; s++) {
        int ks = ((r - s) % N + N) % N, kr = ((r - s - 1) % N + N) % N;
        size_t so = chunk_at(count, N, ks), sn = chunk_at(count, N, ks + 1) - so;
        size_t ro = chunk_at(count, N, kr), rn = chunk_at(count, N, kr + 1) - ro;
        comm_sendrecv(coll->comm, mine + so, sn, next, in, rn, prev, DT_BF16);
        for (size_t i = 0; i < rn; i++)
            mine[ro + i] = float_to_bf16(bf16_to_float(mine[ro + i]) + bf16_to_float(in[i]));
    }
    /* all-gather: pass the summed chunks on around the ring, received straight into place */
    for (int s = 0; s < N - 1; s++) {
        int ks = ((r + 1 - s) % N + N) % N, kr = ((r - s) % N + N) % N;
        size_t so = chunk_at(count, N, ks), sn = chunk_at(count, N, ks + 1) - so;
        size_t ro = chunk_at(count, N, kr), rn = chunk_at(count, N, kr + 1) - ro;
        comm_sendrecv(coll->comm, mine + so, sn, next, mine + ro, rn, prev, DT_BF16);
    }
    for (size_t i = 0; i < count; i++) buf[i] = bf16_to_float(mine[i]);
    free(mine);
    free(in);
}
