#!/bin/sh
# ranks.sh PROGRAM CHECK N... — a check program's CHECK under mpirun on each world size N in turn
# (lessons 03 and 04: "the ring on 1 and 2 ranks").
#   run:   each size in turn, stopping at the first that fails (a hang costs the watchdog's time once);
#          each size's output is kept in ranks.npN.log, and shown only for the size that failed
#   judge: each size in turn; the first that fails is reported ALONE (what it printed, which sizes
#          passed before it, and the run's watchdog line when it hung): the summary of a 1-rank
#          run that passed is no answer to a crash on 2 ranks. When all pass, every size's summary.
#          Exit 77 (no GPU: SKIPPED) is passed on.
set -u
prog=$1 check=$2
shift 2
case ${PHASE:-run} in
prep) exit 0 ;;
run)
    # Each size's output goes to a file (the judge names the rank that hung from it); only the
    # size that fails is shown, so the run's last lines are its crash, not another size's summary.
    for n in "$@"; do
        "$MPIRUN" -np "$n" "$prog" "$check" >"ranks.np$n.log" 2>&1
        rc=$?
        if [ $rc != 0 ]; then
            echo "on $n rank(s):"
            cat "ranks.np$n.log"
            exit $rc
        fi
        echo "on $n rank(s): results recorded"
    done
    exit 0
    ;;
esac
passed=""
for n in "$@"; do
    out=judge.np$n.out
    "$MPIRUN" -np "$n" "$prog" "$check" >"$out" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        passed="$passed${passed:+, }$n"
        continue
    fi
    [ $rc != 77 ] && echo "on $n rank(s)${passed:+ (it passed on $passed)}:"
    # A hang ends with every rank's watchdog line, all within the same instant; the cause is the
    # point-to-point wait (the rest are ranks waiting for that one in the grader's bookkeeping
    # collective). Read from the run's own output: it can only explain, never pass.
    log=${RUN_DIR:-.}/ranks.np$n.log
    first=$(grep -a -m 1 -E 'timeout after [0-9.e+]+ s in (send|recv|sendrecv) ' "$log" 2>/dev/null | cut -c1-400)
    [ -n "$first" ] || first=$(grep -a -m 1 'timeout after' "$log" 2>/dev/null | cut -c1-400)
    [ -n "$first" ] && echo "FAIL: your run hung: $first"
    cat "$out"
    exit $rc
done
for n in "$@"; do cat "judge.np$n.out"; done
