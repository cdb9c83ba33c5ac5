/* check07 — the grader's unit checks of lesson 07 (linked with the submission's sampler).
 *
 *   check07 sizes       num_samples / total_size for the cases of
 *                       lessons/pytorch-semantics.md#distributedsampler-sizes, and exactly (integer oracle) at
 *                       L past 2^32 and where float/double ceil round wrong; invalid ranks
 *   check07 vectors     index lists equal to PyTorch's, shuffled and not, padded and not
 *                       (lessons/pytorch-semantics.md#distributedsampler-index-lists)
 *   check07 properties  per epoch: same lengths, coverage, disjointness, padding from the head,
 *                       determinism, set_epoch, against the oracle order in common/data.c */
#include "checklib.h"
#include "data.h"
#include "sampler.h"
#include "sampler_oracle.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch's sizes in integer arithmetic, exact for every L (the oracle of the large cases):
 * ceil(L/N), or with drop_last and L % N != 0, ceil((L − N)/N) = floor(L/N) (0 when L < N). */
static size_t oracle_num_samples(size_t L, size_t N, int drop) {
    if (drop && L % N != 0) return L / N;
    return L / N + (L % N != 0);
}

/* Sizes need no memory, so they are checked where 32-bit and floating-point arithmetic break: past
 * 2^31 and 2^32 (an int or unsigned count or product wraps), at 2^24 + 1 (the first integer a float
 * cannot hold: ceilf((float)L / N) rounds L first) and at 2^53 + 1 and beyond (the same for double).
 * A wrong answer is compared with what those mistakes give, to say which one it looks like. */
static int large_sizes_check(void) {
    const size_t T31 = (size_t)1 << 31, T32 = (size_t)1 << 32, T24 = (size_t)1 << 24, T53 = (size_t)1 << 53;
    struct {
        size_t L;
        int N;
    } cases[] = {{T32 + 5, 3},
                 {T31 + 1, 1},
                 {T32 + 1, 2},
                 {T31 + 3, 2},
                 {T32 * 3 + 7, 4},
                 {T32 * 2 + 7, 2147483647},
                 {T24 + 1, 2},
                 {T24 + 3, 4},
                 {T24 * 3 + 1, 3},
                 {T53 + 1, 2},
                 {T53 * 3 + 1, 5},
                 {(size_t)1 << 60 | 1, 3},
                 {((size_t)1 << 62) + 5, 7}};
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !bad; i++)
        for (int drop = 0; drop <= 1 && !bad; drop++) {
            size_t L = cases[i].L, N = (size_t)cases[i].N, want = oracle_num_samples(L, N, drop);
            sampler_t s;
            memset(&s, 0, sizeof s);
            char what[128];
            snprintf(what, sizeof what, "sampler_init(L=%zu, N=%zu, rank 0, drop_last %d) returned", L, N, drop);
            if (ck_tape_ll(what, sampler_init(&s, L, cases[i].N, 0, false, 0, drop)) != 0) {
                printf("FAIL: sampler_init(L=%zu, N=%zu, rank 0) was refused\n", L, N);
                bad = 1;
                break;
            }
            ck_tape("sampler_init num_samples (large L)", &s.num_samples, sizeof s.num_samples);
            ck_tape("sampler_init total_size (large L)", &s.total_size, sizeof s.total_size);
            if (s.num_samples == want && s.total_size == want * N) continue;
            bad = 1;
            printf("FAIL: L=%zu, N=%zu, drop_last=%s: num_samples %zu and total_size %zu, PyTorch gives %zu and %zu", L,
                   N, drop ? "True" : "False", s.num_samples, s.total_size, want, want * N);
            /* what the usual mistakes give for this case */
            size_t f32 = (size_t)(drop ? floorf((float)L / (float)N) : ceilf((float)L / (float)N));
            size_t f64 = (size_t)(drop ? floor((double)L / (double)N) : ceil((double)L / (double)N));
            int wrapped = s.num_samples == (size_t)(uint32_t)want || s.num_samples == (size_t)(int32_t)(uint32_t)want ||
                          s.num_samples == oracle_num_samples((uint32_t)L, N, drop) ||
                          s.num_samples == oracle_num_samples(L & 0x7fffffff, N, drop);
            if (s.num_samples == want)
                printf(
                    " — num_samples is right but total_size = num_samples · N is not: compute it in size_t (an int or "
                    "unsigned product wraps at 2^31 or 2^32)");
            else if (s.num_samples == f32 || s.num_samples == f64)
                printf(" — that is the answer in %s arithmetic (ceil or floor of L / N in %s): a float holds every "
                       "integer only up to 2^24, a double up to 2^53; compute the sizes with integers, (L + N − 1) / N",
                       s.num_samples != f64   ? "float"
                       : s.num_samples != f32 ? "double"
                                              : "floating-point",
                       s.num_samples != f64   ? "float"
                       : s.num_samples != f32 ? "double"
                                              : "float or double");
            else if (wrapped)
                printf(
                    " — the count wrapped around at 2^31 or 2^32: L and the sizes are size_t, and an int or unsigned "
                    "anywhere in the computation truncates them");
            printf("\n");
        }
    if (!bad)
        printf(
            "sizes exact at L past 2^31, 2^32 and 2^62, at 2^24 + 1 and 2^53 + 1 (where float and double ceil round), "
            "N up to 2^31 − 1, drop_last both ways\n");
    return bad;
}

