/* q05.c — lesson 05's quiz: DDP's buckets for drawn gradient sizes, assigned by the reference
 * ddp_assign_buckets (PyTorch's rule), and what buckets cost (lesson 09's ring_allreduce_time). */
#include "ddp.h"
#include "quiz.h"
#include "scaling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void quiz_05(quiz_t *qz, rng_t *r);

/* the reference's buckets of P tensors of numel[i] floats under the two caps */
static void buckets_of(const size_t *numel, int P, size_t cap, size_t first_cap, ddp_t *d) {
    flat_layout_t l;
    flat_layout_init(&l);
    for (int i = 0; i < P; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        flat_layout_add(&l, name, 1, &numel[i]);
    }
    memset(d, 0, sizeof *d);
    ddp_assign_buckets(d, &l, cap, first_cap);
    flat_layout_free(&l);
}

static void free_buckets(ddp_t *d) {
    free(d->buckets);
    free(d->bucket_of);
}

void quiz_05(quiz_t *qz, rng_t *r) {
    /* sizes in KiB of float32 gradient: weights and their small biases, registration order */
    enum { P = 7 };
    size_t numel[P];
    char sizes[256] = "";
    for (int i = 0; i < P; i++) {
        numel[i] = (size_t)(i % 2 == 0 ? 256 * quiz_int(r, 1, 16) : 64 * quiz_int(r, 1, 4)); /* floats */
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu", i ? ", " : "", numel[i] * 4);
    }
    static const double caps_kib[] = {4, 6, 8, 12};
    double cap_mb = quiz_pick(r, caps_kib, 4) / 1024.0;
    size_t cap = (size_t)(cap_mb * DDP_MIB);
    ddp_t d;
    buckets_of(numel, P, cap, cap, &d);
    char layout[512] = "";
    for (int b = 0; b < d.nbuckets; b++) {
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout), "%s[", b ? " " : "");
        for (int i = d.buckets[b].last_param; i >= d.buckets[b].first_param; i--)
            snprintf(layout + strlen(layout), sizeof layout - strlen(layout), "%d%s", i,
                     i > d.buckets[b].first_param ? " " : "");
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout), "]");
    }
    quiz_why(quiz_number(qz, d.nbuckets, 0,
                         "A model registers 7 parameters (0..6) whose float32 gradients have these sizes in bytes: %s. "
                         "DDP runs with bucket_cap_mb = %g (%zu bytes). How many buckets does PyTorch's rule make?",
                         sizes, cap_mb, cap),
             "walk 6, 5, ..., 0 adding gradient bytes; a bucket closes once it reaches %zu bytes (>=), the "
             "parameter that crosses the cap staying in it: %s",
             cap, layout);
    long long first[P];
    int nf = 0;
    for (int i = d.buckets[0].last_param; i >= d.buckets[0].first_param; i--) first[nf++] = i;
    quiz_why(quiz_list(qz, first, nf,
                       "Which parameters are in the first bucket launched, in the order they are "
                       "added?"),
             "the buckets are %s; the first is launched as soon as its last gradient (parameter %d) is ready", layout,
             d.buckets[0].first_param);
    int last = d.nbuckets - 1;
    quiz_why(quiz_number(qz, 4.0 * (double)d.buckets[last].count, 0,
                         "How many bytes does the last bucket (the one holding parameter 0) all-reduce?"),
             "it holds parameters %d..0: the slice of the flat gradient from offset 0, %zu floats = %zu bytes",
             d.buckets[last].last_param, d.buckets[last].count, 4 * d.buckets[last].count);
    free_buckets(&d);

    /* bucket_cap_mb left unset against given: the first bucket's 1 MiB */
    size_t big[3];
    int mib = quiz_int(r, 1, 3);
    for (int i = 0; i < 3; i++) big[i] = (size_t)mib * 262144; /* mib MiB of floats each */
    ddp_t unset, given;
    buckets_of(big, 3, (size_t)(DDP_DEFAULT_BUCKET_CAP_MB * DDP_MIB), DDP_FIRST_BUCKET_BYTES, &unset);
    buckets_of(big, 3, (size_t)(25 * DDP_MIB), (size_t)(25 * DDP_MIB), &given);
    quiz_why(quiz_number(qz, unset.nbuckets, 0,
                         "Three parameters of %d MiB of gradient each, bucket_cap_mb left UNSET (PyTorch's default). "
                         "How many buckets?",
                         mib),
             "unset: the first bucket is capped at 1 MiB (_DEFAULT_FIRST_BUCKET_BYTES), the rest at 25 MiB: "
             "parameter 2 alone reaches 1 MiB and closes the first bucket, 1 and 0 share the second: %d buckets",
             unset.nbuckets);
    quiz_why(quiz_number(qz, given.nbuckets, 0, "The same three parameters with bucket_cap_mb=25 given explicitly?"),
             "an explicit cap applies to every bucket, the first included: %d MiB in all stays under 25 MiB, %d "
             "bucket(s)",
             3 * mib, given.nbuckets);
    free_buckets(&unset);
    free_buckets(&given);

    int N = quiz_int(r, 2, 16), nb = quiz_int(r, 2, 12);
    double alpha = 1e-6 * quiz_int(r, 5, 50), gbytes = 1048576.0 * quiz_int(r, 10, 200), beta = 1e9;
    double one = ring_allreduce_time(gbytes, N, alpha, beta),
           many = nb * ring_allreduce_time(gbytes / nb, N, alpha, beta);
    quiz_why(
        quiz_number(
            qz, (many - one) * 1e6, 0.01,
            "On %d ranks (alpha = %g us, beta = 1 GB/s = 10^9 bytes/s) a %.0f MiB gradient is all-reduced as %d equal "
            "buckets instead of one. How many microseconds more communication does that cost in all?",
            N, alpha * 1e6, gbytes / 1048576.0, nb),
        "the bytes are the same; each extra ring pays 2(N-1)*alpha again: (%d - 1) * 2 * %d * %g us = %.4g us — "
        "the price of being able to overlap",
        nb, N - 1, alpha * 1e6, (many - one) * 1e6);

    static const char *const why[] = {
        "Backward produces gradients from the last layer to the first, so the last parameters' bucket is complete "
        "first and can be all-reduced while backward goes on",
        "The last parameters registered are the largest, and large buckets should go first",
        "Reverse order makes each bucket a contiguous slice of the flat gradient",
        "PyTorch sorts parameters by size and reverse registration order approximates that"};
    quiz_why(quiz_choice(qz, r, why, 4, 0, "Why are parameters packed into buckets in REVERSE registration order?"),
             "a bucket can be launched only when all its gradients are ready; backward makes them ready from the "
             "output back, so reverse order lets the first bucket leave early. (Any run of consecutive parameters "
             "is contiguous, in either order.)");
}
