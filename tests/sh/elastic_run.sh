# Lesson 12's elastic launcher (lessons/12-failures/elastic_run) and the last good checkpoint it
# restarts from (checkpoint_last_good, lesson 01's checkpoint.c):
#   - damaged checkpoints (truncated, a flipped byte) and incomplete FSDP shard sets are skipped;
#   - 4-rank DDP loses rank 2 at step 30 (--save-every 10): one restart on 3 ranks from step 20,
#     9 steps redone, the time lost measured; FSDP on 4 ranks loses rank 3 and restarts on 3 from
#     the consolidated shards;
#   - a program that fails without losing a rank is not restarted; --max-restarts is kept.
# The DDP run is lesson 12's train_elastic when it is built (its global batch stays B = 32 on any
# number of ranks), and the restart is then judged equivalent to the one-process run in the
# sampler's order (build/grading/equiv); ELASTIC_PROG=none (or no train_elastic) takes lesson 05's
# train_ddp, whose batch per rank stays 8: the 3-rank restart trains another run, so only the
# restart itself is checked.
. "$(dirname "$0")/lib.sh"
RUN=$BUILD/solutions/12-failures/elastic_run
ELASTIC_PROG=${ELASTIC_PROG:-$BUILD/solutions/12-failures/train_elastic}
if [ "$ELASTIC_PROG" != none ] && [ -x "$ELASTIC_PROG" ]; then
    DDP=$ELASTIC_PROG BATCH="--batch-global 32 --micro-cap 8"
else
    DDP=$BUILD/solutions/05-ddp/train_ddp BATCH="--batch 8" ELASTIC_PROG=""
fi
FSDP=$BUILD/solutions/08-fsdp/train_fsdp
EQUIV=$BUILD/grading/equiv
for p in "$RUN" "$DDP" "$FSDP" "$TRAIN"; do
    [ -x "$p" ] || {
        fail "elastic: $p not built (make)"
        exit 0
    }
done
F="--preset tiny --data $FIX --val none --log-every 1000 --seed 3 --timeout-s 10"

# The last good checkpoint: steps 10 and 20 good, 30 truncated, 40 with a flipped data byte.
"$TRAIN" $F --batch 8 --steps 21 --save-every 10 --save "$TMP/lg.safetensors" >"$TMP/out" 2>&1 ||
    fail "last good: the trainer failed: $(tail -n 2 "$TMP/out")"
"$RUN" --last-good "$TMP/none.safetensors" >"$TMP/out" 2>&1
if [ "$(cat "$TMP/out")" = none ]; then pass "last good: none when there is no checkpoint"; else
    fail "last good with no checkpoint: $(cat "$TMP/out")"; fi
size=$(wc -c <"$TMP/lg.step20.safetensors")
head -c $((size / 2)) "$TMP/lg.step20.safetensors" >"$TMP/lg.step30.safetensors"
cp "$TMP/lg.step20.safetensors" "$TMP/lg.step40.safetensors"
printf 'X' | dd of="$TMP/lg.step40.safetensors" bs=1 seek=$((size - 9)) conv=notrunc 2>/dev/null
cp "$TMP/lg.step20.safetensors" "$TMP/lg.step050.safetensors" # not a name the trainer writes
"$RUN" --last-good "$TMP/lg.safetensors" >"$TMP/out" 2>"$TMP/err"
if [ "$(cat "$TMP/out")" = "step 20 $TMP/lg.step20.safetensors" ] &&
    grep -q "skipping the checkpoint of step 40: .*corrupt" "$TMP/err" &&
    grep -q "skipping the checkpoint of step 30: " "$TMP/err" && [ "$(grep -c . "$TMP/err")" = 2 ]; then
    pass "last good: step 20, past a corrupt step 40 and a truncated step 30 (one note each)"
else
    fail "last good: want step 20 and two notes, got: $(cat "$TMP/out") / $(cat "$TMP/err")"