static int sizes_check(void) {
    struct {
        size_t L;
        int N, drop, want;
    } cases[] = {{10, 3, 0, 4}, {10, 3, 1, 3}, {9, 3, 1, 3}, {2, 4, 0, 1},
                 {2, 4, 1, 0},  {1, 4, 0, 1},  {0, 4, 0, 0}, {12, 4, 1, 3}};
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sampler_t s;
        char what[96];
        snprintf(what, sizeof what, "sampler_init(L=%zu, N=%d, rank 0, drop_last %d) returned", cases[i].L, cases[i].N,
                 cases[i].drop);
        if (ck_tape_ll(what, sampler_init(&s, cases[i].L, cases[i].N, 0, false, 0, cases[i].drop)) != 0) {
            printf("FAIL: sampler_init(L=%zu, N=%d, rank 0) was refused\n", cases[i].L, cases[i].N);
            bad = 1;
            continue;
        }
        ck_tape("sampler_init num_samples", &s.num_samples, sizeof s.num_samples);
        ck_tape("sampler_init total_size", &s.total_size, sizeof s.total_size);
        if (s.num_samples != (size_t)cases[i].want || s.total_size != (size_t)cases[i].want * (size_t)cases[i].N) {
            printf("FAIL: L=%zu, N=%d, drop_last=%s: num_samples %zu and total_size %zu, PyTorch gives %d and %d%s\n",
                   cases[i].L, cases[i].N, cases[i].drop ? "True" : "False", s.num_samples, s.total_size, cases[i].want,
                   cases[i].want * cases[i].N,
                   cases[i].drop ? " (with drop_last: ceil((L − N)/N) when L % N != 0)" : " (ceil(L/N), padded up)");
            bad = 1;
        }
    }
    bad |= large_sizes_check();
    sampler_t s;
    if (ck_tape_ll("sampler_init(L=10, N=3, rank 3) returned", sampler_init(&s, 10, 3, 3, true, 0, false)) == 0 ||
        ck_tape_ll("sampler_init(L=10, N=3, rank -1) returned", sampler_init(&s, 10, 3, -1, true, 0, false)) == 0) {
        printf("FAIL: rank 3 (or -1) of 3 replicas must be refused (PyTorch raises ValueError)\n");
        bad = 1;
    }
    if (!bad)
        printf("num_samples and total_size as PyTorch for all the cases of "
               "lessons/pytorch-semantics.md#distributedsampler-sizes; invalid ranks refused\n");
    return bad;
}

/* The class of seeding mistakes (set_epoch not stored, seed XOR epoch, a per-rank seed, ...): the list
 * is a perfectly strided, padded list — of a permutation drawn with the wrong generator seed. Its
 * entries then differ from the right ones everywhere, and a message about the striding would blame
 * the wrong thing. So: which generator seed g in [0, limit] gives rank `rank` exactly this list
 * (its stride of randperm(L) seeded with g)? -1 when none does. */
