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
 * per unmet expectation (and the hint once). Exit 0 when all hold. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regular.h"

static const char *fields[] = {"msgs_sent", "bytes_sent", "msgs_recv",       "bytes_recv",       "lib_calls",
                               "lib_bytes", "ops",        "other_msgs_sent", "other_bytes_sent", "other_lib_calls"};

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
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
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
            cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(ranks, r), field);
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
            }
        }
    }
    if (failures && hint) printf("  hint: %s\n", hint);
    if (!failures) printf("traffic as expected on all %d ranks\n", N);
    cJSON_Delete(root);
    return failures ? 1 : 0;
}
