/* fp16's dynamic loss scaling (lessons/01-trainer/grad_scaler.h): torch.cuda.amp.GradScaler's
 * defaults, halving on an inf or NaN, doubling after exactly 2000 good steps in a row, and
 * optim_step leaving the parameters, the moments and the step count alone on a skipped step. */
#include "testutil.h"

#include "grad_scaler.h"
#include "optim.h"

#include <math.h>

static void defaults_and_growth(void **state) {
    (void)state;
    grad_scaler_t s;
    grad_scaler_init(&s);
    assert_true(s.scale == 65536.0);
    for (int i = 0; i < 1999; i++) assert_false(grad_scaler_update(&s, false));
    assert_true(s.scale == 65536.0); /* 1999 good steps: not yet */
    grad_scaler_update(&s, false);
    assert_true(s.scale == 131072.0); /* the 2000th doubles it */
    assert_true(grad_scaler_update(&s, true));
    assert_true(s.scale == 65536.0 && s.skipped && s.skipped_steps == 1 && s.last_scale == 131072.0);
    /* an overflow restarts the count: 1999 good steps after it do not grow the scale */
    for (int i = 0; i < 1999; i++) grad_scaler_update(&s, false);
    assert_true(s.scale == 65536.0 && !s.skipped);
}

static void finds_inf_and_nan(void **state) {
    (void)state;
    float g[5] = {1, -2, 3e38f, 0, -0.0f};
    assert_false(grad_scaler_found_inf(g, 5));
    g[4] = INFINITY;
    assert_true(grad_scaler_found_inf(g, 5));
    assert_false(grad_scaler_found_inf(g, 4)); /* only the n given */
    g[4] = 0;
    g[0] = NAN;
    assert_true(grad_scaler_found_inf(g, 5));
    g[0] = -INFINITY;
    assert_true(grad_scaler_found_inf(g, 5));
}

static void optim_step_skips(void **state) {
    (void)state;
    optim_t o;
    grad_scaler_t s;
    grad_scaler_init(&s);
    optim_init(&o, OPTIM_ADAMW, 3);
    assert_null(o.scaler); /* float32: every step is taken */
    o.scaler = &s;
    float p[3] = {1, 2, 3}, g[3] = {0.5f, -0.5f, 0.25f};
    optim_step(&o, p, g, 1e-2);
    assert_int_equal(o.t, 1);
    float p1[3], m1[3], v1[3];
    memcpy(p1, p, sizeof p);
    memcpy(m1, o.m, sizeof m1);
    memcpy(v1, o.v, sizeof v1);
    g[1] = INFINITY;
    optim_step(&o, p, g, 1e-2);
    assert_int_equal(o.t, 1);
    assert_memory_equal(p, p1, sizeof p);
    assert_memory_equal(o.m, m1, sizeof m1);
    assert_memory_equal(o.v, v1, sizeof v1);
    assert_true(s.scale == 32768.0);
    g[1] = -0.5f;
    optim_step(&o, p, g, 1e-2);
    assert_int_equal(o.t, 2);
    assert_true(p[0] != p1[0]);
    optim_free(&o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_growth),
        cmocka_unit_test(finds_inf_and_nan),
        cmocka_unit_test(optim_step_skips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
