/* naive-a.c — an independent lesson 03 naive all-reduce (tests/sh/similarity.sh): two helpers,
 * one phase each, written without looking at the reference. */
#include "collective.h"

#include "util.h"

/* Rank 0 gathers every other rank's buffer, in rank order, into its own. */
static void gather_sum(coll_t *coll, float *acc, size_t count, int world) {
    float *incoming = coll_scratch(coll, count);
    int peer = 1;
    while (peer < world) {
        comm_recv(coll->comm, incoming, count, DT_F32, peer);
        reduce_add(coll->ops, acc, incoming, count);
        ++peer;
    }
}

/* Rank 0 hands the finished buffer back to everyone. */
static void hand_back(comm_t *comm, const float *result, size_t count, int world) {
    int peer = world - 1;
    while (peer > 0) {
        comm_send(comm, result, count, DT_F32, peer);
        --peer;
    }
}

void naive_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), rank = comm_rank(c);
    if (count == 0) return;
    if (rank != 0) {
        comm_send(c, buf, count, DT_F32, 0);
        comm_recv(c, buf, count, DT_F32, 0);
        return;
    }
    gather_sum(coll, buf, count, N);
    const float inv = 1.0f / (float)N;
    switch (op) {
    case REDOP_AVG:
        ops_scale(coll->ops, buf, inv, count);
        break;
    default:
        break;
    }
    hand_back(c, buf, count, N);
}
