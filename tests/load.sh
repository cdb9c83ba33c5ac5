#!/bin/sh
# tests/load.sh [LESSON...] [--times N] — the timing checks under load: the reference solution must
# keep full marks on a busy machine.
#
# Starts the load that broke the timing checks before (bursty, not steady): another grader grading
# lessons 04 and 08 of the reference in a loop (its own work directory), plus one busy loop per core
# (nproc). Then grades the given lessons' reference (default: 00 05 09 10 11, the timing lessons, and 12, the restarts) N times
# (default 2), printing each score and the passing checks' margins. Exit 1 if any run is below full
# marks (INCONCLUSIVE included: the reference must be decided, and decided right). The load is always
# stopped on exit (trap), also on ^C.
#
#   sh tests/load.sh 00 05 09 10 11 12 --times 2     (make test-load)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LESSONS="" TIMES=2
while [ $# -gt 0 ]; do
    case $1 in
    --times) [ $# -ge 2 ] || { echo "load.sh: --times needs a number" >&2; exit 2; }; TIMES=$2; shift ;;
    --times=*) TIMES=${1#*=} ;;
    [0-9][0-9]) LESSONS="$LESSONS $1" ;;
    *) echo "usage: sh tests/load.sh [LESSON...] [--times N]" >&2; exit 2 ;;
    esac
    shift
done
LESSONS=${LESSONS:-00 05 09 10 11 12}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpc-load.XXXXXX")
PIDS=""
stop_load() {
    [ -n "${BG:-}" ] && kill -- "-$BG" 2>/dev/null # the background grader's process group
    for p in $PIDS; do kill "$p" 2>/dev/null; done # only what this script started, by id
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    PIDS=""
    rm -rf "$TMP"
}
trap stop_load EXIT
trap 'exit 130' INT TERM HUP

# the load: a concurrent grader in a loop, in its own session (setsid) so that stopping it stops
# the grader's children too: the whole process group it leads, by its id...
setsid sh -c 'while :; do "$1/grading/grade" 04 08 --submission "$1/solutions" >"$2/bg.out" 2>&1; done' sh "$ROOT" "$TMP" &
BG=$!
PIDS="$PIDS $BG"
# ... and a busy loop per core
n=$(nproc 2>/dev/null || echo 2)
i=0
while [ $i -lt "$n" ]; do
    sh -c 'while :; do :; done' &
    PIDS="$PIDS $!"
    i=$((i + 1))
done
sleep 3 # let the load build up
echo "load: a grader of lessons 04 08 in a loop + $n busy loops (load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"

bad=0 t=1
while [ $t -le "$TIMES" ]; do
    for L in $LESSONS; do
        out=$TMP/grade-$L-$t.out
        "$ROOT/grading/grade" "$L" --submission "$ROOT/solutions" >"$out" 2>&1
        rc=$?
        score=$(sed -n 's/^Score: //p' "$out" | tail -n 1)
        if [ $rc = 0 ]; then
            echo "PASS load $L run $t: $score"
        else
            echo "FAIL load $L run $t: $score (exit $rc): the reference lost points under load"
            grep -E 'FAIL|INCONCLUSIVE' "$out" | head -n 6 | sed 's/^/    /'
            bad=1
        fi
        # every passing check's numbers: how far from its bound it stayed
        grep -E '^[0-9]+ [a-z0-9_-]+: (OK|FAIL|INCONCLUSIVE)' "$out" | grep -E 'margin|measured|too noisy' | sed 's/^/    /'
        grep -E 'too noisy to decide' "$out" | sed 's/^/    /'
    done
    t=$((t + 1))
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
exit $bad
