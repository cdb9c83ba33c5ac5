/* allreduce_check.c — see allreduce_check.h. */
#include "allreduce_check.h"

#include "checklib.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float value(int rank, size_t i) { return (float)((int)((rank * 7 + i * 13) % 32) - 16) * (1.0f / 64.0f); }

/* Is the chunk this rank reduced itself right, and every other chunk wrong somewhere? */
static int own_chunk_only(int rank, int N, size_t count, const float *got, const float *want) {
    size_t base = count / (size_t)N, extra = count % (size_t)N;
    for (int q = 0; q < N; q++) {
        size_t off = (size_t)q * base + ((size_t)q < extra ? (size_t)q : extra), len = base + ((size_t)q < extra);
        int right = !memcmp(got + off, want + off, len * 4);
        if ((q == rank) != right) return 0;
    }
    return 1;
}

/* AVG on a chunked algorithm: the first chunk that holds exactly N times the average (the sum,
 * unscaled), when some other chunk is right; -1 when none. */
static int sum_chunks(int N, size_t count, const float *got, const float *want) {
    size_t base = count / (size_t)N, extra = count % (size_t)N;
    int first_sum = -1, any_right = 0;
    for (int q = 0; q < N; q++) {
        size_t off = (size_t)q * base + ((size_t)q < extra ? (size_t)q : extra), len = base + ((size_t)q < extra);
        int sum = len > 0, right = len > 0;
        for (size_t i = off; i < off + len; i++) {
            sum &= fabsf(got[i] - want[i] * N) <= 1e-6f * fabsf(want[i] * N) + 1e-30f;
            right &= cmp_ulp_distance(got[i], want[i]) <= 1;
        }
        if (sum && !right && first_sum < 0) first_sum = q;
        any_right |= right;
    }
    return any_right ? first_sum : -1;
}

/* Explain a wrong result on this rank by the usual mistakes. */
static void diagnose(const allreduce_spec_t *spec, int rank, int N, size_t count, redop_t op, const float *got,
                     const float *want, size_t first, uint64_t scaled_all) {
    printf("FAIL: %s, N=%d, count=%zu, %s: rank %d element %zu is %.7g, expected %.7g\n", spec->name, N, count,
           op == REDOP_SUM ? "sum" : "average", rank, first, (double)got[first], (double)want[first]);
    int own = 1, unchanged = 1, times_n = 1, over_n = 1, missing_root = 1;
    for (size_t i = 0; i < count; i++) {
        own &= got[i] == value(rank, i);
        unchanged &= isnan(got[i]) || got[i] == value(rank, i);
        times_n &= fabsf(got[i] - want[i] * N) <= 1e-6f * fabsf(want[i] * N) + 1e-30f;
        over_n &= fabsf(got[i] - want[i] / N) <= 1e-6f * fabsf(want[i] / N) + 1e-30f;
        double sum_wo_root = 0;
        for (int r = 1; r < N; r++) sum_wo_root += value(r, i);
        if (op == REDOP_AVG) sum_wo_root /= N;
        missing_root &= fabs(got[i] - sum_wo_root) <= 1e-6 * fabs(sum_wo_root) + 1e-30;
    }
    if (N > 1 && own)
        printf("  hint: rank %d still holds its own input: it never received the result\n", rank);
    else if (N > 1 && unchanged)
        printf("  hint: rank %d's buffer is partly unchanged: some elements never received their result\n", rank);
    else if (N > 1 && missing_root)
        printf("  hint: the result lacks rank 0's own values: the root must add its own buffer too\n");
    else if (N > 1 && op == REDOP_AVG && times_n && scaled_all > 0)
        /* it did divide, but what it divided never reached the result: the wrong elements were scaled */
        printf("  hint: this is the SUM, although the ranks scaled %llu elements with ops_scale: what was scaled "
               "is not what ends in the result — %s\n",
               (unsigned long long)scaled_all, spec->scale_hint);
    else if (N > 1 && op == REDOP_AVG && times_n)
        printf("  hint: this is the SUM: REDOP_AVG must divide by N\n");
    else if (N > 1 && op == REDOP_AVG && spec->chunked && count >= (size_t)N && sum_chunks(N, count, got, want) >= 0) {
        int q = sum_chunks(N, count, got, want);
        printf("  hint: chunk %d holds the SUM while other chunks hold the average: rank %d did not scale its chunk "
               "— %s\n",
               q, q, spec->scale_hint);
    } else if (N > 1 && over_n)
        printf("  hint: this is 1/N of the expected value: divided by N %s\n",
               op == REDOP_AVG ? "twice" : "although the op is REDOP_SUM");
    else if (N > 1 && spec->chunked && count > (size_t)N && count % (size_t)N && first >= count - count % (size_t)N)
        printf("  hint: only the last count %% N = %zu elements are wrong: the remainder of count / N belongs to no "
               "chunk — give the first count %% N chunks one element more\n",
               count % (size_t)N);
    else if (N > 1 && spec->chunked && own_chunk_only(rank, N, count, got, want)) /* a ring's all-gather only */
        printf("  hint: only rank %d's own chunk is right: the all-gather phase must COPY the chunks it receives, "
               "not add them\n",
               rank);
    else {
        size_t wrong = 0, last = first;
        for (size_t i = 0; i < count; i++)
            if (memcmp(&got[i], &want[i], 4)) wrong++, last = i;
        printf("  hint: %zu of %zu elements are wrong, from index %zu to %zu", wrong, count, first, last);
        if (N > 1 && spec->chunked && count >= (size_t)N) {
            size_t base = count / (size_t)N, extra = count % (size_t)N;
            size_t chunk =
                first < extra * (base + 1) ? first / (base + 1) : extra + (first - extra * (base + 1)) / base;
            printf(" (the first lies in chunk %zu of the %d chunks: chunks are %zu or %zu elements, the first %zu "
                   "one longer)",
                   chunk, N, base + 1, base, extra);
        }
        printf("\n");
    }
}

