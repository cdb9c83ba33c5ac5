/* scaling_model — the lesson-09 cost model from the command line.
 *
 *   scaling_model --compute-ms 120 --bytes 1.1e6 --link nvlink --cores 2 --max-ranks 8 [--overlap]
 *   scaling_model --measured FILE ...      also print measured step times (lines "N ms") beside the model
 *
 * Prints, for N = 1 .. max-ranks: the predicted all-reduce time, step time, speed-up and efficiency,
 * and with --measured the measured ones and the relative error of the prediction. */
#include "cli.h"
#include "link.h"
#include "scaling.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 1024

/* Lines "N milliseconds" (lab.sh writes them; blank lines and # comments allowed) into meas[N]. A
 * line that is anything else is refused, naming it: skipping it would compare the model with
 * fewer measurements than the user thinks. */
static void read_measured(const char *path, double *meas) {
    size_t len = 0;
    char *text = (char *)dp_read_file(path, &len); /* a regular file only: a FIFO would hang */
    if (!text)
        dp_fatal("cannot read --measured %s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
    if (memchr(text, 0, len)) dp_fatal("%s is not a text file of 'N milliseconds' lines", path);
    int lineno = 1;
    for (char *line = text, *next; line && *line; line = next, lineno++) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        line[strcspn(line, "\r")] = 0;
        const char *p = line + strspn(line, " \t");
        if (!*p || *p == '#') continue;
        int n = 0, used = 0;
        double ms = 0;
        if (sscanf(p, "%d %lf %n", &n, &ms, &used) != 2 || p[used] != 0)
            dp_fatal("%s:%d: want 'N milliseconds' (e.g. '4 123.5'), got '%.80s'", path, lineno, line);
        if (n < 1 || n > MAX_N) dp_fatal("%s:%d: N = %d is outside 1..%d", path, lineno, n, MAX_N);
        if (!isfinite(ms) || ms <= 0)
            dp_fatal("%s:%d: a step time of %g ms for N = %d; it must be above 0", path, lineno, ms, n);
        if (meas[n] > 0) dp_fatal("%s:%d: N = %d is measured twice", path, lineno, n);
        meas[n] = ms;
    }
    free(text);
    if (meas[1] <= 0) dp_fatal("%s has no line for N = 1, which every measured speed-up is relative to", path);
}

int main(int argc, char **argv) {
    double compute_ms = 100, bytes = 1e6, alpha_us = -1, gbps = -1, slowdown = LINK_DEFAULT_SLOWDOWN;
    int cores = 2, max_ranks = 8, buckets = 1;
    const char *link = "off", *measured = NULL;
    bool overlap = false;
    const cli_opt_t opts[] = {
        {"compute-ms", CLI_FLOAT, &compute_ms, "compute time of one step on one rank (ms)", .min = 0, .max = 1e9},
        {"bytes", CLI_FLOAT, &bytes, "gradient bytes all-reduced per step", .min = 0, .max = 1e15},
        {"link", CLI_CHOICE, &link, "link preset", .choices = "off|nvlink|pcie|ib|ethernet"},
        {"link-latency-us", CLI_FLOAT, &alpha_us, "alpha in us (-1: from --link)", .min = -1, .max = 1e9},
        {"link-gbps", CLI_FLOAT, &gbps, "beta in Gbit/s (-1: from --link)", .min = -1, .max = 1e9},
        {"link-slowdown", CLI_FLOAT, &slowdown, "the presets' slow-motion factor", .min = 1e-3, .max = 1e9},
        {"cores", CLI_INT, &cores, "cores shared by all ranks", .min = 1, .max = 1 << 20},
        {"buckets", CLI_INT, &buckets, "all-reduces per step (DDP's buckets)", .min = 1, .max = 1 << 20},
        {"max-ranks", CLI_INT, &max_ranks, "largest N", .min = 1, .max = 1 << 20},
        {"overlap", CLI_FLAG, &overlap, "assume overlap: max(compute, comm), a lower bound (only backward hides comm)"},
        {"measured", CLI_STRING, &measured, "file of \"N milliseconds\" lines to compare with"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "scaling_model [options]");
    link_t l;
    if (!link_from_preset(link, slowdown, &l)) cli_usage_error("unknown link %s", link);
    /* as for the trainers' --link-*: -1 is "from --link", 0 bandwidth is not a bandwidth */
    if (alpha_us != -1 && alpha_us < 0)
        cli_usage_error("--link-latency-us expects 0 or more microseconds, or -1 for the --link preset's, got %g",
                        alpha_us);
    if (gbps != -1 && gbps <= 0)
        cli_usage_error("--link-gbps expects a bandwidth above 0 Gbit/s, or -1 for the --link preset's, got %g; "
                        "for no bandwidth limit, use --link off and leave --link-gbps out",
                        gbps);
    if (alpha_us >= 0) l.latency_s = alpha_us * 1e-6;
    if (gbps > 0) l.bytes_per_s = gbps * 1e9 / 8;
    double meas[MAX_N + 1] = {0};
    if (measured) read_measured(measured, meas);
    printf("# compute %.3f ms on 1 rank, %d cores, %.0f bytes in %d bucket(s), alpha %.3f ms, beta %.3f MB/s, overlap "
           "%s\n",
           compute_ms, cores, bytes, buckets, l.latency_s * 1e3, l.bytes_per_s / 1e6, overlap ? "yes" : "no");
    /* S: speed-up T(1)/T(N), E: efficiency T(1)/(N·T(N)); the model's first, then the measured ones */
    printf("%5s %12s %12s %10s %10s %12s %10s %10s %8s\n", "N", "allreduce_ms", "model_ms", "model_S", "model_E",
           "measured_ms", "measured_S", "measured_E", "error");
    double t1 = predict_step(compute_ms, 1, cores, bytes, buckets, l.latency_s * 1e3, l.bytes_per_s / 1e3, overlap);
    for (int N = 1; N <= max_ranks; N++) {
        /* everything in milliseconds: alpha in ms, beta in bytes per ms */
        double ar = buckets * ring_allreduce_time(bytes / buckets, N, l.latency_s * 1e3, l.bytes_per_s / 1e3);
        double t = predict_step(compute_ms, N, cores, bytes, buckets, l.latency_s * 1e3, l.bytes_per_s / 1e3, overlap);
        printf("%5d %12.3f %12.3f %10.3f %10.3f", N, ar, t, t1 / t, efficiency(t1, t, N));
        if (meas[N] > 0 && meas[1] > 0)
            printf(" %12.3f %10.3f %10.3f %7.1f%%", meas[N], meas[1] / meas[N], efficiency(meas[1], meas[N], N),
                   100 * (t - meas[N]) / meas[N]);
        printf("\n");
    }
    return 0;
}
