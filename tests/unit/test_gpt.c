/* The GPT reference (lessons/01-trainer/gpt.c) against the float64 oracle of
 * grading/checks/gpt_oracle.h (written from the PyTorch definition, sharing no code with gpt.c; the
 * grader's lesson-01 check uses the same one). Gradients are checked by central differences of that
 * oracle, on parameters re-drawn as gpt_oracle.h says why; the hook orders, accumulation, causality,
 * ignored targets, the layout and the initialisation are checked directly. */
#include "testutil.h"

#include "gpt.h"
#include "gpt_layers.h"
#include "gpt_oracle.h"
#include "rng.h"

#include <math.h>

/* ---- fixtures -------------------------------------------------------------------------------- */

/* One CPU ops context for the whole group, passed to every test as its state. */
static int make_ops(void **state) {
    *state = ops_create(OPS_CPU, 1);
    return 0;
}

static int free_ops(void **state) {
    ops_destroy(*state);
    return 0;
}

static void tiny(gpt_t *m, const ops_t *ops, int max_batch) {
    gpt_config_t cfg;
    assert_int_equal(gpt_preset("gpt-tiny", &cfg), 0);
    gpt_init(m, &cfg, ops, max_batch, 1, NULL);
    gpt_oracle_redraw(m, 7);
}

static void random_tokens(int32_t *tok, int32_t *tgt, int n, int V, uint64_t seed) {
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < n; i++) {
        tok[i] = (int32_t)rng_below(&r, (uint32_t)V);
        tgt[i] = (int32_t)rng_below(&r, (uint32_t)V);
    }
}

/* ---- tests ----------------------------------------------------------------------------------- */

/* Forward loss and every tensor's gradient against the oracle. B=2 sequences of 7 < T tokens, two
 * ignored targets, a token that repeats and vocabulary rows that never appear (wte then gets its
 * gradient from the head alone; rows that appear get both shares).
 *
 * Tolerance |analytic − numeric| <= 1e-4·|numeric| + 1e-6. The analytic side is float32 (unit
 * roundoff 6e-8) through two blocks of sums of up to 4C = 64 terms: observed worst 1.1e-7
 * absolute, 8e-6 relative, so the bound leaves a margin near 10. The central difference at
 * eps = 1e-4 in double adds ~1e-8 at most (truncation eps²·f‴; roundoff 1e-16/eps). */
static void gradients_match_finite_differences(void **state) {
    (void)state;
    gpt_t m;
    tiny(&m, *state, 2);
    const int B = 2, T = 7, N = B * T;
    int32_t tok[14], tgt[14];
    random_tokens(tok, tgt, N, m.cfg.vocab, 11);
    tok[9] = tok[2]; /* a repeated token */
    tgt[3] = -1, tgt[12] = -1;
    double *p = gpt_oracle_params(&m);
    double want = gpt_oracle_loss(&m, p, tok, tgt, B, T, NULL);
    gpt_zero_grad(&m);
    float loss = gpt_forward(&m, tok, tgt, B, T);
    if (fabs(loss - want) > 1e-5 * fabs(want)) fail_msg("forward loss %.9g, float64 oracle %.9g", (double)loss, want);
    gpt_backward(&m, 1.0f, NULL, NULL);

    double worst = 0, worst_abs = 0, smallest = INFINITY;
    const char *worst_name = "";
    for (int i = 0; i < m.layout.count; i++) {
        const flat_view_t *v = &m.layout.views[i];
        size_t picks[10];
        int np = 0;
        for (int k = 0; k < 8 && (size_t)k < v->numel; k++) picks[np++] = ((size_t)k * v->numel) / 8 + (size_t)k % 3;
        if (i == gpt_wte()) { /* rows of tokens that appear (both uses) and of one that does not */
            picks[np++] = (size_t)tok[2] * v->shape[1] + 5;
            int unused = 0;
            for (int seen = 1; seen;) {
                seen = 0;
                for (int n = 0; n < N; n++) seen |= tok[n] == unused;
                if (seen) unused++;
            }
            picks[np++] = (size_t)unused * v->shape[1] + 3;
        }
        for (int k = 0; k < np; k++) {
            size_t j = v->offset + picks[k] % v->numel;
            double num = gpt_oracle_slope(&m, p, j, 1, NULL, 1e-4, tok, tgt, B, T), an = m.grads[j];
            double err = fabs(an - num);
            if (err > 1e-4 * fabs(num) + 1e-6)
                fail_msg("%s[%zu]: gradient %.9g, finite difference %.9g", v->name, j - v->offset, an, num);
            worst_abs = fmax(worst_abs, err);
            if (fabs(num) > 0) smallest = fmin(smallest, fabs(num));
            double rel = err / (fabs(num) + 1e-3);
            if (rel > worst) worst = rel, worst_name = v->name;
        }
    }
    printf("    loss %.9g vs %.9g; worst |a-n|/(|n|+1e-3) = %.2e (%s), worst |a-n| = %.2e, smallest |n| = %.2e\n",
           (double)loss, want, worst, worst_name, worst_abs, smallest);
    free(p);
    gpt_free(&m);
}

