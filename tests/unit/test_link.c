/* The α-β link model, its presets and the port's model clock. The emulator's timing is checked in
 * the model's own clock (exactly) and against the wall clock only from below: a busy machine makes
 * a sleeper wake late, never early, so an upper bound on wall-clock time would test the machine's
 * load, not the emulator. */
#include "testutil.h"

#include "link.h"
#include "topology.h"
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

/* ib-hdr is ib under the name --inter uses; a node's shared card gives each of its K ranks β/K. */
static void ib_hdr_and_fair_share(void **state) {
    (void)state;
    link_t ib, hdr;
    assert_true(link_from_preset("ib", 1000.0, &ib));
    assert_true(link_from_preset("ib-hdr", 1000.0, &hdr));
    assert_true(ib.latency_s == hdr.latency_s && ib.bytes_per_s == hdr.bytes_per_s);
    link_t shared = link_fair_share(hdr, 4);
    assert_true(shared.latency_s == hdr.latency_s);
    assert_true(fabs(shared.bytes_per_s * 4 - hdr.bytes_per_s) < 1e-9 * hdr.bytes_per_s);
    /* 4 ranks each sending 1 MiB at β/4 take as long as one card moving 4 MiB at β */
    assert_true(fabs((link_cost_s(&shared, 1 << 20) - shared.latency_s) -
                     (link_cost_s(&hdr, 4u << 20) - hdr.latency_s)) < 1e-12);
    assert_true(link_fair_share(hdr, 1).bytes_per_s == hdr.bytes_per_s);
    link_t off = {"off", 0, 0};
    assert_false(link_enabled(&off) || link_enabled((link_t[]){link_fair_share(off, 8)}));
}

static void topology_parse_accepts_and_refuses(void **state) {
    (void)state;
    topology_t t;
    char err[256];
    assert_true(topology_parse("flat", TOPO_BLOCK, &t, err, sizeof err) && topology_flat(&t));
    assert_true(topology_parse("2x4", TOPO_SPREAD, &t, err, sizeof err));
    assert_true(t.nodes == 2 && t.per_node == 4 && t.placement == TOPO_SPREAD && topology_size(&t) == 8);
    assert_true(topology_parse("1x1", TOPO_BLOCK, &t, err, sizeof err) && topology_size(&t) == 1);
    const char *bad[] = {"", "2", "x4", "2x", "0x4", "2x0", "-1x4", "2x4x1", "2X4", "2 x4", "abc", "99999x2", "2x4 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_false(topology_parse(bad[i], TOPO_BLOCK, &t, err, sizeof err));
        assert_non_null(strstr(err, "--topology expects MxK"));
    }
}

/* Every rank on exactly one node, K per node, local ranks 0..K-1 in world order, and the class of a
 * pair from the nodes: for block and spread, over awkward shapes (one node, one rank per node,
 * M and K prime to each other). */
static void node_local_and_class(void **state) {
    (void)state;
    const int shapes[][2] = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {2, 3}, {3, 2}, {2, 4}, {4, 2}, {3, 5}, {7, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int pl = 0; pl < 2; pl++) {
            topology_t t = {shapes[s][0], shapes[s][1], pl ? TOPO_SPREAD : TOPO_BLOCK};
            int n = topology_size(&t), count[8] = {0};
            for (int r = 0; r < n; r++) {
                int node = topology_node_of(&t, r), local = topology_local_of(&t, r);
                assert_true(node >= 0 && node < t.nodes && local >= 0 && local < t.per_node);
                assert_int_equal(node, pl ? r % t.nodes : r / t.per_node);
                /* local rank: how many ranks of the same node come before r */
                int before = 0;
                for (int q = 0; q < r; q++) before += topology_node_of(&t, q) == node;
                assert_int_equal(local, before);
                count[node]++;
                for (int q = 0; q < n; q++)
                    assert_int_equal(topology_class(&t, r, q),
                                     topology_node_of(&t, q) == node ? LINK_INTRA : LINK_INTER);
            }
            for (int m = 0; m < t.nodes; m++) assert_int_equal(count[m], t.per_node);
        }
    /* the examples of topology.h */
    topology_t b = {2, 4, TOPO_BLOCK}, sp = {2, 4, TOPO_SPREAD};
    assert_int_equal(topology_class(&b, 3, 4), LINK_INTER);
    assert_int_equal(topology_class(&b, 0, 3), LINK_INTRA);
    assert_int_equal(topology_class(&sp, 0, 1), LINK_INTER); /* spread: every ring neighbour is across */
    assert_int_equal(topology_class(&sp, 0, 6), LINK_INTRA);
    assert_string_equal(link_class_name(LINK_INTRA), "intra");
    assert_string_equal(link_class_name(LINK_INTER), "inter");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_model),
        cmocka_unit_test(presets_scale_with_slowdown),
        cmocka_unit_test(port_model_clock),
        cmocka_unit_test(port_never_faster_than_the_model),
        cmocka_unit_test(ib_hdr_and_fair_share),
        cmocka_unit_test(topology_parse_accepts_and_refuses),
        cmocka_unit_test(node_local_and_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
