/* gpt_oracle.c — see gpt_oracle.h. */
#include "gpt_oracle.h"

#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const flat_layout_t *layout;
    const double *p;
} oracle_t;

static const double *tensor(const oracle_t *o, const char *fmt, int block) {
    char name[FLAT_MAX_NAME];
    snprintf(name, sizeof name, fmt, block);
    int i = flat_layout_find(o->layout, name);
    if (i < 0) dp_fatal("grader error: the float64 oracle finds no tensor named %s in the layout", name);
    return o->p + o->layout->views[i].offset;
}

/* y[n, j] = Σ_k x[n, k]·w[j, k] + b[j] (b may be NULL) — nn.Linear */
static void lin64(const double *x, const double *w, const double *b, int N, int in, int out, double *y) {
    for (int n = 0; n < N; n++)
        for (int j = 0; j < out; j++) {
            double s = b ? b[j] : 0;
            for (int k = 0; k < in; k++) s += x[(size_t)n * in + k] * w[(size_t)j * in + k];
            y[(size_t)n * out + j] = s;
        }
}

static void ln64(const double *x, const double *w, const double *b, int N, int C, double *y) {
    for (int n = 0; n < N; n++) {
        const double *r = x + (size_t)n * C;
        double m = 0, v = 0;
        for (int c = 0; c < C; c++) m += r[c] / C;
        for (int c = 0; c < C; c++) v += (r[c] - m) * (r[c] - m) / C;
        for (int c = 0; c < C; c++) y[(size_t)n * C + c] = (r[c] - m) / sqrt(v + 1e-5) * w[c] + b[c];
    }
}

