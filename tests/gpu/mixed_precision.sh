#!/bin/sh
# tests/gpu/mixed_precision.sh — --mixed-precision on the GPU (tests/gpu/check.sh runs it; step 3c):
#
#   1. gpt-tiny and the MLP (--preset tiny), 8 steps in bf16 and in fp16, --device cuda against the
#      same run on the CPU: every step's loss within the bound below
#   2. DDP on 2 ranks and the parameter server on 3, sharing the GPU, gpt-tiny in bf16, against one
#      CPU process on the global batch
#   3. fp16 on the GPU with an inf injected at step 3 (DP_MP_INJECT_INF): step 3 and only it skipped,
#      the loss scale halved 65536 -> 32768
#   4. --stats of the GPU's bf16 run: 2/4/2/8 bytes per parameter for params/master/grads/optim, as
#      on the CPU, and "emulation" above the CPU's 6 per parameter by the GEMMs' 16-bit scratch
#
# The bound. The CPU emulates bf16 by rounding the parameters and the gradients; the GPU rounds those
# to the same bits (ops_round: one code for both) and also every activation and output gradient that
# enters a GEMM (real bf16 GEMMs, float32 accumulation). That is one more rounding, of at most
# u = 2^-8 relative, per GEMM along the chain to the logits (gpt-tiny: 2 blocks x 4 + the head = 9;
# the MLP: 3), so the logits move by about d·u relative, and the cross-entropy by at most the largest
# logit change, the logits being O(ln V). The same reasoning as tests/sh/mixed_precision.sh's bf16
# against float32 distance, with its d = 8: 8·u·ln 27 = 0.103 nats, on every step here (8 steps: the
# runs have little time to drift apart). fp16 rounds 8 times finer (u = 2^-11), so bf16's bound
# holds for it a fortiori; we keep bf16's, as fp16's scaled backward GEMMs may also overflow (a
# skipped step, which the GPU may see where the CPU, whose activations are float32, does not). The
# measured distances are printed, to tighten the bound once they are known.
#
# DPC_MP_DEVICE=cpu runs every "GPU" run on the CPU instead (to test this script without a GPU:
# distances 0, and step 4's scratch check is then expected to fail).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
DEV=${DPC_MP_DEVICE:-cuda}
FIX=$ROOT/datasets/fixtures/tiny-train.tok
T=$(mktemp -d "${TMPDIR:-/tmp}/dpc-gpu-mp.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
status=0
pass() { echo "PASS $*"; }
fail() {
    echo "FAIL $*"
    status=1
}
U=0.00390625 # 2^-8
BOUND=$(awk -v u=$U 'BEGIN {printf "%.4f", 8 * u * log(27)}')

# maxdiff A.csv B.csv: the largest |loss difference| over the steps both have, and at which step
maxdiff() {
    awk -F, 'FNR == 1 {next} NR == FNR {a[$1] = $2; next} ($1 in a) {d = $2 - a[$1]; if (d < 0) d = -d
        if (d > w) {w = d; s = $1}; n++} END {printf "%.4f %d %d", w, s, n}' "$1" "$2"
}

# 1. one process: the GPU against the CPU, both models, both types
for model in "--model gpt-tiny" "--preset tiny"; do
    for mp in bf16 fp16; do
        F="$model --data $FIX --val none --batch 8 --steps 8 --lr 1e-2 --seed 3 --log-every 1000 --mixed-precision $mp"
        name="${model#--* } $mp"
        # shellcheck disable=SC2086 # the flag strings are meant to split into words
        if "$B/solutions/01-trainer/train" $F --device cpu --loss-csv "$T/cpu.csv" >"$T/cpu.log" 2>&1 &&
            "$B/solutions/01-trainer/train" $F --device "$DEV" --loss-csv "$T/gpu.csv" >"$T/gpu.log" 2>&1; then
            # shellcheck disable=SC2046 # three numbers, split on purpose
            set -- $(maxdiff "$T/cpu.csv" "$T/gpu.csv")
            skips=$(grep -c skipped "$T/gpu.log")
            if [ "$3" = 8 ] && awk -v d="$1" -v b="$BOUND" 'BEGIN {exit !(d <= b)}'; then
                pass "$name on $DEV: losses within $1 nats of the CPU's (worst at step $2; bound $BOUND), $skips skipped step(s)"
            else
                fail "$name on $DEV: losses $1 nats from the CPU's at step $2 ($3 steps compared; bound $BOUND); skipped on the GPU: $(grep skipped "$T/gpu.log" | head -n 2 | tr '\n' ' ')"
            fi
        else
            fail "$name runs: $(tail -n 2 "$T/cpu.log" "$T/gpu.log" | tr '\n' ' ')"
        fi
    done
