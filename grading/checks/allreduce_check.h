/* allreduce_check.h — the exact-oracle sweep the grader runs on every all-reduce (lessons 03, 04).
 *
 * Inputs are small integers times 2^-6 (as nccl-tests does): every partial sum of them is exactly
 * representable in float32, so the result does not depend on the order of the additions and can be
 * compared BIT FOR BIT with the true sum — whatever algorithm, whatever N. Each call is also checked
 * against what its algorithm must do, not only what it computes:
 *   - the traffic with EACH peer (the comm seam's per-peer counters, summed over every communicator
 *     of the process, so messages hidden on a comm_dup count too): a "ring" that sends its chunks
 *     straight to their owners has the ring's totals but talks to everyone;
 *   - the elements each rank scales for REDOP_AVG (ops_t.scaled): every rank scaling the whole
 *     buffer gives the same bits as each scaling its own chunk, at N times the work. */
#ifndef DPC_ALLREDUCE_CHECK_H
#define DPC_ALLREDUCE_CHECK_H

#include "collective.h"

#include <stdint.h>

/* The traffic an algorithm must have with one peer, on one rank, for one call on `count` floats. */
typedef struct {
    uint64_t msgs_sent, msgs_recv;
    uint64_t bytes_sent, bytes_recv;
    uint64_t bytes_slack; /* allowed |difference| in bytes (chunk rounding) */
} traffic_t;
/* Fill want[0 .. N-1] (zeroed by the caller) with rank's traffic with each peer. */
typedef void (*traffic_rule_fn)(int rank, int N, size_t count, traffic_t *want);
/* The most elements rank may scale (ops_scale) in one REDOP_AVG call on count floats. */
typedef size_t (*scale_rule_fn)(int rank, int N, size_t count);

typedef struct {
    const char *name; /* "ring_allreduce" */
    allreduce_fn fn;
    traffic_rule_fn traffic;
    const char *traffic_hint; /* who the algorithm talks to, for the FAIL line */
    scale_rule_fn scaled;
    const char *scale_hint; /* which elements a rank scales */
    int chunked;            /* the ring: explain wrong results by chunks (all-gather must copy) */
    size_t max_count;       /* the largest length swept; 0: 2^20 (smaller keeps N = 6..8 quick) */
} allreduce_spec_t;

/* Run the sweep: lengths {0, 1, N-1, N, N+1, 1009, max_count}, SUM then AVG, on every rank (a
 * collective over coll->comm). Prints what is wrong, on the rank that sees it. Returns 0 when every
 * rank passed everything (the result is agreed over all ranks). */
int allreduce_sweep(coll_t *coll, const allreduce_spec_t *spec);

#endif