static long long list_seed(size_t L, int N, int rank, int drop, const uint32_t *got, size_t n, uint64_t limit) {
    size_t R = (size_t)N, ns = sampler_num_samples_ref(L, N, drop), total = ns * R;
    if (n != ns || total == 0 || L < 3) return -1; /* too few orders to tell seeds apart */
    uint32_t *p = dp_malloc(total * 4);
    long long found = -1;
    for (uint64_t g = 0; g <= limit && found < 0; g++) {
        data_order_t o;
        data_order_init_sampler(&o, g, L, 1, N, 1, drop);
        for (size_t i = 0; i < total; i++) data_order_batch(&o, i, &p[i]); /* epoch 0 of seed g */
        data_order_free(&o);
        size_t j = 0;
        while (j < n && got[j] == p[(size_t)rank + j * R]) j++;
        if (j == n) found = (long long)g;
    }
    free(p);
    return found;
}

/* A short list cannot tell seeds apart (L = 2 has two orders): ask the sampler for a list long enough
 * to, with the same N, rank, seed, epoch and drop_last. The generator seed it was drawn with, when
 * that is not seed + epoch; -1 otherwise. */
#define PROBE_L 100
static long long probe_seed(int N, int rank, uint64_t seed, int64_t epoch, int drop) {
    sampler_t s;
    if (ck_tape_ll("sampler_init (L=100, to tell seeds apart) returned",
                   sampler_init(&s, PROBE_L, N, rank, true, seed, drop)) != 0)
        return -1;
    sampler_set_epoch(&s, epoch);
    uint32_t *out = dp_calloc(PROBE_L * 2, 4);
    size_t n = (size_t)ck_tape_ll("sampler_indices (L=100) returned", (long long)sampler_indices(&s, out));
    if (n > PROBE_L) n = PROBE_L;
    ck_tape("sampler_indices list (L=100, to tell seeds apart)", out, PROBE_L * 4);
    long long g = list_seed(PROBE_L, N, rank, drop, out, n, seed + (uint64_t)epoch + 64);
    free(out);
    return g == (long long)(seed + (uint64_t)epoch) ? -1 : g;
}

/* " — ..." naming the seeding mistake that gives generator seed g instead of seed + epoch. */
static void explain_seed(uint64_t seed, int64_t epoch, int rank, long long g) {
    uint64_t G = (uint64_t)g, e = (uint64_t)epoch;
    printf(" — this is PyTorch's list for generator seed %lld, where seed + epoch = %llu", g,
           (unsigned long long)(seed + e));
    if (G == seed)
        printf(": the list of epoch 0 — the epoch never reaches the generator (does set_epoch store it, and "
               "sampler_indices use it?)");
    else if (G == (seed ^ e))
        printf(": seed XOR epoch — the generator is seeded with their sum, seed + epoch");
    else if (G == e)
        printf(": the epoch alone — the seed is lost");
    else if (rank != 0 && G == seed + e + (uint64_t)rank)
        printf(": seed + epoch + rank — every rank must draw the SAME permutation (seed + epoch) and take its "
               "stride of it");
    else if (G + 1 == seed + e || G == seed + e + 1)
        printf(": the epoch is off by one");
    else
        printf(": the generator is seeded with seed + epoch");
}

/* One rank's list against PyTorch's. */
static int expect_list(size_t L, int N, int rank, int shuffle, uint64_t seed, int64_t epoch, int drop,
                       const uint32_t *want, size_t nwant) {
    sampler_t s;
    if (ck_tape_ll("sampler_init returned", sampler_init(&s, L, N, rank, shuffle, seed, drop)) != 0) {
        printf("FAIL: sampler_init refused rank %d of %d\n", rank, N);
        return 1;
    }
    sampler_set_epoch(&s, epoch);
    uint32_t out[64];
    memset(out, 0xff, sizeof out);
    size_t n = (size_t)ck_tape_ll("sampler_indices returned", (long long)sampler_indices(&s, out));
    ck_tape("sampler_indices list", out, sizeof out);
    int bad = n != nwant;
    for (size_t i = 0; i < nwant && !bad; i++) bad = out[i] != want[i];
    if (bad) {
        printf("FAIL: L=%zu N=%d rank=%d shuffle=%s seed=%llu epoch=%lld drop_last=%s: got [", L, N, rank,
               shuffle ? "True" : "False", (unsigned long long)seed, (long long)epoch, drop ? "True" : "False");
        for (size_t i = 0; i < n && i < 16; i++) printf("%s%u", i ? "," : "", out[i]);
        printf("], PyTorch gives [");
        for (size_t i = 0; i < nwant; i++) printf("%s%u", i ? "," : "", want[i]);
        printf("]");
        long long g = shuffle ? list_seed(L, N, rank, drop, out, n, seed + (uint64_t)epoch + 64) : -1;
        if (g >= 0) explain_seed(seed, epoch, rank, g);
        printf("\n");
    }
    return bad;
}

