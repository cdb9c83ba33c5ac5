/* Lesson 01's reference optimizer code against PyTorch's numbers (lessons/pytorch-semantics.md#adamw). */
#include "testutil.h"

#include "optim.h"

#include <math.h>

/* States the acceptance test: AdamW reproduces the 3-step reference trajectory within rtol 1e-6. */
static void adamw_matches_pytorch_3_steps(void **state) {
    (void)state;
    adamw_hparams_t hp = {0.9, 0.999, 1e-8, 1e-2};
    float th[4] = {1.0f, -2.0f, 0.5f, 3.0f}, m[4] = {0}, v[4] = {0};
    const float g[3][4] = {{0.1f, -0.2f, 0.3f, -0.4f}, {0.05f, 0.1f, -0.3f, 0.2f}, {-0.1f, 0.0f, 0.25f, 1.0f}};
    const double want[3][4] = {{0.998989999, -1.99897993, 0.498995006, 3.00096989},
                               {0.998047829, -1.99869359, 0.49904263, 3.00120616},
                               {0.99792701, -1.99846768, 0.498748183, 3.00067687}};
    for (int s = 0; s < 3; s++) {
        adamw_step(th, g[s], m, v, 4, s + 1, &hp, 1e-3);
        for (int i = 0; i < 4; i++)
            if (fabs(th[i] - want[s][i]) > 1e-6 * fabs(want[s][i]))
                fail_msg("step %d element %d: %.9g, PyTorch %.9g", s + 1, i, (double)th[i], want[s][i]);
    }
}

static void adamw_eps_probe(void **state) {
    (void)state;
    adamw_hparams_t hp = {0.9, 0.999, 1e-8, 0};
    float th = 0, g = 1e-10f, m = 0, v = 0;
    adamw_step(&th, &g, &m, &v, 1, 1, &hp, 1e-3);
    assert_true(fabs(th + 9.90099e-06) < 1e-4 * 9.90099e-06);
}

static void sgd_momentum_like_torch(void **state) {
    (void)state;
    sgd_hparams_t hp = {0.9, 0.0};
    float p = 1.0f, g = 0.5f, buf = 0;
    sgd_step(&p, &g, &buf, 1, 1, &hp, 0.1); /* first step: buf = g */
    assert_true(fabsf(p - 0.95f) < 1e-7f);
    sgd_step(&p, &g, &buf, 1, 2, &hp, 0.1); /* buf = 0.9*0.5 + 0.5 = 0.95 */
    assert_true(fabsf(p - (0.95f - 0.095f)) < 1e-7f);
}

static void clip_semantics(void **state) {
    (void)state;
    float g[2] = {3, 4}; /* norm 5 */
    double n = clip_grad_norm(g, 2, 1.0);
    assert_true(fabs(n - 5.0) < 1e-12); /* returns the norm before clipping */
    double after = sqrt((double)g[0] * g[0] + (double)g[1] * g[1]);
    assert_true(fabs(after - 5.0 / (5.0 + 1e-6)) < 1e-6);
    float h[2] = {0.3f, 0.4f}, k[2] = {0.3f, 0.4f};
    clip_grad_norm(h, 2, 1.0); /* below max_norm: multiplied by exactly 1.0 */
    assert_memory_equal(h, k, sizeof h);
    float z[2] = {3, 4};
    clip_grad_norm(z, 2, 0); /* disabled */
    assert_true(z[0] == 3 && z[1] == 4);
}

static void schedule(void **state) {
    (void)state;
    /* warmup: lr·(s+1)/W; then cosine from lr to lr·min_ratio */
    assert_true(fabs(lr_at(0, 1.0, 4, 104, 0.1) - 0.25) < 1e-12);
    assert_true(fabs(lr_at(3, 1.0, 4, 104, 0.1) - 1.0) < 1e-12);
    assert_true(fabs(lr_at(4, 1.0, 4, 104, 0.1) - 1.0) < 1e-12);
    assert_true(fabs(lr_at(54, 1.0, 4, 104, 0.1) - 0.55) < 1e-12);
    assert_true(fabs(lr_at(104, 1.0, 4, 104, 0.1) - 0.1) < 1e-12);
    assert_true(fabs(lr_at(0, 2.0, 0, 10, 0.0) - 2.0) < 1e-12); /* no warmup */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(adamw_matches_pytorch_3_steps),
        cmocka_unit_test(adamw_eps_probe),
        cmocka_unit_test(sgd_momentum_like_torch),
        cmocka_unit_test(clip_semantics),
        cmocka_unit_test(schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
