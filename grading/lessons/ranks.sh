#!/bin/sh
# ranks.sh PROGRAM CHECK N... — a check program's CHECK under mpirun on each world size N in turn
# (lessons 03 and 04: "the ring on 1 and 2 ranks").
#   run:   each size in turn, stopping at the first that fails (a hang costs the watchdog's time once)
#   judge: each size in turn; the first that fails is reported ALONE (what it printed, and which
#          sizes passed before it): the summary of a 1-rank run that passed is no answer to a crash
#          on 2 ranks. When all pass, every size's summary. Exit 77 (no GPU: SKIPPED) is passed on.
set -u
prog=$1 check=$2
shift 2
case ${PHASE:-judge} in
prep) exit 0 ;;
run)
    for n in "$@"; do "$MPIRUN" -np "$n" "$prog" "$check" || exit; done
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
    cat "$out"
    exit $rc
done
for n in "$@"; do cat "judge.np$n.out"; done
