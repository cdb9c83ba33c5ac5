# The switch transport (grading/switch, common/comm_switch.c): the comm seam's tests again with every
# message through the switch, its log against the seam's own counters for traffic of a known shape,
# and the ways a job can go wrong: a rank that dies, a switch that goes away, frames a hostile rank
# forges. Failures end with the failing rank's line first; mpirun adds its own banner after it
# (no rank calls MPI, so MPI_Abort's quiet exit is not there to hide it): lines of the program are
# counted, not mpirun's.
. "$(dirname "$0")/lib.sh"
SWITCH=$BUILD/grading/switch
PROBE=$BUILD/tests/progs/switch_probe
CPROBE=$BUILD/tests/progs/comm_probe
SP=""
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$TMP"' EXIT

# run NAME NP PROGRAM ARGS...: PROGRAM on NP ranks through a fresh switch; output in TMP/out, exit
# status in rc, wall seconds in took
run() {
    name=$1 np=$2
    shift 2
    start_switch "$name"
    t0=$(date +%s)
    timeout -k 5 60 "$MPIRUN" -np "$np" "$@" >"$TMP/out" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    stop_switch
}
# the lines the program printed (not mpirun's banner)
own_lines() { grep -c "^$1: " "$TMP/out"; }

if [ ! -x "$SWITCH" ] || [ ! -x "$PROBE" ]; then
    fail "switch: $SWITCH or $PROBE not built (make test-build)"
    exit 0
fi

# Usage: one line, exit 2.
expect_error "switch without arguments" "both --socket and --log are needed" "$SWITCH"

# No switch at DPC_SWITCH: one line (rank 0's), not one per rank.
DPC_SWITCH=$TMP/none timeout -k 5 60 "$MPIRUN" -np 3 "$PROBE" pattern >"$TMP/out" 2>&1
rc=$?
if [ $rc != 0 ] && [ "$(own_lines switch_probe)" = 1 ] &&
    grep -q "^switch_probe: rank 0: cannot reach the message switch at DPC_SWITCH=$TMP/none: No such file or directory" "$TMP/out"; then
    pass "no switch at DPC_SWITCH: exit $rc, one line: $(grep -m1 '^switch_probe' "$TMP/out" | cut -c1-70)..."
else
    fail "no switch at DPC_SWITCH: exit $rc, $(own_lines switch_probe) lines (want 1): $(head -c 300 "$TMP/out")"
fi

# The seam's own tests, every message through the switch: the log must show the job, or the
# messages did not pass through it.
for np in 2 3 4; do
    run unit$np $np env DP_TIMEOUT_S=60 "$BUILD/tests/test_mpi_comm"
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$TMP/out" | tail -n 1)
    if [ $rc = 0 ] && [ -n "$passed" ] && ! grep -q "FAILED" "$TMP/out" &&
        grep -q "^job 0 key [^ ]* size $np complete$" "$TMP/unit$np.log" &&
        [ "$(grep -c '^error' "$TMP/unit$np.log")" = 0 ]; then
        pass "test_mpi_comm on $np ranks through the switch: $passed tests passed, job 0 of size $np complete"
    else
        fail "test_mpi_comm on $np ranks through the switch: exit $rc: $(head -c 300 "$TMP/out") log: $(head -c 200 "$TMP/unit$np.log")"
    fi
done

