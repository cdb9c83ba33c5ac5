/* loader.c — see loader.h.
 *
 * K slots in a ring: batch i (counted from `first`) goes into slot i mod K. The thread may fill batch
 * i once the step has taken batch i − K out of that slot (taken > i − K); the step may take batch i
 * once the thread has filled it (filled > i). Both counters change under the lock, the slots are
 * written and read outside it: the counters hand each slot from one thread to the other. */
#define _POSIX_C_SOURCE 200809L
#include "loader.h"

#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct loader {
    loader_fetch_fn fetch;
    void *ctx;
    size_t ntokens, ntargets;
    int depth;
    double delay_s;
    int64_t first, end;
    int32_t *tokens, *targets; /* depth slots of each */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC: the delay's deadline is a dp_now-like time */
    int64_t filled, taken;
    bool stop, started;
};

static struct timespec deadline_in(double s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + s;
    ts.tv_sec = (time_t)whole;
    ts.tv_nsec = (long)((whole - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

/* The emulated slow source: sleep delay_s, or less when told to stop (lock held). */
static void delay_locked(loader_t *l) {
    if (l->delay_s <= 0) return;
    struct timespec until = deadline_in(l->delay_s);
    while (!l->stop && pthread_cond_timedwait(&l->cv, &l->lock, &until) != ETIMEDOUT) {
    }
}

static void *loader_main(void *arg) {
    loader_t *l = arg;
    for (int64_t i = 0; l->first + i < l->end; i++) {
        pthread_mutex_lock(&l->lock);
        while (!l->stop && l->taken <= i - l->depth) pthread_cond_wait(&l->cv, &l->lock);
        bool stop = l->stop;
        pthread_mutex_unlock(&l->lock);
        if (stop) return NULL;
        size_t slot = (size_t)(i % l->depth);
        l->fetch(l->ctx, l->first + i, l->tokens + slot * l->ntokens, l->targets + slot * l->ntargets);
        pthread_mutex_lock(&l->lock);
        delay_locked(l);
        l->filled = i + 1;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->lock);
    }
    return NULL;
}

loader_t *loader_start(loader_fetch_fn fetch, void *ctx, size_t ntokens, size_t ntargets, int depth, double delay_s,
                       int64_t first, int64_t end) {
    loader_t *l = dp_calloc(1, sizeof *l);
    *l = (loader_t){.fetch = fetch,
                    .ctx = ctx,
                    .ntokens = ntokens,
                    .ntargets = ntargets,
                    .depth = depth,
                    .delay_s = delay_s,
                    .first = first,
                    .end = end};
    pthread_mutex_init(&l->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cv, &attr);
    pthread_condattr_destroy(&attr);
    if (depth > 0 && end > first) {
        l->tokens = dp_malloc((size_t)depth * (ntokens ? ntokens : 1) * sizeof(int32_t));
        l->targets = dp_malloc((size_t)depth * (ntargets ? ntargets : 1) * sizeof(int32_t));
        if (pthread_create(&l->thread, NULL, loader_main, l) != 0) dp_fatal("cannot start the data loader's thread");
        l->started = true;
    }
    return l;
}

double loader_next(loader_t *l, int64_t step, int32_t *tokens, int32_t *targets) {
    double t0 = dp_now();
    int64_t i = step - l->first;
    if (i != l->taken || step >= l->end)
        dp_fatal("the data loader was asked for step %lld, expected %lld: steps must be taken in order",
                 (long long)step, (long long)(l->first + l->taken));
    if (!l->started) { /* K = 0: the step fetches its own batch, and waits for the slow source too */
        l->fetch(l->ctx, step, tokens, targets);
        pthread_mutex_lock(&l->lock);
        delay_locked(l);
        l->taken++;
        pthread_mutex_unlock(&l->lock);
        return dp_now() - t0;
    }
    pthread_mutex_lock(&l->lock);
    while (l->filled <= i) pthread_cond_wait(&l->cv, &l->lock);
    pthread_mutex_unlock(&l->lock);
    size_t slot = (size_t)(i % l->depth);
    memcpy(tokens, l->tokens + slot * l->ntokens, l->ntokens * sizeof(int32_t));
    memcpy(targets, l->targets + slot * l->ntargets, l->ntargets * sizeof(int32_t));
    pthread_mutex_lock(&l->lock);
    l->taken = i + 1; /* the slot is free for batch i + K */
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->lock);
    return dp_now() - t0;
}

void loader_stop(loader_t *l) {
    if (!l) return;
    if (l->started) {
        pthread_mutex_lock(&l->lock);
        l->stop = true;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->lock);
        pthread_join(l->thread, NULL);
    }
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->cv);
    free(l->tokens);
    free(l->targets);
    free(l);
}
