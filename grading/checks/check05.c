/* check05 — the grader's unit checks of lesson 05 (linked with the submission's lesson-05 code).
 *
 *   check05 buckets   ddp_assign_buckets on layouts with known answers (PyTorch's worked examples of
 *                     lessons/pytorch-semantics.md#ddp-buckets, a tiny cap, a huge cap, the >= boundary), then on
 *                     layouts generated to expose each kind of mistake (>= in later buckets, 1 MiB
 *                     taken as 10^6, the 1 MiB first bucket under an explicit cap), against an oracle
 *   check05 launch    ddp_grad_ready / ddp_finish with a recording launcher: gradients ready in a
 *                     scrambled order must launch buckets 0, 1, 2, ... each only once complete and
 *                     after every earlier one, each already scaled by 1/N, through d->launch (not
 *                     d->allreduce, not ddp_launch), without waiting in the hook for the all-reduce */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "checklib.h"
#include "ddp.h"
#include "gpt.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void layout_of(flat_layout_t *L, const size_t *numel, int n) {
    flat_layout_init(L);
    char name[16];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "p%d", i);
        flat_layout_add(L, name, 1, &numel[i]);
    }
}

/* Append to a fixed-size text, silently cut at its end. */
static void append(char *s, size_t cap, const char *fmt, ...) {
    size_t len = strlen(s);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s + len, cap - len, fmt, ap);
    va_end(ap);
}

/* More buckets than this from a handful of parameters is nonsense; the tape never holds more. */
#define MAX_BUCKETS 4096

/* The buckets that ddp_assign_buckets built, as recorded on the tape: the check's own copies (the
 * judge's ddp_t holds the reference's buckets, sized for the reference's count). NULL when the count
 * is absurd or an array is missing; the message then says why. */
typedef struct {
    long long nbuckets;
    ddp_bucket_t *buckets; /* nbuckets */
    int *bucket_of;        /* one per parameter */
} taped_buckets_t;

static bool tape_buckets(taped_buckets_t *tb, const ddp_t *d, int nparams, const char *what, bool quiet) {
    memset(tb, 0, sizeof *tb);
    tb->nbuckets = ck_tape_ll("ddp_assign_buckets nbuckets", d->nbuckets);
    if (tb->nbuckets < 0 || tb->nbuckets > MAX_BUCKETS) {
        if (!quiet)
            printf("FAIL: %s: ddp_assign_buckets set nbuckets = %lld for %d parameters (at most one bucket per "
                   "parameter)\n",
                   what, tb->nbuckets, nparams);
        return false;
    }
    long long have_buckets = ck_tape_ll("ddp_assign_buckets buckets allocated", d->buckets != NULL);
    long long have_of = ck_tape_ll("ddp_assign_buckets bucket_of allocated", d->bucket_of != NULL);
    if ((tb->nbuckets > 0 && !have_buckets) || !have_of) {
        if (!quiet)
            printf("FAIL: %s: after ddp_assign_buckets d->%s is NULL (nbuckets %lld)\n", what,
                   !have_of ? "bucket_of" : "buckets", tb->nbuckets);
        return false;
    }
    size_t nb = (size_t)tb->nbuckets;
    tb->buckets = dp_calloc(nb ? nb : 1, sizeof(ddp_bucket_t));
    tb->bucket_of = dp_calloc((size_t)nparams, sizeof(int));
    /* the judge's own d holds the reference's count, which may be fewer: the tape fills in the rest */
    size_t have = d->nbuckets > 0 && (size_t)d->nbuckets < nb ? (size_t)d->nbuckets : nb;
    if (d->buckets && have) memcpy(tb->buckets, d->buckets, have * sizeof(ddp_bucket_t));
    if (d->bucket_of) memcpy(tb->bucket_of, d->bucket_of, (size_t)nparams * sizeof(int));
    ck_tape("ddp_assign_buckets buckets", tb->buckets, nb * sizeof(ddp_bucket_t));
    ck_tape("ddp_assign_buckets bucket_of", tb->bucket_of, (size_t)nparams * sizeof(int));
    return true;
}

static void taped_buckets_free(taped_buckets_t *tb) {
    free(tb->buckets);
    free(tb->bucket_of);
}

/* ---- the bucket rule ------------------------------------------------------------------------------
 *
 * The oracle: the rule stated once more, independently of the reference, on prefix sums. In visit
 * order (reverse registration: position j is parameter n−1−j) bucket k starts where bucket k−1
 * ended and ends at the first position whose bytes since the bucket's start reach its limit —
 * first_bucket_bytes_cap for k = 0, bucket_bytes_cap after — or at the last position. Returns the
 * number of buckets; first_param[k] is the lowest parameter of bucket k. */
