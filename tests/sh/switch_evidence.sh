#!/bin/sh
# tests/sh/switch_evidence.sh — the judge's cross-check of a run's traffic against the grader's
# switch (grading/checks/switchcheck.c, statcheck --switch; grading/README.md, "Security model"):
# a run through a real switch, judged against its log as it is (passes) and against the same log
# with one count changed, a launch missing or left incomplete (each fails with its one line); a
# trainer's --stats against its launch's log, as written and with a count changed.
. "$(dirname "$0")/lib.sh"
SWITCH=$BUILD/grading/switch
CHECK=$BUILD/solutions/grading/check04
STATCHECK=$BUILD/grading/statcheck
export DP_TIMEOUT_S=60

# switched LOG COMMAND...: COMMAND with a switch logging to LOG (stopped after it, as grading/grade does)
switched() {
    log=$1
    shift
    rm -f "$TMP/s" "$log"
    "$SWITCH" --socket "$TMP/s" --log "$log" >"$TMP/switch.out" 2>&1 &
    pid=$!
    i=0
    while [ ! -S "$TMP/s" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    DPC_SWITCH=$TMP/s "$@"
    rc=$?
    kill -TERM $pid
    wait $pid
    return $rc
}

# the run: check04 ring_small on 3 ranks through the switch, its tape in TMP/t
mkdir -p "$TMP/t"
if ! switched "$TMP/log" env CK_TAPE_DIR="$TMP/t" "$MPIRUN" -np 3 "$CHECK" ring_small >"$TMP/run.out" 2>&1; then
    fail "switch_evidence: the run through the switch failed: $(tail -n 3 "$TMP/run.out")"
    exit 0
fi

# judge LOG: the judge's verdict on the run against LOG; its output in TMP/judge.out
judge() {
    rm -f "$TMP/jobs" "$TMP"/j/switch-disagrees.*
    mkdir -p "$TMP/j"
    (cd "$TMP/j" && DPC_SWITCH_LOG=$1 DPC_SWITCH_COUNT=$TMP/jobs CK_PHASE=judge CK_TAPE_DIR=$TMP/t \
        "$MPIRUN" -np 3 "$CHECK" ring_small >"$TMP/judge.out" 2>&1)
}

if judge "$TMP/log" && [ "$(grep -c 'ring_small: passed' "$TMP/judge.out")" = 3 ]; then
    pass "switch_evidence: the reference's run agrees with the switch's log"
else
    fail "switch_evidence: the reference's run against its own log: $(grep -m 3 -E 'FAIL|passed' "$TMP/judge.out" | tr '\n' ' ')"
fi

# tampered TAG SED-SCRIPT NEEDLE: the log with one change fails, with one FAIL line containing NEEDLE
tampered() {
    sed "$2" "$TMP/log" >"$TMP/log.$1"
    if cmp -s "$TMP/log" "$TMP/log.$1"; then
        fail "switch_evidence: $1: the edit changed nothing in the log (its format changed?)"
        return
    fi
    judge "$TMP/log.$1"
    rc=$?
    lines=$(grep -c "^FAIL" "$TMP/judge.out")
    if [ $rc = 0 ]; then
        fail "switch_evidence: $1: passed"
    elif [ "$lines" != 1 ] || ! grep "^FAIL" "$TMP/judge.out" | grep -qF -- "$3"; then
        fail "switch_evidence: $1: want one FAIL line with '$3', got $lines: $(grep '^FAIL' "$TMP/judge.out" | head -n 3)"
    else
        pass "switch_evidence: $1: $(grep '^FAIL' "$TMP/judge.out" | cut -c1-160)"
    fi
}
# rank 1's bytes to rank 2 lowered by more than the rounding slack (4 bytes a message)
tampered bytes 's/^\(peer 0 1 2 msgs_sent [0-9]* bytes_sent \)[0-9]*/\10/' "rank 1 sent 0 bytes"
# one library call more on rank 0 (a collective behind the counters' back)
tampered lib 's/^lib 0 0 calls \([0-9]*\)/lib 0 0 calls 99\1/' "library collective call"
tampered missing 's/^job 0 /job 7 /' "saw no launch 0"
tampered incomplete 's/^\(job 0 .*\) complete$/\1 incomplete/' "did not end cleanly"

# a trainer: the parameter server on 3 ranks, its --stats against the switch's log of its launch
PS=$BUILD/solutions/02-param-server/train_ps
if ! switched "$TMP/ps.log" "$MPIRUN" -np 3 "$PS" $QUICK --steps 2 --stats "$TMP/ps.json" >"$TMP/ps.out" 2>&1; then
    fail "switch_evidence: the trainer through the switch failed: $(tail -n 3 "$TMP/ps.out")"
    exit 0
fi
if "$STATCHECK" "$TMP/ps.json" --ranks 3 --switch "$TMP/ps.log" >"$TMP/sc.out" 2>&1; then
    pass "switch_evidence: the trainer's stats agree with the switch"
else
    fail "switch_evidence: the trainer's stats against the switch: $(grep FAIL "$TMP/sc.out" | head -n 2)"
fi
# the stats with rank 1's bytes to rank 0 written down (the first bytes_sent of its peers list)
awk '/"rank":[[:space:]]*1/ { r = 1 } r && /"peer":[[:space:]]*0/ { p = 1 }
     p && !done && /"bytes_sent"/ { sub(/[0-9]+/, "1"); done = 1 } { print }' "$TMP/ps.json" >"$TMP/forged.json"
if cmp -s "$TMP/ps.json" "$TMP/forged.json"; then
    fail "switch_evidence: could not forge the stats (their layout changed?)"
elif "$STATCHECK" "$TMP/forged.json" --ranks 3 --switch "$TMP/ps.log" >"$TMP/sc.out" 2>&1; then
    fail "switch_evidence: forged stats passed against the switch"
elif grep -q "rank 1 sent .* to rank 0 through the grader's switch but its stats say 1 bytes" "$TMP/sc.out"; then
    pass "switch_evidence: forged stats: $(grep "through the grader's switch" "$TMP/sc.out" | cut -c1-160)"
else
    fail "switch_evidence: forged stats failed for another reason: $(grep FAIL "$TMP/sc.out" | head -n 2)"
fi