/* GELU alone, pointwise: its tanh and erf forms differ by at most ~5e-4, too little for the
 * model-level loss check to see through two blocks (a swap shows only as a gradient error near the
 * tolerance), so the layer is pinned here to 1e-6 of the tanh formula and of its derivative. */
static double gelu64(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }

static void gelu_is_the_tanh_form(void **state) {
    (void)state;
    float x[9] = {-4, -2.5f, -1, -0.3f, 0, 0.3f, 1, 2.5f, 4}, y[9], ones[9], dx[9];
    for (int i = 0; i < 9; i++) ones[i] = 1.0f;
    gelu_forward(x, y, 9);
    gelu_backward(x, ones, dx, 9);
    for (int i = 0; i < 9; i++) {
        double want = gelu64(x[i]), slope = (gelu64(x[i] + 1e-5) - gelu64(x[i] - 1e-5)) / 2e-5;
        if (fabs(y[i] - want) > 1e-6 * fmax(1, fabs(want)))
            fail_msg("gelu(%g) = %.9g, tanh form %.9g", (double)x[i], (double)y[i], want);
        if (fabs(dx[i] - slope) > 1e-6 * fmax(1, fabs(slope)))
            fail_msg("gelu'(%g) = %.9g, expected %.9g", (double)x[i], (double)dx[i], slope);
    }
}

/* The token at position t changes nothing before t, in its sequence or the others. */
static void attention_is_causal(void **state) {
    (void)state;
    gpt_t m;
    tiny(&m, *state, 2);
    const int B = 2, T = 8, N = B * T, V = m.cfg.vocab, t = 5;
    int32_t tok[16], tgt[16];
    random_tokens(tok, tgt, N, V, 3);
    gpt_forward(&m, tok, tgt, B, T);
    float *before = malloc((size_t)N * V * sizeof(float)), lbefore[16];
    memcpy(before, m.logits, (size_t)N * V * sizeof(float));
    memcpy(lbefore, m.losses, sizeof lbefore);
    tok[t] = (tok[t] + 1) % V;
    gpt_forward(&m, tok, tgt, B, T);
    for (int n = 0; n < N; n++) {
        int same = memcmp(before + (size_t)n * V, m.logits + (size_t)n * V, (size_t)V * sizeof(float)) == 0;
        int must_be_same = n < t || n >= T; /* earlier positions, and the other sequence */
        if (must_be_same && (!same || lbefore[n] != m.losses[n]))
            fail_msg("changing token %d changed the logits at row %d", t, n);
        if (n == t && same) fail_msg("changing token %d did not change its own logits", t);
    }
    free(before);
    gpt_free(&m);
}

typedef struct {
    int order[256], n;
    const gpt_t *m;
    float *snapshot; /* each parameter's gradient when its hook fired */
} hook_log_t;

static void on_ready(void *ctx, int i) {
    hook_log_t *h = ctx;
    h->order[h->n++] = i;
    const flat_view_t *v = &h->m->layout.views[i];
    memcpy(h->snapshot + v->offset, h->m->grads + v->offset, v->numel * sizeof(float));
}