static int oracle_buckets(const size_t *numel, int n, size_t cap, size_t first_cap, int *first_param) {
    size_t *prefix = dp_calloc((size_t)n + 1, sizeof(size_t)); /* prefix[j]: bytes of positions < j */
    for (int j = 0; j < n; j++) prefix[j + 1] = prefix[j] + numel[n - 1 - j] * sizeof(float);
    int nb = 0;
    for (int start = 0; start < n; nb++) {
        size_t limit = nb == 0 ? first_cap : cap;
        int end = start; /* the bucket is positions [start, end] */
        while (end < n - 1 && prefix[end + 1] - prefix[start] < limit) end++;
        first_param[nb] = n - 1 - end;
        start = end + 1;
    }
    free(prefix);
    return nb;
}

/* "[5 4][3 2 1 0]": buckets as lists of parameters in launch order (last_param first). */
static void describe(char *s, size_t size, const int *first_param, const int *last_param, long long nb) {
    s[0] = 0;
    for (long long b = 0; b < nb; b++) {
        append(s, size, "[");
        for (int i = last_param[b]; i >= first_param[b] && i >= 0; i--) {
            if (strlen(s) + 1 >= size) return; /* full: the rest would not show anyway */
            append(s, size, "%d%s", i, i > first_param[b] ? " " : "");
        }
        append(s, size, "]");
    }
}

/* The kinds of mistakes the cases below are made to expose; each says what the rule is about. */
typedef enum { K_RULE, K_EXACT, K_LATER_EXACT, K_FIRST_MIB, K_EXPLICIT, NKINDS } kind_t;
static const char *const kind_hint[NKINDS] = {
    "parameters in reverse registration order, a bucket closes once its bytes reach its cap (>=), the first bucket "
    "with first_bucket_bytes_cap, every later one with bucket_bytes_cap",
    "a bucket closes as soon as its bytes reach its cap (>=): the parameter that makes it exactly the cap stays in "
    "it and closes it",
    "a bucket closes as soon as its bytes reach the cap (>=) in EVERY bucket, not only the first: the parameter "
    "that makes a later bucket exactly bucket_bytes_cap bytes closes it",
    "the first bucket closes at first_bucket_bytes_cap, here PyTorch's 1 MiB = 1048576 bytes (2^20, not 10^6): a "
    "first bucket of 1000000..1048575 bytes stays open",
    "with an explicit bucket_cap_mb the first bucket's cap is that cap too (first_bucket_bytes_cap == "
    "bucket_bytes_cap): the 1 MiB first bucket is only PyTorch's default, when bucket_cap_mb is left unset",
};

/* Run ddp_assign_buckets on numel[0..n) with these caps and compare with the oracle (and, for the
 * published examples, with want: -1 ends a bucket, -2 the list). 0 = right. *failed has a bit per
 * kind of case that failed: only the first failure of each kind is told (one line each). */
static int expect_buckets(unsigned *failed, const char *what, kind_t kind, const size_t *numel, int n, size_t cap,
                          size_t first_cap, const int *want) {
    bool quiet = *failed & 1u << kind;
    flat_layout_t L;
    layout_of(&L, numel, n);
    ddp_t d;
    memset(&d, 0, sizeof d);
    ddp_assign_buckets(&d, &L, cap, first_cap);
    taped_buckets_t tb;
    int bad = !tape_buckets(&tb, &d, n, what, quiet);
    free(d.buckets);
    free(d.bucket_of);
    if (bad) {
        *failed |= 1u << kind;
        taped_buckets_free(&tb);
        flat_layout_free(&L);
        return bad;
    }
    int *ofirst = dp_calloc((size_t)n, sizeof(int)), *olast = dp_calloc((size_t)n, sizeof(int));
    int onb = oracle_buckets(numel, n, cap, first_cap, ofirst);
    for (int b = 0; b < onb; b++) olast[b] = b ? ofirst[b - 1] - 1 : n - 1;
    char exp[512], got[512] = "";
    describe(exp, sizeof exp, ofirst, olast, onb);
    if (want) { /* a published example: the oracle must agree with it, or the grader is wrong */
        char pub[512] = "[";
        for (int k = 0; want[k] != -2; k++)
            if (want[k] == -1)
                append(pub, sizeof pub, want[k + 1] == -2 ? "]" : "][");
            else
                append(pub, sizeof pub, "%d%s", want[k], want[k + 1] >= 0 ? " " : "");
        if (strcmp(pub, exp)) dp_fatal("grader error: %s: the oracle gives %s, the example says %s", what, exp, pub);
    }
    int *tfirst = dp_calloc((size_t)tb.nbuckets + 1, sizeof(int)),
        *tlast = dp_calloc((size_t)tb.nbuckets + 1, sizeof(int));
    for (long long b = 0; b < tb.nbuckets; b++)
        tfirst[b] = tb.buckets[b].first_param, tlast[b] = tb.buckets[b].last_param;
    describe(got, sizeof got, tfirst, tlast, tb.nbuckets);
    free(tfirst);
    free(tlast);
    bad = strcmp(got, exp) != 0;
    if (bad && !quiet) {
        char sizes[256] = "";
        for (int i = n - 1; i >= 0; i--)
            append(sizes, sizeof sizes, "%s%zu", i < n - 1 ? " " : "", numel[i] * sizeof(float));
        printf("FAIL: %s (bucket_bytes_cap %zu, first_bucket_bytes_cap %zu; gradient bytes of parameters %d..0: %s): "
               "buckets %s, expected %s (%s)\n",
               what, cap, first_cap, n - 1, sizes, *got ? got : "none", exp, kind_hint[kind]);
    } else if (!bad) {
        /* the slices: bucket b is the contiguous run of its parameters, and bucket_of agrees (the buckets
         * matched the expected lists, so their parameter indices are in [0, n)) */
        for (int b = 0; b < tb.nbuckets && !bad; b++) {
            const ddp_bucket_t *k = &tb.buckets[b];
            size_t off = L.views[k->first_param].offset;
            size_t cnt = L.views[k->last_param].offset + L.views[k->last_param].numel - off;
            if (k->offset != off || k->count != cnt) {
                if (!quiet)
                    printf(
                        "FAIL: %s: bucket %d covers elements [%zu, %zu) of the gradient array, expected [%zu, %zu): "
                        "offset is where its FIRST parameter (the lowest index) starts, count the elements of all its "
                        "parameters\n",
                        what, b, k->offset, k->offset + k->count, off, off + cnt);
                bad = 1;
            }
            for (int i = k->first_param; i <= k->last_param && !bad; i++)
                if (tb.bucket_of[i] != b) {
                    if (!quiet)
                        printf("FAIL: %s: bucket_of[%d] = %d, but parameter %d is in bucket %d\n", what, i,
                               tb.bucket_of[i], i, b);
                    bad = 1;
                }
        }
    }
    if (bad) *failed |= 1u << kind;
    free(ofirst);
    free(olast);
    taped_buckets_free(&tb);
    flat_layout_free(&L);
    return bad;
}

