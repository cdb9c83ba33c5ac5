/* The α-β link model, its presets and the port's model clock. The emulator's timing is checked in
 * the model's own clock (exactly) and against the wall clock only from below: a busy machine makes
 * a sleeper wake late, never early, so an upper bound on wall-clock time would test the machine's
 * load, not the emulator. */
#include "testutil.h"

#include "link.h"
#include "util.h"

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

/* The port in its model clock: α = 1 ms, β = 1 GB/s, 1 MiB messages (≈ 2.05 ms each). */
static void port_model_clock(void **state) {
    (void)state;
    link_t l = {"custom", 1e-3, 1e9};
    double cost = link_cost_s(&l, 1 << 20), free_at = 0;
    assert_true(fabs(cost - (1e-3 + 1048576 / 1e9)) < 1e-15);
    /* one message on an idle port: arrives one cost later — α charged once, not twice */
    assert_true(fabs(link_port_reserve(&free_at, 10.0, cost) - (10.0 + cost)) < 1e-12);
    /* a second handed over at the same moment waits for the first: back to back, not overlapped */
    assert_true(fabs(link_port_reserve(&free_at, 10.0, cost) - (10.0 + 2 * cost)) < 1e-12);
    /* one handed over while the port is still busy starts when it is free */
    assert_true(fabs(link_port_reserve(&free_at, 10.0 + cost, cost) - (10.0 + 3 * cost)) < 1e-12);
    /* after the port went idle, a message starts at once: idle time is not banked */
    assert_true(fabs(link_port_reserve(&free_at, 20.0, cost) - (20.0 + cost)) < 1e-12);
    /* a free link costs nothing and never delays */
    link_t off = {"off", 0, 0};
    assert_true(link_port_reserve(&free_at, 30.0, link_cost_s(&off, 1 << 20)) == 30.0);
}

/* The emulator sleeps until the model's arrival: the wall clock may only ever read LATER. */
static void port_never_faster_than_the_model(void **state) {
    (void)state;
    link_t l = {"custom", 1e-3, 1e9};
    double cost = link_cost_s(&l, 1 << 20), free_at = 0, t0 = dp_now();
    double one = link_port_reserve(&free_at, t0, cost);
    dp_sleep_until(one);
    assert_true(dp_now() - t0 >= cost);
    double two = link_port_reserve(&free_at, dp_now(), cost);
    two = link_port_reserve(&free_at, dp_now(), cost); /* queued behind the one before */
    dp_sleep_until(two);
    assert_true(dp_now() - t0 >= 3 * cost);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_model),
        cmocka_unit_test(presets_scale_with_slowdown),
        cmocka_unit_test(port_model_clock),
        cmocka_unit_test(port_never_faster_than_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
