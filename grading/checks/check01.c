/* check01 — the grader's unit checks of lesson 01 (linked with the submission's lesson-01 code).
 *
 *   check01 linear_backward | xent_backward | adamw | gradcheck | gradcheck_gpt | device
 *
 * Each compares the student's function with an independent float64 oracle written here with plain
 * loops (and, for the gradients, with central finite differences in float64), on random inputs with
 * every output poisoned (NaN) first. When the result is wrong it tries the usual mistakes and names
 * the one that matches. `device` checks the GPU twins (kernels.cu, device_step.c) against the CPU
 * functions where a GPU is, and exits SKIPPED (77) elsewhere. */
#include "checklib.h"
#include "gpt.h"
#include "gpt_oracle.h"
#include "layers.h"
#include "model.h"
#include "optim.h"
#include "trainer.h"
#include "util.h"
#ifdef DPC_HAVE_CUDA
#include "kernels.h"
#endif

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
    double *ewt = calloc(nw, 8), *ew_new = calloc(nw, 8), *eb_first = calloc((size_t)out, 8),
           *eb_mean = calloc((size_t)out, 8);
    for (int i = 0; i < B; i++)
        for (int k = 0; k < in; k++)
            for (int j = 0; j < out; j++)
                ex[(size_t)i * in + k] += (double)dy[(size_t)i * out + j] * w[(size_t)j * in + k];
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
    if (fd_worst > 1e-6)
        printf("  (grader self-check: finite differences disagree with the oracle by %.3g)\n", fd_worst);

    int bad = 0;
    if (ck_has_nonfinite(dx, nx)) {
        /* NaN in dx says only that the NaN it was filled with reached the result: never written, or
         * written by ADDING into it (x + NaN = NaN). A second call on a finite dx tells them apart. */
        float *dx2 = malloc(nx * 4), *dx0 = malloc(nx * 4), *dw2 = malloc(nw * 4), *db2 = malloc((size_t)out * 4);
        double *added = malloc(nx * 8);
        ck_random(&r, dx0, nx);
        for (size_t i = 0; i < nx; i++) dx0[i] += 4.0f, added[i] = dx0[i] + ex[i]; /* far from dY·W */
        memcpy(dx2, dx0, nx * 4);
        memcpy(dw2, dw0, nw * 4);
        memcpy(db2, db0, (size_t)out * 4);
        linear_backward(cpu(), x, w, dy, B, in, out, dx2, dw2, db2);
        ck_tape("linear_backward dx (second call, on a finite dx)", dx2, nx * 4);
        size_t first_nan = 0;
        while (first_nan < nx && isfinite(dx[first_nan])) first_nan++;
        if (ck_close(dx2, added, nx, 1e-5))
            printf("FAIL: dx is ADDED into (dx += dY·W): on a dx filled with NaN it stays NaN, on a finite one it "
                   "is off by what dx held — dx is OVERWRITTEN (gemm with beta = 0); only dw and db accumulate\n");
        else if (ck_close_f(dx2, dx0, nx, 0))
            printf("FAIL: dx still holds the NaN it was filled with: dX = dY·W is never written\n");
        else
            printf("FAIL: dx is not fully written: element %zu (of %zu) still holds the NaN it was filled with "
                   "(dX = dY·W, [B,in])\n",
                   first_nan, nx);
        free(dx2), free(dx0), free(dw2), free(db2), free(added);
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
    /* dx == NULL: the first layer's input needs no gradient. Only dX is skipped: dW and db must
     * still accumulate (else the first layer never learns). The marker first: a run that dies in
     * this call leaves its tape ending right there, and the judge can say which call killed it. */
    memcpy(dw, dw0, nw * 4);
    memcpy(db, db0, (size_t)out * 4);
    ck_tape("linear_backward: calling it with dx = NULL", NULL, 0);
    if (ck_tape_ends_here()) {
        /* how the run ended (grading/grade's RUN_STATUS: "fail 0.1 exit 139", "... signal 11 ...",
         * "... timeout after ...": a crash through the sandbox's shell is an exit status above 128) */
        const char *how = getenv("RUN_STATUS"), *code = how ? strstr(how, "exit ") : NULL;
        bool crashed = how && (strstr(how, "signal") || (code && atoi(code + 5) > 128));
        printf("FAIL: your linear backward %s when called with dx = NULL (the first layer's input needs no "
               "gradient): skip dX when dx is NULL\n",
               crashed                         ? "crashed"
               : how && strstr(how, "timeout") ? "never returned"
                                               : "ended the run");
        exit(1);
    }
    linear_backward(cpu(), x, w, dy, B, in, out, NULL, dw, db);
    ck_tape("linear_backward with dx = NULL: dw", dw, nw * 4);
    ck_tape("linear_backward with dx = NULL: db", db, (size_t)out * 4);
    if (!bad) { /* the same sums as above: anything else is about dx == NULL */
        bool dw_ok = ck_close(dw, ew, nw, 1e-5), db_ok = ck_close(db, eb, (size_t)out, 1e-5);
        if (!dw_ok || !db_ok) {
            bad = 1;
            const char *which = !dw_ok && !db_ok ? "dW and db" : !dw_ok ? "dW" : "db";
            bool untouched =
                (dw_ok || ck_close_f(dw, dw0, nw, 1e-7)) && (db_ok || ck_close_f(db, db0, (size_t)out, 1e-7));
            if (untouched)
                printf(
                    "FAIL: called with dx = NULL, your linear backward left %s unchanged: only dX is skipped when dx "
                    "is NULL — the first layer's weights still need dW += dYᵀ·X and db += Σ dY\n",
                    which);
            else {
                printf("FAIL: called with dx = NULL, your linear backward computed %s differently than with a dx: "
                       "only dX may be skipped\n",
                       which);
                if (!dw_ok) ck_describe("dw", dw, ew, nw);
                if (!db_ok) ck_describe("db", db, eb, (size_t)out);
            }
        }
    }
    free(x), free(w), free(dy), free(dx), free(dw), free(db), free(dw0), free(db0);
    free(ex), free(ew), free(eb), free(ewt), free(ew_new), free(eb_first), free(eb_mean);
    return bad;
}

