/* bench_topology — lesson 11's benchmark: the flat ring against the hierarchical all-reduce on an
 * emulated two-level cluster, each row beside the time the lesson's cost model gives it.
 *
 *   grading/mpirun -np 8 build/lessons/11-topology/bench_topology --topology 2x4 --begin 4K --end 64M
 *
 * For every size from --begin to --end (bytes, ×--factor) each algorithm of --algos runs one checked
 * call and then --iters timed in-place all-reduces of float32 sums; a row's time is the slowest rank's
 * mean (a ring finishes when its last rank does). Columns as in nccl-tests (GB = 1e9 bytes):
 *
 *   algbw = size / time,   busbw = algbw · 2(N−1)/N    (the flat ring's traffic per rank, for both)
 *
 * and the model's time, from the links the emulator gives each class (--intra, --inter, --nic and
 * --link-slowdown already applied), with c = size / 4 floats and ⌈·⌉ the ring's largest chunk:
 *
 *   ring   2(N−1)·(α + 4⌈c/N⌉/β)      α, β of the slowest ring edge: inter when M > 1
 *   hier   2(K−1)·(αi + 4⌈c/K⌉/βi) + 2(M−1)·(αe + 4⌈⌈c/K⌉/M⌉/βe)
 *
 * The placement (--placement block|spread) is the launch's: the lab runs the program once per
 * placement. Algorithms: ring (lesson 04's ring_allreduce on the world) and hier (lesson 11's
 * hier_allreduce on its two sub-communicators). The checked call's inputs are small integers × 2^-6,
 * so every order of additions gives the same bits; #wrong counts the wrong elements over the ranks
 * and a non-zero total makes the exit status 1. --tsv writes every row for plotting. */
#include "cli.h"
#include "hier.h"
#include "output.h"
#include "ring.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE ((double)INT_MAX * sizeof(float))

static float input(int rank, size_t i) { return (float)((int)((rank * 7 + i * 13) % 32) - 16) * (1.0f / 64.0f); }

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* One α-β step: α + bytes/β (β = 0: an unlimited link). */
static double step_s(const link_t *l, size_t bytes) {
    return l->latency_s + (l->bytes_per_s > 0 ? (double)bytes / l->bytes_per_s : 0);
}

/* The lesson's cost model (README, "The cost model") of one all-reduce of count floats. */
static double model_s(comm_t *c, bool hier, size_t count) {
    int N = comm_world_size(c), M = comm_nodes(c), K = N / M;
    const link_t *li = comm_class_link(c, LINK_INTRA), *le = comm_class_link(c, LINK_INTER);
    if (!hier) return 2.0 * (N - 1) * step_s(M > 1 ? le : li, 4 * ceil_div(count, (size_t)N));
    size_t shard = ceil_div(count, (size_t)K);
    return 2.0 * (K - 1) * step_s(li, 4 * shard) + 2.0 * (M - 1) * step_s(le, 4 * ceil_div(shard, (size_t)M));
}

