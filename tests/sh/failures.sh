# Lesson 12's failures: --fail RANK:STEP (the trainer engine, every trainer has it) and a rank killed
# from outside. A death is never a hang and always ends with a line that names the dead rank:
#   - under Open MPI's mpirun, mpirun sees its child die and ends the job at once (before any
#     survivor's watchdog can fire), with its banner "mpirun noticed that process rank R ..."; the
#     rank that --fail kills says its own line first;
#   - through the grader's switch, the survivor names the dead rank and the operation it waited in
#     (the switch tells it the rank disconnected: common/comm_switch.c);
#   - where the launcher leaves the survivors waiting, their watchdog ends them after --timeout-s,
#     in one line that names the dead rank (common/liveness.c, when the ranks share the host).
# Checkpoints of the steps before the death are on disk, that of the step of death is not.
. "$(dirname "$0")/lib.sh"
DDP=$BUILD/solutions/05-ddp/train_ddp
SWITCH=$BUILD/grading/switch
SP=""
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$TMP"' EXIT
if [ ! -x "$DDP" ] || [ ! -x "$TRAIN" ]; then
    fail "failures: $DDP or $TRAIN not built (make)"
    exit 0
fi
F="$QUICK --steps 40 --timeout-s 10"

# Bad values: one line each, before anything runs.
expect_error "--fail without a step" "--fail expects RANK:STEP" "$TRAIN" $F --fail 2
expect_error "--fail step 0" "--fail expects RANK:STEP" "$TRAIN" $F --fail 0:0
expect_error "--fail with a sign" "--fail expects RANK:STEP" "$TRAIN" $F --fail -1:3
expect_error "--fail with trailing text" "--fail expects RANK:STEP" "$TRAIN" $F --fail 0:3x
expect_error "--fail a rank outside the world" "there is no rank 1 in a world of 1 rank" "$TRAIN" $F --fail 1:3
expect_error "--fail after the last step" "step 41 is after the last step (--steps 40)" "$TRAIN" $F --fail 0:41

# died NAME RANK: the run ended (non-zero) within its timeout, and a line names rank RANK as dead
died() {
    if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$took" -ge 60 ]; then
        fail "$1: exit $rc after $took s (want a failure, well within the timeout): $(tail -c 400 "$TMP/out")"
    elif ! grep -q "process rank $2 .*exited on signal 9\|rank [0-9]*: rank $2 ended without comm_finalize" "$TMP/out"; then
        fail "$1: no line names rank $2 as dead: $(tail -c 600 "$TMP/out")"
    else
        pass "$1: exit $rc after $took s: $(grep -m1 "process rank $2 \|: rank $2 ended" "$TMP/out" | cut -c1-110)"
    fi
}

# --fail 2:7 on 4 ranks, a checkpoint every 2 steps: rank 2's line, mpirun's, and steps 2, 4, 6 saved
t0=$(date +%s)
timeout -k 5 60 "$MPIRUN" -np 4 "$DDP" $F --save-every 2 --save "$TMP/ck.safetensors" --fail 2:7 >"$TMP/out" 2>&1
rc=$? took=$(($(date +%s) - t0))
died "--fail 2:7 (MPI)" 2
if grep -q "^train_ddp: rank 2: --fail 2:7: dying at the start of step 7 " "$TMP/out"; then
    pass "--fail 2:7: the dying rank says so: $(grep -m1 -- '--fail 2:7' "$TMP/out" | cut -c1-100)"
else
    fail "--fail 2:7: no line from rank 2: $(head -c 400 "$TMP/out")"
fi
if [ -f "$TMP/ck.step6.safetensors" ] && [ ! -f "$TMP/ck.step8.safetensors" ] && [ ! -f "$TMP/ck.safetensors" ]; then
    pass "--fail 2:7: the checkpoint of step 6 is on disk, none after it"
else
    fail "--fail 2:7: want ck.step6 and no later checkpoint, got: $(ls "$TMP")"
fi

# kill -9 of rank 1 from outside, once it has trained (its first checkpoint is there)
t0=$(date +%s)
timeout -k 5 60 "$MPIRUN" -np 3 "$DDP" $QUICK --steps 1000000 --timeout-s 10 --save-every 50 \
    --save "$TMP/k.safetensors" >"$TMP/out" 2>&1 &
job=$!
victim=""
i=0
while [ -z "$victim" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
    [ -f "$TMP/k.step50.safetensors" ] || continue
    for p in $(pgrep -f "^$DDP .*--save $TMP/k.safetensors"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && victim=$p
    done
done
if [ -z "$victim" ]; then
    fail "kill -9: rank 1 of the 3-rank run not found (or no checkpoint after 30 s): $(tail -c 300 "$TMP/out")"
    kill "$job" 2>/dev/null
    wait "$job"
else
    t0=$(date +%s)
    kill -9 "$victim"
    wait "$job"
    rc=$? took=$(($(date +%s) - t0))
    died "kill -9 of rank 1 from outside (MPI)" 1
fi

# A launcher that leaves the survivors running (mpirun told not to abort; srun without
# --kill-on-bad-exit does the same): the watchdog ends them after --timeout-s, with one line from the
# lowest survivor (the others wait a moment more, and its abort ends them) naming the dead rank.
t0=$(date +%s)
timeout -k 5 60 "$MPIRUN" --mca orte_abort_on_non_zero_status 0 -np 4 "$DDP" $QUICK --steps 40 --timeout-s 3 \
    --fail 2:5 >"$TMP/out" 2>&1
rc=$? took=$(($(date +%s) - t0))
n=$(grep -c "timeout after" "$TMP/out")
if [ $rc != 0 ] && [ "$took" -lt 30 ] && [ "$n" = 1 ] &&
    grep -q "^train_ddp: rank 0: timeout after 3 s in .*: rank 2 of the job is gone: " "$TMP/out"; then
    pass "survivors left running: the watchdog's one line names rank 2 after $took s: $(grep -m1 'timeout after' "$TMP/out" | cut -c1-150)..."
else
    fail "survivors left running: exit $rc after $took s, $n watchdog lines: $(grep -v '^step\|^---' "$TMP/out" | tail -c 700)"
fi

# Through the switch: the survivor names the dead rank and what it waited in.
if [ -x "$SWITCH" ]; then
    start_switch switch
    t0=$(date +%s)
    timeout -k 5 60 "$MPIRUN" -np 3 "$DDP" $F --fail 1:5 >"$TMP/out" 2>&1
    rc=$? took=$(($(date +%s) - t0))
    stop_switch
    died "--fail 1:5 through the switch" 1
    if grep -q "^train_ddp: rank [02]: rank 1 ended without comm_finalize .* while this rank waited for it in [a-z]" "$TMP/out"; then
        pass "switch: a survivor names the dead rank and the operation: $(grep -m1 'ended without' "$TMP/out" | cut -c1-150)"
    else
        fail "switch: no survivor line naming rank 1 and the operation: $(tail -c 600 "$TMP/out")"
    fi
else
    fail "failures: $SWITCH not built (make test-build)"
fi