static int linear_backward_check(void) {
    int bad = check_linear(5, 7, 3, 11);
    if (!bad) bad = check_linear(16, 24, 40, 12);
    if (!bad) bad = check_linear(1, 3, 2, 13);
    if (!bad)
        printf("dX, dW and db agree with the float64 oracle and finite differences (dW, db also with dx = NULL)\n");
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
    if (fd_worst > 1e-5)
        printf("  (grader self-check: finite differences disagree with the oracle by %.3g)\n", fd_worst);
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

/* torch.optim.AdamW computes its scalars (1 − lr·λ, 1 − βᵗ, √(1 − β2ᵗ), lr/(1 − β1ᵗ)) from Python
 * floats — in double — and its tensor arithmetic in float. The oracle below does everything in
 * double; the float versions are the precision mistake the update probe names. */
static double bias_correction64(double beta, int64_t t) { return 1.0 - pow(beta, (double)t); }
static double bias_correction_float(double beta, int64_t t) { return (double)(1.0f - powf((float)beta, (float)t)); }

/* The Adam part of the step (all but the decay), from the NEW moments m1, v1 (ε after √v̂). */
static double adam_part(double m1, double v1, double bc1, double bc2, double eps, double lr) {
    return -(lr / bc1) * m1 / (sqrt(v1) / sqrt(bc2) + eps);
}

typedef struct {
    adamw_hparams_t hp;
    double lr;
    int64_t t;
} adamw_case_t;

/* Worst error / tolerance of one case, for the oracle and for the mistakes it could be. */
typedef struct {
    bool nonfinite;
    double m, m_float, v, v_float;        /* moments: the oracle; 1 − β computed in float */
    double dtheta, decay_after, float_bc; /* Δθ: the oracle; decay after the update; 1 − βᵗ in float */
    double rel;                           /* worst |Δθ − oracle| / (|lr·λ·θ| + |Adam part|) */
    size_t worst;                         /* the element of the worst oracle Δθ error */
    double got, want;                     /* its Δθ, and the oracle's */
} adamw_errors_t;

/* The update Δθ = θ_after − θ_before itself, to ~1e-6 relative, with lr·λ large, nonzero
 * gradients, random nonzero moments and late steps t. The reference trajectory (1e-6 of θ with
 * lr·λ = 1e-5) leaves room for two mistakes: weight decay applied AFTER the Adam update (PyTorch
 * shrinks θ_{t−1}: the two differ by lr·λ·step), and bias corrections 1 − βᵗ computed in float
 * (β rounded to float is off by 1.3e-8, i.e. 1.3e-5 of 1 − β2 at β2 = 0.999 and 1.7e-4 at 0.9999:
 * the step moves by half of that).
 * Per element the tolerance is 1e-6 of the update's terms |lr·λ·θ| + |Adam part| (the reference's
 * float arithmetic, ~6 roundings of 6e-8 there) plus 2⁻²² |θ| for the roundings of θ itself that
 * no float implementation avoids (θ·(1 − lr·λ), then θ + step). Δθ is judged given the moments
 * the code computed, and m, v on their own (1e-6 of their terms), so each mistake shows where it
 * is made. Measured over 300 random states per case: the reference reaches at most 0.47 of the
 * tolerance (0.29 with the seeds below); float bias corrections at least 3.2 at β2 = 0.999 (t = 1,
 * 2, 10, 1000) and 22 at β2 = 0.9999; decay after the update ~1e4. At t = 5000 (and β2 = 0.95)
 * 1 − βᵗ is no longer small, float or not: those cases are for the decay and the moments. */
static adamw_errors_t adamw_update_case(const adamw_case_t *c, uint64_t seed) {
    enum { N = 128 };
    const adamw_hparams_t *hp = &c->hp;
    float th[N], g[N], m[N], v[N], th0[N], m0[N], v0[N];
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < N; i++) {
        th0[i] = 0.5f * (2.0f * rng_uniform(&r) - 1.0f);
        float u = 0.1f + 0.9f * rng_uniform(&r); /* |g| in [0.1, 1): every element moves */
        g[i] = rng_uniform(&r) < 0.5f ? -u : u;
        m0[i] = 0.1f * (2.0f * rng_uniform(&r) - 1.0f);
        v0[i] = (float)((1.0 - hp->beta2) * (0.05 + rng_uniform(&r))); /* Adam's step stays O(lr) */
    }
    memcpy(th, th0, sizeof th);
    memcpy(m, m0, sizeof m);
    memcpy(v, v0, sizeof v);
    adamw_step(th, g, m, v, N, c->t, hp, c->lr);
    ck_tape("adamw_step update theta", th, sizeof th);
    ck_tape("adamw_step update m", m, sizeof m);
    ck_tape("adamw_step update v", v, sizeof v);

    adamw_errors_t e = {0};
    e.nonfinite = ck_has_nonfinite(th, N) || ck_has_nonfinite(m, N) || ck_has_nonfinite(v, N);
    if (e.nonfinite) return e;
    const double b1 = hp->beta1, b2 = hp->beta2, decay = c->lr * hp->weight_decay;
    const double one_minus_b1_f = (double)(1.0f - (float)b1), one_minus_b2_f = (double)(1.0f - (float)b2);
    const double bc1 = bias_correction64(b1, c->t), bc2 = bias_correction64(b2, c->t);
    const double bc1_f = bias_correction_float(b1, c->t), bc2_f = bias_correction_float(b2, c->t);
    for (int i = 0; i < N; i++) {
        double m_scale = 1e-6 * (fabs(m0[i]) + (1 - b1) * fabs(g[i]));
        double v_want = b2 * v0[i] + (1 - b2) * (double)g[i] * g[i];
        e.m = fmax(e.m, fabs(m[i] - (m0[i] + (1 - b1) * ((double)g[i] - m0[i]))) / m_scale);
        e.m_float = fmax(e.m_float, fabs(m[i] - (m0[i] + one_minus_b1_f * ((double)g[i] - m0[i]))) / m_scale);
        e.v = fmax(e.v, fabs(v[i] - v_want) / (1e-6 * v_want));
        e.v_float = fmax(e.v_float, fabs(v[i] - (b2 * v0[i] + one_minus_b2_f * (double)g[i] * g[i])) / (1e-6 * v_want));

        double adam = adam_part(m[i], v[i], bc1, bc2, hp->eps, c->lr);
        double want = -decay * th0[i] + adam, got = (double)th[i] - th0[i];
        double tol = 1e-6 * (fabs(decay * th0[i]) + fabs(adam)) + 0x1p-22 * fmax(fabs(th0[i]), fabs(th[i]));
        double err = fabs(got - want) / tol;
        if (err > e.dtheta) e.dtheta = err, e.worst = (size_t)i, e.got = got, e.want = want;
        e.rel = fmax(e.rel, fabs(got - want) / (fabs(decay * th0[i]) + fabs(adam)));
        e.decay_after = fmax(e.decay_after, fabs(got - ((th0[i] + adam) * (1 - decay) - th0[i])) / tol);
        e.float_bc =
            fmax(e.float_bc, fabs(got - (-decay * th0[i] + adam_part(m[i], v[i], bc1_f, bc2_f, hp->eps, c->lr))) / tol);
    }
    return e;
}

/* Runs every case (the calls and records never depend on the results); prints the first failure,
 * naming the mistake when one explains it. Returns 1 when some case failed; *margin: the worst
 * error / tolerance over all cases. */
