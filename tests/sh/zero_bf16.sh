# ZeRO stages 1, 2, 3 with --mixed-precision bf16 (lessons/08-fsdp/README.md, "Mixed precision with
# ZeRO"), gpt-tiny on 1, 2, 3 and 4 ranks: every rank's model state is the paper's formula
# (common/mk/zero_memory.sh prints the table; to the byte where N divides every unit), in bf16 and in
# float32 alike; the traffic is the formula's; each stage in bf16 is equivalent to one process in bf16
# on the same global batches, and in float32 to one process in float32, as before.
#
# The bf16 tolerances are DDP's (tests/sh/mixed_precision.sh derives them): each rank rounds its own
# gradient to bf16 and the reduce-scatter averages them in float32 (the sharded gradient stays in its
# float32 buffer, as DDP's all-reduced one: no third rounding), against the one process's one rounding
# of the global mean; the optimizer steps the float32 master shard in both.
# shellcheck disable=SC2086 # the flag strings are meant to split into words
. "$(dirname "$0")/lib.sh"
SOL=$BUILD/solutions
EQUIV=$BUILD/grading/equiv
U=0.00390625 # 2^-8, bf16's unit roundoff
TOL="--loss-rtol $U --grad-rtol 0.015625 --param-rtol 0.015625 --param-atol 0.02"
# zero_memory.sh's runs: 4 steps x 4 examples per rank
A="--model gpt-tiny --data $FIX --val none --steps 4 --lr 1e-2 --log-every 1000"

# traffic N DIR: every stage's gradient traffic per rank and step against the formula, from the bf16
# runs' --stats (the float32 runs send the same bytes: the CPU's bf16 values travel as float32).
# Per unit of n elements, chunk c = ceil(n/N), one ring operation sends (N−1)·c floats per rank:
# stages 1 and 2 a reduce-scatter and an all-gather (the ring all-reduce's 2(N−1)·c), stage 3 an
# all-gather more (1.5x), less one for the GPT's unit 0, gathered once; plus the squared norm's
# all-reduce (at most 8N bytes a step).
traffic() {
    python3 - "$1" "$2" <<'PY'
import json, math, sys
N, d = int(sys.argv[1]), sys.argv[2]
units = [560, 3280, 3280, 32]
ar = sum(2 * (N - 1) * math.ceil(n / N) * 4 for n in units)  # the all-reduce's bytes per rank
bad, out = 0, []
for s in (1, 2, 3):
    st = json.load(open(f"{d}/z{s}-bf16.json"))
    want = ar if s < 3 else ar * 3 // 2 - (N - 1) * math.ceil(units[0] / N) * 4
    for r in st["ranks"]:
        got = r["bytes_sent"] / st["steps"]
        bad |= not (want <= got <= want + 8 * N)
    out.append(f"stage {s} {got:.0f} B/step ({got / ar:.2f}x the all-reduce's {ar})" if ar else f"stage {s} {got:.0f} B/step")
print("; ".join(out))
sys.exit(bad)
PY
}

# Stages 1-3 on 1-4 ranks: memory (zero_memory.sh: exact where N divides every unit, 2 and 4; else
# within 10% + a unit), traffic, and equivalence with one process in the same precision.
for N in 1 2 3 4; do
    if ZERO_RUNS="z1 z2 z3" sh "$ROOT/common/mk/zero_memory.sh" $N "$TMP/z$N" >"$TMP/table" 2>&1; then
        pass "ZeRO 1/2/3 on $N rank(s), fp32 and bf16: per-rank model state and peak = the formulas (state/peak bytes): $(awk 'NR > 1 {printf "%s %s %s/%s; ", $1, $2, $(NF - 4), $NF}' "$TMP/table")"
    else
        fail "ZeRO memory on $N rank(s): $(grep -e OFF -e failed "$TMP/table" | head -n 3)"
        continue
    fi
    if traffic $N "$TMP/z$N" >"$TMP/tr" 2>&1; then
        pass "ZeRO traffic on $N rank(s), bf16: $(cat "$TMP/tr")"
    else
        fail "ZeRO traffic on $N rank(s), bf16, not the formula: $(cat "$TMP/tr")"
    fi
    for dt in bf16 fp32; do
        mp=none tol=
        [ $dt = bf16 ] && mp=bf16 tol=$TOL
        if ! $TRAIN $A --batch $((4 * N)) --mixed-precision $mp --dump "$TMP/ref-$dt.st" >"$TMP/log" 2>&1; then
            fail "one process $dt: $(tail -n 1 "$TMP/log")"
            continue
        fi
        # the reference again in two other summation orders, as the graders do (grading/equiv.c,
        # --spread): over 4 steps AdamW carries a rounding-level near-tie to lr-sized distances
        spread=$(REF_BUILD=$SOL sh "$ROOT/grading/lessons/spread.sh" "$TMP" $((4 * N)) $A --mixed-precision $mp) ||
            { fail "spread runs: $spread"; continue; }
        for s in 1 2 3; do
            if "$EQUIV" "$TMP/ref-$dt.st" "$TMP/z$N/z$s-$dt.st" --batch 4 --world $N --lr 1e-2 $tol $spread >"$TMP/eq" 2>&1; then
                pass "ZeRO $s in $dt, $N x 4, equivalent to 1 x $((4 * N)) in $dt: $(grep '^grads' "$TMP/eq")"
            else
                fail "ZeRO $s in $dt, $N x 4, not equivalent to 1 x $((4 * N)) in $dt: $(grep FAIL "$TMP/eq" | head -n 3)"
            fi
        done
    done
done
expect_error "train_fsdp --mixed-precision fp16" "bf16 only" $SOL/08-fsdp/train_fsdp $QUICK --steps 1 --mixed-precision fp16