# Traffic of a known shape (switch_probe pattern): the switch's P2P lines equal the seam's counters
# line for line, and both equal what the pattern sends; the library all-reduces are calls and LIB
# bytes, never P2P.
for np in 3 4; do
    run pattern$np $np env DP_TIMEOUT_S=60 "$PROBE" pattern
    log=$TMP/pattern$np.log
    grep '^peer \|^lib ' "$TMP/out" | sort >"$TMP/seam"
    sed -n 's/^peer 0 /peer /p' "$log" | sort >"$TMP/sw_peer"
    sed -n 's/^lib 0 \([0-9]*\) calls \([0-9]*\) .*/lib \1 calls \2/p' "$log" | sort >"$TMP/sw_lib"
    sort "$TMP/sw_peer" "$TMP/sw_lib" >"$TMP/sw"
    # expected: to the next rank N-1 messages, 4 MiB + (N-2)(r+1)*4000 bytes; to the previous, the dup's
    # 3 x 40 bytes; nothing else; 2 library calls per rank, rank 0 reducing 2(N-1) x 4000 bytes
    awk -v n="$np" 'BEGIN {
        for (r = 0; r < n; r++) {
            for (p = 0; p < n; p++) {
                if (p == r) continue
                nx = (r + 1) % n; pv = (r - 1 + n) % n
                ms = 0; bs = 0; mr = 0; br = 0
                if (p == nx) { ms = n - 1; bs = 4194304 + (n - 2) * (r + 1) * 4000; mr = 3; br = 120 }
                if (p == pv) { ms = 3; bs = 120; mr = n - 1; br = 4194304 + (n - 2) * (pv + 1) * 4000 }
                printf "peer %d %d msgs_sent %d bytes_sent %d msgs_recv %d bytes_recv %d\n", r, p, ms, bs, mr, br
            }
            printf "lib %d calls 2\n", r
        }
    }' | sort >"$TMP/want"
    libz=$(sed -n 's/^lib 0 0 calls 2 bytes_sent \([0-9]*\) bytes_recv \([0-9]*\)$/\1 \2/p' "$log")
    if [ $rc = 0 ] && grep -q "^job 0 key [^ ]* size $np complete$" "$log" && [ -s "$TMP/seam" ] &&
        cmp -s "$TMP/seam" "$TMP/sw" && cmp -s "$TMP/sw" "$TMP/want" &&
        [ "$libz" = "$((2 * (np - 1) * 4000)) $((2 * (np - 1) * 4000))" ]; then
        pass "switch log = seam counters = the pattern on $np ranks ($(grep -c '^peer' "$TMP/sw") peer lines; rank 0's library bytes $libz)"
    else
        fail "switch log vs seam on $np ranks (exit $rc): seam/switch: $(diff "$TMP/seam" "$TMP/sw" | head -4 | tr '\n' ' ') switch/wanted: $(diff "$TMP/sw" "$TMP/want" | head -4 | tr '\n' ' ') lib0: '$libz' $(head -c 200 "$TMP/out")"
    fi
done

# What comm.sh checks of hangs, through the switch: a send above 4 KiB waits for its receiver as
# MPI's does, so send-before-receive deadlocks and the watchdog names it.
run deadlock 2 "$CPROBE" deadlock --timeout-s 2
if [ $rc != 0 ] && grep -q "rank [01]: timeout after 2 s in send of 4194304 x F32 to rank [01] (op #1 on comm 'world')" "$TMP/out"; then
    pass "send-before-receive deadlocks through the switch too, ends in ${took}s: $(grep -m1 'timeout after' "$TMP/out" | cut -c1-90)..."
else
    fail "deadlock through the switch: exit $rc after ${took}s: $(head -c 300 "$TMP/out")"
fi
run skip 3 "$CPROBE" skip --timeout-s 1
if [ $rc != 0 ] && grep -q "timeout after 1 s in barrier over all 3 ranks (op #1" "$TMP/out"; then
    pass "a rank skipping a barrier, through the switch: $(grep -m1 'timeout after' "$TMP/out" | cut -c1-90)..."
else
    fail "skipped barrier through the switch: exit $rc: $(head -c 300 "$TMP/out")"
fi
# DP_TODO: exit 2 and its one line, whichever rank says it (the others end with its status)
# (comm.sh's cases: the default timeout where every rank reaches it, whose later ranks wait a second
# before they say it themselves; 2 s where rank 0 waits for rank 1)
for case in "todo 3 300" "todo-late 4 2"; do
    set -- $case
    run todo $2 "$CPROBE" "$1" --timeout-s $3
    if [ $rc = 2 ] && [ "$(own_lines comm_probe)" = 1 ] &&
        grep -q "^comm_probe: unwritten() in tests/progs/comm_probe.c is not written yet" "$TMP/out"; then
        pass "DP_TODO ($1, $2 ranks) through the switch: exit 2, one line of the program"
    else
        fail "DP_TODO ($1, $2 ranks) through the switch: exit $rc (want 2), $(own_lines comm_probe) lines of the program (want 1): $(head -c 300 "$TMP/out")"
    fi