static int adamw_update_check(bool report, double *margin) {
    const adamw_case_t cases[] = {
        {{0.9, 0.999, 1e-8, 0.5}, 0.1, 1},    {{0.9, 0.999, 1e-8, 0.5}, 0.1, 2},
        {{0.9, 0.999, 1e-8, 0.5}, 0.1, 10},   {{0.9, 0.999, 1e-8, 0.5}, 0.1, 1000},
        {{0.9, 0.999, 1e-8, 0.5}, 0.1, 5000}, {{0.95, 0.9999, 1e-8, 0.2}, 0.05, 1},
        {{0.95, 0.9999, 1e-8, 0.2}, 0.05, 3}, {{0.95, 0.9999, 1e-8, 0.2}, 0.05, 20000},
        {{0.8, 0.95, 1e-6, 0.1}, 1.0, 4},
    };
    int bad = 0;
    *margin = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const adamw_case_t *c = &cases[k];
        adamw_errors_t e = adamw_update_case(c, 700 + k);
        *margin = fmax(*margin, fmax(e.dtheta, fmax(e.m, e.v)));
        if (!e.nonfinite && e.m <= 1 && e.v <= 1 && e.dtheta <= 1) continue;
        if (bad++ || !report) continue;
        char where[160];
        snprintf(where, sizeof where, "β1 = %g, β2 = %g, lr = %g, λ = %g, from random m, v at step t = %lld",
                 c->hp.beta1, c->hp.beta2, c->lr, c->hp.weight_decay, (long long)c->t);
        if (e.nonfinite)
            printf("FAIL: θ, m or v became NaN or Inf (%s)\n", where);
        else if (e.m > 1 && e.m_float <= 1)
            printf("FAIL: m is off by %.2g of the tolerance (%s): 1 − β1 was computed in float; compute the scalar in "
                   "double and round it once to float, as PyTorch does with its Python-float β1\n",
                   e.m, where);
        else if (e.m > 1)
            printf("FAIL: m after the step is not m + (1 − β1)(g − m) to 1e-6 (off by %.3g of the tolerance; %s)\n",
                   e.m, where);
        else if (e.v > 1 && e.v_float <= 1)
            printf("FAIL: v is off by %.2g of the tolerance (%s): 1 − β2 was computed in float (1.0f − β2 is off by "
                   "%.2g relative); compute it in double and round it once to float, as PyTorch does\n",
                   e.v, where, fabs((double)(1.0f - (float)c->hp.beta2) / (1 - c->hp.beta2) - 1));
        else if (e.v > 1)
            printf("FAIL: v after the step is not β2·v + (1 − β2)·g² to 1e-6 (off by %.3g of the tolerance; %s)\n", e.v,
                   where);
        else if (e.decay_after <= 1)
            printf("FAIL: the update Δθ is wrong (%s; element %zu moved by %.6g, PyTorch's by %.6g): weight decay "
                   "was applied AFTER the Adam update. AdamW shrinks the previous parameters first, θ ← θ·(1 − lr·λ), "
                   "then adds the update (torch: param.mul_(1 − lr·λ) before addcdiv_)\n",
                   where, e.worst, e.got, e.want);
        else if (e.float_bc <= 1)
            printf("FAIL: the update Δθ is off by up to %.2g of its size (%s): the bias corrections 1 − βᵗ were "
                   "computed in float. β rounded to float is off by ~1e-8, which is 1e-5 of 1 − β2 at β2 = 0.999: "
                   "compute 1 − β1ᵗ, 1 − β2ᵗ (and √, lr/(1 − β1ᵗ)) in double and round once to float, as PyTorch "
                   "does with Python floats\n",
                   e.rel, where);
        else if (e.rel < 1e-3) /* no formula mistake is that small */
            printf("FAIL: the update Δθ is off by up to %.2g of its size, tolerance 1e-6 (%s): a precision mistake? "
                   "PyTorch computes the scalars 1 − lr·λ, 1 − βᵗ, √(1 − β2ᵗ), lr/(1 − β1ᵗ) in double and rounds each "
                   "once to float; element %zu moved by %.9g, PyTorch's moves by %.9g\n",
                   e.rel, where, e.worst, e.got, e.want);
        else
            printf("FAIL: the update Δθ differs from torch.optim.AdamW's (%s): element %zu moved by %.9g, PyTorch's "
                   "moves by %.9g (decay θ·(1 − lr·λ) first, then −lr/(1 − β1ᵗ) · m / (√v/√(1 − β2ᵗ) + ε))\n",
                   where, e.worst, e.got, e.want);
    }
    return bad != 0;
}

