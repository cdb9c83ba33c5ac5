/* straggler_predict — the lesson-10 step-time model (your straggler_model.c) from the command line.
 *
 *   straggler_predict --jitter exp:20 --max-ranks 8            E[max] and the slowdown for N = 1..8
 *   straggler_predict --jitter exp:20 --base FILE [--measured FILE]
 *
 * FILE holds lines "N milliseconds": --base the step without jitter on N ranks (compute + comm),
 * --measured the step with it. Prints, per N: the base, E[max of N delays], the predicted step
 * (base + E[max]) and, with --measured, the measured step, the measured increase over the base and
 * the error of the predicted increase. */
#include "cli.h"
#include "straggler_model.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 4096

/* Lines "N milliseconds" (blank lines and # comments allowed) into ms[N]; anything else is refused. */
static void read_ms(const char *flag, const char *path, double *ms) {
    size_t len = 0;
    char *text = (char *)dp_read_file(path, &len);
    if (!text) dp_fatal("cannot read %s %s: %s", flag, path, errno ? strerror(errno) : "not a regular file");
    if (memchr(text, 0, len)) dp_fatal("%s is not a text file of 'N milliseconds' lines", path);
    int lineno = 1;
    for (char *line = text, *next; line && *line; line = next, lineno++) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        const char *p = line + strspn(line, " \t\r");
        if (!*p || *p == '#') continue;
        int n = 0, used = 0;
        double v = 0;
        if (sscanf(p, "%d %lf %n", &n, &v, &used) != 2 || p[used] != 0)
            dp_fatal("%s:%d: want 'N milliseconds' (e.g. '4 61.5'), got '%.80s'", path, lineno, line);
        if (n < 1 || n > MAX_N) dp_fatal("%s:%d: N = %d is outside 1..%d", path, lineno, n, MAX_N);
        if (!isfinite(v) || v < 0) dp_fatal("%s:%d: %g ms for N = %d; it must be 0 or more", path, lineno, v, n);
        if (ms[n] >= 0) dp_fatal("%s:%d: N = %d is there twice", path, lineno, n);
        ms[n] = v;
    }
    free(text);
}

int main(int argc, char **argv) {
    const char *spec = NULL, *base_file = NULL, *measured_file = NULL;
    int max_ranks = 8;
    const cli_opt_t opts[] = {
        {"jitter", CLI_STRING, &spec, "the trainers' --jitter: exp:MEAN_MS or lognormal:MEAN_MS:SIGMA"},
        {"base", CLI_STRING, &base_file, "file of 'N ms' lines: the step without jitter (default: 0 for N = 1..max)"},
        {"measured", CLI_STRING, &measured_file, "file of 'N ms' lines: the step measured with jitter"},
        {"max-ranks", CLI_INT, &max_ranks, "without --base: N = 1 .. this", .min = 1, .max = MAX_N},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "straggler_predict --jitter SPEC [--base FILE] [--measured FILE]");
    jitter_t j;
    char why[256];
    if (!spec) cli_usage_error("give --jitter exp:MEAN_MS or lognormal:MEAN_MS:SIGMA");
    if (jitter_parse(spec, &j, why, sizeof why) != 0) cli_usage_error("%s", why);
    static double base[MAX_N + 1], meas[MAX_N + 1];
    for (int n = 0; n <= MAX_N; n++) base[n] = meas[n] = -1;
    if (base_file)
        read_ms("--base", base_file, base);
    else
        for (int n = 1; n <= max_ranks; n++) base[n] = 0;
    if (measured_file) read_ms("--measured", measured_file, meas);
    printf("# --jitter %s: delays of mean %.3f ms%s\n", spec, j.mean_s * 1e3,
           j.kind == JITTER_LOGNORMAL ? " (log-normal)"
           : j.kind == JITTER_EXP     ? " (exponential)"
                                      : "");
    printf("%5s %10s %10s %12s %12s %12s %8s\n", "N", "base_ms", "emax_ms", "predicted_ms", "measured_ms",
           "increase_ms", "error");
    for (int N = 1; N <= MAX_N; N++) {
        if (base[N] < 0) continue;
        /* the model in seconds, printed in ms */
        double pred = 1e3 * predict_step_jitter(&j, base[N] * 1e-3, N);
        printf("%5d %10.3f %10.3f %12.3f", N, base[N], pred - base[N], pred);
        if (meas[N] >= 0) {
            double inc = meas[N] - base[N], want = pred - base[N];
            printf(" %12.3f %12.3f %7.1f%%", meas[N], inc, want > 0 ? 100 * (want - inc) / want : 0.0);
        }
        printf("\n");
    }
    return 0;
}
