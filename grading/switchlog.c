/* switchlog.c — see switchlog.h. */
#include "switchlog.h"

#include <stdio.h>
#include <string.h>

int switchlog_read(const char *path, long job, switchlog_job_t *out) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    memset(out, 0, sizeof *out);
    char line[512], word[16];
    while (fgets(line, sizeof line, f)) {
        long k;
        int r, p, n = 0;
        unsigned long long a, b, c, d;
        if (sscanf(line, "job %ld key %*s size %d %15s", &k, &r, word) == 3) {
            if (k != job) continue;
            out->found = 1;
            out->size = r;
            out->complete = !strcmp(word, "complete");
        } else if (sscanf(line, "peer %ld %d %d msgs_sent %llu bytes_sent %llu msgs_recv %llu bytes_recv %llu", &k, &r,
                          &p, &a, &b, &c, &d) == 7) {
            if (k == job && r >= 0 && r < SWITCHLOG_MAX_RANKS && p >= 0 && p < SWITCHLOG_MAX_RANKS)
                out->p2p[r][p] = (switchlog_p2p_t){a, b, c, d};
        } else if (sscanf(line, "lib %ld %d calls %llu bytes_sent %llu bytes_recv %llu", &k, &r, &a, &b, &c) == 5) {
            if (k == job && r >= 0 && r < SWITCHLOG_MAX_RANKS) {
                out->lib_calls[r] = a;
                out->lib_sent[r] = b;
                out->lib_recv[r] = c;
            }
        } else if (sscanf(line, "error %ld %n", &k, &n) == 1 && n > 0 && k == job && !out->error[0]) {
            snprintf(out->error, sizeof out->error, "%s", line + n);
            out->error[strcspn(out->error, "\r\n")] = 0;
        }
    }
    fclose(f);
    return 1;
}

/* The switch writes a launch's lines when it ends: the log is in the order the launches ended, and
 * the nth is counted in the order they began (their numbers). */
long switchlog_find_size(const char *path, int size, long nth, int *count) {
    FILE *f = fopen(path, "r");
    *count = 0;
    if (!f) return -3;
    char line[512];
    long ks[1024];
    while (fgets(line, sizeof line, f)) {
        long k;
        int n;
        if (sscanf(line, "job %ld key %*s size %d", &k, &n) == 2 && n == size && *count < 1024) ks[(*count)++] = k;
    }
    fclose(f);
    for (int i = 1; i < *count; i++) /* few: insertion sort */
        for (int j = i; j > 0 && ks[j - 1] > ks[j]; j--) {
            long t = ks[j];
            ks[j] = ks[j - 1];
            ks[j - 1] = t;
        }
    return nth >= 0 && nth < *count ? ks[nth] : -1;
}
