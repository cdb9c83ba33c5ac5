/* measure — this machine's α and β, by ping-pong over a range of message sizes.
 *
 *   grading/mpirun -np 2 build/lessons/00-launch/measure [--max-bytes 16777216] [--out alpha_beta.json]
 *
 * Prints a table (size, one-way time, bandwidth) and the fitted line. Try it with the link emulator
 * (--link pcie, or --link-latency-us 50 --link-gbps 10) and see the fit recover the emulated link. */
#include "cli.h"
#include "comm.h"
#include "output.h"
#include "pingpong.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    int max_bytes = 1 << 24, iters = 20, repeat = 1;
    const char *out = NULL;
    const cli_opt_t mine[] = {
        {"max-bytes", CLI_INT, &max_bytes, "largest message", .min = 1, .max = 1 << 30},
        {"iters", CLI_INT, &iters, "round trips per size", .min = 1, .max = 1 << 20},
        {"repeat", CLI_INT, &repeat, "ping-pongs per size (of --iters round trips each); the fastest counts", .min = 1,
         .max = 1000},
        {"out", CLI_STRING, &out, "write {alpha_s, beta_bytes_per_s} as JSON here"},
        CLI_END,
    };
    cli_opt_t *comm_opts = comm_cli_opts(&o), *opts = cli_join(mine, comm_opts);
    cli_parse(argc, argv, opts, "measure [options]  (run on 2 ranks)");
    free(opts);
    free(comm_opts);
    comm_t *c = comm_init(&argc, &argv, &o);
    int r = comm_rank(c);
    if (r == 0) dp_check_output("--out", out);
    if (comm_world_size(c) < 2) dp_fatal("measure needs at least 2 ranks: grading/mpirun -np 2 %s", dp_progname());
    unsigned char *buf = dp_calloc((size_t)max_bytes, 1);
    double bytes[40], secs[40];
    int n = 0;
    pingpong(c, buf, 1, 5); /* warm up: connections, page faults */
    if (r == 0) printf("%12s %14s %14s\n", "bytes", "one-way (us)", "GB/s");
    /* 0 bytes first: the empty message measures α directly; then 8 B and every fourfold size */
    for (size_t b = 0; b <= (size_t)max_bytes && n < 40; b = b ? b * 4 : 8) {
        int it = b > (1u << 20) ? (iters + 3) / 4 : iters;
        /* the fastest of `repeat` ping-pongs: on a busy machine other work only ever ADDS time (a
         * rank that is not scheduled answers late), so the minimum is the estimate least polluted */
        double t = pingpong(c, buf, b, it);
        for (int k = 1; k < repeat; k++) {
            double tk = pingpong(c, buf, b, it);
            if (tk < t) t = tk;
        }
        if (r == 0) printf("%12zu %14.2f %14.3f\n", b, t * 1e6, t > 0 ? (double)b / t / 1e9 : 0.0);
        bytes[n] = (double)b;
        secs[n++] = t;
    }
    if (r == 0) {
        double alpha = 0, beta = 0;
        fit_alpha_beta(bytes, secs, n, &alpha, &beta);
        printf("fit: alpha = %.2f us, beta = %.3f GB/s (T(b) = alpha + b/beta)\n", alpha * 1e6, beta / 1e9);
        if (out) {
            dp_out_t f;
            if (dp_out_open(&f, out) != 0) dp_fatal("cannot write %s: %s", out, strerror(errno));
            fprintf(f.f, "{\"alpha_s\": %.9g, \"beta_bytes_per_s\": %.9g}\n", alpha, beta);
            if (dp_out_close(&f) != 0) dp_fatal("cannot write %s: %s", out, strerror(errno));
        }
    }
    free(buf);
    comm_finalize(c);
    return 0;
}
