/* statcheck — check a run's traffic counters (the --stats file of a trainer) against what the
 * algorithm must send.
 *
 *   statcheck STATS.json [--ranks N] [--hint TEXT] EXPECTATION...
 *
 * --ranks N: the file must hold exactly N ranks (a run that wrote fewer, or none, fails: its
 * expectations would otherwise hold vacuously). Every rank must have every field.
 * EXPECTATION is WHO.FIELD=VALUE (exact) or WHO.FIELD=VALUE~TOL (within ±TOL), where WHO is
 * rank0, rank1, ..., workers (every rank but 0) or all, and FIELD one of msgs_sent, bytes_sent,
 * msgs_recv, bytes_recv, lib_calls, lib_bytes, ops (the trainer's communicator), other_msgs_sent,
 * other_bytes_sent, other_lib_calls (every other communicator of the process: dups, bookkeeping). Prints every rank's counters, then one FAIL line
 * per unmet expectation (and the hint once). Exit 0 when all hold.
 * FIELD may also be peerP.F or peer+K.F / peer-K.F, F one of msgs_sent, bytes_sent, msgs_recv,
 * bytes_recv: the rank's traffic on the trainer's communicator with rank P, or with the rank K
 * places after (before) it modulo N ("all.peer+1.bytes_sent": what each rank sent to its right
 * neighbour in a ring), from the stats' per-rank "peers" list.
 * --switch LOG: the grader's switch's log of the run (grading/grade passes DPC_SWITCH_LOG): the
 * stats are counted inside the process that ran student code, so they are also held against what
 * crossed the switch in the run's launch of N ranks (the K-th of that size, from 0: --switch-nth K,
 * default 0): every rank's point-to-point messages and bytes to and from each peer exactly (in
 * total when the stats count traffic on other communicators). A difference is one FAIL line. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regular.h"
#include "switchlog.h"

/* rank r's counter `field` (FIELD above, peer forms included) in `o`, its object in the stats;
 * NULL when it has none. Exit 2 on a malformed field (a bad expectation is the caller's error). */
static cJSON *counter(cJSON *o, int r, int N, const char *field) {
    if (strncmp(field, "peer", 4)) return cJSON_GetObjectItem(o, field);
    const char *spec = field + 4, *dot = strchr(spec, '.');
    char *end = NULL;
    long k = dot ? strtol(spec, &end, 10) : 0;
    const char *f = dot ? dot + 1 : "";
    if (!dot || end != dot || end == spec || !strchr("+-0123456789", spec[0]) ||
        (strcmp(f, "msgs_sent") && strcmp(f, "bytes_sent") && strcmp(f, "msgs_recv") && strcmp(f, "bytes_recv"))) {
        fprintf(stderr,
                "statcheck: bad peer field '%s' (peerP.F, peer+K.F or peer-K.F; F msgs_sent, bytes_sent, msgs_recv or "
                "bytes_recv)\n",
                field);
        exit(2);
    }
    /* peerP names rank P; peer+K and peer-K are relative to r, around the ring */
    long p = (spec[0] == '+' || spec[0] == '-') ? ((r + k) % N + N) % N : k;
    if (p < 0 || p >= N) {
        fprintf(stderr, "statcheck: '%s' names rank %ld of a run of %d ranks\n", field, p, N);
        exit(2);
    }
    cJSON *peers = cJSON_GetObjectItem(o, "peers");
    cJSON *po = cJSON_IsArray(peers) ? cJSON_GetArrayItem(peers, (int)p) : NULL;
    cJSON *id = po ? cJSON_GetObjectItem(po, "peer") : NULL;
    if (!cJSON_IsNumber(id) || id->valueint != (int)p) return NULL;
    return cJSON_GetObjectItem(po, f);
}

static const char *fields[] = {"msgs_sent", "bytes_sent", "msgs_recv",       "bytes_recv",       "lib_calls",
                               "lib_bytes", "ops",        "other_msgs_sent", "other_bytes_sent", "other_lib_calls"};

