/* switchcheck.c — the judge's cross-check of a check's traffic against the grader's switch (see
 * checklib.h, ck_switch_agrees, and grading/README.md, "Security model").
 *
 * The run's counters live in the process that runs student code, so student code can write them;
 * the switch is a process outside the sandbox that carried every byte of the run and logged, per
 * launched job and rank, what went to each peer and through the library collectives. The judge
 * runs the same job linked with the reference, reading the run's results from the tape: when the
 * check passes, the run's results and counters agree with the reference's, so the traffic the
 * switch saw must be the traffic the judge's own process moved (comm_lifetime_counters). If it is
 * not, the counters the check accepted were not the traffic that happened. */
#include "checklib.h"

#include "comm.h"
#include "switchlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Messages a check allows an algorithm to leave out or add per peer (empty ones of a zero-length
 * call): the traffic rules' own slack, summed over the check's calls. */
static uint64_t slack_sent[COMM_LIFETIME_PEERS], slack_recv[COMM_LIFETIME_PEERS];

void ck_traffic_slack(int peer, uint64_t msgs_sent, uint64_t msgs_recv) {
    if (peer < 0 || peer >= COMM_LIFETIME_PEERS) return;
    slack_sent[peer] += msgs_sent;
    slack_recv[peer] += msgs_recv;
}

/* One line per launch, not one per rank: the first rank of the launch to disagree says it (a marker
 * file in the judge's directory), the others only fail. */
static long the_job;
static void tell(const char *fmt, ...) {
    char marker[64];
    snprintf(marker, sizeof marker, "switch-disagrees.%ld", the_job);
    int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) return;
    if (fd >= 0) close(fd);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

static uint64_t diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* One direction of one peer: messages within the check's slack, bytes within 4 per message (the
 * traffic rules' chunk rounding). Prints the FAIL line and returns 0 when they disagree. */
static int agree(int rank, const char *verb, const char *prep, int peer, uint64_t sw_msgs, uint64_t sw_bytes,
                 uint64_t my_msgs, uint64_t my_bytes, uint64_t msg_slack) {
    uint64_t most = sw_msgs > my_msgs ? sw_msgs : my_msgs;
    if (diff(sw_msgs, my_msgs) <= msg_slack && diff(sw_bytes, my_bytes) <= 4 * most) return 1;
    tell("FAIL: rank %d %s %llu bytes (%llu messages) %s rank %d through the grader's switch but its counters say "
         "%llu bytes (%llu messages): the counters were written, or the data went another way\n",
         rank, verb, (unsigned long long)sw_bytes, (unsigned long long)sw_msgs, prep, peer,
         (unsigned long long)my_bytes, (unsigned long long)my_msgs);
    return 0;
}

int ck_switch_agrees(void) {
    const char *log = getenv("DPC_SWITCH_LOG"), *job_s = getenv("DPC_SWITCH_JOB");
    if (!log || !*log || !job_s || !*job_s) return 1; /* no switch carried this check's run */
    comm_lifetime_t me;
    comm_lifetime_counters(&me);
    if (me.size == 0) return 1; /* this program never joined a world: nothing went through the switch */
    long job = strtol(job_s, NULL, 10);
    the_job = job;
    static switchlog_job_t sw; /* big: not on the stack */
    if (!switchlog_read(log, job, &sw)) {
        tell("FAIL: the grader's switch left no log (%s): the run's traffic cannot be confirmed\n", log);
        return 0;
    }
    if (!sw.found) {
        tell("FAIL: the grader's switch saw no launch %ld of this check: the run on %d rank(s) did not communicate "
             "through it\n",
             job, me.size);
        return 0;
    }
    if (sw.error[0]) {
        tell("FAIL: the grader's switch refused the run's launch %ld: %s\n", job, sw.error);
        return 0;
    }
    if (sw.size != me.size) {
        tell("FAIL: the grader's switch saw the run's launch %ld on %d rank(s), this check launches %d\n", job, sw.size,
             me.size);
        return 0;
    }
    if (!sw.complete) {
        tell("FAIL: the run's launch %ld on %d rank(s) did not end cleanly through the grader's switch: a rank left "
             "it early (crashed, exited before the check ended, or talked around it)\n",
             job, me.size);
        return 0;
    }
    if (me.size == 1) return 1; /* one rank has no peer, and its collectives move nothing */
    int ok = 1;
    for (int p = 0; p < me.size && p < COMM_LIFETIME_PEERS && p < SWITCHLOG_MAX_RANKS && ok; p++) {
        if (p == me.rank || me.rank >= SWITCHLOG_MAX_RANKS) continue;
        const switchlog_p2p_t *s = &sw.p2p[me.rank][p];
        const comm_peer_counters_t *m = &me.peers[p];
        ok = agree(me.rank, "sent", "to", p, s->msgs_sent, s->bytes_sent, m->msgs_sent, m->bytes_sent, slack_sent[p]) &&
             agree(me.rank, "received", "from", p, s->msgs_recv, s->bytes_recv, m->msgs_recv, m->bytes_recv,
                   slack_recv[p]);
    }
    int r = me.rank < SWITCHLOG_MAX_RANKS ? me.rank : 0;
    if (ok && (sw.lib_calls[r] != me.lib_calls || sw.lib_sent[r] != me.lib_bytes_sent ||
               sw.lib_recv[r] != me.lib_bytes_recv)) {
        tell("FAIL: rank %d made %llu library collective call(s) moving %llu bytes out and %llu in through the "
             "grader's switch but its counters say %llu call(s), %llu and %llu bytes: a collective was called "
             "behind the counters' back, or the counters were written\n",
             me.rank, (unsigned long long)sw.lib_calls[r], (unsigned long long)sw.lib_sent[r],
             (unsigned long long)sw.lib_recv[r], (unsigned long long)me.lib_calls,
             (unsigned long long)me.lib_bytes_sent, (unsigned long long)me.lib_bytes_recv);
        ok = 0;
    }
    return ok;
}
