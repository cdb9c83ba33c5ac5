/* check01 — the grader's unit checks of lesson 01 (linked with the submission's lesson-01 code).
 *
 *   check01 linear_backward | xent_backward | adamw | gradcheck
 *
 * Each compares the student's function with an independent float64 oracle written here with plain
 * loops (and, for the gradients, with central finite differences in float64), on random inputs with
 * every output poisoned (NaN) first. When the result is wrong it tries the usual mistakes and names
 * the one that matches. */
#include "checklib.h"
#include "layers.h"
#include "model.h"
#include "optim.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ops_t *cpu(void) {
    static ops_t *ops;
    if (!ops) ops = ops_create(OPS_CPU, 1);
    return ops;
}

/* ---- linear_backward ----------------------------------------------------------------------- */

static int check_linear(int B, int in, int out, uint64_t seed) {
    rng_t r;
    rng_init(&r, seed);
    size_t nx = (size_t)B * in, nw = (size_t)out * in, ny = (size_t)B * out;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *dy = malloc(ny * 4), *dx = malloc(nx * 4);
    float *dw = malloc(nw * 4), *db = malloc((size_t)out * 4), *dw0 = malloc(nw * 4), *db0 = malloc((size_t)out * 4);
    ck_random(&r, x, nx);
    ck_random(&r, w, nw);
    ck_random(&r, dy, ny);
    ck_random(&r, dw0, nw);
    ck_random(&r, db0, (size_t)out);
    memcpy(dw, dw0, nw * 4);
    memcpy(db, db0, (size_t)out * 4);
    ck_poison(dx, nx);
    linear_backward(cpu(), x, w, dy, B, in, out, dx, dw, db);
    ck_tape("linear_backward dx", dx, nx * 4);
    ck_tape("linear_backward dw", dw, nw * 4);
    ck_tape("linear_backward db", db, (size_t)out * 4);

    double *ex = calloc(nx, 8), *ew = calloc(nw, 8), *eb = calloc((size_t)out, 8);
    double *ewt = calloc(nw, 8), *ew_new = calloc(nw, 8), *eb_first = calloc((size_t)out, 8), *eb_mean = calloc((size_t)out, 8);
    for (int i = 0; i < B; i++)
        for (int k = 0; k < in; k++)
            for (int j = 0; j < out; j++) ex[(size_t)i * in + k] += (double)dy[(size_t)i * out + j] * w[(size_t)j * in + k];
    for (int j = 0; j < out; j++)
        for (int k = 0; k < in; k++) {
            double s = 0;
            for (int i = 0; i < B; i++) s += (double)dy[(size_t)i * out + j] * x[(size_t)i * in + k];
            ew_new[(size_t)j * in + k] = s;
            ew[(size_t)j * in + k] = dw0[(size_t)j * in + k] + s;
            /* Xᵀ·dY laid out [in, out] in the same memory: the transposed-product mistake */
            ewt[(size_t)k * out + j] = dw0[(size_t)k * out + j] + s;
        }
    for (int j = 0; j < out; j++) {
        double s = 0;
        for (int i = 0; i < B; i++) s += dy[(size_t)i * out + j];
        eb[j] = db0[j] + s;
        eb_first[j] = db0[j] + dy[j];
        eb_mean[j] = db0[j] + s / B;
    }
    /* Central differences in float64 of L(W) = Σ dY ⊙ (X·Wᵀ + b): an independent route to dW. */
    double fd_worst = 0;
    for (int j = 0; j < out; j++)
        for (int k = 0; k < in; k++) {
            double h = 1e-3, lp = 0, lm = 0;
            for (int i = 0; i < B; i++) {
                double y = 0;
                for (int q = 0; q < in; q++) y += (double)x[(size_t)i * in + q] * w[(size_t)j * in + q];
                double wp = y + h * x[(size_t)i * in + k], wm = y - h * x[(size_t)i * in + k];
                lp += dy[(size_t)i * out + j] * wp;
                lm += dy[(size_t)i * out + j] * wm;
            }
            double fd = (lp - lm) / (2 * h);
            fd_worst = fmax(fd_worst, fabs(fd - ew_new[(size_t)j * in + k]));
        }
    if (fd_worst > 1e-6) printf("  (grader self-check: finite differences disagree with the oracle by %.3g)\n", fd_worst);

    int bad = 0;
    if (ck_has_nonfinite(dx, nx)) {
        printf("FAIL: dx still holds the NaN it was filled with: dX = dY·W is never written\n");
        bad = 1;
    } else if (!ck_close(dx, ex, nx, 1e-5)) {
        printf("FAIL: dx is wrong; expected dX = dY·W ([B,out]·[out,in] = [B,in])\n");
        ck_describe("dx", dx, ex, nx);
        bad = 1;
    }
    if (!ck_close(dw, ew, nw, 1e-5)) {
        bad = 1;
        float *delta = malloc(nw * 4);
        for (size_t i = 0; i < nw; i++) delta[i] = dw[i] - dw0[i];
        if (ck_close_f(dw, dw0, nw, 1e-7))
            printf("FAIL: dw is unchanged: dW += dYᵀ·X is never computed\n");
        else if (ck_close(dw, ew_new, nw, 1e-5))
            printf("FAIL: dw was overwritten: gradients ACCUMULATE (dW += dYᵀ·X, gemm with beta = 1)\n");
        else if (in != out && ck_close(dw, ewt, nw, 1e-5))
            printf("FAIL: dw holds a transposed product (Xᵀ·dY, [in,out]): it must be dYᵀ·X, shape [out,in]\n");
        else {
            double *scaled = malloc(nw * 8);
            for (size_t i = 0; i < nw; i++) scaled[i] = ew_new[i] / B;
            if (ck_close(delta, scaled, nw, 1e-5))
                printf("FAIL: dw is 1/B of the expected gradient: do not divide by the batch here (the 1/B is "
                       "already inside dY)\n");
            else {
                printf("FAIL: dw is wrong; expected dW += dYᵀ·X ([out,B]·[B,in])\n");
                ck_describe("dw", dw, ew, nw);
            }
            free(scaled);
        }
        free(delta);
    }
    if (!ck_close(db, eb, (size_t)out, 1e-5)) {
        bad = 1;
        double *overwrite = malloc((size_t)out * 8);
        for (int j = 0; j < out; j++) overwrite[j] = eb[j] - db0[j];
        if (ck_close_f(db, db0, (size_t)out, 1e-7))
            printf("FAIL: db is unchanged: db += Σ_batch dY is never computed\n");
        else if (B > 1 && ck_close(db, eb_first, (size_t)out, 1e-5))
            printf("FAIL: db holds only the first example's dY: the bias gradient is the SUM of dY over the batch\n");
        else if (B > 1 && ck_close(db, eb_mean, (size_t)out, 1e-5))
            printf("FAIL: db is the MEAN of dY over the batch: sum it (the 1/B is already inside dY)\n");
        else if (ck_close(db, overwrite, (size_t)out, 1e-5))
            printf("FAIL: db was overwritten: gradients ACCUMULATE (db += Σ dY)\n");
        else {
            printf("FAIL: db is wrong; expected db += Σ over the batch of dY\n");
            ck_describe("db", db, eb, (size_t)out);
        }
        free(overwrite);
    }
    /* dx == NULL: the first layer's input needs no gradient; must not crash or touch anything. */
    linear_backward(cpu(), x, w, dy, B, in, out, NULL, dw, db);
    ck_tape("linear_backward with dx = NULL returned", NULL, 0);
    free(x), free(w), free(dy), free(dx), free(dw), free(db), free(dw0), free(db0);
    free(ex), free(ew), free(eb), free(ewt), free(ew_new), free(eb_first), free(eb_mean);
    return bad;
}

