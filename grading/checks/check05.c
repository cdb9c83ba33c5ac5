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

/* want: bucket b's parameters, listed as in the launch order (last_param first); -1 ends a bucket, -2 the list */
static int expect_buckets(const char *what, const size_t *numel, int n, size_t cap_bytes, const int *want) {
    double cap_mb = (double)cap_bytes / DDP_MIB;
    flat_layout_t L;
    layout_of(&L, numel, n);
    ddp_t d;
    memset(&d, 0, sizeof d);
    ddp_assign_buckets(&d, &L, cap_bytes);
    char got[512] = "", exp[512] = "";
    for (int b = 0; b < d.nbuckets; b++) {
        strcat(got, "[");
        for (int i = d.buckets[b].last_param; i >= d.buckets[b].first_param && i >= 0; i--)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%d%s", i, i > d.buckets[b].first_param ? " " : "");
        strcat(got, "]");
    }
    strcat(exp, "[");
    for (int k = 0; want[k] != -2; k++) {
        if (want[k] == -1) strcat(exp, want[k + 1] == -2 ? "]" : "][");
        else snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%d%s", want[k], want[k + 1] >= 0 ? " " : "");
    }
    int bad = strcmp(got, exp) != 0;
    if (bad) {
        printf("FAIL: %s (bucket_cap_mb %g): buckets %s, expected %s (parameters in reverse registration order, a "
               "bucket closes once its bytes reach the cap, the first one's cap is min(1 MiB, cap))\n",
               what, cap_mb, got, exp);
    } else {
        /* the slices: bucket b is the contiguous run of its parameters, and bucket_of agrees */
        for (int b = 0; b < d.nbuckets && !bad; b++) {
            const ddp_bucket_t *k = &d.buckets[b];
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
                if (d.bucket_of[i] != b) {
                    printf("FAIL: %s: bucket_of[%d] = %d, but parameter %d is in bucket %d\n", what, i, d.bucket_of[i], i, b);
                    bad = 1;
                }
        }
    }
    free(d.buckets);
    free(d.bucket_of);
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

static int ready_count, launched[16], ready_at_launch[16], nlaunch, ready_flag[16];
static float *grads;
static const flat_layout_t *lay;
static int scale_bad;

static void record(ddp_t *d, int b) {
    const ddp_bucket_t *k = &d->buckets[b];
    /* complete? */
    for (int i = k->first_param; i <= k->last_param; i++)
        if (!ready_flag[i]) {
            printf("FAIL: bucket %d was launched before the gradient of parameter %d was ready\n", b, i);
            scale_bad = 1;
        }
    /* averaged already: every gradient element starts at 1.0 and must now be 1/N */
    for (size_t e = k->offset; e < k->offset + k->count && !scale_bad; e++)
        if (grads[e] != 1.0f / (float)d->world_size) {
            printf("FAIL: bucket %d was launched holding %g, expected 1/N = %g: scale the bucket by 1/N before the "
                   "all-reduce (it sums)\n",
                   b, (double)grads[e], 1.0 / d->world_size);
            scale_bad = 1;
        }
    launched[nlaunch] = b;
    ready_at_launch[nlaunch++] = ready_count;
    d->queued++; /* nothing to wait for: the "all-reduce" is done at once */
    d->completed++;
}

static int launch_check(void) {
    const size_t numel[6] = {3, 2, 4, 1, 5, 2};
    flat_layout_t L;
    layout_of(&L, numel, 6);
    lay = &L;
    trainer_t t;
    memset(&t, 0, sizeof t);
    t.ops = ops_create(OPS_CPU, 1);
    grads = dp_calloc(L.numel, sizeof(float));
    t.model.grads = grads;
    ddp_t d;
    memset(&d, 0, sizeof d);
    d.t = &t;
    d.world_size = 4;
    d.require_backward_grad_sync = true;
    d.launch = record;
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cv, NULL);
    ddp_assign_buckets(&d, &L, 1); /* one parameter per bucket: buckets 0..5 = params 5..0 */
    d.queue = dp_calloc(8, sizeof(int));
    d.launch_log = dp_calloc(8, sizeof(int));
    ddp_reset(&d);
    int bad = 0;
    if (d.nbuckets != 6) {
        printf("FAIL: needs ddp_assign_buckets to give one bucket per parameter for a tiny cap (got %d buckets)\n", d.nbuckets);
        return 1;
    }
    /* two backwards, gradients ready in a scrambled order: 4 5 2 3 0 1 (bucket of param i is 5-i) */
    const int order[6] = {4, 5, 2, 3, 0, 1};
    /* launches expected: after 4: none (bucket 1 done, bucket 0 not); after 5: 0 and 1; after 2: none;
     * after 3: 2, 3; after 0: none; after 1: 4, 5. As (bucket, #ready when launched): */
    const int want_b[6] = {0, 1, 2, 3, 4, 5}, want_ready[6] = {2, 2, 4, 4, 6, 6};
    for (int it = 0; it < 2 && !bad; it++) {
        for (size_t e = 0; e < L.numel; e++) grads[e] = 1.0f;
        memset(ready_flag, 0, sizeof ready_flag);
        nlaunch = ready_count = 0;
        scale_bad = 0;
        for (int k = 0; k < 6; k++) {
            ready_flag[order[k]] = 1;
            ready_count++;
            ddp_grad_ready(&d, order[k]);
        }
        ddp_finish(&d);
        bad |= scale_bad;
        if (nlaunch != 6) {
            printf("FAIL: backward %d launched %d buckets, expected all 6 (launched:", it + 1, nlaunch);
            for (int k = 0; k < nlaunch; k++) printf(" %d", launched[k]);
            printf(")\n");
            bad = 1;
            break;
        }
        for (int k = 0; k < 6 && !bad; k++) {
            if (launched[k] != want_b[k]) {
                printf("FAIL: backward %d launched the buckets in the order", it + 1);
                for (int q = 0; q < 6; q++) printf(" %d", launched[q]);
                printf("; expected 0 1 2 3 4 5: every rank must launch in bucket order, whatever order the gradients "
                       "come in\n");
                bad = 1;
            } else if (ready_at_launch[k] != want_ready[k]) {
                printf("FAIL: backward %d launched bucket %d after %d gradients were ready, expected after %d: launch "
                       "a bucket as soon as it and every earlier bucket are complete — not earlier, not later\n",
                       it + 1, launched[k], ready_at_launch[k], want_ready[k]);
                bad = 1;
            }
        }
        if (!bad && (d.next_bucket != 0 || d.buckets[0].pending != 1))
            printf("FAIL: after ddp_finish the state is not reset for the next backward (next_bucket %d, pending %d)\n",
                   d.next_bucket, d.buckets[0].pending),
                bad = 1;
    }
    /* no_sync: nothing may be launched */
    if (!bad) {
        d.require_backward_grad_sync = false;
        nlaunch = 0;
        for (int k = 0; k < 6; k++) ddp_grad_ready(&d, order[k]);
        ddp_finish(&d);
        d.require_backward_grad_sync = true;
        if (nlaunch) {
            printf("FAIL: with require_backward_grad_sync false (no_sync) %d buckets were launched; expected none\n", nlaunch);
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
