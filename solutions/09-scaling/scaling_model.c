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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
        {"overlap", CLI_FLAG, &overlap, "assume perfect overlap: max(compute, comm)"},
        {"measured", CLI_STRING, &measured, "file of \"N milliseconds\" lines to compare with"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "scaling_model [options]");
    link_t l;
    if (!link_from_preset(link, slowdown, &l)) cli_usage_error("unknown link %s", link);
    if (alpha_us >= 0) l.latency_s = alpha_us * 1e-6;
    if (gbps >= 0) l.bytes_per_s = gbps * 1e9 / 8;
    double meas[1025] = {0};
    if (measured) {
        FILE *f = fopen(measured, "r");
        if (!f) dp_fatal("cannot read %s", measured);
        int n;
        double ms;
        while (fscanf(f, "%d %lf", &n, &ms) == 2)
            if (n >= 1 && n <= 1024) meas[n] = ms;
        fclose(f);
    }
    printf("# compute %.3f ms on 1 rank, %d cores, %.0f bytes in %d bucket(s), alpha %.3f ms, beta %.3f MB/s, overlap %s\n",
           compute_ms, cores, bytes, buckets, l.latency_s * 1e3, l.bytes_per_s / 1e6, overlap ? "yes" : "no");
    printf("%5s %12s %12s %10s %10s %12s %10s %10s %8s\n", "N", "allreduce_ms", "step_ms", "speedup", "efficiency",
           "measured_ms", "speedup", "efficiency", "error");
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
