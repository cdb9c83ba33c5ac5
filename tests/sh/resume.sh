# Resuming from a checkpoint continues bit-identically: equal loss every step, equal parameters.
. "$(dirname "$0")/lib.sh"
EQUIV=$BUILD/grading/equiv
F="$QUICK --steps 20 --lr 1e-2 --warmup 3"
$TRAIN $F --dump "$TMP/full.st" >/dev/null 2>&1 || fail "uninterrupted run"
$TRAIN $F --save-every 10 --save "$TMP/ck.safetensors" >/dev/null 2>&1 || fail "run that checkpoints"
[ -f "$TMP/ck.step10.safetensors" ] || fail "--save-every 10 did not write ck.step10.safetensors"
$TRAIN $F --resume "$TMP/ck.step10.safetensors" --dump "$TMP/resumed.st" >/dev/null 2>&1 || fail "resumed run"
if "$EQUIV" "$TMP/full.st" "$TMP/resumed.st" --exact --ref-offset 10 >"$TMP/eq" 2>&1; then
    pass "resume after 10 of 20 steps: losses of steps 11..20 and final parameters bit-identical"
else
    fail "resume is not bit-identical: $(grep FAIL "$TMP/eq" | head -n 3)"
fi
# the learning-rate schedule depends on --steps: resuming into a longer run changes the losses,
# so the exact comparison must fail there (it is not a test that cannot fail)
$TRAIN $QUICK --steps 40 --lr 1e-2 --warmup 3 --resume "$TMP/ck.step10.safetensors" --dump "$TMP/longer.st" >/dev/null 2>&1
if "$EQUIV" "$TMP/full.st" "$TMP/longer.st" --exact --ref-offset 10 >/dev/null 2>&1; then
    fail "the exact comparison cannot tell a different run apart"
else
    pass "the exact comparison does tell a differently scheduled run apart"
fi

# An unfinished lesson 01 whose DP_TODO() lines were deleted trains at zero loss and absurd speed:
# the trainer warns at the first step the process runs — step 1 of a fresh run, and the step after
# the checkpoint of a resumed one (the warning once looked at step 1 only, and a skeleton resumed
# from a checkpoint printed loss 0.0000 at 2e8 tok/s with no warning). The skeleton's student files,
# DP_TODO() lines deleted, are built as a submission tree (only they: the given files are the build's).
mkdir -p "$TMP/skel/01-trainer"
for f in $(sed -n 's/^L01_STUDENT[ \t]*:=[ \t]*//p' lessons/01-trainer/lesson.mk); do
    grep -v '^[[:space:]]*DP_TODO();[[:space:]]*$' "lessons/01-trainer/$f" >"$TMP/skel/01-trainer/$f"
done
SKEL=$TMP/skel-build/01-trainer/train
if ! make -s O="${O:-build}" SANITIZE="${SANITIZE:-}" SUB="$TMP/skel" SUB_O="$TMP/skel-build" "$SKEL" >"$TMP/make.log" 2>&1; then
    fail "the lesson 01 skeleton without its DP_TODO() lines did not build: $(tail -n 3 "$TMP/make.log" | tr '\n' ' ')"
else
    warned() { # LOG STEP: the log holds the warning, naming STEP, and no other line on stderr
        [ "$(grep -c . "$1")" = 1 ] && grep -q "warning: the loss is exactly 0 at step $2, .*lesson 01's functions look unfinished" "$1"
    }
    "$SKEL" $QUICK --steps 2 >/dev/null 2>"$TMP/fresh.err"
    if warned "$TMP/fresh.err" 1; then
        pass "an unfinished lesson 01 warns at step 1 of a fresh run: $(cat "$TMP/fresh.err")"
    else
        fail "an unfinished lesson 01, fresh run: stderr '$(head -c 300 "$TMP/fresh.err")' (want the warning at step 1)"
    fi
    "$SKEL" $F --resume "$TMP/ck.step10.safetensors" >/dev/null 2>"$TMP/resumed.err"
    if warned "$TMP/resumed.err" 11; then
        pass "an unfinished lesson 01 resumed from step 10 warns at step 11: $(cat "$TMP/resumed.err")"
    else
        fail "an unfinished lesson 01 resumed from step 10: stderr '$(head -c 300 "$TMP/resumed.err")' (want the warning at step 11)"
    fi
fi
