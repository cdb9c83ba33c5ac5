/* q01.c — lesson 01's quiz: AdamW's first steps (adamw_step, the reference) and clipping. */
#include "optim.h"
#include "quiz.h"

#include <math.h>

void quiz_01(quiz_t *qz, rng_t *r);

void quiz_01(quiz_t *qz, rng_t *r) {
    static const double lrs[] = {1e-3, 3e-3, 1e-2, 3e-4};
    static const double decays[] = {0.0, 0.01, 0.1};
    adamw_hparams_t hp = {.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = quiz_pick(r, decays, 3)};
    double lr = quiz_pick(r, lrs, 4);
    float theta0 = (float)quiz_int(r, 5, 20) / 10.0f, g = (float)quiz_int(r, -400, 400) / 100.0f;
    if (g == 0) g = 0.25f;
    float p = theta0, m = 0, v = 0;
    adamw_step(&p, &g, &m, &v, 1, 1, &hp, lr);
    double d1 = (double)p - theta0;
    quiz_why(quiz_number(qz, d1, 0.01,
                         "AdamW (beta1 0.9, beta2 0.999, eps 1e-8, weight_decay %g, lr %g) takes its FIRST step "
                         "(t = 1, m = v = 0) on an element theta = %g whose gradient is %g. By how much does theta "
                         "change (theta_1 - theta_0, with its sign)?",
                         hp.weight_decay, lr, theta0, g),
             "decay first: theta*(1 - lr*wd) = %.7g; then m = 0.1*g, v = 0.001*g^2; bias-corrected m/(1-0.9) = g and "
             "sqrt(v/(1-0.999)) = |g|, so the step is -lr*g/(|g| + eps) = %+g: in all %+g",
             theta0 * (1 - lr * hp.weight_decay), -lr * (g > 0 ? 1 : -1), d1);

    float g2 = 1e-4f * (float)quiz_int(r, 1, 9), p2 = theta0, m2 = 0, v2 = 0;
    adamw_step(&p2, &g2, &m2, &v2, 1, 1, &hp, lr);
    double d2 = (double)p2 - theta0;
    quiz_why(quiz_number(qz, d2, 0.01,
                         "Same optimizer, same theta = %g, but a gradient of only %g. Its first-step change?", theta0,
                         (double)g2),
             "the first step is lr*g/(|g| + eps) whatever |g| is (eps = 1e-8 is far below %g): %+g, plus the decay "
             "-lr*wd*theta = %+g",
             (double)g2, -lr, -lr * hp.weight_decay * theta0);

    float p3 = theta0, g3 = 0, m3 = 0, v3 = 0;
    double wd = 0.1;
    adamw_hparams_t hp3 = hp;
    hp3.weight_decay = wd;
    adamw_step(&p3, &g3, &m3, &v3, 1, 1, &hp3, lr);
    quiz_why(quiz_number(qz, p3, 0.001,
                         "With weight_decay 0.1 and lr %g, an element theta = %g has a gradient of exactly 0 on the "
                         "first step. What is theta after it?",
                         lr, theta0),
             "AdamW's decay is decoupled: theta*(1 - lr*wd) = %g*(1 - %g) = %.6g; the Adam part moves it by "
             "0/(0 + eps) = 0",
             theta0, lr * wd, (double)p3);

    /* clipping: the given clip_grad_norm of lesson 01 */
    float gs[4];
    for (int i = 0; i < 4; i++) gs[i] = (float)quiz_int(r, -30, 30) / 10.0f;
    gs[0] = 3.0f;
    double max_norm = quiz_int(r, 1, 2);
    double norm = clip_grad_norm(gs, 4, max_norm);
    quiz_why(quiz_number(qz, gs[0], 0.01,
                         "A gradient's norm is %.4g and it is clipped to max_norm %g (torch's clip_grad_norm_: "
                         "coefficient max_norm / (norm + 1e-6), applied only when below 1). An element that was 3.0 "
                         "becomes?",
                         norm, max_norm),
             "coefficient = %g / (%.4g + 1e-6) = %.4g%s; 3.0 * coefficient = %.4g", max_norm, norm,
             max_norm / (norm + 1e-6), max_norm / (norm + 1e-6) >= 1 ? " >= 1: nothing is clipped" : "", (double)gs[0]);

    int P = quiz_int(r, 1, 9) * 1000000;
    quiz_why(quiz_number(qz, 16.0 * P, 0,
                         "How many bytes of model state does training a %d-parameter model with "
                         "AdamW in float32 keep (parameters, gradients and both moments)?",
                         P),
             "4 bytes each for the parameter, its gradient, m and v: 16 bytes * %d = %.0f", P, 16.0 * P);

    static const char *const why[] = {
        "Bias correction makes m_hat = g and v_hat = g^2 on step 1, so the step is lr*g/(|g| + eps): a sign",
        "Weight decay normalises every parameter to unit size before the step",
        "The gradients are clipped to norm 1 before every step", "beta1 = 0.9 averages the gradient's size away"};
    quiz_why(quiz_choice(qz, r, why, 4, 0,
                         "Why does AdamW's first step move (almost) every element by about lr, whatever its gradient?"),
             "m = (1-beta1)g and v = (1-beta2)g^2 divided by their bias corrections (1-beta1) and (1-beta2) give "
             "back g and g^2; lr*g/sqrt(g^2) is lr times the sign of g (eps matters only for |g| near 1e-8)");
}
