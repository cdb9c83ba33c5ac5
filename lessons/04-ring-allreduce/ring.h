/* ring.h — lesson 04: the ring all-reduce and its two halves, and the tree all-reduce.
 *
 * The buffer of `count` floats is cut into N chunks, chunk i going to rank i. Chunks differ by at
 * most one element: the first count % N chunks are one element longer.
 *
 *   count = 10, N = 4:   [0 1 2][3 4 5][6 7][8 9]      chunk lengths 3 3 2 2
 *
 * reduce_scatter: afterwards rank r's chunk r holds the SUM over all ranks (the rest of its buffer
 *                 is scratch). all_gather: rank r's chunk r is copied to every rank. Together they
 *                 are the ring all-reduce. Lesson 08 (FSDP) calls the halves on their own. */
#ifndef DPC_RING_H
#define DPC_RING_H

#include "collective.h"

/* Where chunk i of a count-element buffer split over N ranks starts, and how long it is. */
void chunk_range(size_t count, int N, int i, size_t *offset, size_t *length);

void reduce_scatter(coll_t *coll, float *buf, size_t count);
void all_gather(coll_t *coll, float *buf, size_t count);
void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op);

/* Binomial-tree all-reduce: ⌈log2 N⌉ rounds up to rank 0, ⌈log2 N⌉ rounds back down. */
void tree_allreduce(coll_t *coll, float *buf, size_t count, redop_t op);

/* Going further (given, written out in ring_pipelined.c; nothing for you to write): the ring with
 * every chunk cut into sub-chunks of at most RING_PIECE_FLOATS floats, each reduced right after it
 * arrives, while it is still in cache. */
void ring_allreduce_pipelined(coll_t *coll, float *buf, size_t count, redop_t op);
#define RING_PIECE_FLOATS (64 * 1024)

#endif