#define LIST(...) (const uint32_t[]){__VA_ARGS__}, sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)

static int vectors_check(void) {
    int bad = 0;
    /* no shuffle: padding repeats the head, assignment is strided */
    bad |= expect_list(10, 3, 0, 0, 0, 0, 0, LIST(0, 3, 6, 9));
    bad |= expect_list(10, 3, 1, 0, 0, 0, 0, LIST(1, 4, 7, 0));
    bad |= expect_list(10, 3, 2, 0, 0, 0, 0, LIST(2, 5, 8, 1));
    bad |= expect_list(10, 3, 0, 0, 0, 0, 1, LIST(0, 3, 6));
    bad |= expect_list(10, 3, 2, 0, 0, 0, 1, LIST(2, 5, 8));
    bad |= expect_list(2, 4, 2, 0, 0, 0, 0, LIST(0));
    bad |= expect_list(2, 4, 3, 0, 0, 0, 0, LIST(1));
    bad |= expect_list(1, 4, 3, 0, 0, 0, 0, LIST(0));
    bad |= expect_list(5, 4, 3, 0, 0, 0, 1, LIST(3));
    /* shuffled, PyTorch's MT19937 randperm with seed + epoch */
    bad |= expect_list(10, 3, 0, 1, 0, 0, 0, LIST(4, 5, 0, 2));
    bad |= expect_list(10, 3, 1, 1, 0, 0, 0, LIST(1, 3, 8, 4));
    bad |= expect_list(10, 3, 2, 1, 0, 0, 0, LIST(7, 9, 6, 1));
    bad |= expect_list(10, 3, 0, 1, 0, 1, 0, LIST(5, 2, 9, 4));
    bad |= expect_list(10, 3, 2, 1, 0, 1, 0, LIST(1, 8, 7, 6));
    bad |= expect_list(7, 2, 0, 1, 0, 0, 0, LIST(4, 5, 2, 1));
    bad |= expect_list(7, 2, 1, 1, 0, 0, 0, LIST(0, 3, 6, 4));
    bad |= expect_list(7, 2, 0, 1, 0, 0, 1, LIST(4, 5, 2));
    bad |= expect_list(7, 2, 1, 1, 0, 1, 0, LIST(6, 3, 2, 0));
    bad |= expect_list(7, 2, 1, 1, 0, 2, 1, LIST(4, 0, 1));
    if (!bad)
        printf("index lists identical to PyTorch's reference vectors "
               "(lessons/pytorch-semantics.md#distributedsampler-index-lists)\n");
    return bad;
}

