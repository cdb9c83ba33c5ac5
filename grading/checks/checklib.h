/* checklib.h — helpers shared by the grader's per-lesson checks (checkNN.c): random inputs,
 * poisoned outputs, "does this array match that one" with a report that helps a student. */
#ifndef DPC_CHECKLIB_H
#define DPC_CHECKLIB_H

#include "compare.h"
#include "rng.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Uniform in [-1, 1). */
void ck_random(rng_t *r, float *x, size_t n);
/* Fill with NaN, so that an output the code under test never writes is noticed. */
void ck_poison(float *x, size_t n);
bool ck_has_nonfinite(const float *x, size_t n);
/* Does got match want (double, the oracle) to |got − want| <= tol · max|want|? */
bool ck_close(const float *got, const double *want, size_t n, double tol);
/* got vs want where want is float. */
bool ck_close_f(const float *got, const float *want, size_t n, double tol);
/* "name: max-abs X, first difference at index i: got vs expected" */
void ck_describe(const char *name, const float *got, const double *want, size_t n);

/* The tape: how a check is decided by a process that never ran student code.
 *
 * The grader runs every check program twice (grading/README.md, "Security model"):
 *
 *   run phase   (CK_TAPE_DIR only, sandboxed)   checkNN linked with the SUBMISSION
 *               every ck_tape() call APPENDS what the student's code produced to a tape file;
 *               whatever this process prints or returns decides nothing
 *   judge phase (CK_PHASE=judge, trusted)       the same source linked with the REFERENCE
 *               every ck_tape() call REPLACES the judge's own values by the recorded ones
 *
 * So after each call into student code the check passes every output it will look at through
 * ck_tape, and all the comparisons that follow run on the student's values in both phases; only
 * the judge's verdict counts. A tape that ends early (the run crashed, hung or exited) or holds
 * something else than the judge asks for fails the check with a message saying so.
 * Without either variable (a student running a check by hand) ck_tape does nothing. The run is
 * not told its phase by name: the code under test only ever runs there, so that is worth nothing.
 * Tapes are CK_TAPE_DIR/tape.CHECK.N.RANK (N, RANK: the launcher's world size and rank). */
void ck_tape(const char *what, void *data, size_t bytes);
double ck_tape_double(const char *what, double value);
/* "what: value" for an integer result (sizes, counts, offsets). */
long long ck_tape_ll(const char *what, long long value);
/* Judge phase: does the run's tape end here, i.e. did the run stop (crash, hang, exit) before its
 * next record? After a marker recorded just before a risky call, lets a check say which call
 * killed the run instead of the generic "stopped before producing this". False in other phases. */
bool ck_tape_ends_here(void);
/* Run phase: the code under test's results are only being recorded, nothing this process decides
 * counts — a check may skip its costly oracle here (the judge computes it). False in other phases. */
bool ck_recording(void);
/* Judge phase: every result the check tapes will be replaced by the run's, so a check may skip the
 * work that produces them — one that cannot be repeated here (check03_index maps 32 GiB of address
 * space, beyond the judge's limit; its results come from the run only). False in other phases. */
bool ck_judging(void);

/* The grader's switch (grading/switch, grading/README.md "Security model"): in the judge phase
 * of a launched job, when the grader passes DPC_SWITCH_LOG (the switch's log of the run) and
 * grading/mpirun DPC_SWITCH_JOB (which of the run's launches this is), ck_main holds this process's
 * own traffic (comm_lifetime_counters: the reference's, plus the check's bookkeeping) against what
 * the switch carried for the same launch and rank. A check whose verdict passed fails with one line
 * when they disagree: per peer, messages exactly (but for ck_traffic_slack) and bytes within 4 per
 * message; library calls and their bytes exactly. Returns 1 when they agree or no switch ran. */
int ck_switch_agrees(void);
/* Messages to and from `peer` an algorithm may legitimately leave out or add against the
 * reference's (the empty messages of a zero-length call, which the traffic rules let it skip). */
void ck_traffic_slack(int peer, uint64_t msgs_sent, uint64_t msgs_recv);

/* Run the named check from a table; the program's usage is "checkNN CHECK". */
typedef struct {
    const char *name;
    int (*fn)(void); /* 0 = passed */
} ck_entry_t;
int ck_main(int argc, char **argv, const ck_entry_t *checks);

/* Exit status of a check that cannot run on this machine (no GPU): grading/grade reports SKIPPED
 * and the check counts neither for nor against. */
#define SKIPPED 77

#endif
