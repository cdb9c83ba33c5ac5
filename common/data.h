/* data.h — token datasets and the order examples are visited in.
 *
 * File format (.tok, little-endian), written by datasets/build_words:
 *
 *   offset  size  field
 *   0       8     magic "DPCTOK1\0"
 *   8       4     version = 1
 *   12      4     vocab_size V (1..256)
 *   16      8     n_tokens
 *   24      4     CRC-32 of the token bytes
 *   28      4     CRC-32 of the vocabulary (0 in files written before it was added: not checked)
 *   32      V     vocabulary: the character each token id stands for
 *   32+V    n     tokens, one byte each, every one < V
 *
 * An example is a window of the token stream: the `context` tokens at positions [i, i+context)
 * and the token at i+context to predict, for i in [0, n_tokens - context).
 * A GPT (lesson 01's --model gpt-*) reads the same window of context+1 tokens and predicts each
 * token after the first: model_forward shifts the window itself (model.h), so an example is the same
 * for both models and the orders below index them alike.
 *
 * The order: epoch e visits the examples in a permutation drawn from the counter-based RNG stream
 * (seed, e); global batch s takes the next `batch` examples of that order. The last partial batch of
 * an epoch is dropped, so every step has exactly `batch` examples:
 *
 *   epoch 0: [ p0 p1 ... p(B-1) | pB ... p(2B-1) | ... | dropped ]   epoch 1: [ new permutation ...
 *              step 0              step 1 */
#ifndef DPC_DATA_H
#define DPC_DATA_H

#include <stddef.h>
#include <stdint.h>

#define DATA_MAGIC        "DPCTOK1"
#define DATA_VERSION      1
#define DATA_HEADER_BYTES 32

typedef struct {
    uint32_t vocab_size;
    char vocab[256];
    uint8_t *tokens;
    size_t n_tokens;
} dataset_t;

/* Load and validate; on any problem prints one line (naming the file and what is wrong) and exits. */
void dataset_load(const char *path, dataset_t *ds);
/* Same, but returns 0 on success and writes the problem into err (for tests). */
int dataset_try_load(const char *path, dataset_t *ds, char *err, size_t errlen);
void dataset_free(dataset_t *ds);
/* Write a dataset file (the builder and the tests use it). Returns 0 on success. */
int dataset_write(const char *path, const char *vocab, uint32_t vocab_size, const uint8_t *tokens, size_t n_tokens);

/* The dataset builders' common end (datasets/build_*.c): shuffle the n records with seed, keep the
 * last val_fraction of them (at least one) for validation, and write OUT_DIR/NAME-train.tok and
 * NAME-val.tok. A record's character c becomes its index in vocab, and every record is followed by
 * token 0 (vocab[0], the separator). Prints one line per file, counting the records as `what`. */
void dataset_write_split(char **records, size_t n, const char *vocab, uint32_t vocab_size, uint64_t seed,
                         double val_fraction, const char *out_dir, const char *name, const char *what);

size_t dataset_num_examples(const dataset_t *ds, int context);
/* Example i: context tokens into ctx[0..context), the target into *target. */
void dataset_example(const dataset_t *ds, int context, size_t i, int32_t *ctx, int32_t *target);

/* The visiting order: a list of example indices per epoch, cut into global batches. The course's own
 * order is a Philox permutation per (seed, epoch), partial last batch dropped. Another order (PyTorch's
 * DistributedSampler: the oracle the lesson-07 sampler is graded against, common/oracle/sampler_oracle.h)
 * brings its own make_epoch and its own total. */
typedef struct data_order data_order_t;
struct records;
struct data_order {
    uint64_t seed;
    size_t n_examples;
    size_t batch;           /* global batch size */
    size_t total;           /* examples per epoch in the order (n_examples, or the sampler's total_size) */
    size_t steps_per_epoch; /* total / batch */
    int replicas;           /* the sampler's ranks (0: the course's own order) */
    int shuffle, drop_last;
    void (*make_epoch)(data_order_t *o, int64_t epoch); /* fills perm[0..total) for an epoch */
    uint32_t *perm;                                     /* the cached epoch's order */
    int64_t perm_epoch;                                 /* which epoch perm holds (-1: none) */
    /* The course's order only: group each run of this many global batches by the length of these
     * records (records.h, --group-by-length); 0: no grouping. */
    const struct records *group_records;
    size_t group_batches;
};

void data_order_init(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch);
/* For another order: the fields above set, perm allocated for total (at least n_examples) indices. */
void data_order_alloc(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch, size_t total);
void data_order_free(data_order_t *o);
/* Example indices of global batch `step` into idx[0..batch). */
void data_order_batch(data_order_t *o, uint64_t step, uint32_t *idx);

/* Gather examples idx[0..n) into ctx[n*context] and targets[n]. */
void dataset_gather(const dataset_t *ds, int context, const uint32_t *idx, size_t n, int32_t *ctx, int32_t *targets);

#endif
