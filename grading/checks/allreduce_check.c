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

/* Explain a wrong result on this rank by the usual mistakes. */
static void diagnose(const char *name, int rank, int N, size_t count, redop_t op, const float *got, const float *want,
                     size_t first) {
    printf("FAIL: %s, N=%d, count=%zu, %s: rank %d element %zu is %.7g, expected %.7g\n", name, N, count,
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
    else if (N > 1 && op == REDOP_AVG && times_n)
        printf("  hint: this is the SUM: REDOP_AVG must divide by N\n");
    else if (N > 1 && over_n)
        printf("  hint: this is 1/N of the expected value: divided by N %s\n",
               op == REDOP_AVG ? "twice" : "although the op is REDOP_SUM");
    else if (N > 1 && count > (size_t)N && count % (size_t)N && first >= count - count % (size_t)N)
        printf("  hint: only the last count %% N = %zu elements are wrong: the remainder of count / N belongs to no "
               "chunk — give the first count %% N chunks one element more\n",
               count % (size_t)N);
    else if (N > 1 && own_chunk_only(rank, N, count, got, want))
        printf("  hint: only rank %d's own chunk is right: the all-gather phase must COPY the chunks it receives, "
               "not add them\n",
               rank);
    else {
        size_t wrong = 0, last = first;
        for (size_t i = 0; i < count; i++)
            if (memcmp(&got[i], &want[i], 4)) wrong++, last = i;
        printf("  hint: %zu of %zu elements are wrong, from index %zu to %zu", wrong, count, first, last);
        if (N > 1 && count >= (size_t)N) {
            size_t base = count / (size_t)N, extra = count % (size_t)N;
            size_t chunk = first < extra * (base + 1) ? first / (base + 1) : extra + (first - extra * (base + 1)) / base;
            printf(" (the first lies in chunk %zu of the %d chunks: chunks are %zu or %zu elements, the first %zu "
                   "one longer)",
                   chunk, N, base + 1, base, extra);
        }
        printf("\n");
    }
}

int allreduce_sweep(coll_t *k, allreduce_fn fn, const char *name, traffic_rule_fn rule) {
    comm_t *c = k->comm;
    int N = comm_world_size(c), rank = comm_rank(c), bad = 0;
    size_t lengths[] = {0, 1, (size_t)(N - 1), (size_t)N, (size_t)N + 1, 1009, (size_t)1 << 20};
    size_t maxlen = (size_t)1 << 20;
    float *buf = dp_malloc(maxlen * 4), *want = dp_malloc(maxlen * 4);
    /* on a GPU context the all-reduce works on a device copy; the checks below read it back */
    float *dev = k->ops->backend == OPS_CUDA ? ops_alloc(k->ops, maxlen) : NULL;
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
            comm_counters_t before = comm_counters(c);
            if (dev) {
                ops_from_host(k->ops, dev, buf, count);
                fn(k, dev, count, op);
                ops_to_host(k->ops, buf, dev, count);
            } else {
                fn(k, buf, count, op);
            }
            comm_counters_t d = comm_counters_diff(comm_counters(c), before);
            /* what the call produced, as the judge reads it (checklib.h, "the tape"): the result on
             * this rank and the traffic it counted; everything below looks at these only */
            char what[128];
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: result", name, N, count,
                     op == REDOP_SUM ? "sum" : "average");
            ck_tape(what, buf, count * 4);
            snprintf(what, sizeof what, "%s, N=%d, count=%zu, %s: traffic", name, N, count,
                     op == REDOP_SUM ? "sum" : "average");
            ck_tape(what, &d, sizeof d);
            int mine = 0;
            for (size_t i = 0; i < count && !mine; i++) {
                /* SUM: bit for bit. AVG: within 1 ULP (x/N and x·(1/N) may round differently). */
                int ok = op == REDOP_SUM ? !memcmp(&buf[i], &want[i], 4) : cmp_ulp_distance(buf[i], want[i]) <= 1;
                if (!ok) {
                    diagnose(name, rank, N, count, op, buf, want, i);
                    mine = 1;
                }
            }
            if (d.lib_calls) {
                printf("FAIL: %s, N=%d, count=%zu: rank %d called %llu library collective(s); build the all-reduce from "
                       "comm_send/comm_recv/comm_sendrecv only\n",
                       name, N, count, rank, (unsigned long long)d.lib_calls);
                mine = 1;
            }
            if (!mine && rule && op == REDOP_SUM) {
                traffic_t e = rule(rank, N, count);
                int64_t ds = (int64_t)d.bytes_sent - (int64_t)e.bytes_sent, dr = (int64_t)d.bytes_recv - (int64_t)e.bytes_recv;
                int bytes_bad = llabs(ds) > (int64_t)e.bytes_slack || llabs(dr) > (int64_t)e.bytes_slack;
                int msgs_bad = e.check_msgs && count > 0 && (d.msgs_sent != e.msgs_sent || d.msgs_recv != e.msgs_recv);
                if (bytes_bad || msgs_bad) {
                    printf("FAIL: %s, N=%d, count=%zu: rank %d sent %llu messages / %llu bytes and received %llu / %llu; "
                           "expected %llu / %llu and %llu / %llu",
                           name, N, count, rank, (unsigned long long)d.msgs_sent, (unsigned long long)d.bytes_sent,
                           (unsigned long long)d.msgs_recv, (unsigned long long)d.bytes_recv,
                           (unsigned long long)e.msgs_sent, (unsigned long long)e.bytes_sent,
                           (unsigned long long)e.msgs_recv, (unsigned long long)e.bytes_recv);
                    if (e.bytes_slack) printf(" (± %llu bytes of chunk rounding)", (unsigned long long)e.bytes_slack);
                    printf("\n");
                    mine = 1;
                }
            }
            int any = mine;
            comm_lib_allreduce(c, &mine, &any, 1, DT_I32, REDOP_MAX); /* the grader's own bookkeeping */
            if (any) {
                bad = 1;
                break;
            }
        }
    }
    if (dev) ops_free(k->ops, dev);
    if (!bad && rank == 0)
        printf("%s%s on %d rank%s: exact for lengths 0, 1, N-1, N, N+1, 1009, 2^20 (sum bit for bit, average within 1 "
               "ULP), traffic as expected, no library collectives\n",
               name, dev ? " (GPU buffers)" : "", N, N > 1 ? "s" : "");
    free(buf);
    free(want);
    return bad;
}