static int linear_backward_check(void) {
    int bad = check_linear(5, 7, 3, 11);
    if (!bad) bad = check_linear(16, 24, 40, 12);
    if (!bad) bad = check_linear(1, 3, 2, 13);
    if (!bad) printf("dX, dW and db agree with the float64 oracle and finite differences\n");
    return bad;
}

/* ---- xent_backward ------------------------------------------------------------------------- */

static double xent_loss64(const float *z, const int32_t *y, int B, int V, double scale) {
    double total = 0;
    for (int b = 0; b < B; b++) {
        double m = -INFINITY, s = 0;
        for (int v = 0; v < V; v++) m = fmax(m, z[(size_t)b * V + v]);
        for (int v = 0; v < V; v++) s += exp(z[(size_t)b * V + v] - m);
        total += log(s) + m - z[(size_t)b * V + y[b]];
    }
    return scale * total / B;
}

static int xent_backward_check(void) {
    int B = 6, V = 5;
    float gs = 0.5f;
    rng_t r;
    rng_init(&r, 21);
    size_t n = (size_t)B * V;
    float *z = malloc(n * 4), *p = malloc(n * 4), *d = malloc(n * 4), *losses = malloc((size_t)B * 4);
    int32_t y[6];
    ck_random(&r, z, n);
    for (size_t i = 0; i < n; i++) z[i] *= 3;
    for (int b = 0; b < B; b++) y[b] = (int32_t)rng_below(&r, (uint32_t)V);
    /* probabilities from the oracle, rounded to float */
    for (int b = 0; b < B; b++) {
        double m = -INFINITY, s = 0;
        for (int v = 0; v < V; v++) m = fmax(m, z[(size_t)b * V + v]);
        for (int v = 0; v < V; v++) s += exp(z[(size_t)b * V + v] - m);
        for (int v = 0; v < V; v++) p[(size_t)b * V + v] = (float)(exp(z[(size_t)b * V + v] - m) / s);
    }
    ck_poison(d, n);
    xent_backward(p, y, B, V, gs, d);
    ck_tape("xent_backward dlogits", d, n * 4);

    double *want = malloc(n * 8), *alt = malloc(n * 8), *fd = malloc(n * 8);
    for (int b = 0; b < B; b++)
        for (int v = 0; v < V; v++) want[(size_t)b * V + v] = gs * ((double)p[(size_t)b * V + v] - (v == y[b])) / B;
    /* central differences of the float64 loss, an independent route */
    double fd_worst = 0;
    for (size_t i = 0; i < n; i++) {
        float keep = z[i];
        double h = 1e-3;
        z[i] = keep + (float)h;
        double lp = xent_loss64(z, y, B, V, gs);
        z[i] = keep - (float)h;
        double lm = xent_loss64(z, y, B, V, gs);
        z[i] = keep;
        double hh = ((double)(keep + (float)h) - (double)(keep - (float)h)) / 2;
        fd[i] = (lp - lm) / (2 * hh);
        fd_worst = fmax(fd_worst, fabs(fd[i] - want[i]));
    }
    if (fd_worst > 1e-5) printf("  (grader self-check: finite differences disagree with the oracle by %.3g)\n", fd_worst);
    int bad = 0;
    if (ck_has_nonfinite(d, n)) {
        printf("FAIL: dlogits still holds the NaN it was filled with: it is never (fully) written\n");
        bad = 1;
    } else if (!ck_close(d, fd, n, 1e-4)) {
        bad = 1;
#define TRY(expr, msg)                                                                                                 \
    do {                                                                                                               \
        for (int b = 0; b < B; b++)                                                                                    \
            for (int v = 0; v < V; v++) {                                                                              \
                double pv = p[(size_t)b * V + v], one = (v == y[b]);                                                   \
                (void)pv, (void)one;                                                                                   \
                alt[(size_t)b * V + v] = (expr);                                                                       \
            }                                                                                                          \
        if (ck_close(d, alt, n, 1e-4)) {                                                                               \
            printf("FAIL: %s\n", msg);                                                                                 \
            goto explained;                                                                                            \
        }                                                                                                              \
    } while (0)
        TRY(gs * (pv - one), "dlogits is B times too large: the loss is a MEAN over the batch, divide by B");
        TRY((pv - one) / B, "dlogits ignores grad_scale: multiply by it (it is 1/k when k micro-batches accumulate)");
        TRY(pv - one, "dlogits ignores both grad_scale and the 1/B of the mean");
        TRY(gs * pv / B, "dlogits is p/B: subtract 1 at the target class (∂(−log p_y)/∂z_v = p_v − [v = y])");
        TRY(-gs * (pv - one) / B, "dlogits has the wrong sign: it is (p − onehot)/B, not (onehot − p)/B");
        TRY(gs * (pv - one) / (B * B), "dlogits is divided by B twice");
        printf("FAIL: dlogits is wrong; expected grad_scale·(p − onehot(target))/B\n");
        ck_describe("dlogits", d, want, n);
    explained:;
    }
    if (!bad) printf("dlogits agrees with the float64 oracle and finite differences\n");
    free(z), free(p), free(d), free(losses), free(want), free(alt), free(fd);
    return bad;
}

