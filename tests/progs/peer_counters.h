/* peer_counters.h — the probes' last lines: what this process's comm seam counted with each other
 * rank (world ranks), and its library calls, in the form the shell tests compare against their
 * own expectation and the grader's switch log:
 *
 *   peer R P msgs_sent A bytes_sent B msgs_recv C bytes_recv D      (one line per P != R)
 *   lib R calls L */
#ifndef DPC_TESTS_PEER_COUNTERS_H
#define DPC_TESTS_PEER_COUNTERS_H

#include <stdio.h>

#include "comm.h"

static inline void print_peer_counters(comm_t *c) {
    int r = comm_rank(c), n = comm_world_size(c);
    for (int p = 0; p < n; p++) {
        if (p == r) continue;
        comm_peer_counters_t q = comm_process_peer_counters(c, p);
        printf("peer %d %d msgs_sent %llu bytes_sent %llu msgs_recv %llu bytes_recv %llu\n", r, p,
               (unsigned long long)q.msgs_sent, (unsigned long long)q.bytes_sent, (unsigned long long)q.msgs_recv,
               (unsigned long long)q.bytes_recv);
    }
    printf("lib %d calls %llu\n", r, (unsigned long long)comm_process_counters(c).lib_calls);
}

#endif
