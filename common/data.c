/* data.c — see data.h. */
#include "data.h"

#include "crc32.h"
#include "rng.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

int dataset_try_load(const char *path, dataset_t *ds, char *err, size_t errlen) {
    memset(ds, 0, sizeof *ds);
    size_t len = 0;
    unsigned char *buf = dp_read_file(path, &len);
    if (!buf)
        return dp_error(err, errlen,
                        "dataset %s not found, unreadable or not a regular file; build it with 'make "
                        "dataset' or pass --data PATH",
                        path);
    int rc = -1;
    if (len < DATA_HEADER_BYTES) {
        dp_error(err, errlen,
                 "%s is truncated: %zu bytes, shorter than the %d-byte header; rebuild it with 'make dataset'", path,
                 len, DATA_HEADER_BYTES);
        goto out;
    }
    if (memcmp(buf, DATA_MAGIC, 8) != 0) {
        dp_error(err, errlen, "%s is not a dataset file (bad magic); rebuild it with 'make dataset'", path);
        goto out;
    }
    uint32_t version = rd32(buf + 8), V = rd32(buf + 12), crc = rd32(buf + 24);
    uint64_t n = rd64(buf + 16);
    if (version != DATA_VERSION) {
        dp_error(err, errlen, "%s has format version %u, this build reads version %d; rebuild it", path, version,
                 DATA_VERSION);
        goto out;
    }
    if (V < 1 || V > 256) {
        dp_error(err, errlen, "%s is corrupt: vocabulary size %u (1..256 allowed)", path, V);
        goto out;
    }
    /* n > len first: a crafted count near 2^64 would make the sum below wrap to the file's size */
    if (n > (uint64_t)len) {
        dp_error(err, errlen,
                 "%s is corrupt or truncated: header says %llu tokens, more than the file's %zu bytes; rebuild it",
                 path, (unsigned long long)n, len);
        goto out;
    }
    if ((uint64_t)len != DATA_HEADER_BYTES + V + n) {
        dp_error(err, errlen,
                 "%s is corrupt or truncated: header says %llu tokens (%llu bytes in all) but the file "
                 "has %zu bytes; rebuild it",
                 path, (unsigned long long)n, (unsigned long long)(DATA_HEADER_BYTES + V + n), len);
        goto out;
    }
    /* The token checksum does not cover the vocabulary: a flipped character would decode every
     * sample wrongly. Its own checksum is in the once-reserved field (0 there: an older file). */
    uint32_t vcrc = rd32(buf + 28);
    if (vcrc && crc32_update(0, buf + DATA_HEADER_BYTES, V) != vcrc) {
        dp_error(err, errlen, "%s is corrupt: vocabulary checksum mismatch; rebuild it", path);
        goto out;
    }
    const uint8_t *tok = buf + DATA_HEADER_BYTES + V;
    if (crc32_update(0, tok, n) != crc) {
        dp_error(err, errlen, "%s is corrupt: token checksum mismatch; rebuild it", path);
        goto out;
    }
    for (uint64_t i = 0; i < n; i++)
        if (tok[i] >= V) {
            dp_error(err, errlen, "%s is corrupt: token %llu has id %u >= vocabulary size %u", path,
                     (unsigned long long)i, tok[i], V);
            goto out;
        }
    ds->vocab_size = V;
    memcpy(ds->vocab, buf + DATA_HEADER_BYTES, V);
    ds->n_tokens = n;
    ds->tokens = dp_malloc(n ? n : 1);
    memcpy(ds->tokens, tok, n);
    rc = 0;
out:
    free(buf);
    return rc;
}

void dataset_load(const char *path, dataset_t *ds) {
    char err[512];
    if (dataset_try_load(path, ds, err, sizeof err) != 0) dp_fatal("%s", err);
}

void dataset_free(dataset_t *ds) {
    free(ds->tokens);
    memset(ds, 0, sizeof *ds);
}

