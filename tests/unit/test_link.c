/* The α-β link model and its presets. */
#include "testutil.h"

#include "link.h"

#include <math.h>

static void cost_model(void **state) {
    (void)state;
    link_t l = {"custom", 1e-3, 1e6}; /* 1 ms, 1 MB/s */
    assert_true(fabs(link_cost_s(&l, 0) - 1e-3) < 1e-15);
    assert_true(fabs(link_cost_s(&l, 500000) - 0.501) < 1e-12);
    link_t off = {"off", 0, 0};
    assert_true(link_cost_s(&off, 1 << 20) == 0);
    assert_false(link_enabled(&off));
    link_t lat_only = {"custom", 2e-6, 0};
    assert_true(link_cost_s(&lat_only, 1 << 30) == 2e-6); /* β = 0 means infinite bandwidth */
}

static void presets_scale_with_slowdown(void **state) {
    (void)state;
    link_t a, b;
    assert_true(link_from_preset("nvlink", 1.0, &a));
    assert_true(link_from_preset("nvlink", 1000.0, &b));
    assert_true(fabs(b.latency_s / a.latency_s - 1000.0) < 1e-9);
    assert_true(fabs(a.bytes_per_s / b.bytes_per_s - 1000.0) < 1e-9);
    /* the ordering of real interconnects is kept */
    link_t p, ib;
    link_from_preset("pcie", 1.0, &p);
    link_from_preset("ib", 1.0, &ib);
    assert_true(a.bytes_per_s > p.bytes_per_s && p.bytes_per_s > ib.bytes_per_s);
    assert_false(link_from_preset("carrier-pigeon", 1.0, &a));
    assert_true(link_from_preset("off", 1.0, &a));
    assert_false(link_enabled(&a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_model),
        cmocka_unit_test(presets_scale_with_slowdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
