/* pool.h — a few persistent threads for the CPU ops, with results that never depend on them.
 *
 * pool_for(pool, n, grain, fn, ctx) splits the work items 0..n−1 into at most one contiguous part per
 * thread, parts fixed by n, grain and the thread count alone (never by which thread is faster), and
 * returns when every part is done. The caller's thread runs part 0 itself.
 *
 * Determinism is the caller's half of the contract: fn must compute each OUTPUT element from the
 * same inputs in the same order whichever part holds it (row-parallel LayerNorm, column-parallel
 * sums, elementwise maps). Then the bits are the same for 1, 2 or any number of threads, which
 * tests/sh/threads.sh checks byte for byte. A part never reduces into another part's output.
 *
 * The pool is one per ops context (ops.h). A context is used by one thread at a time, except on the
 * CPU under DDP, where the communication thread scales buckets with the compute thread's context:
 * a pool_for that finds the pool busy runs all its parts on its own thread, in order (the same bits,
 * only slower), instead of waiting or sharing the workers. Workers sleep between calls. */
#ifndef DPC_POOL_H
#define DPC_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pool pool_t;

/* Work items [begin, end) of part `part` (0 .. parts−1). */
typedef void (*pool_fn)(void *ctx, size_t begin, size_t end, int part);

/* threads <= 1 gives NULL: a pool of one is the caller alone, and pool_for(NULL, ...) runs inline. */
pool_t *pool_create(int threads);
void pool_destroy(pool_t *pool);
int pool_threads(const pool_t *pool); /* 1 for NULL */

/* Runs fn over [0, n) in parts of at least `grain` items (grain 0 counts as 1; fewer than 2·grain
 * items make one part): parts = min(threads, max(1, floor(n / grain))), part i holding
 * [n·i/parts, n·(i+1)/parts). */
void pool_for(pool_t *pool, size_t n, size_t grain, pool_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
