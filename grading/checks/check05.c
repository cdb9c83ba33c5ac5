/* check05 — the grader's unit checks of lesson 05 (linked with the submission's lesson-05 code).
 *
 *   check05 buckets   ddp_assign_buckets on layouts with known answers (PyTorch's worked example of
 *                     pytorch_semantics.md §7.3, a tiny cap, a huge cap, the >= boundary)
 *   check05 launch    ddp_grad_ready / ddp_finish with a recording launcher: gradients ready in a
 *                     scrambled order must launch buckets 0, 1, 2, ... each only once complete and
 *                     after every earlier one, each already scaled by 1/N */
#include "checklib.h"
#include "ddp.h"
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static bool tape_buckets(taped_buckets_t *tb, const ddp_t *d, int nparams, const char *what) {
    memset(tb, 0, sizeof *tb);
    tb->nbuckets = ck_tape_ll("ddp_assign_buckets nbuckets", d->nbuckets);
    if (tb->nbuckets < 0 || tb->nbuckets > MAX_BUCKETS) {
        printf("FAIL: %s: ddp_assign_buckets set nbuckets = %lld for %d parameters (at most one bucket per "
               "parameter)\n",
               what, tb->nbuckets, nparams);
        return false;
    }
    long long have_buckets = ck_tape_ll("ddp_assign_buckets buckets allocated", d->buckets != NULL);
    long long have_of = ck_tape_ll("ddp_assign_buckets bucket_of allocated", d->bucket_of != NULL);
    if ((tb->nbuckets > 0 && !have_buckets) || !have_of) {
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

/* want: bucket b's parameters, listed as in the launch order (last_param first); -1 ends a bucket, -2 the list */
static int expect_buckets(const char *what, const size_t *numel, int n, size_t cap_bytes, const int *want) {
    double cap_mb = (double)cap_bytes / DDP_MIB;
    flat_layout_t L;
    layout_of(&L, numel, n);
    ddp_t d;
    memset(&d, 0, sizeof d);
    ddp_assign_buckets(&d, &L, cap_bytes);
    taped_buckets_t tb;
    int bad = !tape_buckets(&tb, &d, n, what);
    free(d.buckets);
    free(d.bucket_of);
    if (bad) {
        taped_buckets_free(&tb);
        flat_layout_free(&L);
        return bad;
    }
    char got[512] = "", exp[512] = "";
    for (long long b = 0; b < tb.nbuckets; b++) {
        append(got, sizeof got, "[");
        for (int i = tb.buckets[b].last_param; i >= tb.buckets[b].first_param && i >= 0; i--) {
            if (strlen(got) + 1 >= sizeof got) break; /* full: the rest would not show anyway */
            append(got, sizeof got, "%d%s", i, i > tb.buckets[b].first_param ? " " : "");
        }
        append(got, sizeof got, "]");
    }
    strcat(exp, "[");
    for (int k = 0; want[k] != -2; k++) {
        if (want[k] == -1) strcat(exp, want[k + 1] == -2 ? "]" : "][");
        else snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%d%s", want[k], want[k + 1] >= 0 ? " " : "");
    }
    bad = strcmp(got, exp) != 0;
    if (bad) {
        printf("FAIL: %s (bucket_cap_mb %g): buckets %s, expected %s (parameters in reverse registration order, a "
               "bucket closes once its bytes reach the cap, the first one's cap is min(1 MiB, cap))\n",
               what, cap_mb, got, exp);
    } else {
        /* the slices: bucket b is the contiguous run of its parameters, and bucket_of agrees (the buckets
         * matched the expected lists, so their parameter indices are in [0, n)) */
        for (int b = 0; b < tb.nbuckets && !bad; b++) {
            const ddp_bucket_t *k = &tb.buckets[b];
            size_t off = L.views[k->first_param].offset;
            size_t cnt = L.views[k->last_param].offset + L.views[k->last_param].numel - off;
            if (k->offset != off || k->count != cnt) {
                printf("FAIL: %s: bucket %d covers elements [%zu, %zu) of the gradient array, expected [%zu, %zu): "
                       "offset is where its FIRST parameter (the lowest index) starts, count the elements of all its "
                       "parameters\n",
                       what, b, k->offset, k->offset + k->count, off, off + cnt);
                bad = 1;
            }
            for (int i = k->first_param; i <= k->last_param && !bad; i++)
                if (tb.bucket_of[i] != b) {
                    printf("FAIL: %s: bucket_of[%d] = %d, but parameter %d is in bucket %d\n", what, i, tb.bucket_of[i],
                           i, b);
                    bad = 1;
                }
        }
    }
    taped_buckets_free(&tb);
    flat_layout_free(&L);
    return bad;
}

static int buckets_check(void) {
    /* pytorch_semantics.md §7.3: fp32 numels; ready order 5,4,3,2,1,0; limits [1 MiB, 25 MiB] */
    const size_t torch[6] = {262144, 512, 3276800, 1024, 6553600, 10};
    int bad = expect_buckets("PyTorch's example", torch, 6, 25 * 1048576, (const int[]){5, 4, -1, 3, 2, 1, 0, -1, -2});
    bad |= expect_buckets("a tiny cap: one tensor per bucket", torch, 6, 1,
                          (const int[]){5, -1, 4, -1, 3, -1, 2, -1, 1, -1, 0, -1, -2});
    const size_t mib[3] = {262144, 262144, 262144}; /* 1 MiB of gradients each */
    bad |= expect_buckets("the first bucket closes at 1 MiB, the next ones at the cap", mib, 3, 25 * 1048576,
                          (const int[]){2, -1, 1, 0, -1, -2});
    const size_t small[4] = {100, 20, 300, 5};
    bad |= expect_buckets("a huge cap: one bucket", small, 4, (size_t)1 << 40, (const int[]){3, 2, 1, 0, -1, -2});
    /* >=: 5 + 300 floats = 1220 bytes; a cap of exactly 1220 bytes closes the bucket at parameter 2 */
    bad |= expect_buckets("a parameter that fills the bucket exactly closes it", small, 4, 1220,
                          (const int[]){3, 2, -1, 1, 0, -1, -2});
    bad |= expect_buckets("a single parameter", (const size_t[]){7}, 1, 25 * 1048576, (const int[]){0, -1, -2});
    if (!bad) printf("bucket assignment follows the rule on PyTorch's example, tiny and huge caps, and the >= boundary\n");
    return bad;
}

/* ---- launch order ---------------------------------------------------------------------------- */

/* The recording launcher runs inside the student's ddp_grad_ready / ddp_finish, so it only takes
 * notes — what it saw at each launch — which go on the tape after ddp_finish returns; the judge
 * reads them from there (its own launcher saw the reference's launches) and draws the conclusions. */
#define NPARAMS 6
#define NELEMS 17 /* 3 + 2 + 4 + 1 + 5 + 2 */
#define MAX_LAUNCHES 16 /* notes kept per backward; the count goes on past it */
#define WORLD 4
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
    d->queued++; /* nothing to wait for: the "all-reduce" is done at once */
    d->completed++;
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
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cv, NULL);
    ddp_assign_buckets(&d, &L, 1); /* one parameter per bucket: buckets 0..5 = params 5..0 */
    long long nbuckets = ck_tape_ll("ddp_assign_buckets nbuckets, tiny cap", d.nbuckets);
    int bad = 0;
    if (nbuckets != NPARAMS) {
        printf("FAIL: needs ddp_assign_buckets to give one bucket per parameter for a tiny cap (got %lld buckets)\n",
               nbuckets);
        return 1;
    }
    d.queue = dp_calloc(8, sizeof(int));
    d.launch_log = dp_calloc(8, sizeof(int));
    ddp_reset(&d);
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
        scale_bad = 0;
        for (int k = 0; k < NPARAMS; k++) {
            ready_flag[order[k]] = 1;
            ready_count++;
            ddp_grad_ready(&d, order[k]);
        }
        ddp_finish(&d);
        int kept = tape_launches(it == 0 ? "backward 1" : "backward 2");
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
        for (int k = 0; k < NPARAMS; k++) ddp_grad_ready(&d, order[k]);
        ddp_finish(&d);
        d.require_backward_grad_sync = true;
        judge_launches(tape_launches("no_sync"), &scale_bad);
        if (nlaunch) {
            printf("FAIL: with require_backward_grad_sync false (no_sync) %lld buckets were launched; expected none\n",
                   nlaunch);
            bad = 1;
        }
    }
    if (!bad)
        printf("buckets launch in order 0..5 from scrambled readiness, each once complete and averaged; no_sync "
               "launches nothing; finish resets\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check05");
    const ck_entry_t checks[] = {{"buckets", buckets_check}, {"launch", launch_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