typedef struct {
    char events[64][8];
    int n;
} unit_log_t;

#define UNIT_HOOK(fn, tag)                                                                                             \
    static void fn(void *ctx, int u) {                                                                                 \
        unit_log_t *l = ctx;                                                                                           \
        snprintf(l->events[l->n++], 8, "%s%d", tag, u);                                                                \
    }
UNIT_HOOK(pre_f, "F")
UNIT_HOOK(post_f, "f")
UNIT_HOOK(pre_b, "B")
UNIT_HOOK(post_b, "b")

/* Exactly reverse registration order, each gradient final when its hook fires; the unit hooks in
 * the order gpt.h promises; units are contiguous runs that cover the layout. */
static void hook_orders_and_units(void **state) {
    (void)state;
    gpt_t m;
    tiny(&m, *state, 1);
    int32_t tok[8], tgt[8];
    random_tokens(tok, tgt, 8, m.cfg.vocab, 5);
    hook_log_t h = {.m = &m, .snapshot = calloc(m.layout.numel, sizeof(float))};
    unit_log_t u = {0};
    m.unit_hooks = (model_unit_hooks_t){&u, pre_f, post_f, pre_b, post_b};
    gpt_zero_grad(&m);
    gpt_forward(&m, tok, tgt, 1, 8);
    gpt_backward(&m, 1.0f, on_ready, &h);
    assert_int_equal(h.n, m.layout.count);
    for (int k = 0; k < h.n; k++)
        if (h.order[k] != m.layout.count - 1 - k)
            fail_msg("hook %d fired for %s, expected %s", k, m.layout.views[h.order[k]].name,
                     m.layout.views[m.layout.count - 1 - k].name);
    if (memcmp(h.snapshot, m.grads, m.layout.numel * sizeof(float)) != 0)
        fail_msg("a gradient changed after its ready hook fired");
    const char *want[] = {"F0", "f0", "F1", "f1", "F2", "f2", "F3", "f3", "F0",
                          "f0", "B0", "B3", "b3", "B2", "b2", "B1", "b1", "b0"};
    assert_int_equal(u.n, (int)(sizeof want / sizeof want[0]));
    for (int k = 0; k < u.n; k++) assert_string_equal(u.events[k], want[k]);

    int L = m.cfg.layers;
    assert_int_equal(m.nunits, L + 2);
    size_t next = 0;
    for (int k = 0; k < m.nunits; k++) {
        assert_true(m.unit_offset[k] == next);
        next += m.unit_numel[k];
    }
    assert_true(next == m.layout.numel);
    assert_int_equal(m.unit_of[gpt_wte()], 0), assert_int_equal(m.unit_of[gpt_wpe()], 0);
    assert_int_equal(m.unit_of[gpt_block_param(1, GPT_LN1_W)], 2);
    assert_int_equal(m.unit_of[gpt_lnf_b(L)], L + 1);
    free(h.snapshot);
    gpt_free(&m);
}