static int adamw_check(void) {
    int bad = 0;
    adamw_hparams_t hp = {0.9, 0.999, 1e-8, 1e-2};
    /* 1. the 3-step reference trajectory of lessons/pytorch-semantics.md#adamw, float32, rtol 1e-6 */
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
                printf("FAIL: the AdamW reference trajectory (lessons/pytorch-semantics.md#adamw) differs at step %d, "
                       "element %d: got "
                       "%.9g, PyTorch gives %.9g\n",
                       s + 1, i, (double)th[i], want[s][i]);
                bad = 1;
                break;
            }
    }
    /* 2. the moments after one step: m = (1-β1)g, v = (1-β2)g². The formulas only (1e-4): their
     * precision is the update probe's (7), which can say what it is. */
    const float t1_0[2] = {0.3f, -0.7f};
    float t1[2] = {0.3f, -0.7f}, g1[2] = {0.5f, -2.0f}, m1[2] = {0}, v1[2] = {0};
    adamw_step(t1, g1, m1, v1, 2, 1, &hp, 1e-3);
    ck_tape("adamw_step moments theta", t1, sizeof t1);
    ck_tape("adamw_step moments m", m1, sizeof m1);
    ck_tape("adamw_step moments v", v1, sizeof v1);
    for (int i = 0; i < 2; i++) {
        /* weight decay added to the gradient (Adam's L2) moves m and v too: probe 6 names it */
        double coupled = g1[i] + hp.weight_decay * t1_0[i];
        if (fabs(m1[i] - 0.1 * coupled) <= 1e-4 * fabs(0.1 * coupled)) {
            bad = 1;
            continue;
        }
        if (!(fabs(m1[i] - 0.1 * g1[i]) <= 1e-4 * fabs(0.1 * g1[i]))) {
            printf("FAIL: after one step m[%d] = %.7g, expected (1 − β1)·g = %.7g: the first moment is not updated "
                   "as m ← m + (1 − β1)(g − m)\n",
                   i, (double)m1[i], 0.1 * g1[i]);
            bad = 1;
        }
        if (!(fabs(v1[i] - 0.001 * g1[i] * g1[i]) <= 1e-4 * 0.001 * g1[i] * g1[i])) {
            printf("FAIL: after one step v[%d] = %.7g, expected (1 − β2)·g² = %.7g: the second moment is not updated "
                   "as v ← β2·v + (1 − β2)·g²\n",
                   i, (double)v1[i], 0.001 * g1[i] * g1[i]);
            bad = 1;
        }
    }
    /* 3. bias correction: from zero state the first step moves by lr·g/(|g|+ε) ≈ lr (ε is 2e-8 of
     * |g| here: it cannot be what moved it) */
    adamw_hparams_t nodecay = {0.9, 0.999, 1e-8, 0.0};
    float t2 = 0, g2 = 0.5f, m2 = 0, v2 = 0;
    adamw_step(&t2, &g2, &m2, &v2, 1, 1, &nodecay, 1e-3);
    ck_tape("adamw_step bias correction theta", &t2, sizeof t2);
    ck_tape("adamw_step bias correction m", &m2, sizeof m2);
    ck_tape("adamw_step bias correction v", &v2, sizeof v2);
    double moved = -t2 / 1e-3;
    bool bias_ok = fabs(moved - 1.0) < 1e-4;
    if (!bias_ok) {
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
            printf("FAIL: from zero state the first step should move θ by lr·g/(|g|+ε) ≈ lr; it moved %.4g·lr\n",
                   moved);
    }
    /* 4. ε placement, where bias correction cannot matter: at t = 100000, 1 − βᵗ is exactly 1 (in
     * float and in double), so a missing or misplaced bias correction changes nothing here and a
     * failure is about ε alone. g = 1e-10: √v = 3.2e-12 is small next to ε = 1e-8, so θ moves by
     * lr·m/(√v + ε) ≈ 1e-6 — and by 1e-10 if ε is under the square root (√(v + ε) = 1e-4). */
    float t3 = 0, g3 = 1e-10f, m3 = 0, v3 = 0;
    const int64_t late = 100000;
    adamw_step(&t3, &g3, &m3, &v3, 1, late, &nodecay, 1e-3);
    ck_tape("adamw_step epsilon late theta", &t3, sizeof t3);
    ck_tape("adamw_step epsilon late m", &m3, sizeof m3);
    ck_tape("adamw_step epsilon late v", &v3, sizeof v3);
    double m3w = 0.1 * (double)g3, v3w = 0.001 * (double)g3 * g3;
    double want3 = adam_part(m3w, v3w, bias_correction64(0.9, late), bias_correction64(0.999, late), 1e-8, 1e-3);
    bool eps_ok = fabs(t3 - want3) <= 1e-4 * fabs(want3);
    if (!eps_ok) {
        bad = 1;
        if (t3 == 0)
            printf("FAIL: with g = 1e-10 at step t = %lld θ did not move at all (PyTorch moves it by %.4g)\n",
                   (long long)late, want3);
        else if (fabs(t3) < 1e-2 * fabs(want3))
            printf("FAIL: with g = 1e-10 at step t = %lld (where 1 − βᵗ = 1) the step is %.4g, PyTorch's is %.4g: ε "
                   "is inside the square root — it belongs outside: √v̂ + ε\n",
                   (long long)late, (double)t3, want3);
        else
            printf("FAIL: with g = 1e-10 at step t = %lld (where 1 − βᵗ = 1) the step is %.4g, PyTorch's is %.4g: "
                   "check where ε is added (denominator √v/√(1−β2ᵗ) + ε)\n",
                   (long long)late, (double)t3, want3);
    }
    /* 5. ε against bias correction: the same at t = 1, where √v is divided by √(1 − β2) = 0.032.
     * Judged only when 3 and 4 passed: then a failure here is ε added before that division. */
    float t5 = 0, g5 = 1e-10f, m5 = 0, v5 = 0;
    adamw_step(&t5, &g5, &m5, &v5, 1, 1, &nodecay, 1e-3);
    ck_tape("adamw_step epsilon theta", &t5, sizeof t5);
    ck_tape("adamw_step epsilon m", &m5, sizeof m5);
    ck_tape("adamw_step epsilon v", &v5, sizeof v5);
    double want5 = adam_part(0.1 * (double)g5, 0.001 * (double)g5 * g5, bias_correction64(0.9, 1),
                             bias_correction64(0.999, 1), 1e-8, 1e-3);
    if (bias_ok && eps_ok && !(fabs(t5 - want5) <= 1e-4 * fabs(want5))) {
        bad = 1;
        if (fabs(t5 - want5 * 0.0316) < 0.1 * 0.0316 * fabs(want5))
            printf("FAIL: with g = 1e-10 at step 1 the step is %.4g, PyTorch's is %.4g: ε is added before the bias "
                   "correction of √v — it belongs after: √v/√(1−β2ᵗ) + ε\n",
                   (double)t5, want5);
        else
            printf("FAIL: with g = 1e-10 at step 1 the step is %.4g, PyTorch's is %.4g: check where ε is added "
                   "(denominator √v/√(1−β2ᵗ) + ε)\n",
                   (double)t5, want5);
    }
    /* 6. decoupled weight decay: with g = 0, θ shrinks by exactly (1 − lr·λ) and m, v stay 0 */
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
    /* 7. the update Δθ to 1e-6, from random states at late steps (above); said only when 1–6
     * passed: they name the coarser mistakes, which would fail here too */
    double margin;
    if (adamw_update_check(!bad, &margin)) bad = 1;
    if (!bad) {
        printf("AdamW matches PyTorch: reference trajectory (rtol 1e-6), moments, bias correction, ε, decay, and the "
               "update Δθ to 1e-6 at late steps with lr·λ up to 0.1\n");
        printf("margin: worst update error %.2f of the tolerance\n", margin);
    }
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
    if (!bad)
        printf("every parameter's gradient agrees with float64 central finite differences (tolerance 2e-3 normwise)\n");
    free(p64);
    free(fd);
    model_free(&m);
    return bad;
}

/* ---- gradcheck_gpt: gpt-tiny's every tensor against its float64 oracle ---------------------- */

/* What computes tensor i's gradient in gpt.c's backward, for the FAIL line of the first tensor that
 * backward gets wrong (every tensor backward computes before it was right, so the mistake is made
 * there): the given layers (LayerNorm, attention, embedding) only pass on what the student's Linear
 * and cross-entropy hand them. */
static const char *gpt_culprit(const gpt_t *m, int i, const bool *wrong, char *buf, size_t n) {
    const char *name = m->layout.views[i].name;
    bool linear = strstr(name, ".c_attn.") || strstr(name, ".c_proj.") || strstr(name, ".c_fc.");
    bool bias = strstr(name, ".bias") != NULL;
    if (i == gpt_wte())
        snprintf(buf, n,
                 "dW of the tied head, wte's first share — your linear_backward's dW += dYᵀ·X over all B·T "
                 "rows (the embedding's share is given code)?");
    else if (strstr(name, "ln_f."))
        snprintf(buf, n,
                 "the first gradient after the head: from dlogits (your xent_backward) through the tied head's "
                 "dX = dY·W (your linear_backward)?");
    else if (linear && !bias)
        snprintf(buf, n, "dW differs, db is right — your linear_backward's dW += dYᵀ·X (summed over all B·T rows)?");
    else if (linear && !wrong[i - 1])
        snprintf(buf, n, "db differs, dW is right — your linear_backward's db += Σ dY (over all B·T rows)?");
    else if (linear)
        snprintf(buf, n,
                 "dW and db both differ: the dY this Linear receives is wrong — the dX = dY·W that your "
                 "linear_backward passed back to it?");
    else
        snprintf(buf, n,
                 "given code (LayerNorm, the position embedding) computes it from the gradient your "
                 "linear_backward's dX = dY·W passed back to it?");
    return buf;
}

/* gpt-tiny (7,152 parameters, 28 tensors) is built from gpt.c's given layers and the student's Linear
 * and cross-entropy: its loss against the oracle, then every tensor's gradient, in the order backward
 * computes them, by central differences of the float64 oracle (grading/checks/gpt_oracle.h, also
 * tests/unit/test_gpt.c's) — at 8 elements spread over each tensor (wte: also a row whose token
 * appears and one that does not) and along 2 random directions over the whole tensor, which no
 * wrong element escapes unnoticed for long. B = 2 sequences of 7 < T tokens, 2 ignored targets, a
 * repeated token, parameters re-drawn (gpt_oracle.h). Tolerance as test_gpt's (there: worst 8e-6
 * relative, 1.1e-7 absolute): 1e-4 of the slope + 2e-6, along a direction 1e-4 of the tensor's
 * gradient norm + 2e-6. The oracle runs in the judge only (ck_recording): ~600 forward passes. */
