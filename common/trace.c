/* trace.c — see trace.h. */
#include "trace.h"

#include "output.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct trace {
    int rank;
    double origin;
    pthread_mutex_t lock;
    int n, cap;
    trace_event_t *ev;
};

trace_t *trace_new(int rank) {
    trace_t *t = dp_calloc(1, sizeof *t);
    t->rank = rank;
    t->origin = dp_now();
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void trace_free(trace_t *t) {
    if (!t) return;
    pthread_mutex_destroy(&t->lock);
    free(t->ev);
    free(t);
}

void trace_span(trace_t *t, const char *track, const char *name, double t0, double t1) {
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        trace_event_t *e = realloc(t->ev, (size_t)t->cap * sizeof *e);
        if (!e) dp_fatal("out of memory recording trace events");
        t->ev = e;
    }
    trace_event_t *e = &t->ev[t->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->track, sizeof e->track, "%s", track);
    e->t0 = t0 - t->origin;
    e->t1 = t1 - t->origin;
    e->rank = t->rank;
    pthread_mutex_unlock(&t->lock);
}

int trace_count(const trace_t *t) { return t ? t->n : 0; }
const trace_event_t *trace_events(const trace_t *t) { return t ? t->ev : NULL; }

/* Tracks become Chrome "threads": number them in order of first appearance. */
static int track_id(char (*names)[TRACE_TRACK], int *count, const char *track) {
    for (int i = 0; i < *count; i++)
        if (!strcmp(names[i], track)) return i;
    if (*count >= 16) return 15;
    snprintf(names[*count], TRACE_TRACK, "%s", track);
    return (*count)++;
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
}

int trace_write(trace_t *t, comm_t *c, const char *path) {
    int size = comm_world_size(c), rank = comm_rank(c);
    int64_t mine = t->n, most = 0;
    comm_lib_allreduce(c, &mine, &most, 1, DT_I64, REDOP_MAX);
    size_t bytes = (size_t)most * sizeof(trace_event_t);
    unsigned char *send = dp_calloc(bytes ? bytes : 1, 1);
    if (t->n) memcpy(send, t->ev, (size_t)t->n * sizeof(trace_event_t));
    unsigned char *all = rank == 0 ? dp_calloc(bytes * (size_t)size + 1, 1) : NULL;
    int64_t *counts = rank == 0 ? dp_calloc((size_t)size, sizeof(int64_t)) : NULL;
    comm_lib_gather(c, &mine, counts, 1, DT_I64, 0);
    comm_lib_gather(c, send, all, bytes, DT_U8, 0);
    free(send);
    int err = 0;
    if (rank == 0) {
        /* both written whole (temporaries renamed into place): a failure leaves no empty files */
        char tsv_path[4096];
        snprintf(tsv_path, sizeof tsv_path, "%s.tsv", path);
        dp_out_t jo, to;
        if (dp_out_open(&jo, path) != 0) {
            err = errno;
        } else if (dp_out_open(&to, tsv_path) != 0) {
            err = errno;
            dp_out_discard(&jo);
        } else {
            FILE *f = jo.f, *tsv = to.f;
            fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
            fprintf(tsv, "# rank\ttrack\tstart_ms\tend_ms\tname\n");
            int first = 1;
            for (int r = 0; r < size; r++) {
                char names[16][TRACE_TRACK];
                int ntracks = 0;
                const trace_event_t *ev = (const trace_event_t *)(all + bytes * (size_t)r);
                fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}",
                        first ? "" : ",\n", r, r);
                first = 0;
                for (int64_t i = 0; i < counts[r]; i++) {
                    int tid = track_id(names, &ntracks, ev[i].track);
                    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":", r, tid,
                            ev[i].t0 * 1e6, (ev[i].t1 - ev[i].t0) * 1e6);
                    json_string(f, ev[i].name);
                    fprintf(f, "}");
                    fprintf(tsv, "%d\t%s\t%.6f\t%.6f\t%s\n", r, ev[i].track, ev[i].t0 * 1e3, ev[i].t1 * 1e3,
                            ev[i].name);
                }
                for (int k = 0; k < ntracks; k++) {
                    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", r,
                            k);
                    json_string(f, names[k]);
                    fprintf(f, "}}");
                }
            }
            fprintf(f, "\n]}\n");
            if (dp_out_close(&jo) != 0) {
                err = errno;
                dp_out_discard(&to);
            } else if (dp_out_close(&to) != 0) {
                err = errno;
            }
        }
        free(all);
        free(counts);
    }
    comm_lib_broadcast(c, &err, 1, DT_I32, 0);
    errno = err;
    return err ? -1 : 0;
}