int main(int argc, char **argv) {
    comm_opts_t copts;
    comm_opts_default(&copts);
    const char *begin_s = "4K", *end_s = "64M", *algos_s = "ring,hier", *tsv = NULL;
    int factor = 2, iters = 0;
    const cli_opt_t mine[] = {
        {"begin", CLI_STRING, &begin_s, "smallest size in bytes (K, M, G suffixes)"},
        {"end", CLI_STRING, &end_s, "largest size in bytes"},
        {"factor", CLI_INT, &factor, "multiply the size by this each time", .min = 2, .max = 1024},
        {"iters", CLI_INT, &iters, "timed calls per size (0: about 0.3 s of the model's time, 1..20)", .min = 0,
         .max = 100000},
        {"algos", CLI_STRING, &algos_s, "comma-separated: ring (lesson 04's flat ring), hier (lesson 11's)"},
        {"tsv", CLI_STRING, &tsv, "also write size, algo, placement, time_us, algbw, busbw, model_us, wrong as TSV"},
        CLI_END,
    };
    cli_opt_t *comm_opts = comm_cli_opts(&copts), *opts = cli_join(mine, comm_opts);
    cli_parse(argc, argv, opts, "bench_topology [options]  (under mpirun, with --topology MxK)");
    free(opts);
    free(comm_opts);
    size_t begin, end;
    cli_size_range(begin_s, end_s, MAX_SIZE, &begin, &end);
    bool run[2] = {false, false}; /* ring, hier */
    char *list = dp_strdup(algos_s);
    for (char *tok = list, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        int a = !strcmp(tok, "ring") ? 0 : !strcmp(tok, "hier") ? 1 : -1;
        if (a < 0) cli_usage_error("unknown algorithm '%s' in --algos: give ring, hier or ring,hier", tok);
        run[a] = true;
    }
    free(list);

    comm_t *c = comm_init(&argc, &argv, &copts);
    int N = comm_world_size(c), r = comm_rank(c);
    if (r == 0) dp_check_output("--tsv", tsv);
    ops_t *ops = ops_create(OPS_CPU, 1);
    coll_t coll;
    coll_init(&coll, c, ops);
    /* hier's coll_t carries its two sub-communicators (hier_attach: stops with one line where the
     * nodes differ in size); both algorithms are then allreduce_fns */
    coll_t hcoll;
    coll_init(&hcoll, c, ops);
    if (run[1]) hier_attach(&hcoll);
    coll_t *colls[2] = {&coll, &hcoll};
    const allreduce_fn fns[2] = {ring_allreduce, hier_allreduce_coll};
    const char *place = copts.placement;
    size_t maxcount = end / 4;
    float *buf = dp_aligned_alloc(maxcount * sizeof(float) + 64);
    FILE *out = NULL;
    if (r == 0) {
        const link_t *li = comm_class_link(c, LINK_INTRA), *le = comm_class_link(c, LINK_INTER);
        printf("# bench_topology: %d ranks on %d nodes (--topology %s, --placement %s, --nic %s), float32 sum, in "
               "place; intra %s: alpha %.3g us, beta %.4g GB/s; inter %s: alpha %.3g us, beta %.4g GB/s (slowdown %g "
               "applied)\n",
               N, comm_nodes(c), copts.topology, place, copts.nic, copts.intra, li->latency_s * 1e6,
               li->bytes_per_s / 1e9, copts.inter, le->latency_s * 1e6, le->bytes_per_s / 1e9, copts.link_slowdown);
        printf("#%11s %12s %6s %6s %6s %7s %11s %8s %8s %11s %7s %7s\n", "size", "count", "type", "redop", "algo",
               "place", "time", "algbw", "busbw", "model", "t/model", "#wrong");
        printf("#%11s %12s %6s %6s %6s %7s %11s %8s %8s %11s %7s %7s\n", "(B)", "(elements)", "", "", "", "", "(us)",
               "(GB/s)", "(GB/s)", "(us)", "", "");
        if (tsv) {
            dp_mkdir_for(tsv);
            out = fopen(tsv, "w");
            if (!out) dp_fatal("cannot write %s: %s", tsv, strerror(errno));
            fprintf(out, "# size\talgo\tplacement\ttime_us\talgbw\tbusbw\tmodel_us\twrong\tnp\tnodes\n");
        }
    }
    long total_wrong = 0;
    for (size_t size = begin; size <= end; size *= (size_t)factor) {
        size_t count = size / 4;
        for (int a = 0; a < 2; a++) {
            if (!run[a]) continue;
            /* the checked call, which is also the warm-up (first touches of the buffers) */
            for (size_t i = 0; i < count; i++) buf[i] = input(r, i);
            fns[a](colls[a], buf, count, REDOP_SUM);
            long wrong = 0, all = 0;
            for (size_t i = 0; i < count; i++) {
                float s = 0;
                for (int q = 0; q < N; q++) s += input(q, i);
                wrong += buf[i] != s;
            }
            comm_lib_allreduce(c, &wrong, &all, 1, DT_I64, REDOP_SUM);
            double model = model_s(c, a == 1, count);
            int n_iter = iters ? iters : (int)fmin(20, fmax(1, 0.3 / fmax(model, 1e-6)));
            comm_barrier(c);
            double t0 = dp_now();
            for (int it = 0; it < n_iter; it++) fns[a](colls[a], buf, count, REDOP_SUM);
            double t = (dp_now() - t0) / n_iter, tmax = 0;
            comm_lib_allreduce(c, &t, &tmax, 1, DT_F64, REDOP_MAX);
            double algbw = (double)size / tmax / 1e9, busbw = algbw * 2.0 * (N - 1) / N;
            total_wrong += all;
            if (r == 0) {
                const char *name = a ? "hier" : "ring";
                printf(" %11zu %12zu %6s %6s %6s %7s %11.1f %8.3f %8.3f %11.1f %7.2f %7ld\n", size, count, "float",
                       "sum", name, place, tmax * 1e6, algbw, busbw, model * 1e6, model > 0 ? tmax / model : 0, all);
                if (out)
                    fprintf(out, "%zu\t%s\t%s\t%.3f\t%.6f\t%.6f\t%.3f\t%ld\t%d\t%d\n", size, name, place, tmax * 1e6,
                            algbw, busbw, model * 1e6, all, N, comm_nodes(c));
                fflush(stdout);
            }
        }
        if (size > end / (size_t)factor) break; /* no overflow past end */
    }
    if (r == 0) {
        printf("# out of bounds values : %ld %s\n", total_wrong, total_wrong ? "FAILED" : "OK");
        errno = 0;
        if (out && (fflush(out) != 0 || ferror(out) || fclose(out) != 0))
            dp_fatal("cannot write %s: %s", tsv, strerror(errno ? errno : EIO));
    }
    hier_detach(&hcoll);
    coll_free(&hcoll);
    coll_free(&coll);
    free(buf);
    ops_destroy(ops);
    comm_finalize(c);
    return total_wrong ? 1 : 0;
}