/* ---- adamw ----------------------------------------------------------------------------------- */

static int adamw_check(void) {
    int bad = 0;
    adamw_hparams_t hp = {0.9, 0.999, 1e-8, 1e-2};
    /* 1. the 3-step trajectory of pytorch_semantics.md §7.4, float32, rtol 1e-6 */
    float th[4] = {1.0f, -2.0f, 0.5f, 3.0f}, m[4] = {0}, v[4] = {0};
    const float g[3][4] = {{0.1f, -0.2f, 0.3f, -0.4f}, {0.05f, 0.1f, -0.3f, 0.2f}, {-0.1f, 0.0f, 0.25f, 1.0f}};
    const double want[3][4] = {{0.998989999, -1.99897993, 0.498995006, 3.00096989},
                               {0.998047829, -1.99869359, 0.49904263, 3.00120616},
                               {0.99792701, -1.99846768, 0.498748183, 3.00067687}};
    for (int s = 0; s < 3 && !bad; s++) {
        adamw_step(th, g[s], m, v, 4, s + 1, &hp, 1e-3);
        ck_tape("adamw_step trajectory theta", th, sizeof th);
        ck_tape("adamw_step trajectory m", m, sizeof m);
        ck_tape("adamw_step trajectory v", v, sizeof v);
        for (int i = 0; i < 4; i++)
            if (!(fabs(th[i] - want[s][i]) <= 1e-6 * fabs(want[s][i]))) {
                printf("FAIL: the AdamW trajectory of pytorch_semantics.md §7.4 differs at step %d, element %d: got "
                       "%.9g, PyTorch gives %.9g\n",
                       s + 1, i, (double)th[i], want[s][i]);
                bad = 1;
                break;
            }
    }
    /* 2. the moments after one step: m = (1-β1)g, v = (1-β2)g² */
    float t1[2] = {0.3f, -0.7f}, g1[2] = {0.5f, -2.0f}, m1[2] = {0}, v1[2] = {0};
    adamw_step(t1, g1, m1, v1, 2, 1, &hp, 1e-3);
    ck_tape("adamw_step moments theta", t1, sizeof t1);
    ck_tape("adamw_step moments m", m1, sizeof m1);
    ck_tape("adamw_step moments v", v1, sizeof v1);
    for (int i = 0; i < 2; i++) {
        if (!(fabs(m1[i] - 0.1 * g1[i]) <= 1e-6 * fabs(0.1 * g1[i]))) {
            printf("FAIL: after one step m[%d] = %.7g, expected (1 − β1)·g = %.7g: the first moment is not updated "
                   "as m ← m + (1 − β1)(g − m)\n",
                   i, (double)m1[i], 0.1 * g1[i]);
            bad = 1;
        }
        if (!(fabs(v1[i] - 0.001 * g1[i] * g1[i]) <= 1e-5 * 0.001 * g1[i] * g1[i])) {
            printf("FAIL: after one step v[%d] = %.7g, expected (1 − β2)·g² = %.7g: the second moment is not updated "
                   "as v ← β2·v + (1 − β2)·g²\n",
                   i, (double)v1[i], 0.001 * g1[i] * g1[i]);
            bad = 1;
        }
    }
    /* 3. bias correction: from zero state the first step moves by lr·g/(|g|+ε) ≈ lr */
    adamw_hparams_t nodecay = {0.9, 0.999, 1e-8, 0.0};
    float t2 = 0, g2 = 0.5f, m2 = 0, v2 = 0;
    adamw_step(&t2, &g2, &m2, &v2, 1, 1, &nodecay, 1e-3);
    ck_tape("adamw_step bias correction theta", &t2, sizeof t2);
    ck_tape("adamw_step bias correction m", &m2, sizeof m2);
    ck_tape("adamw_step bias correction v", &v2, sizeof v2);
    double moved = -t2 / 1e-3;
    if (!(fabs(moved - 1.0) < 1e-4)) {
        bad = 1;
        if (fabs(moved - 3.1623) < 0.01)
            printf("FAIL: the first step moved θ by %.4g·lr instead of lr: bias correction is missing (m̂ = m/(1−β1ᵗ), "
                   "v̂ = v/(1−β2ᵗ))\n",
                   moved);
        else if (fabs(moved - 31.623) < 0.1)
            printf("FAIL: the first step moved θ by %.4g·lr instead of lr: m is bias-corrected but v is not (divide "
                   "√v by √(1−β2ᵗ))\n",
                   moved);
        else if (fabs(moved - 0.1) < 0.001)
            printf("FAIL: the first step moved θ by %.4g·lr instead of lr: v is bias-corrected but m is not (divide "
                   "by 1−β1ᵗ)\n",
                   moved);
        else
            printf("FAIL: from zero state the first step should move θ by lr·g/(|g|+ε) ≈ lr; it moved %.4g·lr\n", moved);
    }
    /* 4. ε placement: g = 1e-10, θ = 0, λ = 0 ⇒ θ1 = −9.90099e-06 */
    float t3 = 0, g3 = 1e-10f, m3 = 0, v3 = 0;
    adamw_step(&t3, &g3, &m3, &v3, 1, 1, &nodecay, 1e-3);
    ck_tape("adamw_step epsilon theta", &t3, sizeof t3);
    ck_tape("adamw_step epsilon m", &m3, sizeof m3);
    ck_tape("adamw_step epsilon v", &v3, sizeof v3);
    if (!(fabs(t3 + 9.90099e-06) <= 1e-4 * 9.90099e-06)) {
        bad = 1;
        if (t3 == 0)
            printf("FAIL: with g = 1e-10 θ did not move at all (PyTorch moves it to -9.90e-06)\n");
        else if (fabs(t3 + 3.16e-7) < 0.05e-7 || fabs(t3) < 1e-6)
            printf("FAIL: with g = 1e-10 the step is %.4g, PyTorch's is -9.90e-06: ε is inside the square root or added "
                   "before bias correction — it belongs after: √v/√(1−β2ᵗ) + ε\n",
                   (double)t3);
        else
            printf("FAIL: with g = 1e-10 the step is %.4g, PyTorch's is -9.90e-06: check where ε is added "
                   "(denominator √v/√(1−β2ᵗ) + ε)\n",
                   (double)t3);
    }
    /* 5. decoupled weight decay: with g = 0, θ shrinks by exactly (1 − lr·λ) and m, v stay 0 */
    adamw_hparams_t decay = {0.9, 0.999, 1e-8, 0.1};
    float t4[2] = {2.0f, -3.0f}, g4[2] = {0, 0}, m4[2] = {0}, v4[2] = {0};
    adamw_step(t4, g4, m4, v4, 2, 1, &decay, 0.01);
    ck_tape("adamw_step weight decay theta", t4, sizeof t4);
    ck_tape("adamw_step weight decay m", m4, sizeof m4);
    ck_tape("adamw_step weight decay v", v4, sizeof v4);
    for (int i = 0; i < 2; i++) {
        double w = (i == 0 ? 2.0 : -3.0) * (float)(1.0 - 0.01 * 0.1);
        if (fabs(t4[i] - w) <= 1e-6 * fabs(w)) continue;
        bad = 1;
        if (m4[i] != 0)
            printf("FAIL: with a zero gradient the first moment became %.4g: weight decay was added to the gradient "
                   "(L2, like Adam). AdamW decays the parameter directly: θ ← θ·(1 − lr·λ), before the moments\n",
                   (double)m4[i]);
        else if (t4[i] == (i == 0 ? 2.0f : -3.0f))
            printf("FAIL: with a zero gradient θ did not change: the decoupled weight decay θ ← θ·(1 − lr·λ) is "
                   "missing\n");
        else
            printf("FAIL: with a zero gradient θ[%d] became %.8g, expected θ·(1 − lr·λ) = %.8g\n", i, (double)t4[i], w);
        break;
    }
    if (!bad) printf("AdamW matches PyTorch: §7.4 trajectory (rtol 1e-6), moments, bias correction, ε, decay\n");
    return bad;
}

