# ZeRO stages 1, 2, 3 with --mixed-precision bf16 (lessons/08-fsdp/README.md, "Mixed precision with
# ZeRO"): on 2 ranks, gpt-tiny, every rank's model state is the paper's formula to the byte (2 divides
# every unit: no padding), in bf16 and in float32 alike (common/mk/zero_memory.sh prints the table);
# each stage in bf16 is equivalent to one process in bf16 on the same global batches, and in float32
# to one process in float32, as before.
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

if ZERO_RUNS="z1 z2 z3" sh "$ROOT/common/mk/zero_memory.sh" 2 "$TMP/z" >"$TMP/table" 2>&1; then
    pass "ZeRO 1/2/3 on 2 ranks, fp32 and bf16: per-rank model state and peak = the formulas, to the byte (state/peak bytes): $(awk 'NR > 1 {printf "%s %s %s/%s; ", $1, $2, $(NF - 4), $NF}' "$TMP/table")"
else
    fail "ZeRO memory on 2 ranks: $(grep -e OFF -e failed "$TMP/table" | head -n 3)"
fi
for dt in bf16 fp32; do
    mp=none tol=
    [ $dt = bf16 ] && mp=bf16 tol=$TOL
    if ! $TRAIN $A --batch 8 --mixed-precision $mp --dump "$TMP/ref-$dt.st" >"$TMP/log" 2>&1; then
        fail "one process $dt: $(tail -n 1 "$TMP/log")"
        continue
    fi
    for s in 1 2 3; do
        if [ ! -f "$TMP/z/z$s-$dt.st" ]; then
            fail "ZeRO $s $dt: no dump (the run failed above)"
        elif "$EQUIV" "$TMP/ref-$dt.st" "$TMP/z/z$s-$dt.st" --batch 4 --world 2 --lr 1e-2 $tol >"$TMP/eq" 2>&1; then
            pass "ZeRO $s in $dt, 2 x 4, equivalent to 1 x 8 in $dt: $(grep '^grads' "$TMP/eq")"
        else
            fail "ZeRO $s in $dt, 2 x 4, not equivalent to 1 x 8 in $dt: $(grep FAIL "$TMP/eq" | head -n 3)"
        fi
    done
done
expect_error "train_fsdp --mixed-precision fp16" "bf16 only" $SOL/08-fsdp/train_fsdp $QUICK --steps 1 --mixed-precision fp16
