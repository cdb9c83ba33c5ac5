/* overlap — did communication overlap computation? Reads the TSV a trainer's --trace writes.
 *
 *   overlap TRACE.json.tsv [--skip K] [--max-ratio R] [--ranks N] [--steps S]
 *
 * The trace was written by the code under test, so it is checked before it is believed: with
 * --ranks and --steps it must hold exactly N ranks of S "step" spans each; every span must have a
 * rank in [0, 1024), finite times and t1 >= t0; at most 200000 spans.
 * For every rank and every "step" span after the first K (warm-up), from the spans inside it:
 *   compute = step − "wait for all-reduces"     (forward, backward, optimizer: the compute thread busy)
 *   comm    = Σ "allreduce ..." spans on the comm track
 * and checks
 *   1. in every step the first all-reduce starts before the "backward" span ends (buckets are sent
 *      while backward is still running), and
 *   2. mean step <= R · max(mean compute, mean comm)   (default R = 1.25): what is not hidden is at
 *      most a quarter of the larger of the two.
 * Prints a line per rank with the means; exit 0 when both hold on every rank. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int rank;
    char track[16], name[48];
    double t0, t1;
} span_t;

int main(int argc, char **argv) {
    const char *path = NULL;
    int skip = 2, want_ranks = 0, want_steps = 0;
    double max_ratio = 1.25;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--skip") && i + 1 < argc) skip = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) want_ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) want_steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-ratio") && i + 1 < argc) max_ratio = atof(argv[++i]);
        else path = argv[i];
    }
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) {
        printf("FAIL: no trace %s: did the run finish?\n", path ? path : "(none given)");
        return 1;
    }
    int n = 0, cap = 4096, nranks = 0;
    span_t *s = malloc((size_t)cap * sizeof *s);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (n == 200000) {
            printf("FAIL: the trace %s has more than 200000 spans: not a trace of this run\n", path);
            return 1;
        }
        if (n == cap) s = realloc(s, (size_t)(cap *= 2) * sizeof *s);
        span_t *x = &s[n];
        if (sscanf(line, "%d\t%15[^\t]\t%lf\t%lf\t%47[^\n]", &x->rank, x->track, &x->t0, &x->t1, x->name) == 5) {
            if (x->rank < 0 || x->rank >= 1024 || !isfinite(x->t0) || !isfinite(x->t1) || x->t1 < x->t0) {
                printf("FAIL: the trace %s has a span that cannot be (rank %d, %g..%g ms)\n", path, x->rank, x->t0, x->t1);
                return 1;
            }
            if (x->rank + 1 > nranks) nranks = x->rank + 1;
            n++;
        }
    }
    fclose(f);
    if (want_ranks && nranks != want_ranks) {
        printf("FAIL: the trace holds %d rank%s, the run had %d\n", nranks, nranks == 1 ? "" : "s", want_ranks);
        return 1;
    }
    for (int r = 0; r < nranks && want_steps; r++) {
        int steps = 0;
        for (int i = 0; i < n; i++) steps += s[i].rank == r && !strcmp(s[i].name, "step");
        if (steps != want_steps) {
            printf("FAIL: rank %d's trace holds %d steps, the run had %d\n", r, steps, want_steps);
            return 1;
        }
    }
    int failures = 0;
    for (int r = 0; r < nranks; r++) {
        double sum_step = 0, sum_compute = 0, sum_comm = 0, worst_late = -1e30;
        int steps = 0, seen = 0;
        for (int i = 0; i < n; i++) {
            if (s[i].rank != r || strcmp(s[i].name, "step")) continue;
            if (seen++ < skip) continue;
            double a = s[i].t0, b = s[i].t1, wait = 0, comm = 0, bwd_end = NAN, first_ar = INFINITY;
            for (int j = 0; j < n; j++) {
                if (s[j].rank != r || s[j].t0 < a || s[j].t0 > b) continue;
                if (!strcmp(s[j].name, "wait for all-reduces")) wait += s[j].t1 - s[j].t0;
                if (!strcmp(s[j].name, "backward")) bwd_end = s[j].t1;
                if (!strncmp(s[j].name, "allreduce", 9)) {
                    comm += s[j].t1 - s[j].t0;
                    if (s[j].t0 < first_ar) first_ar = s[j].t0;
                }
            }
            if (isnan(bwd_end) || isinf(first_ar)) {
                printf("FAIL: rank %d: a step without a \"backward\" span or without any all-reduce\n", r);
                failures++;
                break;
            }
            worst_late = fmax(worst_late, first_ar - bwd_end);
            sum_step += b - a;
            sum_compute += (b - a) - wait;
            sum_comm += comm;
            steps++;
        }
        if (!steps) {
            printf("FAIL: rank %d: no steps after the %d warm-up steps\n", r, skip);
            failures++;
            continue;
        }
        double step = sum_step / steps, compute = sum_compute / steps, comm = sum_comm / steps;
        double bound = max_ratio * fmax(compute, comm);
        printf("rank %d: %d steps: step %.1f ms, compute %.1f ms, all-reduce %.1f ms, exposed %.1f ms; step / max = %.2f\n",
               r, steps, step, compute, comm, step - compute, step / fmax(compute, comm));
        if (worst_late >= 0) {
            printf("FAIL: rank %d: in some step the first all-reduce starts %.1f ms AFTER backward ended: buckets must "
                   "be launched from the gradient-ready hook, while backward still runs\n",
                   r, worst_late);
            failures++;
        }
        if (step > bound) {
            printf("FAIL: rank %d: the step takes %.1f ms > %.2f x max(compute %.1f, all-reduce %.1f) = %.1f ms: the "
                   "communication is not hidden behind backward\n",
                   r, step, max_ratio, compute, comm, bound);
            failures++;
        }
    }
    if (!failures) printf("overlap: every all-reduce stream starts during backward; step <= %.2f x max(compute, comm)\n", max_ratio);
    free(s);
    return failures ? 1 : 0;
}