static int gradcheck_gpt(void) {
    gpt_config_t cfg;
    if (gpt_preset("gpt-tiny", &cfg) != 0) dp_fatal("grader error: no gpt-tiny preset");
    enum { B = 2, T = 7, N = B * T };
    gpt_t m;
    gpt_init(&m, &cfg, cpu(), B, 1, NULL);
    gpt_oracle_redraw(&m, 7);
    rng_t r;
    rng_init(&r, 11);
    int32_t tok[N], tgt[N];
    for (int i = 0; i < N; i++) {
        tok[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
        tgt[i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
    }
    tok[9] = tok[2]; /* a repeated token: wte's row gets two embedding shares */
    tgt[3] = -1, tgt[12] = -1;
    size_t n = m.layout.numel;
    gpt_zero_grad(&m);
    float loss = gpt_forward(&m, tok, tgt, B, T);
    ck_tape("gpt-tiny loss", &loss, sizeof loss);
    gpt_backward(&m, 1.0f, NULL, NULL);
    ck_tape("gpt-tiny gradients", m.grads, n * sizeof(float));
    if (ck_recording()) {
        gpt_free(&m);
        return 0;
    }
    double *p = gpt_oracle_params(&m);
    int bad = 0;
    double want = gpt_oracle_loss(&m, p, tok, tgt, B, T, NULL);
    if (!(fabs(loss - want) <= 1e-5 * fabs(want))) {
        printf("FAIL: gpt-tiny's loss is %.9g, the float64 oracle's %.9g: the forward pass uses your linear_forward "
               "(y = x·Wᵀ + b) and xent_forward (per row: B·T rows, the ignored targets left out by the given code)\n",
               (double)loss, want);
        bad = 1;
    }
    bool *wrong = calloc((size_t)m.layout.count, sizeof(bool));
    int nwrong = 0, root = -1;
    double worst = 0; /* the largest error, in tolerances */
    char detail[400] = "";
    double *u = malloc(n * sizeof(double));
    for (int i = m.layout.count - 1; i >= 0; i--) { /* backward's order (wte's head share aside) */
        const flat_view_t *v = &m.layout.views[i];
        const float *g = m.grads + v->offset;
        char what[240] = "";
        if (ck_has_nonfinite(g, v->numel)) snprintf(what, sizeof what, "its gradient holds NaN or Inf");
        size_t picks[10];
        int np = 0;
        for (int k = 0; k < 8 && (size_t)k < v->numel; k++) picks[np++] = ((size_t)k * v->numel) / 8 + (size_t)k % 3;
        if (i == gpt_wte()) { /* a row of a token that appears, one of a token that does not */
            picks[np++] = (size_t)tok[2] * v->shape[1] + 5;
            int unused = 0;
            for (int seen = 1; seen;) {
                seen = 0;
                for (int k = 0; k < N; k++) seen |= tok[k] == unused;
                if (seen) unused++;
            }
            picks[np++] = (size_t)unused * v->shape[1] + 3;
        }
        for (int k = 0; k < np && !*what; k++) {
            size_t j = picks[k] % v->numel;
            double num = gpt_oracle_slope(&m, p, v->offset + j, 1, NULL, 1e-4, tok, tgt, B, T);
            worst = fmax(worst, fabs(g[j] - num) / (1e-4 * fabs(num) + 2e-6));
            if (!(fabs(g[j] - num) <= 1e-4 * fabs(num) + 2e-6))
                snprintf(what, sizeof what, "[%zu] = %.7g, the finite difference of the float64 oracle %.7g", j,
                         (double)g[j], num);
        }
        double gnorm = 0;
        for (size_t k = 0; k < v->numel; k++) gnorm += (double)g[k] * g[k];
        gnorm = sqrt(gnorm);
        for (int d = 0; d < 2 && !*what; d++) {
            double un = 0, dot = 0;
            for (size_t k = 0; k < v->numel; k++) u[k] = rng_normal(&r), un += u[k] * u[k];
            for (size_t k = 0; k < v->numel; k++) u[k] /= sqrt(un), dot += u[k] * g[k];
            double num = gpt_oracle_slope(&m, p, v->offset, v->numel, u, 1e-4, tok, tgt, B, T);
            worst = fmax(worst, fabs(dot - num) / (1e-4 * gnorm + 2e-6));
            if (!(fabs(dot - num) <= 1e-4 * gnorm + 2e-6))
                snprintf(what, sizeof what,
                         "along a random direction its slope is %.7g, the float64 oracle's %.7g (some elements "
                         "between the ones sampled are wrong)",
                         dot, num);
        }
        if (!*what) continue;
        wrong[i] = true;
        nwrong++;
        if (root < 0) root = i, snprintf(detail, sizeof detail, "%s", what);
    }
    if (root >= 0) {
        char why[300];
        printf("FAIL: %s: %s — %s\n", m.layout.views[root].name, detail, gpt_culprit(&m, root, wrong, why, sizeof why));
        printf("  (it is the first tensor backward gets wrong: every one backward computes before it agrees with the "
               "oracle; %d of %d tensors differ",
               nwrong, m.layout.count);
        int listed = 0;
        for (int i = m.layout.count - 1; i >= 0 && listed < 4; i--)
            if (wrong[i] && i != root) printf("%s%s", listed++ ? ", " : ": also ", m.layout.views[i].name);
        printf("%s)\n", nwrong - 1 > listed ? ", ..." : "");
        bad = 1;
    }
    if (!bad)
        printf("gpt-tiny (your Linear and cross-entropy inside a transformer: B·T = %d rows): the loss and all %d "
               "tensors' gradients agree with float64 central differences of an independent oracle\n",
               N, m.layout.count);
    if (!bad) printf("margin: worst gradient error %.2f of the tolerance\n", worst);
    free(wrong);
    free(u);
    free(p);
    gpt_free(&m);
    return bad;
}

/* ---- device: the GPU twins (kernels.cu, device_step.c) against the CPU functions ------------------ */

/* Where no GPU is (or in a build without CUDA) the check says so and exits SKIPPED: grading/grade
 * then counts it neither for nor against. Every part below runs whatever the parts before it found,
 * so the run and the judge make the same tape records in the same order whatever the submission's
 * CPU functions do (the run calls them too, but only the judge's, the reference's, decide). */
#ifdef DPC_HAVE_CUDA
static ops_t *gpu(void) {
    static ops_t *ops;
    if (!ops) ops = ops_create(OPS_CUDA, 1);
    return ops;
}

static float *dev_copy(const float *host, size_t n) {
    float *d = ops_alloc(gpu(), n ? n : 1);
    ops_from_host(gpu(), d, host, n);
    return d;
}

/* outputs start as NaN, so that an element a kernel never writes shows */
static float *dev_poisoned(size_t n) {
    float *d = ops_alloc(gpu(), n ? n : 1);
    ops_fill(gpu(), d, NAN, n);
    return d;
}

static double *widen(const float *x, size_t n) {
    double *w = malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) w[i] = x[i];
    return w;
}

/* The first element where |got − want| > tol · max|want| (n when none is; NaN is always outside). */
static size_t first_off(const double *got, const double *want, size_t n, double tol) {
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(want[i]));
    if (scale == 0) scale = 1;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= tol * scale)) return i;
    return n;
}