/* ---- layouts made to hit each kind of mistake ---------------------------------------------------
 * A layout is built in visit order (v[0] is the last parameter's numel) bucket by bucket, then
 * reversed into registration order. Sizes are whole floats, so "exactly the cap" needs a cap that is
 * a multiple of 4 bytes. */
#define GEN_MAX 16
typedef struct {
    rng_t *r;
    size_t v[GEN_MAX]; /* numel in visit order */
    int n;
} gen_t;

static size_t between(rng_t *r, size_t lo, size_t hi) { /* uniform in [lo, hi] */
    return lo + (size_t)(((uint64_t)rng_u32(r) << 32 | rng_u32(r)) % (hi - lo + 1));
}

/* k > 0 parameters whose bytes sum to exactly `bytes` (a multiple of 4, >= 4k): every partial sum
 * before the last stays below it. */
static void gen_exact(gen_t *g, size_t bytes, int k) {
    size_t floats = bytes / 4;
    if ((size_t)k > floats) k = (int)floats;
    for (int i = 0; i < k; i++) {
        size_t left = k - 1 - i; /* parameters still to come, one float each at least */
        size_t x = i == k - 1 ? floats : between(g->r, 1, floats - left > 1 ? (floats - left) / 2 + 1 : 1);
        g->v[g->n++] = x;
        floats -= x;
    }
}

/* Parameters that stay below `limit` bytes together and are then pushed to at least `limit` by the
 * last one, which overshoots by up to `over` bytes (0: lands exactly on it when limit allows). */
static void gen_cross(gen_t *g, size_t limit, int k, size_t over) {
    size_t below = limit > 4 ? between(g->r, limit / 2, limit - 1) / 4 * 4 : 0; /* bytes before the last */
    if (below && k > 1) gen_exact(g, below, k - 1);
    size_t need = (limit - below + 3) / 4; /* floats that reach the limit */
    g->v[g->n++] = need + (over ? between(g->r, 0, over / 4) : 0);
}

/* A tail that never reaches `limit`: the last bucket, closed only by the last parameter. */
static void gen_tail(gen_t *g, size_t limit, int k) {
    size_t floats = limit / 4 > 1 ? between(g->r, 1, limit / 4 - 1) : 1;
    if (limit <= 4) k = 1;
    gen_exact(g, floats * 4, k);
}

static int gen_run(unsigned *failed, gen_t *g, const char *what, kind_t kind, size_t cap, size_t first_cap) {
    size_t numel[GEN_MAX];
    for (int i = 0; i < g->n; i++) numel[i] = g->v[g->n - 1 - i];
    return expect_buckets(failed, what, kind, numel, g->n, cap, first_cap, NULL);
}

#define PER_KIND 40 /* layouts per kind: a second or so of student code in all */

