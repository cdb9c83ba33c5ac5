/* bench_allreduce — the all-reduce benchmark, in the format of nccl-tests.
 *
 *   grading/mpirun -np 4 build/lessons/04-ring-allreduce/bench_allreduce --begin 8 --end 64M --factor 4
 *
 * For every size from --begin to --end (bytes, ×--factor), every algorithm runs --warmup untimed
 * and then --iters timed in-place all-reduces of float32 sums; the time per call is averaged over
 * the ranks. As in nccl-tests (GB = 1e9 bytes):
 *
 *   algbw = size / time                       what the caller sees
 *   busbw = algbw · 2(N−1)/N                  what each link carried: comparable across N, and with
 *                                             the hardware's bandwidth (the ring's per-rank traffic)
 *
 * A separate untimed pass per size checks the result exactly (inputs are small integers × 2^-6, so
 * every order of additions gives the same bits); #wrong counts the wrong elements over all ranks
 * and a non-zero total makes the exit status 1; a line under a wrong row names the ranks whose results
 * were wrong, where, and one wrong value. Algorithms side by side: naive (lesson 03), ring and
 * tree (lesson 04), ring-pipelined (lesson 04, going further), lib (the comm library's: MPI_Allreduce, or
 * ncclAllReduce under --comm nccl; the baseline).
 * The memcpy bandwidth of one thread on rank 0 (16 MiB) is measured in the same run, for scale.
 * --tsv writes every row for plotting. */
#include "cli.h"
#include "collective.h"
#include "output.h"
#include "ring.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    allreduce_fn fn; /* NULL: the library's */
} algo_t;

static void lib_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_lib_allreduce(coll->comm, buf, buf, count, DT_F32, op);
}

static const algo_t all_algos[] = {
    {"naive", naive_allreduce}, {"ring", ring_allreduce},
    {"tree", tree_allreduce},   {"ring-pipe", ring_allreduce_pipelined},
    {"lib", lib_allreduce},     {NULL, NULL},
};

/* The largest size: MPI counts are ints, and the lib algorithm sends the whole buffer at once. */
#define MAX_SIZE ((double)INT_MAX * sizeof(float))

/* "naive,ring,...": every name known, none empty or given twice (a list that names nothing would run
 * nothing and report success). Returns how many went into algos[]. */
static int parse_algos(char *list, const algo_t **algos, int max) {
    int n = 0;
    for (char *tok = list, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        if (!*tok)
            cli_usage_error("--algos has an empty name; give a comma-separated list of naive, ring, tree, "
                            "ring-pipe, lib");
        const algo_t *a = all_algos;
        while (a->name && strcmp(a->name, tok)) a++;
        if (!a->name) cli_usage_error("unknown algorithm '%s' in --algos (naive, ring, tree, ring-pipe, lib)", tok);
        for (int i = 0; i < n; i++)
            if (algos[i] == a) cli_usage_error("--algos names '%s' twice", tok);
        if (n < max) algos[n++] = a;
    }
    return n;
}

static float input(int rank, size_t i) { return (float)((int)((rank * 7 + i * 13) % 32) - 16) * (1.0f / 64.0f); }

/* Rank 0, under a wrong row: which ranks' results were wrong, where, and one wrong value. per_rank
 * holds (wrong count, first index, last index, first value, right value) for every rank. */
static void describe_wrong(const char *algo, size_t size, size_t count, int N, const double *per_rank) {
    int nbad = 0, shown = 0;
    for (int q = 0; q < N; q++) nbad += per_rank[5 * q] > 0;
    printf("# %s at %zu B (%zu elements) wrong on %d of %d ranks:", algo, size, count, nbad, N);
    for (int q = 0; q < N && shown < 3; q++) {
        const double *w = per_rank + 5 * q;
        if (w[0] <= 0) continue;
        printf("%s rank %d: %.0f wrong in elements %.0f..%.0f, element %.0f is %g, expected %g", shown++ ? ";" : "", q,
               w[0], w[1], w[2], w[1], w[3], w[4]);
    }
    printf("\n");
}