/* Is this call's traffic with every peer what the algorithm must send? Prints the first peer that
 * is off. With count 0 an algorithm may skip its (empty) messages, so only extra ones fail. */
static int traffic_ok(const allreduce_spec_t *spec, int rank, int N, size_t count, const comm_peer_counters_t *got) {
    traffic_t *want = dp_calloc((size_t)N, sizeof *want);
    spec->traffic(rank, N, count, want);
    int ok = 1;
    for (int p = 0; p < N && ok; p++) {
        const comm_peer_counters_t *g = &got[p];
        const traffic_t *w = &want[p];
        int64_t ds = (int64_t)g->bytes_sent - (int64_t)w->bytes_sent,
                dr = (int64_t)g->bytes_recv - (int64_t)w->bytes_recv;
        int bytes_bad = llabs(ds) > (int64_t)w->bytes_slack || llabs(dr) > (int64_t)w->bytes_slack;
        int msgs_bad = count > 0 ? g->msgs_sent != w->msgs_sent || g->msgs_recv != w->msgs_recv
                                 : g->msgs_sent > w->msgs_sent || g->msgs_recv > w->msgs_recv;
        if (!bytes_bad && !msgs_bad) continue;
        printf("FAIL: %s, N=%d, count=%zu: rank %d sent %llu messages / %llu bytes to rank %d and received %llu / %llu "
               "from it; expected %llu / %llu and %llu / %llu",
               spec->name, N, count, rank, (unsigned long long)g->msgs_sent, (unsigned long long)g->bytes_sent, p,
               (unsigned long long)g->msgs_recv, (unsigned long long)g->bytes_recv, (unsigned long long)w->msgs_sent,
               (unsigned long long)w->bytes_sent, (unsigned long long)w->msgs_recv, (unsigned long long)w->bytes_recv);
        if (w->bytes_slack) printf(" (± %llu bytes of chunk rounding)", (unsigned long long)w->bytes_slack);
        printf("\n  hint: %s\n", spec->traffic_hint);
        ok = 0;
    }
    free(want);
    return ok;
}

