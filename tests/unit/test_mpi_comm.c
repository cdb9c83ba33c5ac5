/* The comm seam on 1..4 ranks (run under mpirun by tests/run): point-to-point results and
 * counters (per peer, per communicator and per process), library collectives, duplicated communicators, and the merged Chrome trace. */
#include "testutil.h"

#include "comm.h"
#include "trace.h"
#include "util.h"

#include <cjson/cJSON.h>

static comm_t *world;
static int R, N;

static void ring_sendrecv_counts_bytes_and_messages(void **state) {
    (void)state;
    comm_counters_t before = comm_counters(world);
    size_t count = 1000 + (size_t)R; /* each rank sends a different length */
    float *s = malloc(count * 4), *r = malloc((1000 + (size_t)N) * 4);
    for (size_t i = 0; i < count; i++) s[i] = (float)(R * 10000 + (int)i);
    int right = (R + 1) % N, left = (R - 1 + N) % N;
    size_t rcount = 1000 + (size_t)left;
    if (N > 1) comm_sendrecv(world, s, count, right, r, rcount, left, DT_F32);
    comm_counters_t d = comm_counters_diff(comm_counters(world), before);
    if (N > 1) {
        assert_true(r[0] == (float)(left * 10000) && r[rcount - 1] == (float)(left * 10000 + (int)rcount - 1));
        assert_int_equal(d.msgs_sent, 1);
        assert_int_equal(d.bytes_sent, count * 4);
        assert_int_equal(d.msgs_recv, 1);
        assert_int_equal(d.bytes_recv, rcount * 4);
        assert_int_equal(d.ops, 1);
    } else {
        assert_int_equal(d.msgs_sent + d.msgs_recv, 0);
    }
    assert_int_equal(d.lib_calls, 0);
    free(s);
    free(r);
}

static void send_then_recv_small_messages(void **state) {
    (void)state;
    /* rank 0 sends to everyone; everyone answers: point-to-point in a fixed order */
    int32_t v = R * 7, got = -1;
    comm_counters_t before = comm_counters(world);
    if (R == 0) {
        for (int p = 1; p < N; p++) comm_send(world, &v, 1, DT_I32, p);
        for (int p = 1; p < N; p++) {
            comm_recv(world, &got, 1, DT_I32, p);
            assert_int_equal(got, p * 7 + 1);
        }
    } else {
        comm_recv(world, &got, 1, DT_I32, 0);
        assert_int_equal(got, 0);
        int32_t reply = v + 1;
        comm_send(world, &reply, 1, DT_I32, 0);
    }
    comm_counters_t d = comm_counters_diff(comm_counters(world), before);
    assert_int_equal(d.msgs_sent, R == 0 ? (uint64_t)(N - 1) : 1u);
    assert_int_equal(d.bytes_sent, R == 0 ? (uint64_t)(N - 1) * 4 : 4u);
}

static void library_collectives(void **state) {
    (void)state;
    comm_counters_t before = comm_counters(world);
    double x[3] = {R, 1.0, -R}, y[3];
    comm_lib_allreduce(world, x, y, 3, DT_F64, REDOP_SUM);
    assert_true(y[0] == N * (N - 1) / 2.0 && y[1] == N);
    comm_lib_allreduce(world, x, x, 3, DT_F64, REDOP_AVG); /* in place */
    assert_true(x[1] == 1.0 && x[0] == (N - 1) / 2.0);
    int32_t m = R, mx = -1;
    comm_lib_allreduce(world, &m, &mx, 1, DT_I32, REDOP_MAX);
    assert_int_equal(mx, N - 1);
    /* reduce_scatter: rank r gets the sum of everyone's chunk r; all_gather puts it back */
    float *full = malloc((size_t)N * 2 * 4), chunk[2], *back = malloc((size_t)N * 2 * 4);
    for (int i = 0; i < 2 * N; i++) full[i] = (float)(i + R);
    comm_lib_reduce_scatter(world, full, chunk, 2, DT_F32, REDOP_SUM);
    for (int k = 0; k < 2; k++) assert_true(chunk[k] == (float)(N * (2 * R + k) + N * (N - 1) / 2));
    comm_lib_all_gather(world, chunk, back, 2, DT_F32);
    for (int i = 0; i < 2 * N; i++) assert_true(back[i] == (float)(N * i + N * (N - 1) / 2));
    float b = R == N - 1 ? 3.5f : 0.0f;
    comm_lib_broadcast(world, &b, 1, DT_F32, N - 1);
    assert_true(b == 3.5f);
    comm_barrier(world);
    comm_counters_t d = comm_counters_diff(comm_counters(world), before);
    assert_int_equal(d.lib_calls, 6);
    assert_int_equal(d.msgs_sent, 0); /* library calls are not counted as the student's messages */
    free(full);
    free(back);
}

