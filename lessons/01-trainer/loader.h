/* loader.h — the data loader: this rank's batch of every step, made ready before the step asks.
 *
 * With --prefetch-depth K > 0 a thread of its own fetches the batches of the next K steps while the
 * training step computes (PyTorch's DataLoader with a worker and prefetch_factor); with K = 0 the
 * step fetches its batch itself, on the spot, as every trainer did before this file existed. Which
 * examples a step gets never depends on K: the fetch function is a function of the step number, and
 * the loader calls it for the steps in order, so training is bit-identical with and without it.
 *
 *   K = 0   main    [fetch 1][step 1][fetch 2][step 2]...          step time = fetch + compute
 *   K = 1   main    [wait 1][step 1][step 2][step 3]               step time = max(fetch, compute)
 *           loader  [fetch 1][fetch 2][fetch 3][fetch 4]...
 *
 * --loader-delay-ms D adds a sleep of D ms to every fetch: a slow source (a network file system, a
 * tokenizer, image decoding) emulated, so that a step becomes loader-bound and the prefetch shows
 * what it hides. */
#ifndef DPC_LOADER_H
#define DPC_LOADER_H

#include <stddef.h>
#include <stdint.h>

typedef struct loader loader_t;

/* Write the batch of `step` into tokens[0..ntokens) and targets[0..ntargets). Called on the loader's
 * thread when K > 0 (never on two threads at once): it may keep state of its own (an epoch's list),
 * but must not touch what the training step uses. */
typedef void (*loader_fetch_fn)(void *ctx, int64_t step, int32_t *tokens, int32_t *targets);

/* A loader for steps first, first + 1, ..., end − 1, batches of ntokens tokens and ntargets targets;
 * depth K batches fetched ahead (0: none, no thread), each fetch followed by delay_s of sleep. */
loader_t *loader_start(loader_fetch_fn fetch, void *ctx, size_t ntokens, size_t ntargets, int depth, double delay_s,
                       int64_t first, int64_t end);
/* Copy the batch of `step` (the next one: first, then first + 1, ...) into tokens and targets,
 * waiting for it if it is not ready; returns the seconds this call took (the time the step waited
 * for its data). */
double loader_next(loader_t *l, int64_t step, int32_t *tokens, int32_t *targets);
/* Stop the thread (at once, even in the middle of a delay) and free everything. NULL: nothing. */
void loader_stop(loader_t *l);

#endif
