/* liveness.c — the ranks of this job with no process left on this host (see liveness.h). */
#define _GNU_SOURCE
#include "liveness.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RANKS 4096

static int env_int(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return -1;
    char *end;
    long x = strtol(v, &end, 10);
    return *end || x < 0 || x > MAX_RANKS ? -1 : (int)x;
}

/* The rank in process pid's environment when it belongs to job ns, else -1. A zombie (dead, not yet
 * reaped) has an empty environ: gone, as it should be. */
static int rank_of(const char *pid, const char *ns) {
    char path[64], buf[65536];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    bool mine = false;
    int rank = -1;
    size_t nsl = strlen(ns);
    for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
        if (!strncmp(p, "PMIX_NAMESPACE=", 15) && strlen(p + 15) == nsl && !strcmp(p + 15, ns)) mine = true;
        if (!strncmp(p, "OMPI_COMM_WORLD_RANK=", 21)) {
            char *end;
            long r = strtol(p + 21, &end, 10);
            if (!*end && r >= 0 && r < MAX_RANKS) rank = (int)r;
        }
    }
    return mine ? rank : -1;
}

int liveness_gone_ranks(int *gone, int max) {
    const char *ns = getenv("PMIX_NAMESPACE");
    int size = env_int("OMPI_COMM_WORLD_SIZE"), local = env_int("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!ns || !*ns || size < 1 || local != size) return -1;
    DIR *d = opendir("/proc");
    if (!d) return -1;
    bool alive[MAX_RANKS] = {false};
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        int r = rank_of(e->d_name, ns);
        if (r >= 0 && r < size) alive[r] = true;
    }
    closedir(d);
    int n = 0;
    for (int r = 0; r < size; r++)
        if (!alive[r]) {
            if (n < max) gone[n] = r;
            n++;
        }
    return n;
}
