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
