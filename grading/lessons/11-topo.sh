#!/bin/sh
# 11-topo.sh PROGRAM CHECK CONFIG... — lesson 11's check program on each emulated cluster CONFIG in
# turn (MxK-block or MxK-spread: M nodes of K ranks, mpirun -np M*K), the check named CHECK-CONFIG
# ("sweep-2x2-spread"). As ranks.sh does for world sizes:
#   run:   each cluster in turn, stopping at the first that fails; its output kept in topo.CONFIG.log,
#          shown only for the cluster that failed
#   judge: each in turn; the first that fails is reported alone (what it printed, which clusters
#          passed before it, and the run's watchdog line when it hung); when all pass, every summary
set -u
prog=$1 check=$2
shift 2
np() { m=${1%%x*} k=${1#*x} && k=${k%%-*} && echo $((m * k)); }
case ${PHASE:-run} in
prep) exit 0 ;;
run)
    for t in "$@"; do
        "$MPIRUN" -np "$(np "$t")" "$prog" "$check-$t" >"topo.$t.log" 2>&1
        rc=$?
        if [ $rc != 0 ]; then
            echo "on $t:"
            cat "topo.$t.log"
            exit $rc
        fi
        echo "on $t: results recorded"
    done
    exit 0
    ;;
esac
passed=""
for t in "$@"; do
    out=judge.$t.out
    "$MPIRUN" -np "$(np "$t")" "$prog" "$check-$t" >"$out" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        passed="$passed${passed:+, }$t"
        continue
    fi
    echo "on $t (M x K nodes x ranks, placement)${passed:+ (it passed on $passed)}:"
    # a hang: every rank's watchdog line, the first point-to-point wait being the cause (ranks.sh)
    log=${RUN_DIR:-.}/topo.$t.log
    first=$(grep -a -m 1 -E 'timeout after [0-9.e+]+ s in (send|recv|sendrecv) ' "$log" 2>/dev/null | cut -c1-400)
    [ -n "$first" ] || first=$(grep -a -m 1 'timeout after' "$log" 2>/dev/null | cut -c1-400)
    [ -n "$first" ] && echo "FAIL: your run hung: $first"
    cat "$out"
    exit $rc
done
for t in "$@"; do grep -v ': passed$' "judge.$t.out"; done