fi
# The same file renamed to another step is refused: its metadata says step 20.
mv "$TMP/lg.step20.safetensors" "$TMP/lg.step25.safetensors"
"$RUN" --last-good "$TMP/lg.safetensors" >"$TMP/out" 2>"$TMP/err"
if [ "$(cat "$TMP/out")" = "step 10 $TMP/lg.step10.safetensors" ] && grep -q "holds step 20, not the 25" "$TMP/err"; then
    pass "last good: a checkpoint renamed to step 25 is refused (it holds step 20)"
else
    fail "last good with a renamed checkpoint: $(cat "$TMP/out") / $(cat "$TMP/err")"
fi

# Launcher errors: one line each.
expect_error "elastic_run without a program" "no program" "$RUN" --nproc 2 --save "$TMP/x.safetensors"
expect_error "elastic_run with --save in the program's arguments" "give --save to elastic_run" \
    "$RUN" --nproc 2 --save "$TMP/x.safetensors" -- "$DDP" --save y
expect_error "elastic_run without --save" "--save is required" "$RUN" --nproc 2 -- "$DDP"
# A program that fails without losing a rank is not restarted (its own line, then the launcher's).
"$RUN" --nproc 2 --save "$TMP/x.safetensors" -- "$DDP" $F $BATCH --data "$TMP/none.tok" >"$TMP/out" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "^elastic_run: .*failed on 2 ranks without losing a rank" "$TMP/out" &&
    ! grep -q "restart 1" "$TMP/out"; then
    pass "a program that fails by itself is not restarted: $(grep -m1 '^elastic_run' "$TMP/out" | cut -c1-90)"
else
    fail "a failing program: exit $rc: $(tail -c 500 "$TMP/out")"
fi
# Exit status 2 (a usage error, an unwritten function: "do this first"): passed on, the program's
# own line last, as a student's command of lesson 12 stops before its TODOs are written.
"$RUN" --nproc 2 --save "$TMP/x.safetensors" -- "$DDP" $F $BATCH --batch 0 >"$TMP/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -v '^[[:space:]]*$' "$TMP/out" | tail -n 1 | grep -q "^train_[a-z]*: .*--batch" &&
    ! grep -q "^elastic_run" "$TMP/out"; then
    pass "a program's usage error: exit 2 passed on, its own line last: $(grep -v '^[[:space:]]*$' "$TMP/out" | tail -n 1 | cut -c1-90)"
else
    fail "a program's usage error: exit $rc, last lines: $(tail -c 400 "$TMP/out")"
fi
# --max-restarts 0: the death ends the run.
"$RUN" --nproc 2 --max-restarts 0 --save "$TMP/m.safetensors" -- "$DDP" $F $BATCH --steps 10 --fail 1:5 \
    >"$TMP/out" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "rank 1 died and --max-restarts 0 are used up" "$TMP/out"; then
    pass "--max-restarts 0: no restart, exit $rc"
else
    fail "--max-restarts 0: exit $rc: $(tail -c 400 "$TMP/out")"
fi

# DDP: 4 ranks, rank 2 dies at step 30, restart on 3 ranks from the checkpoint of step 20.
t0=$(date +%s)
timeout -k 5 120 "$RUN" --nproc 4 --max-restarts 1 --save "$TMP/ddp/ck.safetensors" -- "$DDP" $F $BATCH \
    --steps 60 --save-every 10 --fail 2:30 --dump "$TMP/ddp.st" >"$TMP/out" 2>&1
rc=$? took=$(($(date +%s) - t0))
line=$(grep "^elastic_run: restart 1: " "$TMP/out")
case $line in
"elastic_run: restart 1: rank 2 died at step 30, checkpoint of step 20, 9 steps redone, "*" s from the death to training again on 3 ranks")
    if [ $rc = 0 ] && grep -q "^elastic_run: finished on 3 ranks after 1 restart: 69 steps run for 60, 9 steps redone, 5 checkpoints written" "$TMP/out"; then
        pass "DDP 4 -> 3 ranks ($(basename "$DDP")) in $took s: ${line#elastic_run: restart 1: }"
    else
        fail "DDP 4 -> 3: exit $rc: $(tail -c 400 "$TMP/out")"
    fi
    ;;