static void random_cases(unsigned *failed) {
    rng_t r;
    rng_init(&r, 0x05b0c4e7);
    char what[96];
    /* a later bucket filled exactly to bucket_bytes_cap, followed by more parameters (were it the
     * last one, the end of the walk would close it anyway) */
    for (int c = 0; c < PER_KIND && !(*failed & 1u << K_LATER_EXACT); c++) {
        gen_t g = {.r = &r};
        size_t cap = 4 * between(&r, 8, 4096), first = c % 2 ? cap : 4 * between(&r, 2, cap / 4);
        int later = (int)between(&r, 1, 3), exact = (int)between(&r, 1, later); /* which later bucket is exact */
        if (c % 3)
            gen_exact(&g, first, (int)between(&r, 1, 3));
        else
            gen_cross(&g, first, (int)between(&r, 1, 3), cap);
        for (int b = 1; b <= later; b++)
            if (b == exact)
                gen_exact(&g, cap, (int)between(&r, 1, 3));
            else
                gen_cross(&g, cap, (int)between(&r, 1, 3), cap / 2);
        gen_tail(&g, cap, (int)between(&r, 1, 3));
        snprintf(what, sizeof what, "layout %d with later bucket %d exactly full", c + 1, exact);
        gen_run(failed, &g, what, K_LATER_EXACT, cap, first);
    }
    /* bucket_cap_mb unset (PyTorch's default limits [1 MiB, 25 MiB]): the first bucket's bytes pass
     * 10^6 and stay below 2^20 before the parameter that closes it */
    for (int c = 0; c < PER_KIND && !(*failed & 1u << K_FIRST_MIB); c++) {
        gen_t g = {.r = &r};
        size_t cap = (size_t)DDP_DEFAULT_BUCKET_CAP_MB << 20, first = DDP_FIRST_BUCKET_BYTES;
        gen_exact(&g, 4 * between(&r, 250000, 262142), (int)between(&r, 1, 4));
        g.v[g.n++] = c % 4 ? between(&r, 263000, 1 << 20) - 250000 : 1; /* crosses 2^20, or ... */
        if (c % 4 == 0) { /* ... does not, yet: the first bucket goes on to reach 2^20 exactly */
            size_t sum = 0;
            for (int i = 0; i < g.n; i++) sum += g.v[i];
            g.v[g.n++] = (1 << 18) - sum;
        }
        if (c % 2) gen_cross(&g, cap, (int)between(&r, 1, 3), cap);
        gen_tail(&g, cap, (int)between(&r, 1, 3));
        snprintf(what, sizeof what, "layout %d, bucket_cap_mb unset, a first bucket over 10^6 bytes", c + 1);
        gen_run(failed, &g, what, K_FIRST_MIB, cap, first);
    }
    /* an explicit bucket_cap_mb above 1 MiB: the first bucket passes 1 MiB and goes on to the cap */
    for (int c = 0; c < PER_KIND && !(*failed & 1u << K_EXPLICIT); c++) {
        gen_t g = {.r = &r};
        size_t cap = 4 * between(&r, (1 << 18) + 1, 6 << 18);
        size_t head = 4 * between(&r, 1 << 18, cap / 4 - 1); /* bytes of the first parameters: >= 1 MiB, < cap */
        gen_exact(&g, head, (int)between(&r, 1, 3));
        g.v[g.n++] = (cap - head) / 4 + (c % 2 ? between(&r, 0, 1000) : 0); /* reaches the cap */
        for (int b = (int)between(&r, 0, 2); b > 0; b--) gen_cross(&g, cap, (int)between(&r, 1, 3), cap);
        gen_tail(&g, cap, (int)between(&r, 1, 3));
        snprintf(what, sizeof what, "layout %d, explicit bucket_cap_mb %.4g", c + 1, (double)cap / DDP_MIB);
        gen_run(failed, &g, what, K_EXPLICIT, cap, cap);
    }
    /* anything: random sizes (some under one float's worth of cap), caps not multiples of 4, either
     * policy, up to GEN_MAX parameters */
    for (int c = 0; c < PER_KIND && !(*failed & 1u << K_RULE); c++) {
        gen_t g = {.r = &r};
        g.n = (int)between(&r, 1, GEN_MAX);
        for (int i = 0; i < g.n; i++) g.v[i] = between(&r, 1, c % 2 ? 300 : 3);
        size_t cap = between(&r, 1, 3000), first = c % 3 ? cap : between(&r, 1, cap);
        snprintf(what, sizeof what, "random layout %d", c + 1);
        gen_run(failed, &g, what, K_RULE, cap, first);
    }
}

/* The GPT's real layouts (gpt.h), many tensors of mixed sizes: gpt-tiny's 28 with the cap its DDP run
 * is graded with (grading/lessons/05.sh: buckets of several of a block's tensors) and one tensor per
 * bucket; gpt-small's 76 with bucket_cap_mb unset (the first bucket closes on the last block's
 * mlp.c_proj.weight, 1 MiB by itself) and with an explicit 4 MiB. */
