/* allreduce_check.h — the exact-oracle sweep the grader runs on every all-reduce (lessons 03, 04).
 *
 * Inputs are small integers times 2^-6 (as nccl-tests does): every partial sum of them is exactly
 * representable in float32, so the result does not depend on the order of the additions and can be
 * compared BIT FOR BIT with the true sum — whatever algorithm, whatever N. Each call is also checked
 * against the traffic its algorithm must produce, read from the comm counters. */
#ifndef DPC_ALLREDUCE_CHECK_H
#define DPC_ALLREDUCE_CHECK_H

#include "collective.h"

#include <stdint.h>

/* The traffic an algorithm must produce on `rank` for one call on `count` floats. */
typedef struct {
    uint64_t msgs_sent, msgs_recv;
    uint64_t bytes_sent, bytes_recv;
    uint64_t bytes_slack; /* allowed |difference| in bytes (chunk rounding) */
    int check_msgs;       /* compare the message counts too */
} traffic_t;
typedef traffic_t (*traffic_rule_fn)(int rank, int N, size_t count);

/* Run the sweep: lengths {0, 1, N-1, N, N+1, 1009, 1 << 20}, SUM then AVG, on every rank (a
 * collective over k->comm). Prints what is wrong, on the rank that sees it. Returns 0 when every
 * rank passed everything (the result is agreed over all ranks). */
int allreduce_sweep(coll_t *k, allreduce_fn fn, const char *name, traffic_rule_fn rule);

#endif
