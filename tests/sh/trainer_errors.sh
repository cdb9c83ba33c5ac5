# Bad input to the trainer: one clear line on stderr and a non-zero exit, for each kind.
. "$(dirname "$0")/lib.sh"

expect_error "missing dataset" "not found" $TRAIN $QUICK --data "$TMP/nope.tok" --steps 1
cp "$FIX" "$TMP/bad.tok"
printf 'X' | dd of="$TMP/bad.tok" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_error "corrupt dataset" "checksum mismatch" $TRAIN $QUICK --data "$TMP/bad.tok" --steps 1
head -c 20 "$FIX" >"$TMP/short.tok"
expect_error "truncated dataset" "is truncated" $TRAIN $QUICK --data "$TMP/short.tok" --steps 1
# a header whose token count wraps 32 + V + n around 2^64 to the file's size (40 bytes): n = 2^64 - (V - 8)
V=$(od -An -tu4 -j12 -N4 "$FIX" | tr -d ' ')
head -c 40 "$FIX" >"$TMP/wrap.tok"
printf "\\$(printf %o $((256 - (V - 8))))\\377\\377\\377\\377\\377\\377\\377" | dd of="$TMP/wrap.tok" bs=1 seek=16 conv=notrunc 2>/dev/null
expect_error "token count that wraps around" "is corrupt or truncated" $TRAIN $QUICK --data "$TMP/wrap.tok" --steps 1
mkdir -p "$TMP/adir"
expect_error "a directory as the dataset" "not a regular file" $TRAIN $QUICK --data "$TMP/adir" --steps 1
mkfifo "$TMP/fifo.tok"
expect_error "a FIFO as the dataset (no hang)" "not a regular file" timeout 20 $TRAIN $QUICK --data "$TMP/fifo.tok" --steps 1
expect_error "a directory to resume from" "not a regular file" $TRAIN $QUICK --steps 1 --resume "$TMP/adir"
expect_error "bad flag value" "--batch expects an integer" $TRAIN $QUICK --batch many
expect_error "negative batch" "--batch expects an integer in [1," $TRAIN $QUICK --batch -3
expect_error "unknown flag" "did you mean --steps?" $TRAIN $QUICK --stpes 3
expect_error "eps 0 (NaN for an all-zero gradient)" "--eps expects a number in [1e-30, 1]" $TRAIN $QUICK --eps 0
expect_error "bad choice" "--optimizer expects one of adamw|sgd" $TRAIN $QUICK --optimizer adam
expect_error "batch larger than the data" "fewer than one global batch" $TRAIN $QUICK --batch 100000 --steps 1

$TRAIN $QUICK --steps 3 --save "$TMP/ck.safetensors" >/dev/null 2>&1 || fail "saving a checkpoint"
expect_error "mismatched checkpoint" "different model" $TRAIN $QUICK --hidden 16 --steps 5 --resume "$TMP/ck.safetensors"
expect_error "checkpoint for another optimizer" "this run uses --optimizer sgd" $TRAIN $QUICK --optimizer sgd --steps 5 --resume "$TMP/ck.safetensors"
size=$(wc -c <"$TMP/ck.safetensors")
head -c $((size - 40)) "$TMP/ck.safetensors" >"$TMP/trunc.safetensors"
expect_error "truncated checkpoint" "truncated" $TRAIN $QUICK --steps 5 --resume "$TMP/trunc.safetensors"
cp "$TMP/ck.safetensors" "$TMP/flip.safetensors"
printf 'Z' | dd of="$TMP/flip.safetensors" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
expect_error "corrupt checkpoint" "checksum mismatch" $TRAIN $QUICK --steps 5 --resume "$TMP/flip.safetensors"
expect_error "missing checkpoint" "not found" $TRAIN $QUICK --steps 5 --resume "$TMP/none.safetensors"
expect_error "checkpoint past --steps" "raise --steps" $TRAIN $QUICK --steps 2 --resume "$TMP/ck.safetensors"

# DDP programs refuse what cannot be honoured.
expect_error "empty micro-batches" "some micro-batches would be empty" $BUILD/solutions/06-accum/train_accum $QUICK --batch 4 --accum-steps 8 --steps 1

# --device cuda where it cannot run: no GPU here (test_gpu exits 77 when it finds none), or no CUDA build.
if [ -x $BUILD/tests/test_gpu ] && $BUILD/tests/test_gpu --probe >/dev/null 2>&1; then
    pass "--device cuda: a GPU is present here (the GPU path is checked by tests/gpu/check.sh)"
else
    expect_error "--device cuda without a GPU" "CUDA" $TRAIN $QUICK --device cuda --steps 1
    expect_error "DP_DEVICE=cuda without a GPU" "use --device cpu" env DP_DEVICE=cuda $TRAIN $QUICK --steps 1
    expect_error "--comm nccl without a GPU" "--comm nccl" $TRAIN $QUICK --comm nccl --steps 1
fi

# fsdp_consolidate: a shard without its "step" entry is refused in one line (it was a NULL strcmp)
FSDP=$BUILD/solutions/08-fsdp/train_fsdp
CONS=$BUILD/solutions/08-fsdp/fsdp_consolidate
if "$ROOT/grading/mpirun" -np 2 "$FSDP" $QUICK --steps 2 --save "$TMP/sh" >/dev/null 2>&1; then
    # "step" becomes "stXp" with the header checksum recomputed (a crafted file, not a damaged one)
    . "$ROOT/tests/sh/lib_safetensors.sh"
    st_edit "$TMP/sh.rank1-of-2.safetensors" "$TMP/edited" 's/"step":/"stXp":/'
    mv "$TMP/edited" "$TMP/sh.rank1-of-2.safetensors"
    expect_error "fsdp_consolidate, a shard without its step" "has no 'step'" "$CONS" --shards "$TMP/sh" --out "$TMP/full.safetensors"
else
    fail "fsdp_consolidate: train_fsdp --save on 2 ranks failed"
fi
