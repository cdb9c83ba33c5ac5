# --mixed-precision (lessons/01-trainer/mixed_precision.h): bf16 training learns and follows the
# float32 run, DDP in bf16 on 2 ranks is equivalent to one process in bf16, an fp16 overflow skips
# the step on every rank alike and halves the loss scale, and --stats books 2/4/2/8 bytes per
# parameter for params/master/grads/optim. (The GPU's bf16 runs: tests/gpu/check.sh.)
#
# Where the distances come from: bf16 keeps 8 significant bits, so rounding moves a value by at most
# u = 2^-8 of itself. A forward on rounded weights multiplies that through the network's chain of
# matrix products, about d·u relative on the logits for d products (gpt-tiny: 2 blocks x 4 + the
# head = 9; the MLP: 3), and cross-entropy moves by at most the largest logit change, logits being
# O(ln V) here. Training then feeds those differences back, so we compare the curves as means over
# 20-step windows (single steps see different batches' noise) and allow d·u·ln V with d = 8:
# 8 · 2^-8 · ln 27 = 0.103 nats. (Measured: gpt-tiny 0.022, the MLP 0.0001; a run that stops
# learning is 0.7 off.)
# shellcheck disable=SC2086 # the flag strings are meant to split into words
. "$(dirname "$0")/lib.sh"
SOL=$BUILD/solutions
EQUIV=$BUILD/grading/equiv
U=0.00390625 # 2^-8, bf16's unit roundoff

# check_mem FILE LABEL: every rank of a --stats file books exactly 2Ψ params, 4Ψ master, 2Ψ grads,
# 8Ψ optim, and 16Ψ of model state at peak (Ψ: the file's own parameter count).
check_mem() {
    if python3 - "$1" >"$TMP/mem" 2>&1 <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1])); n = d["params"]; bad = 0
for r in d["ranks"]:
    want = {"params": 2 * n, "master": 4 * n, "grads": 2 * n, "optim": 8 * n}
    got = {k: r["mem_bytes"][k] for k in want}
    bad |= got != want or r["mem_peak_model_bytes"] != 16 * n
print(" ".join(f"{k} {v / n:g}" for k, v in got.items()), f"model {r['mem_peak_model_bytes'] / n:g} B/param",
      f"({len(d['ranks'])} rank(s), {n} parameters)")
sys.exit(bad)
PY
        pass "$2: $(cat "$TMP/mem")"
    else
        fail "$2, want params 2 master 4 grads 2 optim 8 model 16: $(cat "$TMP/mem")"
    fi
}