*) fail "DDP 4 -> 3: exit $rc, restart line '$line': $(tail -c 600 "$TMP/out")" ;;
esac
if [ -n "$ELASTIC_PROG" ]; then
    "$TRAIN" $F --batch 32 --steps 60 --order sampler --sampler-replicas 4 --dump "$TMP/ref.st" >"$TMP/ref.log" 2>&1 ||
        fail "elastic: the one-process reference run failed: $(tail -n 2 "$TMP/ref.log")"
    if "$EQUIV" "$TMP/ref.st" "$TMP/ddp.st" --ref-offset 20 --world 3 >"$TMP/equiv" 2>&1; then
        pass "DDP 4 -> 3 ranks is equivalent to the one-process run: $(tail -n 1 "$TMP/equiv")"
    else
        fail "DDP 4 -> 3 ranks is not equivalent to the one-process run: $(tail -c 600 "$TMP/equiv")"
    fi
fi

# FSDP: 4 ranks, rank 3 dies at step 25; the shards of step 20 are consolidated, 3 ranks resume.
timeout -k 5 120 "$RUN" --nproc 4 --max-restarts 1 --fsdp --save "$TMP/fsdp/ck.safetensors" -- "$FSDP" $F \
    --batch 6 --steps 40 --save-every 10 --fail 3:25 >"$TMP/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^elastic_run: restart 1: rank 3 died at step 25, checkpoint of step 20, 4 steps redone, .* on 3 ranks" "$TMP/out" &&
    grep -q "^fsdp_consolidate: 4 shards -> $TMP/fsdp/ck.step20.safetensors.consolidated.safetensors" "$TMP/out"; then
    pass "FSDP 4 -> 3 ranks through the consolidated shards of step 20"
else
    fail "FSDP 4 -> 3: exit $rc: $(tail -c 600 "$TMP/out")"
fi
# A shard set with a shard missing is not a checkpoint: the 3-rank set of step 30 loses rank 1's.
rm -f "$TMP/fsdp/ck.step30.safetensors.rank1-of-3.safetensors"
"$RUN" --last-good "$TMP/fsdp/ck.safetensors" >"$TMP/out" 2>"$TMP/err"
if [ "$(cat "$TMP/out")" = "step 20 $TMP/fsdp/ck.step20.safetensors shards 4" ] && grep -q "step 30: " "$TMP/err"; then
    pass "last good: a shard set with a shard missing (step 30) is skipped for the whole set of step 20"
else
    fail "last good with a missing shard: $(cat "$TMP/out") / $(cat "$TMP/err")"
fi

# Seeded failures (the lab's): a spare replaces each dead rank (--keep-world); the counts add up —
# every step of the run is trained once plus the redone ones, and each restart has its line.
"$RUN" --nproc 2 --keep-world --max-restarts 8 --mtbf-steps 12 --fail-seed 5 --save "$TMP/mtbf/ck.safetensors" -- \
    "$DDP" $F $BATCH --steps 30 --save-every 4 >"$TMP/out" 2>&1
rc=$?
fin=$(grep "^elastic_run: finished on 2 ranks after" "$TMP/out")
k=$(echo "$fin" | awk '{ print $7 }') run=$(echo "$fin" | awk '{ print $9 }') red=$(echo "$fin" | awk '{ print $14 }')
lines=$(grep -c "^elastic_run: restart [0-9]*: rank [01] died at step [0-9]*, .* on 2 ranks$" "$TMP/out")
if [ $rc = 0 ] && [ -n "$fin" ] && [ "$k" -ge 1 ] && [ "$lines" = "$k" ] && [ $((run - red)) = 30 ]; then
    pass "--mtbf-steps 12 --keep-world: $k restarts on 2 ranks, $run steps run = 30 + $red redone"
else
    fail "--mtbf-steps: exit $rc, $lines restart lines, '$fin': $(tail -c 400 "$TMP/out")"
fi