double gpt_oracle_loss(const gpt_t *g, const double *p, const int32_t *tok, const int32_t *tgt, int B, int T,
                       double *out_logits) {
    oracle_t o = {&g->layout, p};
    int C = g->cfg.channels, V = g->cfg.vocab, NH = g->cfg.heads, hs = C / NH, N = B * T;
    double *x = calloc((size_t)N * C, sizeof(double)), *h = calloc((size_t)N * C, sizeof(double));
    double *big = calloc((size_t)N * 4 * C, sizeof(double)), *y = calloc((size_t)N * C, sizeof(double));
    double *tmp = calloc((size_t)N * C, sizeof(double)), *logits = calloc((size_t)N * V, sizeof(double));
    const double *wte = tensor(&o, "transformer.wte.weight", 0), *wpe = tensor(&o, "transformer.wpe.weight", 0);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++)
                x[((size_t)b * T + t) * C + c] = wte[(size_t)tok[b * T + t] * C + c] + wpe[(size_t)t * C + c];
    for (int l = 0; l < g->cfg.layers; l++) {
        ln64(x, tensor(&o, "transformer.h.%d.ln_1.weight", l), tensor(&o, "transformer.h.%d.ln_1.bias", l), N, C, h);
        lin64(h, tensor(&o, "transformer.h.%d.attn.c_attn.weight", l),
              tensor(&o, "transformer.h.%d.attn.c_attn.bias", l), N, C, 3 * C, big);
        for (int b = 0; b < B; b++)
            for (int hd = 0; hd < NH; hd++)
                for (int t = 0; t < T; t++) {
                    double w[1024], mx = -INFINITY, sum = 0;
                    const double *q = big + ((size_t)b * T + t) * 3 * C + hd * hs;
                    for (int s = 0; s <= t; s++) {
                        const double *k = big + ((size_t)b * T + s) * 3 * C + C + hd * hs;
                        w[s] = 0;
                        for (int i = 0; i < hs; i++) w[s] += q[i] * k[i] / sqrt((double)hs);
                        mx = fmax(mx, w[s]);
                    }
                    for (int s = 0; s <= t; s++) sum += (w[s] = exp(w[s] - mx));
                    for (int i = 0; i < hs; i++) {
                        double acc = 0;
                        for (int s = 0; s <= t; s++)
                            acc += w[s] / sum * big[((size_t)b * T + s) * 3 * C + 2 * C + hd * hs + i];
                        y[((size_t)b * T + t) * C + hd * hs + i] = acc;
                    }
                }
        lin64(y, tensor(&o, "transformer.h.%d.attn.c_proj.weight", l),
              tensor(&o, "transformer.h.%d.attn.c_proj.bias", l), N, C, C, tmp);
        for (size_t i = 0; i < (size_t)N * C; i++) x[i] += tmp[i];
        ln64(x, tensor(&o, "transformer.h.%d.ln_2.weight", l), tensor(&o, "transformer.h.%d.ln_2.bias", l), N, C, h);
        lin64(h, tensor(&o, "transformer.h.%d.mlp.c_fc.weight", l), tensor(&o, "transformer.h.%d.mlp.c_fc.bias", l), N,
              C, 4 * C, big);
        for (size_t i = 0; i < (size_t)N * 4 * C; i++) {
            double u = big[i];
            big[i] = 0.5 * u * (1 + tanh(sqrt(2 / acos(-1.0)) /* √(2/π) */ * (u + 0.044715 * u * u * u)));
        }
        lin64(big, tensor(&o, "transformer.h.%d.mlp.c_proj.weight", l),
              tensor(&o, "transformer.h.%d.mlp.c_proj.bias", l), N, 4 * C, C, tmp);
        for (size_t i = 0; i < (size_t)N * C; i++) x[i] += tmp[i];
    }
    ln64(x, tensor(&o, "transformer.ln_f.weight", 0), tensor(&o, "transformer.ln_f.bias", 0), N, C, h);
    lin64(h, wte, NULL, N, C, V, logits); /* the tied head */
    double total = 0;
    int counted = 0;
    for (int n = 0; n < N; n++) {
        if (tgt[n] < 0) continue;
        const double *z = logits + (size_t)n * V;
        double mx = -INFINITY, sum = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, z[v]);
        for (int v = 0; v < V; v++) sum += exp(z[v] - mx);
        total += log(sum) + mx - z[tgt[n]];
        counted++;
    }
    if (out_logits) memcpy(out_logits, logits, (size_t)N * V * sizeof(double));
    free(x), free(h), free(big), free(y), free(tmp), free(logits);
    return counted ? total / counted : 0;
}

double gpt_oracle_slope(const gpt_t *m, double *p, size_t offset, size_t numel, const double *u, double eps,
                        const int32_t *tok, const int32_t *tgt, int B, int T) {
    double *keep = malloc(numel * sizeof(double));
    memcpy(keep, p + offset, numel * sizeof(double));
    for (size_t k = 0; k < numel; k++) p[offset + k] = keep[k] + eps * (u ? u[k] : 1.0);
    double up = gpt_oracle_loss(m, p, tok, tgt, B, T, NULL);
    for (size_t k = 0; k < numel; k++) p[offset + k] = keep[k] - eps * (u ? u[k] : 1.0);
    double down = gpt_oracle_loss(m, p, tok, tgt, B, T, NULL);
    memcpy(p + offset, keep, numel * sizeof(double));
    free(keep);
    return (up - down) / (2 * eps);
}

double *gpt_oracle_params(const gpt_t *m) {
    double *p = malloc(m->layout.numel * sizeof(double));
    for (size_t i = 0; i < m->layout.numel; i++) p[i] = m->params[i];
    return p;
}

void gpt_oracle_redraw(gpt_t *m, uint64_t seed) {
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < m->layout.count; i++) {
        const flat_view_t *v = &m->layout.views[i];
        int is_ln_w = strstr(v->name, "ln_") && strstr(v->name, ".weight");
        for (size_t k = 0; k < v->numel; k++)
            m->params[v->offset + k] = (is_ln_w ? 1.0f : 0.0f) + 0.3f * rng_normal(&r);
    }
}