# 1. bf16 learns and follows float32; --stats books the table exactly (Ψ from the same file).
for model in "--model gpt-tiny" "--preset tiny"; do
    L="$model --data $FIX --val none --batch 32 --steps 200 --lr 1e-2 --warmup 10 --log-every 1000"
    if $TRAIN $L --loss-csv "$TMP/f32.csv" >"$TMP/log" 2>&1 &&
        $TRAIN $L --mixed-precision bf16 --loss-csv "$TMP/bf16.csv" --stats "$TMP/bf16.json" >"$TMP/log" 2>&1; then
        # shellcheck disable=SC2046 # three numbers, split on purpose
        set -- $(awk -F, 'FNR == 1 {next} NR == FNR {a[FNR] = $2; next} {b[FNR] = $2}
            END {n = FNR; w = 20; worst = 0
                 for (i = 2; i + w - 1 <= n; i += w) { s = 0
                     for (j = i; j < i + w; j++) s += b[j] - a[j]
                     d = s / w; if (d < 0) d = -d; if (d > worst) worst = d }
                 l = 0; for (j = n - w + 1; j <= n; j++) l += b[j]
                 printf "%.4f %.4f %.4f", worst, b[2], l / w}' "$TMP/f32.csv" "$TMP/bf16.csv")
        bound=$(awk -v u=$U 'BEGIN {printf "%.4f", 8 * u * log(27)}')
        if awk -v d="$1" -v b="$bound" -v f="$2" -v l="$3" 'BEGIN {exit !(d <= b && l < f - 0.4)}'; then
            pass "bf16 $model learns ($2 -> $3 over 200 steps) within $1 nats of float32 (20-step means; bound 8·u·ln 27 = $bound)"
        else
            fail "bf16 $model: loss $2 -> $3, $1 nats from float32 on 20-step means (bound $bound, and it must learn 0.4)"
        fi
        check_mem "$TMP/bf16.json" "bf16 $model --stats"
    else
        fail "bf16 $model training run: $(tail -n 2 "$TMP/log")"
    fi
done

# 2. DDP on 2 ranks x 4 in bf16 against one process x 8 in bf16. The two differ only by where bf16
# rounds the gradient: once on the global mean (one process), or on each rank's mean before the
# float32 average (DDP): two roundings of at most u each, so --grad-rtol 4u = 2^-6 (2u, and 2x for
# ranks' gradients larger than their mean), normwise. The losses: both forwards run on parameters
# that agree to bf16's resolution, so within one rounding, --loss-rtol u. The parameters: 4u
# relative, and AdamW's sign sensitivity (grading/equiv.c): an element whose gradient is within
# rounding of 0 may step either way in the two runs, at most lr a step each: --param-atol 2·lr.
E="--model gpt-tiny --data $FIX --val none --steps 8 --lr 1e-2 --log-every 1000"
TOL="--loss-rtol $U --grad-rtol 0.015625 --param-rtol 0.015625 --param-atol 0.02"
for seed in 1 3; do
    if $TRAIN $E --seed $seed --batch 8 --mixed-precision bf16 --dump "$TMP/ref.st" >"$TMP/log" 2>&1 &&
        "$MPIRUN" -np 2 $SOL/05-ddp/train_ddp $E --seed $seed --batch 4 --mixed-precision bf16 --dump "$TMP/sub.st" \
            --stats "$TMP/ddp.json" >"$TMP/log" 2>&1; then
        if "$EQUIV" "$TMP/ref.st" "$TMP/sub.st" --batch 4 --world 2 --lr 1e-2 $TOL >"$TMP/eq" 2>&1; then
            pass "bf16 gpt-tiny DDP 2 x 4 (seed $seed) equivalent to 1 x 8 in bf16: $(grep '^grads' "$TMP/eq")"
        else
            fail "bf16 gpt-tiny DDP 2 x 4 (seed $seed) not equivalent to 1 x 8: $(grep FAIL "$TMP/eq" | head -n 3)"
        fi
        [ $seed = 1 ] && check_mem "$TMP/ddp.json" "bf16 gpt-tiny DDP --stats"
    else
        fail "bf16 gpt-tiny DDP runs (seed $seed): $(tail -n 2 "$TMP/log")"
    fi
done

# 2b. --reduce-dtype bf16 (lessons/05-ddp/ddp_bf16.c): the ring's messages are bf16 and each hop
# rounds its sum, one more rounding (N - 1 = 1 hop) besides the contributions' own: 3 roundings
# of at most u against the one process's one, 2x for the ranks' larger gradients: --grad-rtol 8u =
# 2^-5. And the gradient traffic halves exactly: the fp32 run (seed 1 above, in ddp.json) sends 2
# bytes per parameter per rank per step more than the bf16 one (a ring on 2 ranks sends each rank's
# whole buffer once: Ψ elements), nothing else changing (the initial broadcast stays float32).
TOLR="--loss-rtol $U --grad-rtol 0.03125 --param-rtol 0.015625 --param-atol 0.02"
if $TRAIN $E --seed 1 --batch 8 --mixed-precision bf16 --dump "$TMP/ref.st" >"$TMP/log" 2>&1 &&
    "$MPIRUN" -np 2 $SOL/05-ddp/train_ddp $E --seed 1 --batch 4 --mixed-precision bf16 --reduce-dtype bf16 \
        --dump "$TMP/sub.st" --stats "$TMP/ddp16.json" >"$TMP/log" 2>&1; then
    if "$EQUIV" "$TMP/ref.st" "$TMP/sub.st" --batch 4 --world 2 --lr 1e-2 $TOLR >"$TMP/eq" 2>&1; then
        pass "bf16 gpt-tiny DDP 2 x 4 --reduce-dtype bf16 equivalent to 1 x 8 in bf16: $(grep '^grads' "$TMP/eq")"
    else
        fail "bf16 gpt-tiny DDP --reduce-dtype bf16 not equivalent to 1 x 8: $(grep FAIL "$TMP/eq" | head -n 3)"
    fi
    if python3 - "$TMP/ddp.json" "$TMP/ddp16.json" >"$TMP/bytes" 2>&1 <<'PY'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sent = [sum(r["bytes_sent"] + r["other_bytes_sent"] for r in d["ranks"]) for d in (a, b)]
want = a["steps"] * len(a["ranks"]) * a["params"] * 2
print(f"fp32 {sent[0]} bytes, bf16 {sent[1]}: {sent[0] - sent[1]} fewer, want {want}")
sys.exit(sent[0] - sent[1] != want)
PY
        pass "--reduce-dtype bf16 halves the gradient traffic: $(cat "$TMP/bytes")"
    else
        fail "--reduce-dtype bf16 traffic: $(cat "$TMP/bytes")"
    fi
else
    fail "bf16 gpt-tiny DDP --reduce-dtype bf16 run: $(tail -n 2 "$TMP/log")"
fi

# 3. fp16: an inf injected into rank 0's gradient at step 3 reaches rank 1 through the all-reduce;
# both skip step 3 alike and halve the scale 65536 -> 32768, and no other step is skipped.
if DP_MP_INJECT_INF=3 "$MPIRUN" -np 2 $SOL/05-ddp/train_ddp $E --batch 4 --mixed-precision fp16 >"$TMP/log" 2>&1; then
    skips=$(grep -c 'skipped' "$TMP/log")
    if [ "$skips" = 2 ] && grep -q '^rank 0: step 3 skipped: .* loss scale 65536, now 32768' "$TMP/log" &&
        grep -q '^rank 1: step 3 skipped: .* loss scale 65536, now 32768' "$TMP/log"; then
        pass "fp16 DDP on 2 ranks: an inf on rank 0 at step 3 skips step 3 on both, scale 65536 -> 32768"
    else
        fail "fp16 DDP with an inf at step 3: $skips skip lines: $(grep skipped "$TMP/log" | head -n 4 | tr '\n' ' ')"
    fi
else
    fail "fp16 DDP run: $(tail -n 2 "$TMP/log")"
fi

# 3b. fp16's loss scale is saved with the checkpoint (torch's GradScaler state): a run whose step 3
# overflowed (scale 65536 -> 32768) and is resumed at step 4 skips an overflow at step 6 from 32768,
# not from a fresh 65536, and ends bit-identical to the uninterrupted run.
F16="--model gpt-tiny --data $FIX --val none --steps 8 --batch 8 --lr 1e-2 --log-every 1000 --mixed-precision fp16"
if DP_MP_INJECT_INF=3 $TRAIN $F16 --save-every 4 --save "$TMP/f16.safetensors" --dump "$TMP/f16-whole.st" \
    >"$TMP/log" 2>&1 && $TRAIN $F16 --resume "$TMP/f16.step4.safetensors" --dump "$TMP/f16-resumed.st" \
    >"$TMP/log" 2>&1 && DP_MP_INJECT_INF=6 $TRAIN $F16 --resume "$TMP/f16.step4.safetensors" >"$TMP/log6" 2>&1; then
    if "$EQUIV" "$TMP/f16-whole.st" "$TMP/f16-resumed.st" --exact --ref-offset 4 >"$TMP/eq" 2>&1 &&
        grep -q '^rank 0: step 6 skipped: .* loss scale 32768, now 16384' "$TMP/log6"; then
        pass "fp16 resume keeps the loss scale: an overflow at step 6 after resuming at 4 halves 32768 -> 16384; bit-identical to the uninterrupted run"
    else
        fail "fp16 resume: $(grep skipped "$TMP/log6" || echo 'no skip at step 6'); $(grep FAIL "$TMP/eq" | head -n 2)"
    fi
else
    fail "fp16 checkpoint/resume runs: $(tail -n 2 "$TMP/log")"
fi

# 4. Refusals, one line each: lesson 02 takes bf16 only. The trainers take --device cuda with mixed
# precision (tests/gpu/check.sh runs it): without a GPU they must get past the options and stop at
# the device, not refuse the pair.
if ! $BUILD/tests/test_gpu --probe >/dev/null 2>&1; then
    expect_error "--mixed-precision bf16 --device cuda, no GPU here" "CUDA" \
        $TRAIN $QUICK --mixed-precision bf16 --device cuda
    expect_error "train_fsdp --mixed-precision bf16 --device cuda, no GPU here" "CUDA" \
        $SOL/08-fsdp/train_fsdp $QUICK --mixed-precision bf16 --device cuda
fi
expect_error "train_ps --mixed-precision fp16" "bf16 only" \
    $SOL/02-param-server/train_ps $QUICK --steps 1 --mixed-precision fp16

# 5. The parameter server in bf16 (lesson 02): the server sums the workers' bf16-rounded gradients in
# float32 and steps its float32 master, so the distance to one process is DDP's, with DDP's
# tolerances (2. above); 3 ranks, so that the server adds two received gradients to its own.
if $TRAIN $E --seed 2 --batch 12 --mixed-precision bf16 --dump "$TMP/ref.st" >"$TMP/log" 2>&1 &&
    "$MPIRUN" -np 3 $SOL/02-param-server/train_ps $E --seed 2 --batch 4 --mixed-precision bf16 --dump "$TMP/ps.st" \
        >"$TMP/log" 2>&1; then
    if "$EQUIV" "$TMP/ref.st" "$TMP/ps.st" --batch 4 --world 3 --lr 1e-2 $TOL >"$TMP/eq" 2>&1; then
        pass "bf16 gpt-tiny parameter server 3 x 4 equivalent to 1 x 12 in bf16: $(grep '^grads' "$TMP/eq")"
    else
        fail "bf16 gpt-tiny parameter server 3 x 4 not equivalent to 1 x 12: $(grep FAIL "$TMP/eq" | head -n 3)"
    fi
else
    fail "bf16 gpt-tiny parameter server run: $(tail -n 2 "$TMP/log")"
fi
