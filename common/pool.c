/* pool.c — the persistent threads of pool.h.
 *
 * One job at a time: the caller publishes it under the lock and bumps a generation number; each
 * worker wakes on the change, runs its own part (worker w runs part w; the caller runs part 0), and
 * the last one to finish wakes the caller. A mutex and two condition variables, nothing lock-free:
 * a call costs a few microseconds, against the tens to thousands that each threaded op takes. */
#include "pool.h"

#include "util.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct pool {
    int threads;
    pthread_t *workers; /* threads − 1 of them */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    pthread_mutex_t busy; /* held for a whole pool_for: a second caller runs inline */
    uint64_t generation;  /* bumped per job */
    int running;          /* workers still on the current job */
    bool stop;
    /* the current job */
    pool_fn fn;
    void *ctx;
    size_t n;
    int parts;
};

typedef struct {
    pool_t *pool;
    int part;
} worker_arg_t;

static void run_part(pool_fn fn, void *ctx, size_t n, int parts, int part) {
    size_t begin = n * (size_t)part / (size_t)parts, end = n * (size_t)(part + 1) / (size_t)parts;
    if (begin < end) fn(ctx, begin, end, part);
}

static void *worker_main(void *p) {
    worker_arg_t *arg = p;
    pool_t *pool = arg->pool;
    int part = arg->part;
    free(arg);
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (pool->generation == seen && !pool->stop) pthread_cond_wait(&pool->go, &pool->lock);
        if (pool->stop) break;
        seen = pool->generation;
        pool_fn fn = pool->fn;
        void *ctx = pool->ctx;
        size_t n = pool->n;
        int parts = pool->parts;
        pthread_mutex_unlock(&pool->lock);
        if (part < parts) run_part(fn, ctx, n, parts, part);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

pool_t *pool_create(int threads) {
    if (threads <= 1) return NULL;
    pool_t *pool = dp_calloc(1, sizeof *pool);
    pool->threads = threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_mutex_init(&pool->busy, NULL);
    pthread_cond_init(&pool->go, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->workers = dp_calloc((size_t)threads - 1, sizeof *pool->workers);
    for (int w = 1; w < threads; w++) {
        worker_arg_t *arg = dp_malloc(sizeof *arg);
        *arg = (worker_arg_t){pool, w};
        int rc = pthread_create(&pool->workers[w - 1], NULL, worker_main, arg);
        if (rc)
            dp_fatal("cannot start thread %d of %d for the CPU ops (pthread_create: error %d): use fewer --threads", w,
                     threads, rc);
    }
    return pool;
}

void pool_destroy(pool_t *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->lock);
    for (int w = 1; w < pool->threads; w++) pthread_join(pool->workers[w - 1], NULL);
    pthread_cond_destroy(&pool->go);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->busy);
    free(pool->workers);
    free(pool);
}

int pool_threads(const pool_t *pool) { return pool ? pool->threads : 1; }

void pool_for(pool_t *pool, size_t n, size_t grain, pool_fn fn, void *ctx) {
    if (n == 0) return;
    if (grain == 0) grain = 1;
    size_t most = n / grain ? n / grain : 1; /* every part at least grain items */
    int parts = pool && most < (size_t)pool->threads ? (int)most : pool_threads(pool);
    if (parts <= 1 || pthread_mutex_trylock(&pool->busy) != 0) {
        /* alone, or the pool is another thread's now: the same parts, in order, on this thread */
        for (int part = 0; part < parts; part++) run_part(fn, ctx, n, parts, part);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    pool->parts = parts;
    pool->running = pool->threads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->lock);
    run_part(fn, ctx, n, parts, 0);
    pthread_mutex_lock(&pool->lock);
    while (pool->running > 0) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_unlock(&pool->busy);
}
