# The comm seam under misbehaviour: every hang becomes one line naming rank, peer, operation and
# sequence number; the link emulator's timing model holds.
. "$(dirname "$0")/lib.sh"
P=$BUILD/tests/progs/comm_probe
start=$(date +%s)
timeout -k 5 60 "$MPIRUN" -np 2 "$P" deadlock --timeout-s 2 >"$TMP/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "rank [01]: timeout after 2 s in send of 4194304 x F32 to rank [01] (op #1 on comm 'world')" "$TMP/out"; then
    pass "send-before-receive deadlock ends in ${took}s with: $(grep -m1 'timeout after' "$TMP/out" | cut -c1-110)..."
else
    fail "deadlock: exit $rc after ${took}s: $(head -c 400 "$TMP/out")"
fi
timeout -k 5 60 "$MPIRUN" -np 3 "$P" skip --timeout-s 1 >"$TMP/out" 2>&1
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "timeout after 1 s in barrier over all 3 ranks (op #1" "$TMP/out"; then
    pass "a rank skipping a collective: $(grep -m1 'timeout after' "$TMP/out" | cut -c1-100)..."
else
    fail "skipped collective: exit $rc: $(head -c 400 "$TMP/out")"
fi
timeout -k 5 60 "$MPIRUN" -np 2 "$P" self >"$TMP/out" 2>&1
if [ $? != 0 ] && grep -q "rank 0: send with itself" "$TMP/out"; then
    pass "a message to oneself is refused"
else
    fail "self-send: $(head -c 300 "$TMP/out")"
fi
# A count that went below 0 in size_t is said as such in one line, before any byte moves (given
# code's preconditions, issue 27): on 2 ranks a send (the receiver is released by the abort), alone
# a library all-reduce.
for np in 1 2; do
    timeout -k 5 60 "$MPIRUN" -np $np "$P" negative --timeout-s 5 >"$TMP/out" 2>&1
    rc=$?
    if [ $rc != 0 ] && [ "$(grep -c 'a negative count converted to size_t' "$TMP/out")" = 1 ] &&
        grep -q '(-3 as a signed number)' "$TMP/out"; then
        pass "a negative count on $np rank(s) is refused in one line: $(grep -m1 'negative count' "$TMP/out")"
    else
        fail "a negative count on $np rank(s): exit $rc: $(head -c 400 "$TMP/out")"
    fi
done
# α = 1 ms, β = 1 GB/s, 1 MiB: one message ≈ 2.05 ms; two back to back share the port ≈ 4.1 ms.
# The emulated delay comes on top of the real copy, and a busy machine wakes a sleeper late, never
# early: so only lower bounds here — never below the model, two messages serialised on the port
# (at least twice the model), not overlapped. The model clock itself (α charged once, the port's
# queue) is checked exactly in tests/unit/test_link.c.
timeout -k 5 60 "$MPIRUN" -np 2 "$P" link --link-latency-us 1000 --link-gbps 8 >"$TMP/out" 2>&1
one=$(sed -n 's/^one //p' "$TMP/out")
two=$(sed -n 's/^two //p' "$TMP/out")
if awk -v a="$one" -v b="$two" 'BEGIN { exit !(a >= 2.0 && b >= 4.1) }'; then
    pass "link emulator: one 1 MiB message ${one} ms (model 2.05), two on one port ${two} ms (model 4.10)"
else
    fail "link emulator timing: one '${one}' ms (want >= 2.0), two '${two}' ms (want >= 4.1): $(head -c 200 "$TMP/out")"
fi
# An unwritten function (DP_TODO, common/util.h) says so in one line and ends the job with exit
# status 2: alone, as the one rank of mpirun -np 1 (no mpirun banner), on 3 ranks that all reach it
# (one line, not three), and on 4 ranks where rank 0 waits for rank 1 instead (another rank says it,
# before the timeout would report a hang).
todo_case() { # NAME CMD...: exit 2 and exactly one line of output, the DP_TODO line
    name=$1
    shift
    timeout -k 5 60 "$@" >"$TMP/out" 2>&1
    rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . "$TMP/out")" = 1 ] &&
        grep -q "^comm_probe: unwritten() in tests/progs/comm_probe.c is not written yet: write its TODO" "$TMP/out"; then
        pass "DP_TODO $name: exit 2, one line: $(cut -c1-90 "$TMP/out")..."
    else
        fail "DP_TODO $name: exit $rc (want 2), $(grep -c . "$TMP/out") lines (want 1): $(head -c 400 "$TMP/out")"
    fi
}
todo_case "alone" "$P" todo
todo_case "on mpirun -np 1" "$MPIRUN" -np 1 "$P" todo
todo_case "on 3 ranks" "$MPIRUN" -np 3 "$P" todo
todo_case "on 4 ranks, rank 0 waiting for rank 1" "$MPIRUN" -np 4 "$P" todo-late --timeout-s 2