static void wr32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int dataset_write(const char *path, const char *vocab, uint32_t V, const uint8_t *tokens, size_t n) {
    unsigned char h[DATA_HEADER_BYTES] = {0};
    memcpy(h, DATA_MAGIC, 8);
    wr32(h + 8, DATA_VERSION);
    wr32(h + 12, V);
    wr32(h + 16, (uint32_t)n);
    wr32(h + 20, (uint32_t)((uint64_t)n >> 32));
    wr32(h + 24, crc32_update(0, tokens, n));
    wr32(h + 28, crc32_update(0, vocab, V));
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(h, 1, sizeof h, f) == sizeof h && fwrite(vocab, 1, V, f) == V && fwrite(tokens, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static void write_records(const char *path, char **recs, size_t from, size_t to, const char *vocab, uint32_t V,
                          const char *what) {
    int16_t token[256];
    for (int c = 0; c < 256; c++) token[c] = -1;
    for (uint32_t t = 0; t < V; t++) token[(unsigned char)vocab[t]] = (int16_t)t;
    size_t n = 0;
    for (size_t i = from; i < to; i++) n += strlen(recs[i]) + 1;
    uint8_t *tok = dp_malloc(n ? n : 1);
    size_t k = 0;
    for (size_t i = from; i < to; i++) {
        for (const char *p = recs[i]; *p; p++) {
            int t = token[(unsigned char)*p];
            if (t < 0) dp_fatal("%s: a record holds '%c' (byte %d), which is not in the vocabulary", path, *p, *p);
            tok[k++] = (uint8_t)t;
        }
        tok[k++] = 0; /* the separator */
    }
    dp_mkdir_for(path);
    if (dataset_write(path, vocab, V, tok, n) != 0) dp_fatal("cannot write %s", path);
    printf("%s: wrote %s (%zu %s, %zu tokens)\n", dp_progname(), path, to - from, what, n);
    free(tok);
}

void dataset_write_split(char **records, size_t n, const char *vocab, uint32_t vocab_size, uint64_t seed,
                         double val_fraction, const char *out_dir, const char *name, const char *what) {
    rng_t r;
    rng_init(&r, seed);
    uint32_t *perm = dp_malloc(n * sizeof *perm);
    rng_permutation(&r, perm, (uint32_t)n);
    char **shuffled = dp_malloc(n * sizeof *shuffled);
    for (size_t i = 0; i < n; i++) shuffled[i] = records[perm[i]];
    size_t n_val = (size_t)((double)n * val_fraction);
    if (n_val < 1) n_val = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-train.tok", out_dir, name);
    write_records(path, shuffled, 0, n - n_val, vocab, vocab_size, what);
    snprintf(path, sizeof path, "%s/%s-val.tok", out_dir, name);
    write_records(path, shuffled, n - n_val, n, vocab, vocab_size, what);
    free(shuffled);
    free(perm);
}

size_t dataset_num_examples(const dataset_t *ds, int context) {
    return ds->n_tokens > (size_t)context ? ds->n_tokens - (size_t)context : 0;
}

void dataset_example(const dataset_t *ds, int context, size_t i, int32_t *ctx, int32_t *target) {
    for (int t = 0; t < context; t++) ctx[t] = ds->tokens[i + (size_t)t];
    *target = ds->tokens[i + (size_t)context];
}

void dataset_gather(const dataset_t *ds, int context, const uint32_t *idx, size_t n, int32_t *ctx, int32_t *targets) {
    for (size_t b = 0; b < n; b++) dataset_example(ds, context, idx[b], ctx + b * (size_t)context, &targets[b]);
}

void data_order_alloc(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch, size_t total) {
    if (batch == 0) dp_fatal("batch size must be positive");
    if (total < batch)
        dp_fatal("the dataset has %zu examples per epoch, fewer than one global batch of %zu; use a smaller "
                 "--batch or a larger dataset",
                 total, batch);
    if (n_examples > UINT32_MAX / 20) dp_fatal("datasets of more than 2^32/20 examples are not supported");
    o->seed = seed;
    o->n_examples = n_examples;
    o->batch = batch;
    o->total = total;
    o->steps_per_epoch = total / batch;
    o->perm = dp_malloc((total > n_examples ? total : n_examples) * sizeof(uint32_t) + 1);
    o->perm_epoch = -1;
}

/* One Philox stream per (seed, epoch): the epoch is mixed into the key. */
static void philox_epoch(data_order_t *o, int64_t epoch) {
    rng_t r;
    rng_init(&r, o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)epoch + 1);
    rng_permutation(&r, o->perm, (uint32_t)o->n_examples);
}

void data_order_init(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch) {
    o->replicas = 0;
    o->shuffle = 1;
    o->drop_last = 1;
    o->make_epoch = philox_epoch;
    data_order_alloc(o, seed, n_examples, batch, n_examples);
}

void data_order_free(data_order_t *o) {
    free(o->perm);
    o->perm = NULL;
}

void data_order_batch(data_order_t *o, uint64_t step, uint32_t *idx) {
    int64_t epoch = (int64_t)(step / o->steps_per_epoch);
    if (epoch != o->perm_epoch) {
        o->make_epoch(o, epoch);
        o->perm_epoch = epoch;
    }
    size_t start = (size_t)(step % o->steps_per_epoch) * o->batch;
    memcpy(idx, o->perm + start, o->batch * sizeof(uint32_t));
}