done

# 2. DDP on 2 ranks and the parameter server on 3 (the GPU shared) against one CPU process on the
# same global batch: the GPU's rounding and the ranks' (each rank's gradient rounded before the
# float32 sum; tests/sh/mixed_precision.sh bounds that by 4u relative) together stay well within
# the bound
F="--model gpt-tiny --data $FIX --val none --steps 8 --lr 1e-2 --seed 1 --log-every 1000 --mixed-precision bf16"
for run in "2 05-ddp/train_ddp DDP" "3 02-param-server/train_ps parameter-server" "2 08-fsdp/train_fsdp FSDP"; do
    # shellcheck disable=SC2086 # the run's three words
    set -- $run
    np=$1 prog=$2 name=$3
    # shellcheck disable=SC2086
    if "$B/solutions/01-trainer/train" $F --batch $((4 * np)) --device cpu --loss-csv "$T/cpu.csv" >"$T/cpu.log" 2>&1 &&
        DP_TIMEOUT_S=60 "$ROOT/grading/mpirun" -np "$np" "$B/solutions/$prog" $F --batch 4 --device "$DEV" \
            --loss-csv "$T/ranks.csv" >"$T/ranks.log" 2>&1; then
        # shellcheck disable=SC2046
        set -- $(maxdiff "$T/cpu.csv" "$T/ranks.csv")
        if [ "$3" = 8 ] && awk -v d="$1" -v b="$BOUND" 'BEGIN {exit !(d <= b)}'; then
            pass "gpt-tiny bf16 $name $np x 4 on $DEV: losses within $1 nats of one CPU process x $((4 * np)) (bound $BOUND)"
        else
            fail "gpt-tiny bf16 $name $np x 4 on $DEV: $1 nats from the CPU at step $2 ($3 steps; bound $BOUND)"
        fi
    else
        fail "gpt-tiny bf16 $name runs: $(tail -n 2 "$T/cpu.log" "$T/ranks.log" | tr '\n' ' ')"
    fi
done

# 3. fp16 on the GPU: an injected inf skips its step and halves the scale, through the device's check
# shellcheck disable=SC2086
if DP_MP_INJECT_INF=3 "$B/solutions/01-trainer/train" --model gpt-tiny --data "$FIX" --val none --batch 8 --steps 5 \
    --log-every 1000 --mixed-precision fp16 --device "$DEV" >"$T/inf.log" 2>&1; then
    if [ "$(grep -c skipped "$T/inf.log")" = 1 ] &&
        grep -q '^rank 0: step 3 skipped: .* loss scale 65536, now 32768' "$T/inf.log"; then
        pass "fp16 on $DEV: the inf injected at step 3 skips step 3 alone, scale 65536 -> 32768"
    else
        fail "fp16 on $DEV with an inf at step 3: $(grep skipped "$T/inf.log" | head -n 3 | tr '\n' ' ')"
    fi
else
    fail "fp16 inf run on $DEV: $(tail -n 2 "$T/inf.log" | tr '\n' ' ')"
fi

# 4. the books of the GPU's bf16 run (Ψ from the file itself)
# shellcheck disable=SC2086
if "$B/solutions/01-trainer/train" --model gpt-tiny --data "$FIX" --val none --batch 8 --steps 2 --log-every 1000 \
    --mixed-precision bf16 --device "$DEV" --stats "$T/stats.json" >"$T/stats.log" 2>&1; then
    got=$(awk '/"params":/ && !p {n = $2 + 0; p = 1} /"mem_bytes"/ {m = 1; next} m && /}/ {m = 0}
        m {gsub(/[",:]/, ""); v[$1] = $2}
        END {printf "%g %g %g %g %g %g", v["params"] / n, v["master"] / n, v["grads"] / n, v["optim"] / n,
             v["emulation"] / n, v["emulation"] - 6 * n}' "$T/stats.json")
    # shellcheck disable=SC2086
    set -- $got
    if [ "$1 $2 $3 $4" = "2 4 2 8" ] && [ "$6" -gt 0 ]; then
        pass "bf16 --stats on $DEV: params/master/grads/optim $1/$2/$3/$4 B/param, emulation $5 B/param ($6 bytes of GEMM scratch)"
    else
        fail "bf16 --stats on $DEV: params/master/grads/optim $1/$2/$3/$4 B/param (want 2/4/2/8), emulation $6 bytes above 6 per parameter (want > 0: the GEMM scratch)"
        tr -d ' \n' <"$T/stats.json" | grep -o '"mem_bytes":{[^}]*}' # the books, for the log
    fi
else
    fail "bf16 --stats run on $DEV: $(tail -n 2 "$T/stats.log" | tr '\n' ' ')"
fi
exit $status
