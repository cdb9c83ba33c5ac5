/* overlap — did communication overlap computation? Reads the TSV a DDP trainer's --trace writes.
 *
 *   overlap TRACE.json.tsv [--skip K] [--max-ratio R] [--min-concurrent F] [--ranks N] [--steps S]
 *
 * The trace was written by the code under test, so it is checked before it is believed: with
 * --ranks and --steps it must hold exactly N ranks of S "step" spans each; every span must have a
 * rank in [0, 1024), finite times and t1 >= t0; at most 200000 spans.
 *
 * The given DDP code (lessons/05-ddp/ddp.c) records, besides "forward", "backward", "wait for
 * all-reduces" and the comm thread's "allreduce bN" spans: a "hook" span around every call of the
 * gradient-ready hook and a "launch bN" instant at every launch. The verdict comes first from the
 * trace's STRUCTURE, which a busy machine cannot fake or spoil — in every step after the first K:
 *   1. buckets are all-reduced on DDP's communication thread ("allreduce" spans on the comm track);
 *   2. the first bucket is launched before backward's last layer ("bwd ..." spans) ends: from the
 *      hook as soon as it is ready, not from ddp_finish nor from the very last hook;
 *   3. the hook does not wait for communication: a launch whose all-reduce is already over when the
 *      hook that launched it returns is a blocking all-reduce (or a wait right after the launch) —
 *      at most half of them may look like that (the other half allows for a hook that the scheduler
 *      happened to preempt for as long as an all-reduce takes);
 *   4. communication really runs while backward computes: at least F (default 0.1) of all the
 *      all-reduce time lies inside "backward" but outside every "hook" span.
 * Any of these failing is a FAIL (exit 1). Then the TIMING: for each step, over the ranks,
 *      compute = the slowest rank's step − its "wait for all-reduces"
 *      exposed = the smallest wait (a rank that arrives early also waits for the other's compute:
 *                that is not exposed communication)
 *      comm    = the smallest sum of "allreduce" spans (the early rank's spans include the wait
 *                for its peer to launch)
 *      ratio   = (compute + exposed) / max(compute, comm)
 * and the best step's ratio must be <= R (default 1.25): other work on the machine only ever makes
 * steps slower, so one step that shows the overlap is the evidence the timing can give, and the
 * structure has already decided the rest (the median is printed too). Structure passed, so when
 * even the best step misses, the machine was too busy to time the run: exit 75 (the grader measures
 * again, and reports INCONCLUSIVE if it stays so), printing what was measured. On success a
 * "margin:" line. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regular.h"
#include "util.h"

typedef struct {
    int rank;
    char track[16], name[48];
    double t0, t1;
} span_t;

static double clamp_len(double a, double b) { return b > a ? b - a : 0; }

/* a bucket number from "allreduce bN" / "launch bN"; -1 when the name is not of that form */
static int bucket_of(const char *name, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || name[n] != 'b') return -1;
    char *end;
    long b = strtol(name + n + 1, &end, 10);
    return *end || end == name + n + 1 || b < 0 || b > 1000000 ? -1 : (int)b;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int skip = 2, want_ranks = 0, want_steps = 0;
    double max_ratio = 1.25, min_concurrent = 0.1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--skip") && i + 1 < argc)
            skip = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
            want_ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            want_steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-ratio") && i + 1 < argc)
            max_ratio = atof(argv[++i]);
        else if (!strcmp(argv[i], "--min-concurrent") && i + 1 < argc)
            min_concurrent = atof(argv[++i]);
        else
            path = argv[i];
    }
    FILE *f = path ? fopen_regular(path) : NULL;
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
            fclose(f);
            free(s);
            return 1;
        }
        if (n == cap) s = realloc(s, (size_t)(cap *= 2) * sizeof *s);
        span_t *x = &s[n];
        if (sscanf(line, "%d\t%15[^\t]\t%lf\t%lf\t%47[^\n]", &x->rank, x->track, &x->t0, &x->t1, x->name) == 5) {
            if (x->rank < 0 || x->rank >= 1024 || !isfinite(x->t0) || !isfinite(x->t1) || x->t1 < x->t0) {
                printf("FAIL: the trace %s has a span that cannot be (rank %d, %g..%g ms)\n", path, x->rank, x->t0,
                       x->t1);
                fclose(f);
                free(s);
                return 1;
            }
            if (x->rank + 1 > nranks) nranks = x->rank + 1;
            n++;
        }
    }
    fclose(f);
    if (want_ranks && nranks != want_ranks) {
        printf("FAIL: the trace holds %d rank%s, the run had %d\n", nranks, nranks == 1 ? "" : "s", want_ranks);
        free(s);
        return 1;
    }
    int steps_of_rank0 = -1;
    for (int r = 0; r < nranks; r++) {
        int steps = 0;
        for (int i = 0; i < n; i++) steps += s[i].rank == r && !strcmp(s[i].name, "step");
        if (want_steps && steps != want_steps) {
            printf("FAIL: rank %d's trace holds %d steps, the run had %d\n", r, steps, want_steps);
            free(s);
            return 1;
        }
        if (steps_of_rank0 < 0) steps_of_rank0 = steps;
        if (steps != steps_of_rank0) {
            printf("FAIL: rank %d's trace holds %d steps, rank 0's %d\n", r, steps, steps_of_rank0);
            free(s);
            return 1;
        }
    }
    int nsteps = steps_of_rank0 - skip;
    if (nranks == 0 || nsteps < 1) {
        printf("FAIL: the trace holds no steps after the %d warm-up steps\n", skip);
        free(s);
        return 1;
    }
    /* per (rank, measured step): the timing inputs */
    double *step_ms = calloc((size_t)(nranks * nsteps), sizeof(double));
    double *wait_ms = calloc((size_t)(nranks * nsteps), sizeof(double));
    double *comm_ms = calloc((size_t)(nranks * nsteps), sizeof(double));
    double total_comm = 0, concurrent = 0, worst_late = -1e30;
    int launches_in_hooks = 0, blocked = 0, worst_blocked_bucket = -1, failures = 0;
    for (int r = 0; r < nranks && !failures; r++) {
        int seen = 0;
        for (int i = 0; i < n && !failures; i++) {
            if (s[i].rank != r || strcmp(s[i].name, "step")) continue;
            if (seen++ < skip) continue;
            int k = seen - 1 - skip;
            double a = s[i].t0, b = s[i].t1, wait = 0, comm = 0, first_launch = INFINITY, first_ar = INFINITY;
            const span_t *bwd = NULL;
            double bwd_compute_end = -INFINITY; /* the end of backward's last layer ("bwd ..." spans) */
            int ar_count = 0;
            for (int j = 0; j < n; j++) {
                if (s[j].rank != r || s[j].t0 < a || s[j].t0 > b) continue;
                if (!strcmp(s[j].name, "wait for all-reduces")) wait += s[j].t1 - s[j].t0;
                if (!strcmp(s[j].name, "backward")) bwd = &s[j];
                if (!strncmp(s[j].name, "bwd ", 4)) bwd_compute_end = fmax(bwd_compute_end, s[j].t1);
                if (bucket_of(s[j].name, "launch ") >= 0) first_launch = fmin(first_launch, s[j].t0);
                if (!strcmp(s[j].track, "comm") && bucket_of(s[j].name, "allreduce ") >= 0) {
                    comm += s[j].t1 - s[j].t0;
                    first_ar = fmin(first_ar, s[j].t0);
                    ar_count++;
                }
            }
            if (!bwd || !ar_count) {
                printf(
                    "FAIL: rank %d: a step %s: every bucket must be launched with d->launch, which all-reduces it on "
                    "DDP's communication thread\n",
                    r, !bwd ? "without a \"backward\" span" : "without any all-reduce on the communication track");
                failures++;
                break;
            }
            /* 2: launched from the hook while backward still computes: before its last layer ends
             * (the launch instant; without one, the all-reduce's start, which is later still) */
            double start = isinf(first_launch) ? first_ar : first_launch;
            worst_late = fmax(worst_late, start - (isinf(bwd_compute_end) ? bwd->t1 : fmin(bwd_compute_end, bwd->t1)));
            /* 3 and 4, span by span */
            for (int j = 0; j < n; j++) {
                int bk;
                if (s[j].rank != r || s[j].t0 < a || s[j].t0 > b || strcmp(s[j].track, "comm") ||
                    (bk = bucket_of(s[j].name, "allreduce ")) < 0)
                    continue;
                const span_t *c = &s[j];
                total_comm += c->t1 - c->t0;
                /* the part of it that ran while backward computed: inside backward, outside hooks */
                double lo = fmax(c->t0, bwd->t0), hi = fmin(c->t1, bwd->t1), inside = clamp_len(lo, hi);
                for (int h = 0; h < n && inside > 0; h++)
                    if (s[h].rank == r && !strcmp(s[h].name, "hook") && s[h].t0 >= a && s[h].t0 <= b)
                        inside -= clamp_len(fmax(lo, s[h].t0), fmin(hi, s[h].t1));
                concurrent += fmax(inside, 0);
                /* the launch of this bucket in this step, and the hook it was launched from */
                const span_t *launch = NULL;
                for (int l = 0; l < n; l++)
                    if (s[l].rank == r && s[l].t0 >= a && s[l].t0 <= c->t0 + 1e-3 &&
                        bucket_of(s[l].name, "launch ") == bk)
                        launch = &s[l];
                for (int h = 0; launch && h < n; h++) {
                    if (s[h].rank != r || strcmp(s[h].name, "hook") || launch->t0 < s[h].t0 || launch->t0 > s[h].t1)
                        continue;
                    launches_in_hooks++;
                    if (c->t1 <= s[h].t1) {
                        blocked++;
                        worst_blocked_bucket = bk;
                    }
                    break;
                }
            }
            step_ms[r * nsteps + k] = b - a;
            wait_ms[r * nsteps + k] = wait;
            comm_ms[r * nsteps + k] = comm;
        }
    }
    if (!failures && worst_late >= 0) {
        printf(
            "FAIL: in some step the first bucket is launched %.2f ms AFTER backward ended (its last layer): buckets "
            "must be launched from the gradient-ready hook as soon as they are complete, while backward still runs\n",
            worst_late);
        failures++;
    }
    if (!failures && launches_in_hooks && blocked * 2 > launches_in_hooks) {
        printf("FAIL: the gradient-ready hook waits for communication: in %d of %d launches (bucket %d among them) the "
               "bucket's all-reduce had already finished when the hook that launched it returned — a blocking "
               "all-reduce, or a wait right after the launch: the hook must only launch; ddp_finish waits\n",
               blocked, launches_in_hooks, worst_blocked_bucket);
        failures++;
    }
    double frac = total_comm > 0 ? concurrent / total_comm : 0;
    if (!failures && frac < min_concurrent) {
        printf("FAIL: only %.0f%% of the all-reduce time (%.1f of %.1f ms) ran while backward computed (outside the "
               "hook), at least %.0f%% expected: the communication is not overlapped with backward\n",
               100 * frac, concurrent, total_comm, 100 * min_concurrent);
        failures++;
    }
    if (failures) {
        free(step_ms), free(wait_ms), free(comm_ms), free(s);
        return 1;
    }
    /* the timing, step by step over the ranks; medians over the steps */
    double *ratio = calloc((size_t)nsteps, sizeof(double)), *cs = calloc((size_t)nsteps, sizeof(double)),
           *es = calloc((size_t)nsteps, sizeof(double)), *ms = calloc((size_t)nsteps, sizeof(double));
    for (int k = 0; k < nsteps; k++) {
        double compute = 0, exposed = INFINITY, comm = INFINITY;
        for (int r = 0; r < nranks; r++) {
            compute = fmax(compute, step_ms[r * nsteps + k] - wait_ms[r * nsteps + k]);
            exposed = fmin(exposed, wait_ms[r * nsteps + k]);
            comm = fmin(comm, comm_ms[r * nsteps + k]);
        }
        ratio[k] = (compute + exposed) / fmax(fmax(compute, comm), 1e-9);
        cs[k] = compute;
        es[k] = exposed;
        ms[k] = comm;
    }
    double best = INFINITY;
    for (int k = 0; k < nsteps; k++) best = fmin(best, ratio[k]);
    double mratio = dp_median(ratio, (size_t)nsteps), mcompute = dp_median(cs, (size_t)nsteps),
           mexposed = dp_median(es, (size_t)nsteps), mcomm = dp_median(ms, (size_t)nsteps);
    printf("structure: first launch %.1f ms before backward ends (worst step); %d of %d launches waited on inside the "
           "hook; %.0f%% of all-reduce time concurrent with backward compute\n",
           -worst_late, blocked, launches_in_hooks, 100 * frac);
    printf("timing (medians of %d steps over %d ranks): compute %.1f ms, all-reduce %.1f ms, exposed %.1f ms; "
           "(compute + exposed) / max(compute, comm): median %.2f, best step %.2f (at most %.2f)\n",
           nsteps, nranks, mcompute, mcomm, mexposed, mratio, best, max_ratio);
    free(step_ms), free(wait_ms), free(comm_ms), free(ratio), free(cs), free(es), free(ms), free(s);
    if (best > max_ratio) {
        printf("INCONCLUSIVE: the trace shows overlap, but even the best step took %.2f x max(compute, comm) > %.2f: "
               "the machine was too busy to time the steps\n",
               best, max_ratio);
        return 75;
    }
    printf("margin: best step (compute + exposed)/max(compute, comm) %.2f <= %.2f (median %.2f); %.0f%% of comm "
           "concurrent with backward (>= %.0f%%); %d/%d launches waited on in the hook\n",
           best, max_ratio, mratio, 100 * frac, 100 * min_concurrent, blocked, launches_in_hooks);
    return 0;
}
