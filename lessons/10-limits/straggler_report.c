/* straggler_report — which ranks are CONSISTENTLY slow? Reads a trainer's --stats file (per-rank
 * compute and wait times of every step) and flags a rank only when it is both the slowest in most
 * steps and slower than the others on a typical step: a rank unlucky once (a spike, a page fault, a
 * jittered step) is not a straggler; a rank that is slow step after step is (a slow GPU, a noisy
 * neighbour, a thermally throttled CPU) — and is worth replacing.
 *
 *   straggler_report STATS.json [--warmup 2] [--min-fraction 0.8] [--margin 0.25]
 *   straggler_report --delays SPEC --seed S --ranks N --steps K   print the seeded delays a trainer
 *                    with --jitter SPEC --seed S draws (ms, a line per step, a column per rank)
 *   straggler_report STATS.json --recorded-delays      the delays the run recorded, in the same form
 *
 * Prints a line per rank (median compute and wait, the share of steps it was the slowest in), the
 * mean and median step, the realised mean of the slowest rank's emulated delay, and a last line
 * "stragglers: 2" (or "stragglers: none"). Exit 0 either way; 2 on bad input. */
#include "cli.h"
#include "straggler.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double *s = dp_malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

/* ranks × steps of one per-step array ("compute_ms", ...) of the stats file */
static double *read_series(const cJSON *ranks, int R, int S, const char *name, const char *path) {
    double *out = dp_malloc((size_t)R * (size_t)S * sizeof(double));
    for (int r = 0; r < R; r++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ranks, r), name);
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != S)
            dp_fatal("%s: rank %d has no \"%s\" array of %d steps; write it with a trainer's --stats (lesson 10 "
                     "or later)",
                     path, r, name, S);
        for (int s = 0; s < S; s++) {
            const cJSON *x = cJSON_GetArrayItem(a, s);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
                dp_fatal("%s: rank %d, %s[%d] is not a time in ms", path, r, name, s);
            out[(size_t)r * S + s] = x->valuedouble;
        }
    }
    return out;
}

static int print_delays(const char *spec, uint64_t seed, int R, int S) {
    jitter_t j;
    char why[256];
    if (jitter_parse(spec, &j, why, sizeof why) != 0) cli_usage_error("%s", why);
    if (R < 1 || S < 1) cli_usage_error("--delays needs --ranks and --steps of 1 or more");
    for (int s = 0; s < S; s++)
        for (int r = 0; r < R; r++) printf("%.9f%c", 1e3 * jitter_delay_s(&j, seed, r, s), r + 1 < R ? ' ' : '\n');
    return 0;
}