static void gpt_cases(unsigned *failed) {
    const struct {
        const char *preset;
        double cap_mb; /* 0: unset */
        kind_t kind;
    } cases[] = {{"gpt-tiny", 0.005, K_EXPLICIT},
                 {"gpt-tiny", 1e-6, K_RULE},
                 {"gpt-small", 0, K_RULE},
                 {"gpt-small", 4, K_EXPLICIT}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gpt_config_t cfg;
        if (gpt_preset(cases[c].preset, &cfg) != 0) dp_fatal("grader error: no preset %s", cases[c].preset);
        flat_layout_t L;
        gpt_layout(&L, &cfg);
        size_t *numel = dp_calloc((size_t)L.count, sizeof(size_t));
        for (int i = 0; i < L.count; i++) numel[i] = L.views[i].numel;
        bool unset = cases[c].cap_mb == 0;
        size_t cap = (size_t)((unset ? DDP_DEFAULT_BUCKET_CAP_MB : cases[c].cap_mb) * DDP_MIB);
        char what[128];
        snprintf(what, sizeof what, "%s's %d tensors, bucket_cap_mb %s", cases[c].preset, L.count,
                 unset ? "unset" : (cases[c].cap_mb < 1e-3 ? "tiny (one tensor per bucket)" : ""));
        if (!unset && cases[c].cap_mb >= 1e-3)
            snprintf(what + strlen(what), sizeof what - strlen(what), "%g", cases[c].cap_mb);
        expect_buckets(failed, what, cases[c].kind, numel, L.count, cap, unset ? DDP_FIRST_BUCKET_BYTES : cap, NULL);
        free(numel);
        flat_layout_free(&L);
    }
}

static int buckets_check(void) {
    const size_t MiB = 1 << 20, unset_cap = (size_t)DDP_DEFAULT_BUCKET_CAP_MB << 20;
    /* lessons/pytorch-semantics.md#ddp-buckets: fp32 numels; ready order 5,4,3,2,1,0; limits [1 MiB, 25 MiB] when
     * bucket_cap_mb is unset, [10 MiB, 10 MiB] for an explicit bucket_cap_mb=10 */
    const size_t torch[6] = {262144, 512, 3276800, 1024, 6553600, 10};
    unsigned failed = 0;
    expect_buckets(&failed, "PyTorch's example, bucket_cap_mb unset", K_RULE, torch, 6, unset_cap, MiB,
                   (const int[]){5, 4, -1, 3, 2, 1, 0, -1, -2});
    expect_buckets(&failed, "PyTorch's example, bucket_cap_mb=10", K_EXPLICIT, torch, 6, 10 * MiB, 10 * MiB,
                   (const int[]){5, 4, -1, 3, 2, -1, 1, 0, -1, -2});
    expect_buckets(&failed, "a tiny cap: one tensor per bucket", K_RULE, torch, 6, 1, 1,
                   (const int[]){5, -1, 4, -1, 3, -1, 2, -1, 1, -1, 0, -1, -2});
    const size_t mib[3] = {262144, 262144, 262144}; /* 1 MiB of gradients each */
    expect_buckets(&failed, "bucket_cap_mb unset: the first bucket closes at 1 MiB, the next ones at 25 MiB", K_RULE,
                   mib, 3, unset_cap, MiB, (const int[]){2, -1, 1, 0, -1, -2});
    expect_buckets(&failed, "an explicit bucket_cap_mb=25, the first bucket included", K_EXPLICIT, mib, 3, 25 * MiB,
                   25 * MiB, (const int[]){2, 1, 0, -1, -2});
    /* 10 + 250000 floats = 1000040 bytes: past 10^6, short of 2^20 */
    expect_buckets(&failed, "bucket_cap_mb unset: a first bucket of 1000040 bytes stays open", K_FIRST_MIB,
                   (const size_t[]){5, 250000, 10}, 3, unset_cap, MiB, (const int[]){2, 1, 0, -1, -2});
    const size_t small[4] = {100, 20, 300, 5};
    expect_buckets(&failed, "a huge cap: one bucket", K_RULE, small, 4, (size_t)1 << 40, (size_t)1 << 40,
                   (const int[]){3, 2, 1, 0, -1, -2});
    /* >=: 5 + 300 floats = 1220 bytes; a cap of exactly 1220 bytes closes the bucket at parameter 2 */
    expect_buckets(&failed, "a parameter that fills the bucket exactly closes it", K_EXACT, small, 4, 1220, 1220,
                   (const int[]){3, 2, -1, 1, 0, -1, -2});
    /* the same in bucket 1: 20 + 100 floats = 480 bytes, then parameter 0 */
    expect_buckets(&failed, "a parameter that fills a later bucket exactly closes it", K_LATER_EXACT,
                   (const size_t[]){7, 100, 20, 300, 5}, 5, 480, 100, (const int[]){4, 3, -1, 2, 1, -1, 0, -1, -2});
    expect_buckets(&failed, "a single parameter", K_RULE, (const size_t[]){7}, 1, unset_cap, MiB,
                   (const int[]){0, -1, -2});
    gpt_cases(&failed);
    random_cases(&failed);
    if (!failed)
        printf("bucket assignment follows the rule on PyTorch's examples, tiny and huge caps, the GPT's layouts "
               "(gpt-tiny's 28 tensors, gpt-small's 76) and %d layouts made to test >= in later buckets, 1 MiB = 2^20 "
               "and explicit caps\n",
               4 * PER_KIND);
    return failed != 0;
}