/* Two backwards add up; grad_scale scales. */
static void gradients_accumulate_and_scale(void **state) {
    (void)state;
    gpt_t m;
    tiny(&m, *state, 2);
    int32_t tok[16], tgt[16];
    random_tokens(tok, tgt, 16, m.cfg.vocab, 9);
    size_t n = m.layout.numel;
    float *g1 = malloc(n * sizeof(float));
    gpt_zero_grad(&m);
    gpt_forward(&m, tok, tgt, 2, 8);
    gpt_backward(&m, 1.0f, NULL, NULL);
    memcpy(g1, m.grads, n * sizeof(float));
    double gmax = 0;
    for (size_t i = 0; i < n; i++) gmax = fmax(gmax, fabs(g1[i]));
    gpt_forward(&m, tok, tgt, 2, 8);
    gpt_backward(&m, 1.0f, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        if (fabs(m.grads[i] - 2.0 * g1[i]) > 1e-5 * gmax)
            fail_msg("grad[%zu]: two backwards give %g, one %g", i, (double)m.grads[i], (double)g1[i]);
    gpt_zero_grad(&m);
    gpt_forward(&m, tok, tgt, 2, 8);
    gpt_backward(&m, 0.25f, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        if (fabs(m.grads[i] - 0.25 * g1[i]) > 1e-6 * gmax)
            fail_msg("grad[%zu]: grad_scale 0.25 gives %g, 1 gives %g", i, (double)m.grads[i], (double)g1[i]);
    free(g1);
    gpt_free(&m);
}

/* Ignored targets are left out of the mean (not counted as zero); all ignored: loss 0, no gradient. */
static void ignored_targets(void **state) {
    (void)state;
    gpt_t m;
    tiny(&m, *state, 1);
    int32_t tok[8], tgt[8], tgt2[8];
    random_tokens(tok, tgt, 8, m.cfg.vocab, 13);
    memcpy(tgt2, tgt, sizeof tgt);
    for (int t = 0; t < 8; t += 2) tgt[t] = -1, tgt2[t] = -7; /* any negative */
    double *p = gpt_oracle_params(&m);
    double want = gpt_oracle_loss(&m, p, tok, tgt, 1, 8, NULL);
    float a = gpt_forward(&m, tok, tgt, 1, 8), b = gpt_forward(&m, tok, tgt2, 1, 8);
    if (fabs(a - want) > 1e-5 * want) fail_msg("loss with ignored targets %.9g, oracle %.9g", (double)a, want);
    assert_true(a == b);
    for (int t = 0; t < 8; t++) tgt[t] = -1;
    gpt_zero_grad(&m);
    assert_true(gpt_forward(&m, tok, tgt, 1, 8) == 0.0f);
    hook_log_t h = {.m = &m, .snapshot = calloc(m.layout.numel, sizeof(float))};
    gpt_backward(&m, 1.0f, on_ready, &h);
    assert_int_equal(h.n, m.layout.count); /* DDP still hears of every parameter */
    for (size_t i = 0; i < m.layout.numel; i++) assert_true(m.grads[i] == 0.0f);
    free(h.snapshot);
    free(p);
    gpt_free(&m);
}

/* A token outside the vocabulary is one clear line and a non-zero exit, not a read out of bounds. */
static void bad_token_child(void *ops) {
    gpt_t m;
    tiny(&m, ops, 1);
    int32_t tok[2] = {3, 27}, tgt[2] = {1, 2};
    gpt_forward(&m, tok, tgt, 1, 2);
}

static void bad_token_is_one_line(void **state) {
    char err[512];
    int rc = run_child(bad_token_child, *state, err, sizeof err);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err, "token 27 at position 1 is not in 0..26"));
    assert_true(strchr(err, '\n') == err + strlen(err) - 1);
}