int main(int argc, char **argv) {
    int warmup = 2, ranks = 0, steps = 0;
    double min_fraction = 0.8, margin = 0.25;
    const char *delays = NULL;
    uint64_t seed = 1;
    bool recorded = false;
    const cli_opt_t opts[] = {
        {"warmup", CLI_INT, &warmup, "steps left out at the start (first touches, start-up skew)", .min = 0,
         .max = 1 << 30},
        {"min-fraction", CLI_FLOAT, &min_fraction, "a straggler is the slowest rank in more than this share of steps",
         .min = 0, .max = 1},
        {"margin", CLI_FLOAT, &margin, "... and its median compute exceeds the others' median by this fraction",
         .min = 0, .max = 1e6},
        {"delays", CLI_STRING, &delays, "print the delays --jitter SPEC draws instead (with --seed, --ranks, --steps)"},
        {"seed", CLI_U64, &seed, "--delays: the trainer's --seed"},
        {"ranks", CLI_INT, &ranks, "--delays: ranks", .min = 0, .max = 1 << 20},
        {"steps", CLI_INT, &steps, "--delays: steps", .min = 0, .max = 1 << 24},
        {"recorded-delays", CLI_FLAG, &recorded, "print the emulated delays the stats file recorded, as --delays does"},
        CLI_END,
    };
    const char *pos[1];
    int npos = 0;
    cli_parse_positional(argc, argv, opts, "straggler_report STATS.json [options]", pos, 1, &npos);
    if (delays) return print_delays(delays, seed, ranks, steps);
    if (npos != 1) cli_usage_error("give the --stats file of a run (straggler_report STATS.json)");
    const char *path = pos[0];
    size_t len = 0;
    char *text = (char *)dp_read_file(path, &len);
    if (!text) dp_fatal("cannot read %s: %s", path, errno ? strerror(errno) : "not a regular file");
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!root) dp_fatal("%s is not JSON; give the file a trainer's --stats wrote", path);
    const cJSON *jr = cJSON_GetObjectItemCaseSensitive(root, "ranks");
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (!cJSON_IsArray(jr) || !cJSON_IsNumber(js)) dp_fatal("%s: no \"ranks\" and \"steps\": not a --stats file", path);
    int R = cJSON_GetArraySize(jr), S = (int)js->valuedouble;
    if (R < 1 || S < 1) dp_fatal("%s: %d ranks, %d steps: nothing to report", path, R, S);
    double *comp = read_series(jr, R, S, "compute_ms", path), *wait = read_series(jr, R, S, "wait_ms", path);
    double *delay = read_series(jr, R, S, "delay_ms", path);
    if (recorded) {
        for (int s = 0; s < S; s++)
            for (int r = 0; r < R; r++) printf("%.9f%c", delay[(size_t)r * S + s], r + 1 < R ? ' ' : '\n');
        free(comp);
        free(wait);
        free(delay);
        cJSON_Delete(root);
        return 0;
    }
    if (warmup >= S) cli_usage_error("--warmup %d leaves none of the %d steps; give a smaller --warmup", warmup, S);
    int n = S - warmup;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "straggler");
    const cJSON *ji = cJSON_GetObjectItemCaseSensitive(root, "jitter");
    printf("straggler_report: %d rank%s, %d steps (%d warm-up left out), --straggler %s, --jitter %s\n", R,
           R > 1 ? "s" : "", n, warmup, cJSON_IsString(st) ? st->valuestring : "?",
           cJSON_IsString(ji) ? ji->valuestring : "?");

    int *slowest = dp_calloc((size_t)R, sizeof(int));
    double *steptime = dp_malloc((size_t)n * sizeof(double)), *maxdelay = dp_malloc((size_t)n * sizeof(double));
    double mean_step = 0, mean_maxdelay = 0;
    for (int s = warmup; s < S; s++) {
        int arg = 0;
        double md = 0;
        for (int r = 0; r < R; r++) {
            if (comp[(size_t)r * S + s] > comp[(size_t)arg * S + s]) arg = r;
            md = fmax(md, delay[(size_t)r * S + s]);
        }
        slowest[arg]++;
        /* the step as rank 0 lived it: consecutive steps tile its time line */
        steptime[s - warmup] = comp[s] + wait[s];
        maxdelay[s - warmup] = md;
        mean_step += steptime[s - warmup] / n;
        mean_maxdelay += md / n;
    }
    double *med = dp_malloc((size_t)R * sizeof(double)), *others = dp_malloc((size_t)R * sizeof(double));
    for (int r = 0; r < R; r++) med[r] = median(comp + (size_t)r * S + warmup, n);
    printf("%5s %18s %16s %12s\n", "rank", "compute_ms median", "wait_ms median", "slowest in");
    int flagged = 0;
    char list[4096] = "";
    for (int r = 0; r < R; r++) {
        int k = 0;
        for (int q = 0; q < R; q++)
            if (q != r) others[k++] = med[q];
        double base = k ? median(others, k) : med[r];
        double frac = (double)slowest[r] / n;
        /* consistently slow: the slowest in most steps AND slower on a typical step (the median
         * ignores a few spikes); one rank alone is nobody's straggler */
        bool straggler = R > 1 && frac > min_fraction && med[r] > (1 + margin) * base;
        printf("%5d %18.3f %16.3f %11.0f%%%s\n", r, med[r], median(wait + (size_t)r * S + warmup, n), 100 * frac,
               straggler ? "   <- straggler" : "");
        if (straggler) {
            printf("       rank %d: the slowest in %.0f%% of steps (more than %.0f%%), median compute %.2fx the "
                   "others' (more than %.2fx)\n",
                   r, 100 * frac, 100 * min_fraction, base > 0 ? med[r] / base : INFINITY, 1 + margin);
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%d", flagged ? " " : "", r);
            flagged++;
        }
    }
    printf("step_ms: mean %.3f median %.3f (rank 0)\n", mean_step, median(steptime, n));
    printf("max_delay_ms: mean %.3f (the slowest rank's emulated delay, realised)\n", mean_maxdelay);
    printf("stragglers: %s\n", flagged ? list : "none");
    free(comp);
    free(wait);
    free(delay);
    free(slowest);
    free(steptime);
    free(maxdelay);
    free(med);
    free(others);
    cJSON_Delete(root);
    return 0;
}