done

# A rank that returns without comm_finalize while the others wait for it: one line naming it, long
# before the timeout (30 s), and the switch logs it.
run early 3 env DP_TIMEOUT_S=30 "$PROBE" early-exit
if [ $rc != 0 ] && [ "$took" -lt 10 ] && [ "$(own_lines switch_probe)" = 1 ] &&
    grep -q "^switch_probe: rank [01]: rank 2 ended without comm_finalize .* while this rank waited for it in recv (op #1 on comm 'world')" "$TMP/out" &&
    grep -q "^error 0 rank 2 disconnected without comm_finalize" "$TMP/early.log"; then
    pass "a peer that exits early: ${took}s, one line: $(grep -m1 'ended without' "$TMP/out" | cut -c1-100)..."
else
    fail "peer exiting early: exit $rc after ${took}s (timeout 30), $(own_lines switch_probe) lines (want 1): $(head -c 400 "$TMP/out")"
fi

# The switch goes away while every rank waits: each says so, long before the timeout.
start_switch gone
t0=$(date +%s)
( # once every rank waits (mpirun may take seconds to start them on a busy machine)
    i=0
    while [ "$(grep -c 'waits$' "$TMP/out" 2>/dev/null)" != 3 ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill "$SP"
) &
DP_TIMEOUT_S=30 timeout -k 5 60 "$MPIRUN" -np 3 "$PROBE" wait >"$TMP/out" 2>&1
rc=$?
took=$(($(date +%s) - t0))
wait
SP=""
unset DPC_SWITCH
n=$(grep -c "^switch_probe: rank [0-2]: the message switch (DPC_SWITCH) closed the connection during recv (op #1 on comm 'world')" "$TMP/out")
if [ $rc != 0 ] && [ "$took" -lt 10 ] && [ "$n" -ge 1 ] && [ "$n" = "$(own_lines switch_probe)" ] &&
    grep -q "^job 0 key [^ ]* size 3 incomplete$" "$TMP/gone.log"; then
    pass "the switch stopped under 3 waiting ranks: ${took}s, $n line(s) naming it, the job logged incomplete"
else
    fail "switch stopped: exit $rc after ${took}s, $n lines naming it: $(head -c 400 "$TMP/out")"
fi

# Frames a hostile rank forges on the socket: every one refused, its connection closed, logged.
start_switch forge
"$PROBE" forge >"$TMP/out" 2>&1
stop_switch
for what in second-hello dst-out-of-range to-itself cut-short size-disagrees too-big world-too-large too-many-jobs; do
    case $what in
    second-hello) needle="a second hello for rank 0" ;;
    dst-out-of-range) needle="a frame for rank 99, but the world size is 2" ;;
    to-itself) needle="a frame to itself" ;;
    cut-short) needle="connection closed inside a frame (10 of its 100 payload bytes sent)" ;;
    size-disagrees) needle="says the world size is 3, but the job's is 2" ;;
    too-big) needle="a frame of 3221225472 bytes would make the job hold more than 2147483648 bytes" ;;
    world-too-large) needle="a world size of 257 (1..256 allowed)" ;;
    too-many-jobs) needle="job one-too-many: already 64 jobs under way (at most 64)" ;;
    esac
    if grep -q "^$what refused$" "$TMP/out" && grep -qF "$needle" "$TMP/forge.log"; then
        pass "forged: $what refused ($needle)"
    else
        fail "forged: $what: $(grep "^$what" "$TMP/out") log: $(head -c 300 "$TMP/forge.log")"
    fi
done
# the made-up jobs made room by writing the 4 jobs with no rank left connected (forge-b to forge-e) as
# incomplete, oldest first, and no other
ev=$(sed -n 's/^error \([0-9]*\) no rank of the job connected and 64 jobs under way: written as incomplete$/\1/p' "$TMP/forge.log" | tr '\n' ' ')
if [ "$ev" = "1 2 3 4 " ]; then
    pass "forged: 64 jobs under way make room by ending the jobs with no rank connected (jobs $ev)"
else
    fail "forged: jobs ended to make room: '$ev' (want '1 2 3 4 ')"
fi
