/* noise_ddp.c — lesson 05's DDP step, measuring what the gradient noise scale needs (noise_scale.h):
 * each bucket's squared norm as it is launched, the averaged gradient's after the all-reduces. */
#include "noise_scale.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NHIST = 5 }; /* small_sq, big_sq, g2, tr Σ, B_simple */

/* The bucket holds this rank's gradient already scaled by 1/N (lesson 05's hook averages before the
 * all-reduce), and the all-reduce will overwrite it in place: now is the one moment its squared norm
 * is at hand, its bytes still in cache from backward. N² undoes the 1/N. */
static void measured_launch(ddp_t *d, int b) {
    noise_ddp_t *nd = (noise_ddp_t *)d;
    if (b < 0 || b >= d->nbuckets) ddp_launch(d, b); /* no such bucket: ddp_launch says so, in one line */
    const ddp_bucket_t *bk = &d->buckets[b];
    double N = d->world_size;
    nd->local_sq += N * N * ops_sumsq(d->t->ops, d->t->model.grads + bk->offset, bk->count);
    ddp_launch(d, b);
}

float noise_ddp_forward_backward(noise_ddp_t *nd) {
    nd->local_sq = 0; /* measured_launch adds every bucket's */
    return ddp_forward_backward(&nd->ddp);
}

void noise_ddp_mean2(noise_ddp_t *nd, double a, double b, double *mean_a, double *mean_b) {
    trainer_t *t = nd->ddp.t;
    if (!mean_a || !mean_b)
        dp_fatal("noise_ddp_mean2: %s is NULL: pass where the mean goes", !mean_a ? "mean_a" : "mean_b");
    double v[2] = {a, b}, sum[2] = {a, b};
    if (t->world_size > 1) comm_lib_allreduce(t->infra, v, sum, 2, DT_F64, REDOP_SUM);
    *mean_a = sum[0] / t->world_size;
    *mean_b = sum[1] / t->world_size;
}

static double debias(const noise_scale_t *ns, double avg) {
    return ns->steps > 0 ? avg / (1 - pow(ns->decay, (double)ns->steps)) : NAN;
}
double noise_scale_g2(const noise_scale_t *ns) { return debias(ns, ns->g2_avg); }
double noise_scale_trace(const noise_scale_t *ns) { return debias(ns, ns->s_avg); }

cli_opt_t *noise_cli_options(noise_options_t *o, const cli_opt_t *more) {
    o->enabled = false;
    o->decay = 0.95;
    const cli_opt_t table[] = {
        {"noise-scale", CLI_FLAG, &o->enabled,
         "estimate the gradient noise scale B_simple every step (into --loss-csv and --stats); needs 2 ranks or more"},
        {"noise-decay", CLI_FLOAT, &o->decay, "decay of the running averages of |G|² and tr(Σ)", .min = 0,
         .max = 0.99999},
        CLI_END,
    };
    return cli_join(table, more);
}

static void csv_extra(trainer_t *t, char *buf, size_t n) {
    const noise_ddp_t *nd = t->ext;
    const double v[5] = {nd->small_sq, nd->big_sq, noise_scale_g2(&nd->ns), noise_scale_trace(&nd->ns), nd->b_simple};
    size_t used = 0;
    for (int k = 0; k < 5 && used < n; k++) /* "nan", never "-nan": one spelling for whoever reads the file */
        used += (size_t)(isnan(v[k]) ? snprintf(buf + used, n - used, "%snan", k ? "," : "")
                                     : snprintf(buf + used, n - used, "%s%.9g", k ? "," : "", v[k]));
}

static void stats_extra(trainer_t *t, void *json_root) {
    const noise_ddp_t *nd = t->ext;
    cJSON *o = cJSON_AddObjectToObject(json_root, "noise_scale");
    cJSON_AddNumberToObject(o, "b", t->local_batch);
    cJSON_AddNumberToObject(o, "B", (double)t->local_batch * t->world_size);
    cJSON_AddNumberToObject(o, "decay", nd->ns.decay);
    cJSON_AddNumberToObject(o, "b_simple", isfinite(nd->b_simple) ? nd->b_simple : -1);
    static const char *names[NHIST] = {"small_sq", "big_sq", "g2", "trace_sigma", "b_simple"};
    int64_t first = t->step - t->steps_timed;
    for (int k = 0; k < NHIST; k++) {
        cJSON *a = cJSON_AddArrayToObject(o, names[k]);
        for (int64_t s = first; s < t->step; s++) {
            double v = nd->history[(size_t)s * NHIST + (size_t)k];
            cJSON_AddItemToArray(a, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
        }
    }
}

void noise_ddp_setup(noise_ddp_t *nd, trainer_t *t, const ddp_options_t *d, const noise_options_t *o) {
    memset(nd, 0, sizeof *nd);
    ddp_setup(&nd->ddp, t, d); /* t->ext = &nd->ddp == nd */
    nd->enabled = o->enabled;
    nd->ns = (noise_scale_t){.decay = o->decay};
    nd->b_simple = NAN;
    if (!nd->enabled) return;
    if (t->world_size < 2)
        cli_usage_error("--noise-scale compares each rank's gradient with their mean: run it on 2 ranks or more");
    nd->ddp.launch = measured_launch;
    nd->history = dp_calloc((size_t)t->cfg.steps + 1, NHIST * sizeof(double));
    t->csv_extra_header = "small_sq,big_sq,g2,trace_sigma,b_simple";
    t->csv_extra = csv_extra;
    t->stats_extra = stats_extra;
    if (t->rank == 0)
        logger_line(&t->log, "noise scale: b = %d per rank, B = %d, running averages with decay %g", t->local_batch,
                    t->local_batch * t->world_size, o->decay);
}

float noise_ddp_step_logged(trainer_t *t, double lr) {
    noise_ddp_t *nd = t->ext;
    float loss = noise_ddp_train_step(t, lr);
    if (nd->enabled) {
        double *h = nd->history + (size_t)t->step * NHIST;
        h[0] = nd->small_sq, h[1] = nd->big_sq, h[2] = noise_scale_g2(&nd->ns), h[3] = noise_scale_trace(&nd->ns);
        h[4] = nd->b_simple;
        if (t->rank == 0 && (t->step + 1) % t->cfg.log_every == 0)
            logger_line(&t->log, "step %6lld | noise scale B_simple %.1f (|G|² %.4g, tr Σ %.4g)",
                        (long long)t->step + 1, nd->b_simple, h[2], h[3]);
    }
    return loss;
}

void noise_ddp_free(noise_ddp_t *nd) {
    if (nd->enabled && nd->ddp.t->rank == 0 && nd->ddp.t->steps_timed > 0)
        logger_line(&nd->ddp.t->log, "noise scale: B_simple %.1f at the end (|G|² %.4g, tr Σ %.4g)", nd->b_simple,
                    noise_scale_g2(&nd->ns), noise_scale_trace(&nd->ns));
    free(nd->history);
    ddp_free(&nd->ddp);
}
