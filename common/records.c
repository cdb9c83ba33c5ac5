/* records.c — see records.h. */
#include "records.h"

#include "rng.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void records_index(const dataset_t *ds, records_t *r) {
    size_t n = 0;
    for (size_t i = 0; i < ds->n_tokens; i++)
        if (ds->tokens[i] && (i == 0 || !ds->tokens[i - 1])) n++;
    if (n == 0) dp_fatal("--examples records: the dataset has no records (no tokens between separators)");
    r->n = n;
    r->start = dp_malloc(n * sizeof *r->start);
    r->len = dp_malloc(n * sizeof *r->len);
    size_t k = 0;
    for (size_t i = 0; i < ds->n_tokens; i++) {
        if (!ds->tokens[i]) continue;
        if (i == 0 || !ds->tokens[i - 1]) {
            r->start[k] = i;
            r->len[k++] = 0;
        }
        r->len[k - 1]++;
    }
}

void records_free(records_t *r) {
    free(r->start);
    free(r->len);
    memset(r, 0, sizeof *r);
}

int records_example(const dataset_t *ds, const records_t *r, int T, size_t i, int32_t *ctx, int32_t *target) {
    /* the framed sequence s = 0, record, 0: s[t] for t < len + 2 */
    const uint8_t *rec = ds->tokens + r->start[i];
    long len = (long)r->len[i];
#define S(t) ((t) == 0 || (t) == len + 1 ? 0 : (t) <= len ? (int32_t)rec[(t)-1] : -1)
    for (long t = 0; t < T; t++) ctx[t] = S(t);
    *target = S((long)T);
#undef S
    return len + 1 < T ? (int)len + 1 : T;
}

/* Stable by length: equal lengths keep the epoch's (random) order. */
typedef struct {
    uint32_t len, pos, idx;
} keyed_t;

static int by_length(const void *a, const void *b) {
    const keyed_t *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

void records_group_by_length(const records_t *r, uint32_t *perm, size_t n, size_t batch, size_t group, uint64_t seed,
                             int64_t epoch) {
    size_t span = batch * group, nbatches = (n + batch - 1) / batch;
    keyed_t *k = dp_malloc(span * sizeof *k);
    uint32_t *tmp = dp_malloc(span * sizeof *tmp), *order = dp_malloc((group ? group : 1) * sizeof *order);
    for (size_t run = 0, from = 0; from < n; run++, from += span) {
        size_t m = n - from < span ? n - from : span;
        for (size_t j = 0; j < m; j++) k[j] = (keyed_t){r->len[perm[from + j]], (uint32_t)j, perm[from + j]};
        qsort(k, m, sizeof *k, by_length);
        /* whole batches only: the partial batch at the end of an epoch is never used */
        size_t nb = m / batch;
        if (from / batch + nb > nbatches) nb = nbatches - from / batch;
        rng_t g;
        rng_init(&g, seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)epoch << 20) ^ (run + 1) * 0xD1B54A32D192ED03ull);
        if (nb) rng_permutation(&g, order, (uint32_t)nb);
        for (size_t b = 0; b < nb; b++)
            for (size_t j = 0; j < batch; j++) tmp[b * batch + j] = k[order[b] * batch + j].idx;
        for (size_t j = nb * batch; j < m; j++) tmp[j] = k[j].idx;
        memcpy(perm + from, tmp, m * sizeof *tmp);
    }
    free(k);
    free(tmp);
    free(order);
}
