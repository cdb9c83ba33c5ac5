# The trainers with --model gpt-tiny: it learns, DDP and accumulation are equivalent to one process
# on the global batch, a resume is bit-identical, a resume with another model is refused, and FSDP
# (lesson 08) shards it equivalently, its consolidated shards resuming in lesson 01 and on 1 rank.
# shellcheck disable=SC2086 # the flag strings ($G, $E, $R, $QUICK) are meant to split into words
. "$(dirname "$0")/lib.sh"
EQUIV=$BUILD/grading/equiv
SOL=$BUILD/solutions
G="--model gpt-tiny --data $FIX --val none --log-every 1000"

# 1. It learns. A fresh model is near uniform: loss ln 27 = 3.296. The tiny set's unigram entropy is
# 2.94 nats, the best any model that ignores the context can reach; the mean of the last 20 of 300
# steps must be below 2.80, which takes using the context (it reaches about 2.52).
if $TRAIN $G --batch 32 --steps 300 --lr 1e-2 --warmup 10 --loss-csv "$TMP/loss.csv" >"$TMP/log" 2>&1; then
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(awk -F, 'NR == 2 {f = $2} NR > 281 {s += $2; n++} END {printf "%.4f %.4f", f, s / n}' "$TMP/loss.csv")
    if awk -v f="$1" -v l="$2" 'BEGIN {exit !(f > 3.2 && f < 3.4 && l < 2.80)}'; then
        pass "gpt-tiny learns: loss $1 at step 1 (ln 27 = 3.296), $2 over steps 281..300 (unigram entropy 2.94)"
    else
        fail "gpt-tiny does not learn: loss $1 at step 1, $2 over steps 281..300 (want < 2.80)"
    fi
else
    fail "gpt-tiny training run: $(tail -n 2 "$TMP/log")"
fi

# 2. DDP on 2 ranks x 4 against one process on 8, as grading/lessons/train-equiv.sh judges it (the
# reference's spread from lesson 06's accumulation over 2 and 4 micro-batches), and lesson 06 on
# 2 ranks with 2 micro-batches each.
E="$G --steps 8 --lr 1e-2 --seed 3"
if $TRAIN $E --batch 8 --dump "$TMP/ref.st" >"$TMP/log" 2>&1 &&
    $SOL/06-accum/train_accum $E --batch 8 --accum-steps 2 --dump "$TMP/spread2.st" >"$TMP/log" 2>&1 &&
    $SOL/06-accum/train_accum $E --batch 8 --accum-steps 4 --dump "$TMP/spread4.st" >"$TMP/log" 2>&1; then
    SPREAD="--spread $TMP/spread2.st --spread $TMP/spread4.st"
    for run in "05-ddp/train_ddp" "06-accum/train_accum --accum-steps 2"; do
        if ! "$MPIRUN" -np 2 $SOL/$run $E --batch 4 --dump "$TMP/sub.st" >"$TMP/log" 2>&1; then
            fail "gpt-tiny $run on 2 ranks: $(tail -n 2 "$TMP/log")"
        elif "$EQUIV" "$TMP/ref.st" "$TMP/sub.st" --batch 4 --world 2 --lr 1e-2 $SPREAD >"$TMP/eq" 2>&1; then
            pass "gpt-tiny $run, 2 ranks x 4, equivalent to 1 process x 8: $(grep '^params' "$TMP/eq")"
        else
            fail "gpt-tiny $run, 2 ranks x 4, not equivalent to 1 process x 8: $(grep FAIL "$TMP/eq" | head -n 3)"
        fi
    done
else
    fail "gpt-tiny reference runs: $(tail -n 2 "$TMP/log")"
fi

# 3. A resume continues bit-identically; resuming into the MLP is refused.
R="$G --batch 8 --steps 20 --lr 1e-2 --warmup 3"
$TRAIN $R --dump "$TMP/full.st" >/dev/null 2>&1 || fail "gpt-tiny uninterrupted run"
$TRAIN $R --save-every 10 --save "$TMP/ck.safetensors" >/dev/null 2>&1 || fail "gpt-tiny run that checkpoints"
$TRAIN $R --resume "$TMP/ck.step10.safetensors" --dump "$TMP/resumed.st" >/dev/null 2>&1 || fail "gpt-tiny resumed run"
if "$EQUIV" "$TMP/full.st" "$TMP/resumed.st" --exact --ref-offset 10 >"$TMP/eq" 2>&1; then
    pass "gpt-tiny resume after 10 of 20 steps: losses and final parameters bit-identical"