static void dup_counters_shared_or_separate(void **state) {
    (void)state;
    comm_t *own = comm_dup(world, "own", false), *shared = comm_dup(world, "shared", true);
    comm_counters_t before = comm_counters(world);
    int x = 1, y = 0;
    int right = (R + 1) % N, left = (R - 1 + N) % N;
    if (N > 1) {
        comm_sendrecv(own, &x, 1, right, &y, 1, left, DT_I32);
        assert_int_equal(comm_counters(own).msgs_sent, 1);
        assert_int_equal(comm_counters_diff(comm_counters(world), before).msgs_sent, 0);
        comm_sendrecv(shared, &x, 1, right, &y, 1, left, DT_I32);
        assert_int_equal(comm_counters_diff(comm_counters(world), before).msgs_sent, 1);
    }
    assert_int_equal(comm_rank(own), R);
    assert_int_equal(comm_world_size(shared), N);
    comm_free(own);
    comm_free(shared);
}

/* Per-peer counters say WHO a rank talked to; the process counters see every communicator, a dup
 * with counters of its own included (where a grader must not lose traffic). */
static void peer_and_process_counters(void **state) {
    (void)state;
    comm_peer_counters_t *before = calloc((size_t)N, sizeof *before);
    for (int p = 0; p < N; p++) before[p] = comm_process_peer_counters(world, p);
    comm_counters_t pbefore = comm_process_counters(world);
    comm_peer_counters_t wright = comm_peer_counters(world, (R + 1) % N);
    comm_t *own = comm_dup(world, "own", false);
    int right = (R + 1) % N, left = (R - 1 + N) % N;
    int32_t x[3] = {R, R, R}, y[3];
    if (N > 1) {
        comm_sendrecv(world, x, 3, right, y, 3, left, DT_I32); /* 12 bytes right, on the world */
        comm_sendrecv(own, x, 1, right, y, 1, left, DT_I32);   /* 4 bytes right, on the dup */
        assert_int_equal(y[0], left);
    }
    comm_lib_allreduce(own, x, y, 1, DT_I32, REDOP_SUM); /* the dup's library call counts too */
    for (int p = 0; p < N; p++) {
        comm_peer_counters_t d = comm_peer_counters_diff(comm_process_peer_counters(world, p), before[p]);
        int to = N > 1 && p == right, from = N > 1 && p == left;
        assert_int_equal(d.msgs_sent, to ? 2 : 0);
        assert_int_equal(d.bytes_sent, to ? 16 : 0);
        assert_int_equal(d.msgs_recv, from ? 2 : 0);
        assert_int_equal(d.bytes_recv, from ? 16 : 0);
    }
    comm_counters_t pd = comm_counters_diff(comm_process_counters(world), pbefore);
    assert_int_equal(pd.msgs_sent, N > 1 ? 2 : 0);
    assert_int_equal(pd.lib_calls, 1);
    /* the dup's own counters hold its message alone; the world's by-peer counters only the world's */
    assert_int_equal(comm_peer_counters(own, right).msgs_sent, N > 1 ? 1 : 0);
    comm_peer_counters_t dw = comm_peer_counters_diff(comm_peer_counters(world, right), wright);
    assert_int_equal(dw.msgs_sent, N > 1 ? 1 : 0);
    assert_int_equal(dw.bytes_sent, N > 1 ? 12 : 0);
    comm_reset_counters(own);
    assert_int_equal(comm_peer_counters(own, right).msgs_sent, 0);
    comm_free(own);
    free(before);
}

static void trace_merges_every_rank(void **state) {
    (void)state;
    trace_t *t = trace_new(R);
    double t0 = dp_now();
    trace_span(t, "compute", "fwd", t0, t0 + 0.001);
    trace_span(t, "comm", "allreduce b0", t0 + 0.0005, t0 + 0.002);
    /* a directory of this run's own (only rank 0 writes the file): two runs at once shared one
     * fixed name, and one removed it while the other read it */
    char dir[256], path[300] = "(rank 0 writes it)";
    snprintf(dir, sizeof dir, "%s/dpc-trace-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (R == 0) {
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/trace.json", dir);
    }
    assert_int_equal(trace_write(t, world, path), 0);
    if (R == 0) {
        size_t len;
        char *s = (char *)dp_read_file(path, &len);
        assert_non_null(s);
        cJSON *j = cJSON_Parse(s);
        assert_non_null(j);
        cJSON *ev = cJSON_GetObjectItem(j, "traceEvents");
        int spans = 0, pids = 0;
        cJSON *e;
        cJSON_ArrayForEach(e, ev) {
            const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
            if (!strcmp(ph, "X")) spans++;
            if (!strcmp(ph, "M") && !strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "process_name")) pids++;
        }
        assert_int_equal(spans, 2 * N);
        assert_int_equal(pids, N);
        cJSON_Delete(j);
        free(s);
        remove(path);
        char tsv[320];
        snprintf(tsv, sizeof tsv, "%s.tsv", path);
        remove(tsv);
        assert_int_equal(rmdir(dir), 0);
    }
    trace_free(t);
}

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    o.timeout_s = 60;
    world = comm_init(&argc, &argv, &o);
    R = comm_rank(world);
    N = comm_world_size(world);
    /* one report: rank 0's (a failure elsewhere still shows in mpirun's exit status) */
    if (R != 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_sendrecv_counts_bytes_and_messages),
        cmocka_unit_test(send_then_recv_small_messages),
        cmocka_unit_test(library_collectives),
        cmocka_unit_test(dup_counters_shared_or_separate),
        cmocka_unit_test(peer_and_process_counters),
        cmocka_unit_test(trace_merges_every_rank),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    comm_finalize(world);
    return failed;
}