static double memcpy_bandwidth(void) {
    size_t bytes = 16u << 20;
    char *a = dp_aligned_alloc(bytes), *b = dp_aligned_alloc(bytes);
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 1e30;
    for (int i = 0; i < 8; i++) {
        double t0 = dp_now();
        memcpy(b, a, bytes);
        best = fmin(best, dp_now() - t0);
    }
    volatile char sink = b[bytes / 2];
    (void)sink;
    free(a);
    free(b);
    return (double)bytes / best;
}

int main(int argc, char **argv) {
    comm_opts_t copts;
    comm_opts_default(&copts);
    const char *begin_s = "8", *end_s = "64M", *algos_s = "naive,ring,tree,ring-pipe,lib", *tsv = NULL;
    int factor = 4, warmup = 3, iters = 0;
    bool check = true;
    const char *device = "cpu";
    const cli_opt_t mine[] = {
        {"begin", CLI_STRING, &begin_s, "smallest size in bytes (K, M, G suffixes)"},
        {"end", CLI_STRING, &end_s, "largest size in bytes"},
        {"factor", CLI_INT, &factor, "multiply the size by this each time", .min = 2, .max = 1024},
        {"warmup", CLI_INT, &warmup, "untimed calls per size", .min = 0, .max = 1000},
        {"iters", CLI_INT, &iters, "timed calls per size (0: about 0.2 s worth, 5..200)", .min = 0, .max = 100000},
        {"algos", CLI_STRING, &algos_s, "comma-separated: naive,ring,tree,ring-pipe,lib"},
        {"check", CLI_FLAG, &check, "run the exact correctness pass"},
        {"device", CLI_CHOICE, &device, "where the buffer lives (cuda: the reduction kernel, device transfers)",
         .choices = "cpu|cuda"},
        {"tsv", CLI_STRING, &tsv, "also write size, count, algo, time_us, algbw, busbw, wrong as TSV here"},
        CLI_END,
    };
    cli_opt_t *comm_opts = comm_cli_opts(&copts), *opts = cli_join(mine, comm_opts);
    cli_parse(argc, argv, opts, "bench_allreduce [options]  (under mpirun)");
    free(opts);
    free(comm_opts);
    size_t begin, end;
    cli_size_range(begin_s, end_s, MAX_SIZE, &begin, &end);
    const algo_t *algos[sizeof all_algos / sizeof all_algos[0]];
    char *list = dp_strdup(algos_s);
    int nalgos = parse_algos(list, algos, (int)(sizeof algos / sizeof algos[0]));

    comm_t *c = comm_init(&argc, &argv, &copts);
    int N = comm_world_size(c), r = comm_rank(c);
    if (r == 0) dp_check_output("--tsv", tsv);
    ops_t *ops = ops_create(!strcmp(device, "cuda") ? OPS_CUDA : OPS_CPU, 1);
    coll_t coll;
    coll_init(&coll, c, ops);
    size_t maxcount = end / 4;
    float *buf = ops_alloc(ops, maxcount);                    /* what the all-reduces work on (host or GPU) */
    float *host = dp_aligned_alloc(maxcount * sizeof(float)); /* the check's inputs and results */
    double memcpy_bw = 0;
    comm_barrier(c);
    if (r == 0) memcpy_bw = memcpy_bandwidth();
    comm_barrier(c);
    FILE *out = NULL;
    if (r == 0) {
        printf("# bench_allreduce: %d ranks, float32 sum, in place, buffers on the %s; link %s; memcpy (1 thread, "
               "16 MiB): %.2f GB/s\n",
               N, device, comm_link(c)->name, memcpy_bw / 1e9);
        printf("#%11s %12s %6s %6s %10s %11s %8s %8s %7s\n", "size", "count", "type", "redop", "algo", "time", "algbw",
               "busbw", "#wrong");
        printf("#%11s %12s %6s %6s %10s %11s %8s %8s %7s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
               "(GB/s)", "");
        if (tsv) {
            dp_mkdir_for(tsv);
            out = fopen(tsv, "w");
            if (!out) dp_fatal("cannot write %s: %s", tsv, strerror(errno));
            fprintf(out, "# size\tcount\talgo\ttime_us\talgbw\tbusbw\twrong\tnp\tmemcpy_gbs\n");
        }
    }
    long total_wrong = 0;
    double *per_rank = dp_calloc((size_t)N * 5, sizeof(double));      /* rank 0: every rank's wrong elements */
    size_t first_wrong[sizeof all_algos / sizeof all_algos[0]] = {0}; /* per algorithm: the first wrong size */
    for (size_t size = begin; size <= end; size *= (size_t)factor) {
        size_t count = size / 4;
        for (int a = 0; a < nalgos; a++) {
            allreduce_fn fn = algos[a]->fn;
            long wrong = 0;
            if (check) {
                for (size_t i = 0; i < count; i++) host[i] = input(r, i);
                ops_from_host(ops, buf, host, count);
                fn(&coll, buf, count, REDOP_SUM);
                ops_to_host(ops, host, buf, count);
                /* this rank's wrong elements: how many, the first and last, the first's value and the
                 * right one — a count alone says neither which ranks nor which part of the buffer */
                double wr[5] = {0, -1, -1, 0, 0};
                for (size_t i = 0; i < count; i++) {
                    double s = 0;
                    for (int q = 0; q < N; q++) s += input(q, i);
                    if (host[i] == (float)s) continue;
                    if (wr[0]++ == 0) wr[1] = (double)i, wr[3] = host[i], wr[4] = s;
                    wr[2] = (double)i;
                }
                comm_lib_gather(c, wr, per_rank, 5, DT_F64, 0);
                if (r == 0) {
                    for (int q = 0; q < N; q++) wrong += (long)per_rank[5 * q];
                    if (wrong && !first_wrong[a]) first_wrong[a] = size;
                }
                comm_lib_broadcast(c, &wrong, 1, DT_I64, 0);
            }
            int n_iter = iters ? iters : (int)fmin(200, fmax(5, 0.2 / (size * 2e-10 * N + 20e-6)));
            for (int w = 0; w < warmup; w++) fn(&coll, buf, count, REDOP_SUM);
            comm_barrier(c);
            double t0 = dp_now();
            for (int it = 0; it < n_iter; it++) fn(&coll, buf, count, REDOP_SUM);
            ops_sync(ops); /* the last reduction kernel too */
            double t = (dp_now() - t0) / n_iter, tsum = 0;
            comm_lib_allreduce(c, &t, &tsum, 1, DT_F64, REDOP_SUM);
            t = tsum / N;
            double algbw = (double)size / t / 1e9, busbw = algbw * 2.0 * (N - 1) / N;
            total_wrong += wrong;
            if (r == 0) {
                printf(" %11zu %12zu %6s %6s %10s %11.1f %8.3f %8.3f %7ld\n", size, count, "float", "sum",
                       algos[a]->name, t * 1e6, algbw, busbw, wrong);
                if (wrong) describe_wrong(algos[a]->name, size, count, N, per_rank);
                if (out)
                    fprintf(out, "%zu\t%zu\t%s\t%.3f\t%.6f\t%.6f\t%ld\t%d\t%.4f\n", size, count, algos[a]->name,
                            t * 1e6, algbw, busbw, wrong, N, memcpy_bw / 1e9);
                fflush(stdout);
            }
        }
        if (size > end / (size_t)factor) break; /* no overflow past end */
    }
    if (r == 0) {
        printf("# out of bounds values : %ld %s", total_wrong, total_wrong ? "FAILED" : "OK");
        for (int a = 0, n = 0; a < nalgos; a++)
            if (first_wrong[a]) printf("%s%s (from %zu B)", n++ ? ", " : " — wrong: ", algos[a]->name, first_wrong[a]);
        printf("\n");
        /* the rows are streamed (a stopped benchmark keeps them); their errors are seen here */
        errno = 0;
        if (out && (fflush(out) != 0 || ferror(out) || fclose(out) != 0))
            dp_fatal("cannot write %s: %s", tsv, strerror(errno ? errno : EIO));
    }
    coll_free(&coll);
    ops_free(ops, buf);
    free(host);
    free(per_rank);
    free(list);
    ops_destroy(ops);
    comm_finalize(c);
    return total_wrong ? 1 : 0;
}