/* "name: first element outside the tolerance [i] = got, expected want (tolerance: tol of max|want|)" */
static void describe_off(const char *name, const double *got, const double *want, size_t n, double tol) {
    size_t i = first_off(got, want, n, tol);
    if (i < n)
        printf("  %s: first element outside the tolerance (%.0e of the largest expected value): [%zu] = %.8g, "
               "expected %.8g\n",
               name, tol, i, got[i], want[i]);
}

/* A record just before a call into the GPU twins: when the run's tape ends right there, that call ended
 * the run (a kernel that faults is reported at the next synchronisation, before the next record), and
 * the judge says which call it was. */
static void before_call(const char *call, const char *hint) {
    char tag[160];
    snprintf(tag, sizeof tag, "device: calling %s", call);
    ck_tape(tag, NULL, 0);
    if (!ck_tape_ends_here()) return;
    const char *how = getenv("RUN_STATUS");
    printf("FAIL: the run ended inside %s (%s): %s\n", call, how ? how : "no status", hint);
    exit(1);
}

/* The grid of an element-wise launcher in kernels.cu: 256 threads a block, at most 4096 blocks. */
static const size_t grid_threads = (size_t)4096 * 256;

/* Part 1: the cross-entropy kernels on B examples of V classes against xent_forward and xent_backward. */
static int device_xent_case(int B, int V, uint64_t seed) {
    const float gs = 0.5f;
    const ops_t *g = gpu();
    rng_t r;
    rng_init(&r, seed);
    size_t n = (size_t)B * V;
    float *z = malloc(n * 4), *p = malloc(n * 4), *loss = malloc((size_t)B * 4), *d = malloc(n * 4);
    float *gp = malloc(n * 4), *gl = malloc((size_t)B * 4), *gd = malloc(n * 4);
    int32_t *y = malloc((size_t)B * sizeof *y);
    ck_random(&r, z, n);
    for (size_t i = 0; i < n; i++) z[i] *= 4;
    for (int b = 0; b < B; b++) y[b] = (int32_t)rng_below(&r, (uint32_t)V);
    float *dz = dev_copy(z, n), *dprobs = dev_poisoned(n), *dloss = dev_poisoned((size_t)B), *dd = dev_poisoned(n);
    int32_t *dy = ops_alloc_bytes(g, (size_t)B * sizeof *y);
    ops_upload(g, dy, y, (size_t)B * sizeof *y);
    char tag[128];
    before_call("xent_forward_cuda (your xent_forward_kernel)",
                "a kernel that reads or writes past its rows (check the example index against B)");
    xent_forward_cuda(ops_stream(g), dz, dy, B, V, dprobs, dloss);
    ops_to_host(g, gp, dprobs, n);
    ops_to_host(g, gl, dloss, (size_t)B);
    snprintf(tag, sizeof tag, "xent_forward_kernel B=%d V=%d: probs", B, V);
    ck_tape(tag, gp, n * 4);
    snprintf(tag, sizeof tag, "xent_forward_kernel B=%d V=%d: losses", B, V);
    ck_tape(tag, gl, (size_t)B * 4);
    /* the CPU's probabilities are the backward kernel's input: its result does not depend on the forward
     * kernel (xent_forward is given code, the same in the run and the judge) */
    xent_forward(z, y, B, V, p, loss);
    ops_from_host(g, dprobs, p, n);
    before_call("xent_backward_cuda (your xent_backward_kernel)",
                "a kernel that reads or writes past the B·V elements (check the loop bound)");
    xent_backward_cuda(ops_stream(g), dprobs, dy, B, V, gs, dd);
    ops_to_host(g, gd, dd, n);
    snprintf(tag, sizeof tag, "xent_backward_kernel B=%d V=%d: dlogits", B, V);
    ck_tape(tag, gd, n * 4);
    xent_backward(p, y, B, V, gs, d); /* in the judge: the reference's */

    int bad = 0;
    double *wp = widen(p, n), *wl = widen(loss, (size_t)B), *wd = widen(d, n);
    double *hp = widen(gp, n), *hl = widen(gl, (size_t)B), *hd = widen(gd, n), *alt = malloc(n * sizeof(double));
    if (ck_has_nonfinite(gp, n) || ck_has_nonfinite(gl, (size_t)B)) {
        int first = 0, written = 0;
        for (int b = B - 1; b >= 0; b--)
            if (ck_has_nonfinite(gp + (size_t)b * V, (size_t)V) || !isfinite(gl[b]))
                first = b;
            else
                written++;
        printf("FAIL: xent_forward_kernel (B=%d, V=%d) never wrote example %d's probabilities or loss (they are "
               "still the NaN they were filled with; %d of %d examples were written): every example b < B needs "
               "a thread, b from the block and thread indices, looping when there are more examples than threads\n",
               B, V, first, written, B);
        bad = 1;
    } else {
        if (first_off(hp, wp, n, 1e-5) < n) {
            printf("FAIL: xent_forward_kernel (B=%d, V=%d): the probabilities differ from xent_forward's\n", B, V);
            describe_off("probs", hp, wp, n, 1e-5);
            bad = 1;
        }
        if (first_off(hl, wl, (size_t)B, 1e-5) < (size_t)B) {
            printf("FAIL: xent_forward_kernel (B=%d, V=%d): the per-example losses differ from xent_forward's (each "
                   "is −log p[target], from the log-sum-exp of the row)\n",
                   B, V);
            describe_off("losses", hl, wl, (size_t)B, 1e-5);
            bad = 1;
        }
    }
    size_t nan_at = n;
    for (size_t i = 0; i < n && nan_at == n; i++)
        if (!isfinite(gd[i])) nan_at = i;
    if (nan_at < n) {
        printf("FAIL: xent_backward_kernel (B=%d, V=%d) never wrote dlogits[%zu] (still NaN)%s\n", B, V, nan_at,
               nan_at == grid_threads ? ": the launcher starts at most 4096·256 threads, so each must loop over "
                                        "i, i + (all threads), ... (a grid-stride loop)"
                                      : ": every one of the B·V elements is an output");
        bad = 1;
    } else if (first_off(hd, wd, n, 1e-6) < n) {
        bad = 1;
        /* the usual mistakes, from the same probabilities */
        static const char *const why[] = {
            "dlogits is B times too large: the loss is a mean over the batch, divide by B",
            "dlogits ignores grad_scale: multiply by it",
            "dlogits has the wrong sign: it is grad_scale·(p − onehot)/B",
            "dlogits is grad_scale·p/B everywhere: subtract grad_scale/B at the target class",
        };
        int named = 0;
        for (int k = 0; k < 4 && !named; k++) {
            for (size_t i = 0; i < n; i++) {
                double pv = p[i], one = (int32_t)(i % (size_t)V) == y[i / (size_t)V];
                alt[i] = k == 0   ? gs * (pv - one)
                         : k == 1 ? (pv - one) / B
                         : k == 2 ? -gs * (pv - one) / B
                                  : gs * pv / B;
            }
            if (first_off(hd, alt, n, 1e-5) == n) {
                printf("FAIL: xent_backward_kernel (B=%d, V=%d): %s\n", B, V, why[k]);
                named = 1;
            }
        }
        if (!named) {
            printf("FAIL: xent_backward_kernel (B=%d, V=%d): dlogits differs from xent_backward's "
                   "(grad_scale·(p − onehot(target))/B)\n",
                   B, V);
            describe_off("dlogits", hd, wd, n, 1e-6);
        }
    }
    ops_free(g, dz), ops_free(g, dprobs), ops_free(g, dloss), ops_free(g, dd);
    ops_free_bytes(g, dy);
    free(z), free(p), free(loss), free(d), free(gp), free(gl), free(gd), free(y);
    free(wp), free(wl), free(wd), free(hp), free(hl), free(hd), free(alt);
    return bad;
}