/* Every rank's list for (L, N, seed, epoch, shuffle, drop) against the oracle order. */
static int properties_for(size_t L, int N, uint64_t seed, int shuffle, int drop) {
    data_order_t o;
    size_t R = (size_t)N, ns = sampler_num_samples_ref(L, N, drop), total = ns * R;
    if (total == 0) return 0;
    data_order_init_sampler(&o, seed, L, 1, N, shuffle, drop);
    uint32_t *oracle = dp_malloc((total + 1) * 4), *mine = dp_malloc((total + L + 1) * 4), *prev = dp_calloc(ns + 1, 4);
    int bad = 0;
    for (int64_t epoch = 0; epoch < 3 && !bad; epoch++) {
        for (size_t i = 0; i < total; i++) data_order_batch(&o, (uint64_t)epoch * total + i, &oracle[i]);
        int *seen = dp_calloc(L ? L : 1, sizeof(int));
        for (int r = 0; r < N && !bad; r++) {
            sampler_t s;
            sampler_init(&s, L, N, r, shuffle, seed, drop);
            sampler_set_epoch(&s, epoch);
            size_t n = (size_t)ck_tape_ll("sampler_indices returned", (long long)sampler_indices(&s, mine));
            if (n != ns) {
                printf("FAIL: L=%zu N=%d: rank %d yields %zu indices, every rank must yield num_samples = %zu\n", L, N,
                       r, n, ns);
                bad = 1;
                break;
            }
            ck_tape("sampler_indices list", mine, ns * 4);
            size_t first = 0;
            while (first < n && mine[first] == oracle[(size_t)r + first * R]) first++;
            long long g = first < n && shuffle ? probe_seed(N, r, seed, epoch, drop) : -1;
            if (g >= 0) { /* the striding is right: the permutation is not (the more specific message) */
                printf("FAIL: L=%zu N=%d seed=%llu epoch=%lld drop_last=%d: rank %d's entry %zu is %u, expected %u — "
                       "on L=%d the same rank's list is strided and padded right but from the wrong permutation",
                       L, N, (unsigned long long)seed, (long long)epoch, drop, r, first, mine[first],
                       oracle[(size_t)r + first * R], PROBE_L);
                explain_seed(seed, epoch, r, g);
                printf("\n");
                bad = 1;
            }
            for (size_t j = 0; j < n && !bad; j++) {
                if (mine[j] != oracle[(size_t)r + j * R]) {
                    printf("FAIL: L=%zu N=%d seed=%llu epoch=%lld shuffle=%d drop_last=%d: rank %d's entry %zu is %u, "
                           "expected %u = position %zu of the epoch's list (rank + j·N)",
                           L, N, (unsigned long long)seed, (long long)epoch, shuffle, drop, r, j, mine[j],
                           oracle[(size_t)r + j * R], (size_t)r + j * R);
                    if (mine[j] == oracle[(size_t)r * ns + j])
                        printf(" — you took a contiguous block, not every N-th entry");
                    else if (!drop && (size_t)r + j * R >= L && mine[j] == oracle[L - 1 - ((size_t)r + j * R - L)])
                        printf(" — padding must repeat the HEAD of the list, not its tail");
                    printf("\n");
                    bad = 1;
                }
                if (!bad && mine[j] < L) seen[mine[j]]++;
            }
            if (r == 0 && epoch > 0 && shuffle && L > 3 && !bad && !memcmp(prev, mine, ns * 4)) {
                printf(
                    "FAIL: L=%zu N=%d: rank 0's list is the same in epoch %lld as in epoch %lld: the permutation must "
                    "be drawn with seed + epoch (set_epoch)\n",
                    L, N, (long long)epoch, (long long)epoch - 1);
                bad = 1;
            }
            if (r == 0) memcpy(prev, mine, ns * 4);
        }
        for (size_t i = 0; i < L && !bad; i++) {
            int want_max = drop ? 1 : (int)((total + L - 1) / L);
            if (seen[i] > want_max || (!drop && seen[i] == 0)) {
                printf("FAIL: L=%zu N=%d epoch %lld: index %zu appears %d times over all ranks\n", L, N,
                       (long long)epoch, i, seen[i]);
                bad = 1;
            }
        }
        free(seen);
    }
    /* determinism: the same (seed, epoch) gives the same list; seed 0 epoch 1 == seed 1 epoch 0 */
    if (!bad && shuffle && L > 2) {
        sampler_t a, b;
        uint32_t *x = dp_malloc((total + L + 1) * 4), *y = dp_malloc((total + L + 1) * 4);
        sampler_init(&a, L, N, 0, true, 0, drop);
        sampler_init(&b, L, N, 0, true, 1, drop);
        sampler_set_epoch(&a, 1);
        sampler_indices(&a, x);
        ck_tape("sampler_indices list, seed 0 epoch 1", x, ns * 4);
        sampler_indices(&b, y);
        ck_tape("sampler_indices list, seed 1 epoch 0", y, ns * 4);
        if (memcmp(x, y, ns * 4)) {
            printf(
                "FAIL: (seed 0, epoch 1) and (seed 1, epoch 0) must give the same list: the generator is seeded with "
                "seed + epoch\n");
            bad = 1;
        }
        free(x);
        free(y);
    }
    data_order_free(&o);
    free(oracle);
    free(mine);
    free(prev);
    return bad;
}

static int properties_check(void) {
    int bad = 0;
    size_t lens[] = {1, 2, 10, 11, 37, 100};
    for (size_t li = 0; li < 6 && !bad; li++)
        for (int N = 1; N <= 5 && !bad; N++)
            for (int mode = 0; mode < 4 && !bad; mode++)
                bad = properties_for(lens[li], N, 17, mode & 1, (mode >> 1) & 1);
    if (!bad)
        printf(
            "for L in {1,2,10,11,37,100}, N in 1..5, shuffle and drop_last both ways, 3 epochs: equal lengths, every "
            "index covered (disjoint without padding), padding from the head, strided, new order each epoch\n");
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check07");
    const ck_entry_t checks[] = {
        {"sizes", sizes_check}, {"vectors", vectors_check}, {"properties", properties_check}, {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