/* ---- gradcheck: the whole model against float64 finite differences ------------------------- */

/* The model's loss in float64 with plain loops: an oracle independent of the code under test. */
static double model_loss64(const model_t *m, const float *params, const int32_t *ctx, const int32_t *tg, int B) {
    const model_config_t *c = &m->cfg;
    const flat_layout_t *L = &m->layout;
    int T = c->context, E = c->embed, H = c->hidden, V = c->vocab;
    size_t width = (size_t)(H > T * E ? H : T * E);
    double *a = calloc(width, 8), *b = calloc(width, 8), total = 0;
    for (int e = 0; e < B; e++) {
        for (int t = 0; t < T; t++)
            for (int k = 0; k < E; k++) a[t * E + k] = params[L->views[0].offset + (size_t)ctx[e * T + t] * E + k];
        int in = T * E;
        for (int l = 0; l <= c->layers; l++) {
            int out = l == c->layers ? V : H;
            const float *W = params + L->views[model_weight(l)].offset, *bias = params + L->views[model_bias(l)].offset;
            for (int j = 0; j < out; j++) {
                double s = bias[j];
                for (int k = 0; k < in; k++) s += (double)W[(size_t)j * in + k] * a[k];
                b[j] = l == c->layers ? s : tanh(s);
            }
            double *tmp = a;
            a = b;
            b = tmp;
            in = out;
        }
        double mx = -INFINITY, s = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, a[v]);
        for (int v = 0; v < V; v++) s += exp(a[v] - mx);
        total += log(s) + mx - a[tg[e]];
    }
    free(a);
    free(b);
    return total / B;
}