/* ---- launch order ---------------------------------------------------------------------------- */

/* The recording launcher runs inside the student's ddp_grad_ready / ddp_finish, so it only takes
 * notes — what it saw at each launch — which go on the tape after ddp_finish returns; the judge
 * reads them from there (its own launcher saw the reference's launches) and draws the conclusions.
 *
 * A launched bucket's "all-reduce" is finished by the harness's own communication thread, as the
 * real one would: some time after the launch, never within the hook call that launched it (that
 * call must return first: the real all-reduce overlaps the rest of backward). A hook that waits for
 * its launch to finish (ddp_wait_all right after d->launch) would then wait forever; after
 * BLOCK_S seconds the thread lets it go and notes it. In ddp_finish launches finish at once.
 * d->allreduce records its calls: the hooks must leave the all-reduce to the communication thread. */
#define NPARAMS      6
#define NELEMS       17 /* 3 + 2 + 4 + 1 + 5 + 2 */
#define MAX_LAUNCHES 16 /* notes kept per backward; the count goes on past it */
#define WORLD        4
typedef struct {
    int32_t bucket;              /* the index launched */
    int32_t ready;               /* gradients ready at the time */
    int32_t known;               /* 0 <= bucket < nbuckets: the fields below were read */
    int32_t ready_flag[NPARAMS]; /* which gradients were ready */
    ddp_bucket_t b;              /* the bucket as it stood */
    float grads[NELEMS];         /* the whole gradient array */
} launch_note_t;

static int ready_count, ready_flag[NPARAMS];
static long long nlaunch;
static launch_note_t notes[MAX_LAUNCHES];
static float *grads;

#define BLOCK_S 3 /* a hook call that has not returned this long after its launch is waiting for it */
/* The harness's communication side; the fields are guarded by d->lock. */
static struct {
    pthread_t thread;
    bool in_hook, in_finish, stop;
    long long hooks_returned; /* ddp_grad_ready calls that have returned */
    long long launch_hook;    /* hooks_returned when the latest launch happened inside a hook, -1 if outside */
    int last_bucket;          /* the latest launch */
    int blocked_bucket;       /* the first bucket whose hook waited for its all-reduce, -1 if none */
    bool gave_up;             /* after that: finish every launch at once (no more waiting BLOCK_S) */
    long long allreduce_calls;
    long long allreduce_count; /* elements in the first call */
} H;

static void record_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    (void)coll, (void)buf, (void)op;
    if (H.allreduce_calls++ == 0) H.allreduce_count = (long long)count;
}

static void *harness_comm(void *arg) {
    ddp_t *d = arg;
    struct timespec deadline = {0};
    bool timing = false;
    pthread_mutex_lock(&d->lock);
    while (!H.stop) {
        if (d->completed >= d->queued) {
            timing = false;
            pthread_cond_wait(&d->cv, &d->lock);
            continue;
        }
        bool launcher_returned = H.launch_hook < 0 || H.hooks_returned > H.launch_hook;
        if (launcher_returned || H.in_finish || H.gave_up) {
            d->completed = d->queued;
            pthread_cond_broadcast(&d->cv);
            timing = false;
            continue;
        }
        if (!timing) {
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_sec += BLOCK_S;
            timing = true;
        }
        if (pthread_cond_timedwait(&d->cv, &d->lock, &deadline) == ETIMEDOUT && H.in_hook &&
            H.hooks_returned == H.launch_hook && d->completed < d->queued) {
            H.blocked_bucket = H.last_bucket;
            H.gave_up = true;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* ddp_grad_ready and ddp_finish as the harness calls them: the communication side knows where we are. */
static void hook(ddp_t *d, int i) {
    pthread_mutex_lock(&d->lock);
    H.in_hook = true;
    pthread_mutex_unlock(&d->lock);
    ddp_grad_ready(d, i);
    pthread_mutex_lock(&d->lock);
    H.in_hook = false;
    H.hooks_returned++;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->lock);
}

static void finish(ddp_t *d) {
    pthread_mutex_lock(&d->lock);
    H.in_finish = true;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->lock);
    ddp_finish(d);
    pthread_mutex_lock(&d->lock);
    H.in_finish = false;
    pthread_mutex_unlock(&d->lock);
}

static void record(ddp_t *d, int b) {
    if (nlaunch >= 0 && nlaunch < MAX_LAUNCHES) {
        launch_note_t *n = &notes[nlaunch];
        memset(n, 0, sizeof *n);
        n->bucket = b;
        n->ready = ready_count;
        memcpy(n->ready_flag, ready_flag, sizeof n->ready_flag);
        memcpy(n->grads, grads, sizeof n->grads);
        n->known = b >= 0 && b < d->nbuckets && d->buckets;
        if (n->known) n->b = d->buckets[b];
    }
    nlaunch++;
    pthread_mutex_lock(&d->lock);
    H.last_bucket = b;
    d->queued++; /* harness_comm finishes it */
    H.launch_hook = H.in_hook ? H.hooks_returned : -1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->lock);
}