/* Part 2: one adamw_step_device on n elements against adamw_step on the same inputs; Δθ must agree to
 * tol of its largest value. p0_scale = 0 starts θ at 0, so that Δθ is not lost in θ's rounding: then
 * the two agree to a few float roundings, and a scalar computed in float instead of double shows. */
static int device_adamw_case(const char *what, size_t n, int64_t t, adamw_hparams_t hp, double lr, float p0_scale,
                             float g_scale, bool zero_state, double tol, uint64_t seed) {
    const ops_t *g = gpu();
    rng_t r;
    rng_init(&r, seed);
    float *p0 = malloc(n * 4), *gr = malloc(n * 4), *m0 = malloc(n * 4), *v0 = malloc(n * 4);
    ck_random(&r, p0, n);
    ck_random(&r, gr, n);
    ck_random(&r, m0, n);
    ck_random(&r, v0, n);
    for (size_t i = 0; i < n; i++) {
        p0[i] *= p0_scale;
        gr[i] *= g_scale;
        m0[i] = zero_state ? 0 : 0.1f * m0[i];
        v0[i] = zero_state ? 0 : 0.01f * fabsf(v0[i]) + 1e-4f; /* running means of g²: positive */
    }
    float *dp = dev_copy(p0, n), *dg = dev_copy(gr, n), *dm = dev_copy(m0, n), *dv = dev_copy(v0, n);
    float *gp = malloc(n * 4), *gm = malloc(n * 4), *gv = malloc(n * 4);
    before_call("adamw_step_device (and your adamw_kernel)",
                "a kernel that reads or writes past the n elements (check the loop bound)");
    adamw_step_device(ops_stream(g), dp, dg, dm, dv, n, t, &hp, lr);
    ops_to_host(g, gp, dp, n);
    ops_to_host(g, gm, dm, n);
    ops_to_host(g, gv, dv, n);
    char tag[160];
    snprintf(tag, sizeof tag, "adamw_step_device %s: theta", what);
    ck_tape(tag, gp, n * 4);
    snprintf(tag, sizeof tag, "adamw_step_device %s: m", what);
    ck_tape(tag, gm, n * 4);
    snprintf(tag, sizeof tag, "adamw_step_device %s: v", what);
    ck_tape(tag, gv, n * 4);
    float *cp = malloc(n * 4), *cm = malloc(n * 4), *cv = malloc(n * 4);
    memcpy(cp, p0, n * 4), memcpy(cm, m0, n * 4), memcpy(cv, v0, n * 4);
    adamw_step(cp, gr, cm, cv, n, t, &hp, lr); /* in the judge: the reference's */

    double *got = malloc(n * sizeof(double)), *want = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        got[i] = (double)gp[i] - p0[i];
        want[i] = (double)cp[i] - p0[i];
    }
    int bad = 0;
    size_t off = first_off(got, want, n, tol);
    if (off < n) {
        bad = 1;
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) moved += gp[i] != p0[i];
        if (moved == 0)
            printf("FAIL: adamw_step_device (%s) left θ unchanged: compute the scalars and launch adamw_step_cuda; "
                   "its adamw_kernel updates θ, m and v\n",
                   what);
        else if (off == grid_threads && n > grid_threads)
            printf("FAIL: adamw_step_device (%s): θ is right up to element %zu and unchanged from there: the "
                   "launcher starts at most 4096·256 threads, so each must loop (a grid-stride loop)\n",
                   what, off);
        else {
            printf("FAIL: adamw_step_device (%s, step t = %lld, lr = %g, λ = %g): the update Δθ differs from "
                   "adamw_step's\n",
                   what, (long long)t, lr, hp.weight_decay);
            describe_off("Δθ", got, want, n, tol);
        }
    }
    const char *names[2] = {"m (the first moment)", "v (the second moment)"};
    const float *gs[2] = {gm, gv}, *cs[2] = {cm, cv};
    for (int k = 0; k < 2 && !bad; k++) {
        for (size_t i = 0; i < n; i++) got[i] = gs[k][i], want[i] = cs[k][i];
        if (first_off(got, want, n, 1e-6) < n) {
            printf("FAIL: adamw_step_device (%s): %s differs from adamw_step's\n", what, names[k]);
            describe_off(k ? "v" : "m", got, want, n, 1e-6);
            bad = 1;
        }
    }
    ops_free(g, dp), ops_free(g, dg), ops_free(g, dm), ops_free(g, dv);
    free(p0), free(gr), free(m0), free(v0), free(gp), free(gm), free(gv), free(cp), free(cm), free(cv);
    free(got), free(want);
    return bad;
}

/* A trainer as trainer_init leaves it, with only what a step reads: the model, an SGD optimizer, the
 * batch buffers and the clipping bound. */
static void step_trainer(trainer_t *t, ops_t *ops, const model_config_t *cfg, int B, double clip) {
    memset(t, 0, sizeof *t);
    t->ops = ops;
    t->rank = 0, t->world_size = 1;
    t->cfg.clip = clip;
    t->local_batch = B;
    model_init(&t->model, cfg, ops, B, 41, NULL);
    optim_init_on(&t->optim, OPTIM_SGD, model_num_params(&t->model), ops);
    t->optim.sgd = (sgd_hparams_t){0.9, 1e-3};
    t->ctx = dp_malloc((size_t)B * cfg->context * sizeof(int32_t));
    t->targets = dp_malloc((size_t)B * sizeof(int32_t));
}

static void step_trainer_free(trainer_t *t) {
    model_free(&t->model);
    optim_free(&t->optim);
    free(t->ctx), free(t->targets);
}

/* Part 3: K steps of train_step_device against K steps of train_step, from the same parameters on the
 * same batches, with clipping active. SGD with momentum, not AdamW: AdamW's step turns the GPU's
 * different rounding of a near-zero gradient into a full step, SGD keeps it rounding (part 2 checks
 * AdamW's device step on identical inputs). */