/* The presets' sizes, by a formula written out here, and the names and shapes in PyTorch's order. */
static void layout_and_presets(void **state) {
    (void)state;
    const struct {
        const char *name;
        size_t count;
    } want[] = {{"gpt-tiny", 7152}, {"gpt-mini", 110400}, {"gpt-small", 4837376}};
    for (int k = 0; k < 3; k++) {
        gpt_config_t c;
        assert_int_equal(gpt_preset(want[k].name, &c), 0);
        size_t C = (size_t)c.channels, L = (size_t)c.layers;
        size_t per_block =
            (2 * C) + (3 * C * C + 3 * C) + (C * C + C) + (2 * C) + (4 * C * C + 4 * C) + (4 * C * C + C);
        size_t formula = (size_t)c.vocab * C + (size_t)c.context * C + L * per_block + 2 * C;
        flat_layout_t lay;
        gpt_layout(&lay, &c);
        assert_true(lay.numel == formula);
        assert_true(lay.numel == want[k].count);
        assert_true(gpt_count_params(&c) == formula);
        assert_int_equal(lay.count, 2 + 12 * (int)L + 2);
        const char *block[] = {"ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
                               "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
                               "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
        size_t rows[] = {C, C, 3 * C, 3 * C, C, C, C, C, 4 * C, 4 * C, C, C};
        size_t cols[] = {0, 0, C, 0, C, 0, 0, 0, C, 0, 4 * C, 0};
        assert_string_equal(lay.views[0].name, "transformer.wte.weight");
        assert_string_equal(lay.views[1].name, "transformer.wpe.weight");
        assert_true(lay.views[1].shape[0] == (size_t)c.context && lay.views[1].shape[1] == C);
        for (int i = 0; i < (int)L; i++)
            for (int j = 0; j < 12; j++) {
                const flat_view_t *v = &lay.views[2 + 12 * i + j];
                char name[FLAT_MAX_NAME];
                snprintf(name, sizeof name, "transformer.h.%d.%s", i, block[j]);
                assert_string_equal(v->name, name);
                assert_int_equal(v->ndim, cols[j] ? 2 : 1);
                assert_true(v->shape[0] == rows[j] && (!cols[j] || v->shape[1] == cols[j]));
            }
        assert_string_equal(lay.views[lay.count - 2].name, "transformer.ln_f.weight");
        assert_string_equal(lay.views[lay.count - 1].name, "transformer.ln_f.bias");
        flat_layout_free(&lay);
    }
    gpt_config_t bad = {27, 8, 16, 3, 2};
    char err[256];
    assert_int_equal(gpt_check_config(&bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a multiple of heads"));
    gpt_config_t c;
    assert_int_equal(gpt_preset("gpt-huge", &c), -1);
}

/* GPT-2's init: std 0.02, c_proj 0.02/sqrt(2L), biases 0, LayerNorm 1/0; deterministic by seed.
 * And the memory accounting: parameters and gradients at 4 bytes each, all of it released. */
static void initialisation(void **state) {
    (void)state;
    gpt_config_t c;
    assert_int_equal(gpt_preset("gpt-small", &c), 0);
    gpt_t m, m2;
    mem_t mem;
    mem_init(&mem);
    gpt_init(&m, &c, *state, 1, 42, &mem);
    assert_true(mem.cur[MEM_PARAMS] == m.layout.numel * sizeof(float));
    assert_true(mem.cur[MEM_GRADS] == m.layout.numel * sizeof(float));
    assert_true(mem.cur[MEM_ACTIVATIONS] > 0);
    gpt_init(&m2, &c, *state, 1, 42, NULL);
    assert_memory_equal(m.params, m2.params, m.layout.numel * sizeof(float));
    gpt_reset_params(&m2, 43);
    assert_memory_not_equal(m.params, m2.params, m.layout.numel * sizeof(float));
    for (int i = 0; i < m.layout.count; i++) {
        const flat_view_t *v = &m.layout.views[i];
        const float *p = m.params + v->offset;
        if (v->ndim == 1) {
            float want = strstr(v->name, "ln_") && strstr(v->name, ".weight") ? 1.0f : 0.0f;
            for (size_t k = 0; k < v->numel; k++)
                if (p[k] != want) fail_msg("%s[%zu] = %g, expected %g", v->name, k, (double)p[k], (double)want);
            continue;
        }
        double s = 0, ss = 0;
        for (size_t k = 0; k < v->numel; k++) s += p[k], ss += (double)p[k] * p[k];
        double mean = s / v->numel, sd = sqrt(ss / v->numel - mean * mean);
        double want = strstr(v->name, "c_proj") ? 0.02 / sqrt(2.0 * c.layers) : 0.02;
        if (fabs(sd - want) > 0.05 * want || fabs(mean) > 0.1 * want)
            fail_msg("%s: mean %g std %g, expected 0 and %g", v->name, mean, sd, want);
    }
    gpt_free(&m);
    assert_true(mem.cur_total == 0); /* every tracked buffer released */
    gpt_free(&m2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gradients_match_finite_differences),
        cmocka_unit_test(gelu_is_the_tanh_form),
        cmocka_unit_test(attention_is_causal),
        cmocka_unit_test(hook_orders_and_units),
        cmocka_unit_test(gradients_accumulate_and_scale),
        cmocka_unit_test(ignored_targets),
        cmocka_unit_test(bad_token_is_one_line),
        cmocka_unit_test(layout_and_presets),
        cmocka_unit_test(initialisation),
    };
    return cmocka_run_group_tests(tests, make_ops, free_ops);
}