/* The launches since nlaunch was last zeroed, through the tape; returns how many notes there are. */
static int tape_launches(const char *what) {
    char name[128];
    snprintf(name, sizeof name, "%s: launches", what);
    nlaunch = ck_tape_ll(name, nlaunch);
    int kept = nlaunch < 0 ? 0 : nlaunch > MAX_LAUNCHES ? MAX_LAUNCHES : (int)nlaunch;
    snprintf(name, sizeof name, "%s: what each launch saw", what);
    ck_tape(name, notes, (size_t)kept * sizeof notes[0]);
    return kept;
}

/* What the recording launcher used to say at each launch: launched before complete, or not yet
 * divided by N. scale_bad, once set, stops the averaging checks (as it did in the launcher). */
static void judge_launches(int kept, int *scale_bad) {
    for (int k = 0; k < kept; k++) {
        const launch_note_t *n = &notes[k];
        if (!n->known) continue;
        const ddp_bucket_t *bk = &n->b;
        /* complete? */
        for (int i = bk->first_param; i <= bk->last_param; i++) {
            if (i < 0 || i >= NPARAMS) break; /* not a parameter: the order check says what is wrong */
            if (!n->ready_flag[i]) {
                printf("FAIL: bucket %d was launched before the gradient of parameter %d was ready\n", n->bucket, i);
                *scale_bad = 1;
            }
        }
        /* averaged already: every gradient element starts at 1.0 and must now be 1/N */
        for (size_t e = bk->offset; e < bk->offset + bk->count && e < NELEMS && !*scale_bad; e++)
            if (n->grads[e] != 1.0f / (float)WORLD) {
                printf("FAIL: bucket %d was launched holding %g, expected 1/N = %g: scale the bucket by 1/N before the "
                       "all-reduce (it sums)\n",
                       n->bucket, (double)n->grads[e], 1.0 / WORLD);
                *scale_bad = 1;
            }
    }
}

