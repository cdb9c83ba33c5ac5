/* records.h — variable-length examples (lesson 10): a dataset's records as examples of their own
 * length, and batches grouped by length.
 *
 * The course's examples are fixed windows of T tokens: every example costs the same, so every rank
 * does the same work. Real data is not like that. Here an example is one RECORD of the dataset — the
 * run of tokens between two separators (token 0: a word of the word list, a fortune) — framed by
 * separators and padded to the window with -1, which means "no token here, and nothing to predict":
 *
 *   record "cat" in a window of T = 8:   ctx  0  c  a  t  0 -1 -1 -1     target (the token after) -1
 *                                        what each position predicts: c a t 0 · · · ·  (4 counted)
 *
 * The GPT (model.c) cuts a batch to its longest example, so a batch of short words computes less
 * than a batch holding one long word: ranks whose batches differ in length differ in work, and the
 * all-reduce makes the fast ones wait. Grouping by length (PyTorch/Hugging Face's `group_by_length`,
 * a "bucketing" sampler) puts examples of similar length into the same global batch, so every
 * rank's batch has about the same longest example.
 *
 * The loss also changes meaning: the GPT averages over the positions it predicts, and ranks now
 * predict different numbers of positions, so the average of the ranks' means (what DDP's averaged
 * gradient is the gradient of) is no longer the mean over the global batch. --loss-norm tokens
 * weights each rank's loss by N·n_r/Σn (n_r: its counted positions), which makes it so again. */
#ifndef DPC_RECORDS_H
#define DPC_RECORDS_H

#include "data.h"

#include <stddef.h>
#include <stdint.h>

typedef struct records {
    size_t n;      /* records */
    size_t *start; /* [n] offset of each record's first token in the dataset */
    uint32_t *len; /* [n] its tokens, separators excluded */
} records_t;

/* Index the records of ds (runs of non-zero tokens; empty runs are skipped). Exits with a message
 * when there are none. */
void records_index(const dataset_t *ds, records_t *r);
void records_free(records_t *r);

/* Record i as a window of T tokens: separator, the record, separator, then -1 up to T (a longer
 * record is cut); *target is the token after the window, or -1. Returns the positions with something
 * to predict: min(len + 1, T). */
int records_example(const dataset_t *ds, const records_t *r, int T, size_t i, int32_t *ctx, int32_t *target);

/* Group an epoch's order by length: in each run of `group` global batches of `batch` examples, sort
 * the examples by record length (stable), cut them into the batches again, and shuffle those batches'
 * order with a generator seeded from (seed, epoch, run). A partial last run is grouped the same way. */
void records_group_by_length(const records_t *r, uint32_t *perm, size_t n, size_t batch, size_t group, uint64_t seed,
                             int64_t epoch);

#endif