int allreduce_sweep(coll_t *coll, const allreduce_spec_t *spec) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), rank = comm_rank(c), bad = 0;
    size_t maxlen = spec->max_count ? spec->max_count : (size_t)1 << 20;
    size_t lengths[] = {0, 1, (size_t)(N - 1), (size_t)N, (size_t)N + 1, 1009, maxlen};
    float *buf = dp_malloc(maxlen * 4), *want = dp_malloc(maxlen * 4);
    comm_peer_counters_t *peers = dp_calloc((size_t)N, sizeof *peers), *peers0 = dp_calloc((size_t)N, sizeof *peers);
    /* on a GPU context the all-reduce works on a device copy; the checks below read it back */
    float *dev = coll->ops->backend == OPS_CUDA ? ops_alloc(coll->ops, maxlen) : NULL;
    /* count what ops_scale does on this rank; the context is the check's own (ops_create), so
     * writing its counter pointer through coll_t's const view is sound */
    uint64_t scaled = 0;
    ((ops_t *)coll->ops)->scaled = &scaled;
    for (int o = 0; o < 2 && !bad; o++) {
        redop_t op = o == 0 ? REDOP_SUM : REDOP_AVG;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            size_t count = lengths[li];
            for (size_t i = 0; i < count; i++) {
                buf[i] = value(rank, i);
                double s = 0;
                for (int r = 0; r < N; r++) s += value(r, i);
                want[i] = (float)s; /* exact */
                if (op == REDOP_AVG) want[i] = want[i] * (1.0f / (float)N);
            }
            /* every communicator of the process, not only coll->comm: traffic on a dup counts too */
            comm_counters_t before = comm_process_counters(c);
            for (int p = 0; p < N; p++) peers0[p] = comm_process_peer_counters(c, p);
            scaled = 0;
            if (dev) {
                ops_from_host(coll->ops, dev, buf, count);
                spec->fn(coll, dev, count, op);
                ops_to_host(coll->ops, buf, dev, count);
            } else {
                spec->fn(coll, buf, count, op);
            }
            if (count == 0 && spec->traffic) { /* its empty messages may be left out (traffic_ok) */
                traffic_t *w = dp_calloc((size_t)N, sizeof *w);
                spec->traffic(rank, N, count, w);
                for (int p = 0; p < N; p++) ck_traffic_slack(p, w[p].msgs_sent, w[p].msgs_recv);
                free(w);
            }
            comm_counters_t d = comm_counters_diff(comm_process_counters(c), before);
            for (int p = 0; p < N; p++) peers[p] = comm_peer_counters_diff(comm_process_peer_counters(c, p), peers0[p]);
            /* what the call produced, as the judge reads it (checklib.h, "the tape"): the result on
             * this rank, the traffic it counted and the elements it scaled; everything below looks
             * at these only */
            char what[128];
            const char *opname = op == REDOP_SUM ? "sum" : "average";
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: result", spec->name, N, count, opname);
            ck_tape(what, buf, count * 4);
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: traffic", spec->name, N, count, opname);
            ck_tape(what, &d, sizeof d);
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: traffic by peer", spec->name, N, count, opname);
            ck_tape(what, peers, (size_t)N * sizeof *peers);
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: elements scaled", spec->name, N, count, opname);
            ck_tape(what, &scaled, sizeof scaled);
            /* the elements scaled over all ranks (the grader's bookkeeping, from the taped counts): a
             * sum where some rank did scale means the wrong elements were scaled, not none */
            int64_t scaled_one = (int64_t)scaled, scaled_all = 0;
            comm_lib_allreduce(c, &scaled_one, &scaled_all, 1, DT_I64, REDOP_SUM);
            int mine = 0;
            for (size_t i = 0; i < count && !mine; i++) {
                /* SUM: bit for bit. AVG: within 1 ULP (x/N and x·(1/N) may round differently). */
                int ok = op == REDOP_SUM ? !memcmp(&buf[i], &want[i], 4) : cmp_ulp_distance(buf[i], want[i]) <= 1;
                if (!ok) {
                    diagnose(spec, rank, N, count, op, buf, want, i, (uint64_t)scaled_all);
                    mine = 1;
                }
            }
            if (d.lib_calls) {
                printf(
                    "FAIL: %s, N=%d, count=%zu: rank %d called %llu library collective(s); build the all-reduce from "
                    "comm_send/comm_recv/comm_sendrecv only\n",
                    spec->name, N, count, rank, (unsigned long long)d.lib_calls);
                mine = 1;
            }
            if (!mine && spec->traffic && !traffic_ok(spec, rank, N, count, peers)) mine = 1;
            size_t may = op == REDOP_AVG && spec->scaled ? spec->scaled(rank, N, count) : 0;
            if (!mine && scaled > may) {
                printf("FAIL: %s, N=%d, count=%zu, %s: rank %d scaled %llu elements with ops_scale; it needs to scale "
                       "at most %zu\n  hint: ",
                       spec->name, N, count, opname, rank, (unsigned long long)scaled, may);
                /* the same bits, other work: say which work it looks like, not one mistake for all */
                size_t base = N > 0 ? count / (size_t)N : 0, extra = N > 0 ? count % (size_t)N : 0;
                int other = -1; /* a chunk whose length it scaled, when that is not its own chunk's */
                for (int q = 0; q < N && spec->chunked && other < 0; q++)
                    if (q != rank && scaled == base + ((size_t)q < extra) && scaled != may) other = q;
                if (op == REDOP_SUM)
                    printf("REDOP_SUM never scales\n");
                else if (scaled == count && N > 1)
                    printf("it scaled the whole buffer: the same bits (the rest is overwritten) at N times the work — "
                           "%s\n",
                           spec->scale_hint);
                else if (other >= 0)
                    printf("%llu is the length of chunk %d, not of its own chunk %d (%zu): %s\n",
                           (unsigned long long)scaled, other, rank, may, spec->scale_hint);
                else
                    printf("%s\n", spec->scale_hint);
                mine = 1;
            }
            int any = mine;
            comm_lib_allreduce(c, &mine, &any, 1, DT_I32, REDOP_MAX); /* the grader's own bookkeeping */
            if (any) {
                bad = 1;
                break;
            }
        }
    }
    ((ops_t *)coll->ops)->scaled = NULL;
    if (dev) ops_free(coll->ops, dev);
    if (!bad && rank == 0) {
        char top[32];
        if (maxlen == (size_t)1 << 20)
            snprintf(top, sizeof top, "2^20");
        else
            snprintf(top, sizeof top, "%zu", maxlen);
        printf("%s%s on %d rank%s: exact for lengths 0, 1, N-1, N, N+1, 1009, %s (sum bit for bit, average within 1 "
               "ULP), traffic with each peer as expected, no library collectives, no extra scaling\n",
               spec->name, dev ? " (GPU buffers)" : "", N, N > 1 ? "s" : "", top);
    }
    free(peers);
    free(peers0);
    free(buf);
    free(want);
    return bad;
}