static double num(cJSON *o, const char *field) {
    cJSON *v = cJSON_GetObjectItem(o, field);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* One direction with one peer: the switch's count against the stats'. */
static int agree(int r, const char *verb, const char *prep, int p, uint64_t sw_msgs, uint64_t sw_bytes, double msgs,
                 double bytes) {
    if ((double)sw_msgs == msgs && (double)sw_bytes == bytes) return 1;
    printf("FAIL: rank %d %s %llu bytes (%llu messages) %s rank %d through the grader's switch but its stats say %.0f "
           "bytes (%.0f messages): the counters were written, or the data went another way\n",
           r, verb, (unsigned long long)sw_bytes, (unsigned long long)sw_msgs, prep, p, bytes, msgs);
    return 0;
}

/* --switch LOG (above). Returns 0 (agrees), 1 (a FAIL line printed) or 2 (the log is not usable). */
static int switch_agrees(cJSON *ranks, int N, const char *log, long nth) {
    if (N <= 1) return 0; /* a one-rank run is started without a launcher: nothing crosses the switch */
    int count;
    long job = switchlog_find_size(log, N, nth, &count);
    if (job == -3) {
        printf("FAIL: the grader's switch left no log (%s): the run's traffic cannot be confirmed\n", log);
        return 1;
    }
    if (job == -1) {
        printf("FAIL: the grader's switch saw %d launch(es) of %d ranks, not the run's launch number %ld of that size: "
               "the run did not communicate through it\n",
               count, N, nth + 1);
        return 1;
    }
    static switchlog_job_t sw; /* big: not on the stack */
    if (!switchlog_read(log, job, &sw)) return 2;
    if (sw.error[0]) {
        printf("FAIL: the grader's switch refused the run's launch of %d ranks: %s\n", N, sw.error);
        return 1;
    }
    if (!sw.complete) {
        printf("FAIL: the run's launch of %d ranks did not end cleanly through the grader's switch: a rank left it "
               "early\n",
               N);
        return 1;
    }
    /* traffic on other communicators is in the stats as a total only: per peer when there is none */
    int others = 0;
    for (int r = 0; r < N; r++) others |= num(cJSON_GetArrayItem(ranks, r), "other_msgs_sent") != 0;
    for (int r = 0; r < N && r < SWITCHLOG_MAX_RANKS; r++) {
        cJSON *o = cJSON_GetArrayItem(ranks, r), *peers = cJSON_GetObjectItem(o, "peers");
        uint64_t msgs = 0, bytes = 0;
        for (int p = 0; p < N && p < SWITCHLOG_MAX_RANKS; p++) {
            if (p == r) continue;
            const switchlog_p2p_t *s = &sw.p2p[r][p];
            msgs += s->msgs_sent;
            bytes += s->bytes_sent;
            cJSON *po = cJSON_IsArray(peers) ? cJSON_GetArrayItem(peers, p) : NULL;
            if (others) continue;
            if (!agree(r, "sent", "to", p, s->msgs_sent, s->bytes_sent, num(po, "msgs_sent"), num(po, "bytes_sent")) ||
                !agree(r, "received", "from", p, s->msgs_recv, s->bytes_recv, num(po, "msgs_recv"),
                       num(po, "bytes_recv")))
                return 1;
        }
        double want_m = num(o, "msgs_sent") + num(o, "other_msgs_sent"),
               want_b = num(o, "bytes_sent") + num(o, "other_bytes_sent");
        if ((double)msgs != want_m || (double)bytes != want_b) {
            printf("FAIL: rank %d sent %llu bytes (%llu messages) in all through the grader's switch but its stats say "
                   "%.0f bytes (%.0f messages): the counters were written, or the data went another way\n",
                   r, (unsigned long long)bytes, (unsigned long long)msgs, want_b, want_m);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: statcheck STATS.json [--hint TEXT] WHO.FIELD=VALUE[~TOL]...\n");
        return 2;
    }
    FILE *f = fopen_regular(argv[1]);
    if (!f) {
        printf("FAIL: no stats file %s: the run did not finish\n", argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *root = cJSON_Parse(buf);
    cJSON *ranks = root ? cJSON_GetObjectItem(root, "ranks") : NULL;
    if (!cJSON_IsArray(ranks)) {
        printf("FAIL: %s is not a stats file\n", argv[1]);
        return 1;
    }
    int N = cJSON_GetArraySize(ranks), failures = 0;
    const char *hint = NULL;
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--ranks") && atoi(argv[i + 1]) != N) {
            printf("FAIL: %s holds %d rank%s, the run had %s\n", argv[1], N, N == 1 ? "" : "s", argv[i + 1]);
            return 1;
        }
    for (int r = 0; r < N; r++) {
        cJSON *o = cJSON_GetArrayItem(ranks, r);
        printf("rank %d:", r);
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            cJSON *v = cJSON_GetObjectItem(o, fields[k]);
            if (!cJSON_IsNumber(v)) {
                printf("\nFAIL: rank %d of %s has no number '%s'\n", r, argv[1], fields[k]);
                return 1;
            }
            printf(" %s %.0f", fields[k], v->valuedouble);
        }
        printf("\n");
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--hint") && i + 1 < argc) {
            hint = argv[++i];
            continue;
        }
        if ((!strcmp(argv[i], "--ranks") || !strcmp(argv[i], "--switch") || !strcmp(argv[i], "--switch-nth")) &&
            i + 1 < argc) {
            i++;
            continue;
        }
        char who[32], field[32];
        double value = 0, tol = 0;
        const char *dot = strchr(argv[i], '.'), *eq = strchr(argv[i], '=');
        if (!dot || !eq || dot > eq || (size_t)(dot - argv[i]) >= sizeof who ||
            (size_t)(eq - dot - 1) >= sizeof field) {
            fprintf(stderr, "statcheck: bad expectation '%s'\n", argv[i]);
            return 2;
        }
        snprintf(who, sizeof who, "%.*s", (int)(dot - argv[i]), argv[i]);
        snprintf(field, sizeof field, "%.*s", (int)(eq - dot - 1), dot + 1);
        value = atof(eq + 1);
        const char *tilde = strchr(eq, '~');
        if (tilde) tol = atof(tilde + 1);
        for (int r = 0; r < N; r++) {
            if (strcmp(who, "all") && !(r > 0 && !strcmp(who, "workers"))) {
                char me[16];
                snprintf(me, sizeof me, "rank%d", r);
                if (strcmp(who, me)) continue;
            }
            cJSON *v = counter(cJSON_GetArrayItem(ranks, r), r, N, field);
            if (!cJSON_IsNumber(v) && !strncmp(field, "peer", 4)) {
                /* the run's file, not the expectation: a trainer built before the per-peer counters */
                printf("FAIL: rank %d of %s has no per-peer counter '%s' (its trainer predates them: rebuild)\n", r,
                       argv[1], field);
                failures++;
                continue;
            }
            if (!cJSON_IsNumber(v)) {
                fprintf(stderr, "statcheck: no field '%s'\n", field);
                return 2;
            }
            double got = v->valuedouble;
            if (got < value - tol || got > value + tol) {
                failures++;
                if (tol > 0)
                    printf("FAIL: rank %d of %d: %s = %.0f, expected %.0f ± %.0f\n", r, N, field, got, value, tol);
                else
                    printf("FAIL: rank %d of %d: %s = %.0f, expected %.0f\n", r, N, field, got, value);
            } else if (!strncmp(field, "peer", 4)) {
                /* the per-peer counters are not in the summary above: say what each one held */
                printf("rank %d: %s %.0f\n", r, field, got);
            }
        }
    }
    if (failures && hint) printf("  hint: %s\n", hint);
    if (!failures) printf("traffic as expected on all %d ranks\n", N);
    long nth = 0;
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--switch-nth")) nth = atol(argv[i + 1]);
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--switch")) {
            int s = switch_agrees(ranks, N, argv[i + 1], nth);
            if (s == 2) return 2;
            failures += s;
        }
    cJSON_Delete(root);
    return failures ? 1 : 0;
}
