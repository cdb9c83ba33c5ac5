/* trace.h — a Chrome-trace (Perfetto-loadable) event writer.
 *
 * Each rank records spans (name, track, start, end) in memory; trace_write gathers them on rank 0
 * and writes one JSON file in which every rank is a process and every track (say "compute" and
 * "comm") a thread, so that open it in https://ui.perfetto.dev (or chrome://tracing) shows
 *
 *   rank 0  compute  [fwd][bwd h.3][bwd h.2][bwd h.1]...
 *           comm             [allreduce b0][allreduce b1]...
 *   rank 1  compute  ...
 *
 * Recording is thread-safe (DDP's communication thread records its own spans). Times are seconds
 * from dp_now(); each rank's origin is the moment trace_new was called. */
#ifndef DPC_TRACE_H
#define DPC_TRACE_H

#include "comm.h"

#include <stdbool.h>

typedef struct trace trace_t;

#define TRACE_NAME  40
#define TRACE_TRACK 16

typedef struct {
    char name[TRACE_NAME];
    char track[TRACE_TRACK];
    double t0, t1; /* seconds since the rank's origin */
    int32_t rank;
    int32_t pad;
} trace_event_t;

trace_t *trace_new(int rank);
void trace_free(trace_t *t);
/* Record a span [t0, t1] (dp_now() values) on a track. */
void trace_span(trace_t *t, const char *track, const char *name, double t0, double t1);
int trace_count(const trace_t *t);
const trace_event_t *trace_events(const trace_t *t);

/* Collective: gather every rank's events to rank 0, which writes them (Chrome JSON format) to path.
 * Also writes path with ".tsv" appended: one line per span (rank, track, start_ms, end_ms, name),
 * the input of the gnuplot timeline. Returns 0 on success (on every rank). */
int trace_write(trace_t *t, comm_t *c, const char *path);

#endif