static int launch_check(void) {
    const size_t numel[NPARAMS] = {3, 2, 4, 1, 5, 2};
    flat_layout_t L;
    layout_of(&L, numel, NPARAMS);
    if (L.numel != NELEMS) dp_fatal("grader error: the launch check's layout has %zu elements", L.numel);
    trainer_t t;
    memset(&t, 0, sizeof t);
    t.ops = ops_create(OPS_CPU, 1);
    grads = dp_calloc(L.numel, sizeof(float));
    t.model.grads = grads;
    ddp_t d;
    memset(&d, 0, sizeof d);
    d.t = &t;
    d.world_size = WORLD;
    d.require_backward_grad_sync = true;
    d.launch = record;
    d.allreduce = record_allreduce;
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cv, NULL);
    ddp_assign_buckets(&d, &L, 1, 1); /* one parameter per bucket: buckets 0..5 = params 5..0 */
    long long nbuckets = ck_tape_ll("ddp_assign_buckets nbuckets, tiny cap", d.nbuckets);
    int bad = 0;
    if (nbuckets != NPARAMS) {
        printf("FAIL: needs ddp_assign_buckets to give one bucket per parameter for a tiny cap (got %lld buckets)\n",
               nbuckets);
        return 1;
    }
    /* what the given ddp_launch uses, should the hook call it instead of d->launch: its queue and log
     * (room for every launch of the check) and no-op events, so that the mistake is told, not a crash */
    d.queue = dp_calloc(4 * NPARAMS, sizeof(int));
    d.launch_log = dp_calloc(4 * NPARAMS, sizeof(int));
    d.ready = dp_calloc(NPARAMS, sizeof *d.ready);
    d.done = dp_calloc(NPARAMS, sizeof *d.done);
    ddp_reset(&d);
    memset(&H, 0, sizeof H);
    H.launch_hook = -1;
    H.blocked_bucket = -1;
    if (pthread_create(&H.thread, NULL, harness_comm, &d) != 0) dp_fatal("grader error: cannot start a thread");
    /* two backwards, gradients ready in a scrambled order: 4 5 2 3 0 1 (bucket of param i is 5-i) */
    const int order[NPARAMS] = {4, 5, 2, 3, 0, 1};
    /* launches expected: after 4: none (bucket 1 done, bucket 0 not); after 5: 0 and 1; after 2: none;
     * after 3: 2, 3; after 0: none; after 1: 4, 5. As (bucket, #ready when launched): */
    const int want_b[NPARAMS] = {0, 1, 2, 3, 4, 5}, want_ready[NPARAMS] = {2, 2, 4, 4, 6, 6};
    int scale_bad = 0;
    for (int it = 0; it < 2 && !bad; it++) {
        for (size_t e = 0; e < L.numel; e++) grads[e] = 1.0f;
        memset(ready_flag, 0, sizeof ready_flag);
        nlaunch = ready_count = 0;
        d.nlaunched = 0;
        scale_bad = 0;
        for (int k = 0; k < NPARAMS; k++) {
            ready_flag[order[k]] = 1;
            ready_count++;
            hook(&d, order[k]);
        }
        finish(&d);
        int kept = tape_launches(it == 0 ? "backward 1" : "backward 2");
        long long allreduce_calls = ck_tape_ll("d->allreduce calls", H.allreduce_calls);
        long long allreduce_count = ck_tape_ll("d->allreduce elements", H.allreduce_count);
        long long blocked = ck_tape_ll("a hook that waited for its launch", H.blocked_bucket);
        long long direct = ck_tape_ll("launches through ddp_launch itself", d.nlaunched);
        if (direct) {
            printf("FAIL: backward %d: %lld bucket%s launched by calling ddp_launch directly: launch with d->launch(d, "
                   "b) — the grader (and lesson 06) put their own launcher there\n",
                   it + 1, direct, direct == 1 ? " was" : "s were");
            bad = 1;
            break;
        }
        if (allreduce_calls) {
            printf("FAIL: backward %d: the hook called the all-reduce itself (d->allreduce, %lld call%s, the first on "
                   "%lld elements): launch a complete bucket with d->launch(d, b) and return — the communication "
                   "thread runs the all-reduce while backward goes on\n",
                   it + 1, allreduce_calls, allreduce_calls == 1 ? "" : "s", allreduce_count);
            bad = 1;
            break;
        }
        if (blocked >= 0) {
            printf("FAIL: backward %d: ddp_grad_ready launched bucket %lld and did not return until its all-reduce had "
                   "finished (%d s; ddp_wait_all right after d->launch?): waiting on each bucket leaves nothing to "
                   "overlap — launch and return; wait for all the buckets once, in ddp_finish\n",
                   it + 1, blocked, BLOCK_S);
            bad = 1;
            break;
        }
        long long next_bucket = ck_tape_ll("after ddp_finish: next_bucket", d.next_bucket);
        long long pending0 = ck_tape_ll("after ddp_finish: bucket 0 pending", d.buckets ? d.buckets[0].pending : -1);
        judge_launches(kept, &scale_bad);
        bad |= scale_bad;
        if (nlaunch != NPARAMS) {
            printf("FAIL: backward %d launched %lld buckets, expected all 6 (launched:", it + 1, nlaunch);
            for (int k = 0; k < kept; k++) printf(" %d", notes[k].bucket);
            printf("%s)\n", kept < nlaunch ? " ..." : "");
            bad = 1;
            break;
        }
        for (int k = 0; k < NPARAMS && !bad; k++) {
            if (notes[k].bucket != want_b[k]) {
                printf("FAIL: backward %d launched the buckets in the order", it + 1);
                for (int q = 0; q < NPARAMS; q++) printf(" %d", notes[q].bucket);
                printf("; expected 0 1 2 3 4 5: every rank must launch in bucket order, whatever order the gradients "
                       "come in\n");
                bad = 1;
            } else if (notes[k].ready != want_ready[k]) {
                printf("FAIL: backward %d launched bucket %d after %d gradients were ready, expected after %d: launch "
                       "a bucket as soon as it and every earlier bucket are complete — not earlier, not later\n",
                       it + 1, notes[k].bucket, notes[k].ready, want_ready[k]);
                bad = 1;
            }
        }
        if (!bad && (next_bucket != 0 || pending0 != 1))
            printf("FAIL: after ddp_finish the state is not reset for the next backward (next_bucket %lld, pending "
                   "%lld)\n",
                   next_bucket, pending0),
                bad = 1;
    }
    /* no_sync: nothing may be launched */
    if (!bad) {
        d.require_backward_grad_sync = false;
        nlaunch = 0;
        d.nlaunched = 0;
        for (int k = 0; k < NPARAMS; k++) hook(&d, order[k]);
        finish(&d);
        d.require_backward_grad_sync = true;
        judge_launches(tape_launches("no_sync"), &scale_bad);
        nlaunch += ck_tape_ll("no_sync: launches through ddp_launch itself", d.nlaunched);
        if (nlaunch) {
            printf("FAIL: with require_backward_grad_sync false (no_sync) %lld buckets were launched; expected none\n",
                   nlaunch);
            bad = 1;
        }
    }
    pthread_mutex_lock(&d.lock);
    H.stop = true;
    pthread_cond_broadcast(&d.cv);
    pthread_mutex_unlock(&d.lock);
    pthread_join(H.thread, NULL);
    free(d.ready);
    free(d.done);
    free(d.buckets);
    free(d.bucket_of);
    free(d.queue);
    free(d.launch_log);
    ops_destroy(t.ops);
    flat_layout_free(&L);
    if (!bad)
        printf("buckets launch in order 0..5 from scrambled readiness, each once complete and averaged, without "
               "waiting in the hook; no_sync launches nothing; finish resets\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check05");
    const ck_entry_t checks[] = {{"buckets", buckets_check}, {"launch", launch_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