static int device_train_steps(void) {
    enum { K = 4, B = 24, T = 4 };
    const model_config_t cfg = {11, T, 6, 16, 2};
    const double lr = 0.5, clip = 0.05;
    rng_t r;
    rng_init(&r, 51);
    int32_t ctx[K][B * T], tg[K][B];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < B * cfg.context; i++) ctx[k][i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
        for (int i = 0; i < B; i++) tg[k][i] = (int32_t)rng_below(&r, (uint32_t)cfg.vocab);
    }
    trainer_t gt, ct;
    ops_t *host = ops_create(OPS_CPU, 1);
    step_trainer(&gt, gpu(), &cfg, B, clip);
    size_t n = model_num_params(&gt.model);
    float *p0 = malloc(n * 4), *gparams = malloc(n * 4), *ggrads = malloc(n * 4);
    float gloss[K], closs[K];
    ops_to_host(gpu(), p0, gt.model.params, n);
    for (int k = 0; k < K; k++) {
        memcpy(gt.ctx, ctx[k], sizeof ctx[k]);
        memcpy(gt.targets, tg[k], sizeof tg[k]);
        before_call("train_step_device",
                    "on a GPU the parameters and gradients are device memory, which the host cannot read: clip "
                    "them with clip_grad_norm_ops(t->ops, ...), not clip_grad_norm");
        gloss[k] = train_step_device(&gt, lr);
        char tag[64];
        snprintf(tag, sizeof tag, "train_step_device step %d: loss", k + 1);
        ck_tape(tag, &gloss[k], sizeof gloss[k]);
    }
    ops_to_host(gpu(), gparams, gt.model.params, n);
    ops_to_host(gpu(), ggrads, gt.model.grads, n);
    ck_tape("train_step_device: parameters after the steps", gparams, n * 4);
    ck_tape("train_step_device: gradients of the last step", ggrads, n * 4);
    step_trainer_free(&gt);

    step_trainer(&ct, host, &cfg, B, clip);
    for (int k = 0; k < K; k++) {
        memcpy(ct.ctx, ctx[k], sizeof ctx[k]);
        memcpy(ct.targets, tg[k], sizeof tg[k]);
        closs[k] = train_step(&ct, lr); /* in the judge: the reference's */
    }
    double gnorm = 0, cnorm = 0;
    for (size_t i = 0; i < n; i++)
        gnorm += (double)ggrads[i] * ggrads[i], cnorm += (double)ct.model.grads[i] * ct.model.grads[i];
    gnorm = sqrt(gnorm), cnorm = sqrt(cnorm);
    if (fabs(cnorm - clip) > 1e-3 * clip)
        printf("  (grader self-check: the CPU run's last gradients have norm %.4g: clipping to %.4g was not active)\n",
               cnorm, clip);
    double *got = calloc(n, sizeof(double)), *want = calloc(n, sizeof(double));
    int bad = 0, first_loss_off = -1;
    for (int k = 0; k < K && first_loss_off < 0; k++)
        if (!(fabs((double)gloss[k] - closs[k]) <= 1e-5 * fabs((double)closs[k]))) first_loss_off = k;
    for (size_t i = 0; i < n; i++) got[i] = (double)gparams[i] - p0[i], want[i] = (double)ct.model.params[i] - p0[i];
    size_t params_off = first_off(got, want, n, 1e-4);
    size_t moved = 0;
    for (size_t i = 0; i < n; i++) moved += gparams[i] != p0[i];
    for (size_t i = 0; i < n; i++) got[i] = ggrads[i], want[i] = ct.model.grads[i];
    size_t grads_off = first_off(got, want, n, 1e-4);
    if (first_loss_off >= 0 || params_off < n || grads_off < n) {
        bad = 1;
        if (gloss[0] == 0 && closs[0] != 0)
            printf("FAIL: train_step_device returned 0 as the loss of step 1 (expected %.6g): return the loss "
                   "model_forward gives\n",
                   (double)closs[0]);
        if (moved == 0)
            printf("FAIL: after %d steps of train_step_device no parameter has changed: the step must end with "
                   "the optimizer step (optim_step)\n",
                   K);
        else if (grads_off < n && gnorm > clip * (1 + 1e-3))
            printf("FAIL: after a step of train_step_device the gradients have norm %.4g, above max_norm = %.4g: "
                   "they were not clipped (clip_grad_norm_ops with t->ops, between backward and the step)\n",
                   gnorm, clip);
        else if (first_loss_off > 0)
            printf("FAIL: train_step_device's loss agrees with train_step's in step 1 but not in step %d (%.6g, "
                   "expected %.6g): zero the gradients at the start of every step, and step the optimizer after "
                   "clipping\n",
                   first_loss_off + 1, (double)gloss[first_loss_off], (double)closs[first_loss_off]);
        else if (first_loss_off == 0 && gloss[0] != 0)
            printf("FAIL: train_step_device's first loss is %.6g, train_step's %.6g (if the cross-entropy kernels "
                   "failed above, fix them first: the model uses them)\n",
                   (double)gloss[0], (double)closs[0]);
        else {
            printf("FAIL: %d steps of train_step_device end with other parameters or gradients than train_step's "
                   "(the same five stages, in the same order)\n",
                   K);
            if (grads_off < n) describe_off("last gradients", got, want, n, 1e-4); /* got, want: the gradients */
            if (params_off < n) {
                for (size_t i = 0; i < n; i++)
                    got[i] = (double)gparams[i] - p0[i], want[i] = (double)ct.model.params[i] - p0[i];
                describe_off("parameter change", got, want, n, 1e-4);
            }
        }
    }
    step_trainer_free(&ct);
    ops_destroy(host);
    free(p0), free(gparams), free(ggrads), free(got), free(want);
    return bad;
}
#endif

static int device_check(void) {
#ifdef DPC_HAVE_CUDA
    if (ops_cuda_available()) {
        int bad = 0;
        /* fewer examples than a block; several blocks; more elements than the grid has threads */
        bad |= device_xent_case(3, 5, 61);
        bad |= device_xent_case(33, 517, 62);
        bad |= device_xent_case(4100, 256, 63);
        bad |= device_adamw_case("random state, 1100003 elements", 1100003, 7, (adamw_hparams_t){0.9, 0.999, 1e-8, 0.1},
                                 1e-2, 1.0f, 1.0f, false, 3e-5, 64);
        bad |= device_adamw_case("tiny gradients at step 1, where ε matters", 4099, 1,
                                 (adamw_hparams_t){0.9, 0.999, 1e-8, 0.0}, 1e-3, 0.0f, 1e-10f, true, 1e-5, 65);
        /* here a bias correction computed in float (1 − 0.999f is 1.3e-5 off) moves Δθ by 6e-6 */
        bad |= device_adamw_case("step 1 from θ = 0", 4099, 1, (adamw_hparams_t){0.9, 0.999, 1e-8, 0.0}, 1e-3, 0.0f,
                                 1.0f, true, 2e-6, 66);
        bad |= device_train_steps();
        if (!bad)
            printf("the GPU twins agree with the CPU functions: the cross-entropy kernels (up to 4100 examples, "
                   "1049600 elements), AdamW's device step (1100003 elements; tiny gradients; step 1 to 2e-6), and 4 "
                   "steps of "
                   "train_step_device with clipping active\n");
        return bad;
    }
#endif
    printf("SKIP: no GPU on this machine: the GPU twins (kernels.cu, device_step.c) are compiled but not run\n");
    exit(SKIPPED);
}

int main(int argc, char **argv) {
    dp_set_progname("check01");
    const ck_entry_t checks[] = {{"linear_backward", linear_backward_check},
                                 {"xent_backward", xent_backward_check},
                                 {"adamw", adamw_check},
                                 {"gradcheck", gradcheck},
                                 {"gradcheck_gpt", gradcheck_gpt},
                                 {"device", device_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
