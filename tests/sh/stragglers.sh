# Lesson 10's emulated stragglers on a real trainer (DDP, 4 ranks): the delays change no number (the
# dump is byte for byte the one without them), every delay in --stats is the seeded one
# (straggler_report --delays recomputes them), straggler_report names a slowed rank and nobody under
# jitter alone, and bad values get one line. Three runs of 4 ranks: a few seconds.
. "$(dirname "$0")/lib.sh"
DDP=$BUILD/solutions/05-ddp/train_ddp
REPORT=$BUILD/solutions/10-limits/straggler_report
# preset small: a step's compute (~1 ms) well above the sleep's resolution, so a 3x rank is 3x
F="--preset small --data $FIX --val none --batch 16 --steps 24 --log-every 1000 --seed 5"

# shellcheck disable=SC2086
$MPIRUN -np 4 "$DDP" $F --dump "$TMP/plain.st" >"$TMP/plain.log" 2>&1 || fail "plain run: $(tail -n 3 "$TMP/plain.log")"
# shellcheck disable=SC2086
$MPIRUN -np 4 "$DDP" $F --straggler 2:3 --dump "$TMP/slow.st" --stats "$TMP/slow.json" >"$TMP/slow.log" 2>&1 ||
    fail "--straggler run: $(tail -n 3 "$TMP/slow.log")"
# shellcheck disable=SC2086
$MPIRUN -np 4 "$DDP" $F --jitter exp:3 --dump "$TMP/jit.st" --stats "$TMP/jit.json" >"$TMP/jit.log" 2>&1 ||
    fail "--jitter run: $(tail -n 3 "$TMP/jit.log")"

# 1. the numerics: losses, first-step gradients and final parameters byte for byte
for v in slow jit; do
    if cmp -s "$TMP/plain.st" "$TMP/$v.st"; then
        pass "the $v run's dump is byte for byte the plain run's (delays change no number)"
    else
        fail "the $v run's dump differs from the plain run's: a delay changed the numerics"
    fi
done

# 2. the delays are the seeded ones: --stats' delay_ms against straggler_report --delays
"$REPORT" --delays exp:3 --seed 5 --ranks 4 --steps 24 >"$TMP/want.txt"
"$REPORT" "$TMP/jit.json" --recorded-delays >"$TMP/got.txt"
if [ "$(wc -l <"$TMP/got.txt")" = 24 ] && awk 'FNR == NR { for (i = 1; i <= NF; i++) w[FNR, i] = $i; nf[FNR] = NF; next }
        { if (NF != nf[FNR]) bad++; for (i = 1; i <= NF; i++) { e = $i - w[FNR, i]; if (e > 1e-6 || e < -1e-6) bad++ } }
        END { exit bad > 0 }' "$TMP/want.txt" "$TMP/got.txt"; then
    pass "every rank's 24 delays in --stats are the seeded ones (straggler_report --delays)"
else
    fail "the delays in --stats are not the seeded ones: $(head -n 2 "$TMP/got.txt") vs $(head -n 2 "$TMP/want.txt")"
fi

# 3. the report: rank 2 under --straggler 2:3, nobody under jitter alone
"$REPORT" "$TMP/slow.json" >"$TMP/slow.txt" 2>&1
if grep -qx 'stragglers: 2' "$TMP/slow.txt"; then
    pass "straggler_report flags rank 2 of --straggler 2:3: $(grep 'rank 2:' "$TMP/slow.txt" | sed 's/^ *//')"
else
    fail "straggler_report on --straggler 2:3: $(cat "$TMP/slow.txt")"
fi
"$REPORT" "$TMP/jit.json" >"$TMP/jit.txt" 2>&1
if grep -qx 'stragglers: none' "$TMP/jit.txt"; then
    pass "straggler_report flags nobody under --jitter exp:3 alone (each rank slowest in $(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", s, $NF; s = ", " }' "$TMP/jit.txt") of steps)"
else
    fail "straggler_report under jitter alone: $(cat "$TMP/jit.txt")"
fi

# 4. bad values: one line each, non-zero exit (before any rank starts training)
expect_error "--straggler without a factor" "expects RANK:FACTOR" "$BUILD/solutions/01-trainer/train" $QUICK --straggler 2
expect_error "--straggler factor below 1" "the factor must be in [1" "$BUILD/solutions/01-trainer/train" $QUICK --straggler 0:0.5
expect_error "--straggler rank outside the world" "there is no rank 3 in a world of 1 rank" "$BUILD/solutions/01-trainer/train" $QUICK --straggler 3:2
expect_error "--jitter of an unknown distribution" "unknown distribution 'gauss'" "$BUILD/solutions/01-trainer/train" $QUICK --jitter gauss:5
expect_error "--jitter with a negative mean" "MEAN_MS must be above 0" "$BUILD/solutions/01-trainer/train" $QUICK --jitter exp:-5
expect_error "--jitter lognormal without sigma" "expects exp:MEAN_MS or lognormal:MEAN_MS:SIGMA" "$BUILD/solutions/01-trainer/train" $QUICK --jitter lognormal:5
