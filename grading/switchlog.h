/* switchlog.h — reading the grader's switch's log (grading/switch.c writes it; its header has the
 * format): what crossed the switch in one launch of a run, per rank and peer. Read by the judge's
 * cross-checks (grading/checks/switchcheck.c for the check programs, grading/statcheck.c for the
 * trainers' --stats). */
#ifndef DPC_SWITCHLOG_H
#define DPC_SWITCHLOG_H

#include <stdint.h>

#define SWITCHLOG_MAX_RANKS 64 /* ranks of a launch kept (the course's runs have at most 8) */

typedef struct {
    uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
} switchlog_p2p_t;

typedef struct {
    int found, size, complete;
    char error[200]; /* the switch's first error line about the launch, if any */
    switchlog_p2p_t p2p[SWITCHLOG_MAX_RANKS][SWITCHLOG_MAX_RANKS]; /* [rank][peer]; a missing line: zeros */
    uint64_t lib_calls[SWITCHLOG_MAX_RANKS], lib_sent[SWITCHLOG_MAX_RANKS], lib_recv[SWITCHLOG_MAX_RANKS];
} switchlog_job_t;

/* Launch `job` (0, 1, ... in the order the switch saw them) of the log at `path`. Returns 0 when the
 * file cannot be read, 1 otherwise (then job->found says whether the launch is in it). */
int switchlog_read(const char *path, long job, switchlog_job_t *out);

/* The nth (from 0) launch of `size` ranks in the log: its number; -1 when there is no such launch,
 * -3 when the file cannot be read. *count: how many launches of that size the log holds. */
long switchlog_find_size(const char *path, int size, long nth, int *count);

#endif