else
    fail "gpt-tiny resume is not bit-identical: $(grep FAIL "$TMP/eq" | head -n 3)"
fi
expect_error "gpt checkpoint resumed as the MLP" "different model (gpt vocab=27" \
    $TRAIN $QUICK --steps 20 --resume "$TMP/ck.step10.safetensors"
# The GPT on the GPU is checked against the CPU where there is one (test_gpu, tests/gpu/check.sh);
# here it must run, and without a GPU (or a CUDA build) --device cuda says so in one line.
if [ -e /dev/nvidia0 ] && grep -q '^HAVE_CUDA := 1' "$BUILD/config.mk"; then
    if $TRAIN $G --device cuda --batch 8 --steps 8 >"$TMP/log" 2>&1; then
        pass "gpt on cuda: 8 steps ran on the GPU"
    else
        fail "gpt on cuda: $(tail -n 2 "$TMP/log")"
    fi
else
    expect_error "gpt on cuda without a GPU" "use --device cpu" $TRAIN $G --device cuda
fi
expect_error "an MLP size flag with a gpt" "--hidden sizes the MLP" $TRAIN $G --hidden 16

# 4. FSDP shards the GPT (units: wte+wpe, each block, ln_f; the tied head keeps unit 0 gathered):
# 2 ranks x 4 with prefetch against one process on 8, as in 2. Its shards at step 4, consolidated,
# load in lesson 01's train and resume FSDP on 1 rank (another N); both continue equivalently.
if ! "$MPIRUN" -np 2 $SOL/08-fsdp/train_fsdp $E --batch 4 --prefetch --save-every 4 --save "$TMP/fsdp.safetensors" \
    --dump "$TMP/sub.st" >"$TMP/log" 2>&1; then
    fail "gpt-tiny train_fsdp on 2 ranks: $(tail -n 2 "$TMP/log")"
elif "$EQUIV" "$TMP/ref.st" "$TMP/sub.st" --batch 4 --world 2 --lr 1e-2 $SPREAD >"$TMP/eq" 2>&1; then
    pass "gpt-tiny train_fsdp --prefetch, 2 ranks x 4, equivalent to 1 process x 8: $(grep '^params' "$TMP/eq")"
else
    fail "gpt-tiny train_fsdp, 2 ranks x 4, not equivalent to 1 process x 8: $(grep FAIL "$TMP/eq" | head -n 3)"
fi
if $SOL/08-fsdp/fsdp_consolidate --shards "$TMP/fsdp.step4.safetensors" --out "$TMP/full4.safetensors" >"$TMP/log" 2>&1 &&
    grep -q "gpt vocab=27 context=8 channels=16 heads=2 layers=2" "$TMP/full4.safetensors" &&
    $TRAIN $E --batch 8 --resume "$TMP/full4.safetensors" --dump "$TMP/l01.st" >"$TMP/log" 2>&1 &&
    $SOL/08-fsdp/train_fsdp $E --batch 8 --resume "$TMP/full4.safetensors" --dump "$TMP/fsdp1.st" >"$TMP/log" 2>&1; then
    for r in l01 fsdp1; do
        if "$EQUIV" "$TMP/ref.st" "$TMP/$r.st" --ref-offset 4 --lr 1e-2 >"$TMP/eq" 2>&1; then
            pass "gpt-tiny FSDP shards at step 4, consolidated, resumed by $r: equivalent: $(grep '^params' "$TMP/eq")"
        else
            fail "gpt-tiny FSDP shards at step 4, resumed by $r: not equivalent: $(grep FAIL "$TMP/eq" | head -n 3)"
        fi
    done
else
    fail "gpt-tiny FSDP shards: consolidate or resume: $(tail -n 2 "$TMP/log")"
fi