static int gradcheck(void) {
    model_config_t cfg = {7, 3, 4, 6, 2};
    int B = 5;
    model_t m;
    model_init(&m, &cfg, cpu(), B, 5, NULL);
    rng_t r;
    rng_init(&r, 33);
    int32_t ctx[15], tg[5];
    for (int i = 0; i < B * cfg.context; i++) ctx[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
    for (int i = 0; i < B; i++) tg[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
    size_t n = m.layout.numel;
    model_zero_grad(&m);
    model_forward(&m, ctx, tg, B);
    model_backward(&m, 1.0f, NULL, NULL);
    ck_tape("model gradients after forward and backward", m.grads, m.layout.numel * 4);
    float *p64 = malloc(n * 4);
    memcpy(p64, m.params, n * 4);
    double *fd = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        float keep = p64[i];
        float h = 1e-2f;
        p64[i] = keep + h;
        double lp = model_loss64(&m, p64, ctx, tg, B);
        p64[i] = keep - h;
        double lm = model_loss64(&m, p64, ctx, tg, B);
        p64[i] = keep;
        fd[i] = (lp - lm) / ((double)(keep + h) - (double)(keep - h));
    }
    /* h = 1e-2 keeps float rounding of θ±h out of the way; the O(h²) truncation error of central
     * differences is ~1e-5 relative here, well inside the tolerance. */
    int bad = 0;
    for (int t = 0; t < m.layout.count; t++) {
        const flat_view_t *v = &m.layout.views[t];
        const float *got = m.grads + v->offset;
        const double *want = fd + v->offset;
        if (ck_has_nonfinite(got, v->numel)) {
            printf("FAIL: the gradient of %s contains NaN or Inf\n", v->name);
            bad = 1;
            continue;
        }
        if (ck_close(got, want, v->numel, 2e-3)) continue;
        bad = 1;
        float *wf = malloc(v->numel * 4);
        for (size_t k = 0; k < v->numel; k++) wf[k] = (float)want[k];
        printf("FAIL: the gradient of %s disagrees with float64 finite differences of the loss (norm ratio %.4g, "
               "cosine %.4f)\n",
               v->name, cmp_norm_ratio(got, wf, v->numel), cmp_cosine(got, wf, v->numel));
        ck_describe(v->name, got, want, v->numel);
        free(wf);
    }
    if (!bad) printf("every parameter's gradient agrees with float64 central finite differences (tolerance 2e-3 normwise)\n");
    free(p64);
    free(fd);
    model_free(&m);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check01");
    const ck_entry_t checks[] = {{"linear_backward", linear_backward_check},
                                 {"xent_backward", xent_backward_check},
                                 {"adamw", adamw_check},
                                 {"gradcheck", gradcheck},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
