/* The straggler emulation's options and seeded delays (common/straggler.h): what parses, what is
 * refused with one line, that a delay is a pure function of (seed, rank, step), and that the delays
 * have the distribution they claim — mean, spread, and the mean of a maximum lesson 10 models. */
#include "testutil.h"

#include "straggler.h"

#include <math.h>

static void parses_good_specs(void **state) {
    (void)state;
    char err[256];
    straggler_t s;
    assert_int_equal(straggler_parse("2:3", &s, err, sizeof err), 0);
    assert_int_equal(s.rank, 2);
    assert_true(s.factor == 3.0);
    assert_int_equal(straggler_parse("0:1.5", &s, err, sizeof err), 0);
    assert_int_equal(s.rank, 0);
    assert_true(s.factor == 1.5);
    assert_int_equal(straggler_parse(NULL, &s, err, sizeof err), 0);
    assert_int_equal(s.rank, -1);
    assert_int_equal(straggler_parse("none", &s, err, sizeof err), 0);
    assert_int_equal(s.rank, -1);
    jitter_t j;
    assert_int_equal(jitter_parse("exp:30", &j, err, sizeof err), 0);
    assert_int_equal(j.kind, JITTER_EXP);
    assert_true(fabs(j.mean_s - 0.030) < 1e-15);
    assert_int_equal(jitter_parse("lognormal:20:0.5", &j, err, sizeof err), 0);
    assert_int_equal(j.kind, JITTER_LOGNORMAL);
    assert_true(fabs(j.mean_s - 0.020) < 1e-15 && j.sigma == 0.5);
    assert_int_equal(jitter_parse(NULL, &j, err, sizeof err), 0);
    assert_int_equal(j.kind, JITTER_NONE);
    assert_true(jitter_delay_s(&j, 1, 0, 0) == 0);
}

static void refuses_bad_specs_in_one_line(void **state) {
    (void)state;
    const char *bad_stragglers[] = {"2", "x:3", "2:0.5", "-1:2", "2.5:3", "2:nan", "2:", ":3", "2:3:4", "1:1e9"};
    const char *bad_jitters[] = {"exp",         "exp:0",          "exp:-5",           "exp:5:1", "gauss:5",
                                 "lognormal:5", "lognormal:5:-1", "lognormal:5:9",    "exp:1e9", "exp:inf",
                                 "exp:",        "lognormal::0.5", "lognormal:5:0.5x", "EXP:5",   ""};
    char err[256];
    for (size_t i = 0; i < sizeof bad_stragglers / sizeof *bad_stragglers; i++) {
        straggler_t s;
        err[0] = 0;
        assert_int_equal(straggler_parse(bad_stragglers[i], &s, err, sizeof err), -1);
        assert_true(strlen(err) > 20 && !strchr(err, '\n'));
        assert_non_null(strstr(err, "--straggler"));
    }
    for (size_t i = 0; i < sizeof bad_jitters / sizeof *bad_jitters; i++) {
        jitter_t j;
        err[0] = 0;
        assert_int_equal(jitter_parse(bad_jitters[i], &j, err, sizeof err), -1);
        assert_true(strlen(err) > 20 && !strchr(err, '\n'));
        assert_non_null(strstr(err, "--jitter"));
    }
}

static void delays_are_a_pure_function(void **state) {
    (void)state;
    jitter_t j = {JITTER_EXP, 0.02, 0};
    double a = jitter_delay_s(&j, 7, 3, 11);
    assert_true(a > 0);
    assert_true(jitter_delay_s(&j, 7, 3, 11) == a); /* again: the same */
    assert_true(jitter_delay_s(&j, 8, 3, 11) != a); /* another seed, rank or step: another delay */
    assert_true(jitter_delay_s(&j, 7, 4, 11) != a);
    assert_true(jitter_delay_s(&j, 7, 3, 12) != a);
    /* steps beyond 2^32 are their own steps, not step mod 2^32 */
    assert_true(jitter_delay_s(&j, 7, 3, 11 + (1ll << 32)) != a);
}

static void exponential_has_its_distribution(void **state) {
    (void)state;
    jitter_t j = {JITTER_EXP, 0.02, 0};
    const int n = 200000;
    double sum = 0;
    int above = 0;
    for (int i = 0; i < n; i++) {
        double d = jitter_delay_s(&j, 1, i % 16, i / 16);
        assert_true(d >= 0 && isfinite(d));
        sum += d;
        above += d > 0.02;
    }
    assert_true(fabs(sum / n / 0.02 - 1) < 0.01);           /* the mean: sd of the estimate 0.2% */
    assert_true(fabs((double)above / n - exp(-1)) < 0.005); /* P(D > mean) = 1/e */
}

static void lognormal_has_its_distribution(void **state) {
    (void)state;
    jitter_t j = {JITTER_LOGNORMAL, 0.03, 0.5};
    const int n = 200000;
    double sum = 0, lsum = 0, lsq = 0;
    for (int i = 0; i < n; i++) {
        double d = jitter_delay_s(&j, 2, i % 8, i / 8);
        assert_true(d > 0 && isfinite(d));
        sum += d;
        lsum += log(d);
        lsq += log(d) * log(d);
    }
    double lmean = lsum / n, lsd = sqrt(lsq / n - lmean * lmean);
    assert_true(fabs(sum / n / 0.03 - 1) < 0.01);                     /* its MEAN is the given mean */
    assert_true(fabs(lmean - jitter_lognormal_mu(0.03, 0.5)) < 0.01); /* μ = ln(mean) − σ²/2 */
    assert_true(fabs(lsd / 0.5 - 1) < 0.01);
}

static void max_of_exponentials_is_mean_times_harmonic(void **state) {
    (void)state;
    /* what lesson 10's model says of the emulator itself: the slowest of 8 ranks' delays averages
     * mean · H_8 = 2.718 · mean, while each rank's own averages the mean */
    jitter_t j = {JITTER_EXP, 0.02, 0};
    const int steps = 50000, N = 8;
    double sum = 0;
    for (int s = 0; s < steps; s++) {
        double m = 0;
        for (int r = 0; r < N; r++) m = fmax(m, jitter_delay_s(&j, 3, r, s));
        sum += m;
    }
    double h8 = 761.0 / 280;
    assert_true(fabs(sum / steps / (0.02 * h8) - 1) < 0.01); /* sd of the estimate 0.2% */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_good_specs),
        cmocka_unit_test(refuses_bad_specs_in_one_line),
        cmocka_unit_test(delays_are_a_pure_function),
        cmocka_unit_test(exponential_has_its_distribution),
        cmocka_unit_test(lognormal_has_its_distribution),
        cmocka_unit_test(max_of_exponentials_is_mean_times_harmonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
