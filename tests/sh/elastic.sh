# Lesson 12's elastic trainer (train_elastic, the reference): a run saved on 3 ranks and finished on 2
# or 5 (an uneven share of the global batch) is the run it would have been — equivalent to the
# uninterrupted 3-rank run and to one process over the same order; a lesson 07 run continues on
# another world size; FSDP restarts 4 -> 3 through lesson 08's consolidation; and what it cannot
# honour is one line.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/sh/lib_safetensors.sh"
EL=$BUILD/solutions/12-failures/train_elastic
MPI=$ROOT/grading/mpirun
F="--preset tiny --data $ROOT/datasets/fixtures/micro-train.tok --val none --steps 20 --lr 1e-2 --log-every 1000 --seed 3"
# equivalent NAME REF SUB [equiv flags]
equivalent() {
    _name=$1
    shift
    if "$BUILD/grading/equiv" "$@" --lr 1e-2 >"$TMP/eq" 2>&1; then
        pass "$_name: $(grep 'params' "$TMP/eq" | sed 's/  */ /g')"
    else
        fail "$_name: $(cat "$TMP/eq")"
    fi
}
# shellcheck disable=SC2086
$TRAIN $F --order sampler --sampler-replicas 3 --batch 12 --dump "$TMP/ref.st" >/dev/null 2>&1 || fail "the one-process reference run"
# shellcheck disable=SC2086
if "$MPI" -np 3 "$EL" $F --batch-global 12 --micro-cap 4 --save "$TMP/ck.safetensors" --save-every 10 --dump "$TMP/full.st" >"$TMP/a" 2>&1; then
    equivalent "3 ranks uninterrupted == one process" "$TMP/ref.st" "$TMP/full.st" --world 3 --batch 4
    meta=$(head -c 8192 "$TMP/ck.step10.safetensors" | tr -cd '[:print:]' | sed 's/.*"__metadata__"://; s/}.*//')
    case $meta in
    *'"data_replicas":"3"'*'"epoch":"1"'*'"consumed":"12"'*) pass "the step-10 checkpoint records data_replicas 3, epoch 1, consumed 12" ;;
    *) fail "the step-10 checkpoint's metadata: $meta" ;;
    esac
    for n in 2 5 1; do
        # shellcheck disable=SC2086
        if "$MPI" -np $n "$EL" $F --batch-global 12 --micro-cap 2 --resume "$TMP/ck.step10.safetensors" --dump "$TMP/r$n.st" >"$TMP/b" 2>&1; then
            equivalent "3 ranks to step 10, then $n (micro-batches of at most 2) == one process" "$TMP/ref.st" "$TMP/r$n.st" --ref-offset 10 --world $n --batch $(((12 + n - 1) / n))
        else
            fail "the restart on $n ranks: $(tail -n 3 "$TMP/b")"
        fi
    done
    equivalent "3 ranks to step 10, then 2 == the uninterrupted 3-rank run" "$TMP/full.st" "$TMP/r2.st" --ref-offset 10 --world 2 --batch 6
else
    fail "train_elastic on 3 ranks: $(tail -n 3 "$TMP/a")"
fi
# shellcheck disable=SC2086
if "$MPI" -np 3 "$BUILD/solutions/07-sampler/train_sampler" $F --batch 4 --save "$TMP/s7.safetensors" --save-every 10 >"$TMP/c" 2>&1 &&
    "$MPI" -np 2 "$EL" $F --batch-global 12 --micro-cap 4 --resume "$TMP/s7.step10.safetensors" --dump "$TMP/s7.st" >"$TMP/d" 2>&1; then
    equivalent "lesson 07's train_sampler on 3 ranks to step 10, then train_elastic on 2 == one process" "$TMP/ref.st" "$TMP/s7.st" --ref-offset 10 --world 2 --batch 6
else
    fail "train_sampler then train_elastic: $(tail -n 3 "$TMP/c" "$TMP/d")"
fi

# FSDP (lesson 08): shards at step 10 on 4 ranks, consolidated, then 3 ranks
# shellcheck disable=SC2086
$TRAIN $F --clip 0 --order sampler --sampler-replicas 4 --batch 12 --dump "$TMP/fref.st" >/dev/null 2>&1 || fail "the one-process reference run (4 replicas)"
# shellcheck disable=SC2086
if "$MPI" -np 4 "$EL" $F --clip 0 --fsdp --batch-global 12 --micro-cap 4 --save "$TMP/fs.safetensors" --save-every 10 >"$TMP/e" 2>&1 &&
    "$BUILD/solutions/08-fsdp/fsdp_consolidate" --shards "$TMP/fs.step10.safetensors" --out "$TMP/fsfull.safetensors" >>"$TMP/e" 2>&1 &&
    "$MPI" -np 3 "$EL" $F --clip 0 --fsdp --batch-global 12 --micro-cap 4 --resume "$TMP/fsfull.safetensors" --dump "$TMP/fres.st" >>"$TMP/e" 2>&1; then
    equivalent "FSDP on 4 ranks to step 10, consolidated, then 3 == one process" "$TMP/fref.st" "$TMP/fres.st" --ref-offset 10 --world 3 --batch 4
else
    fail "FSDP 4 -> 3: $(tail -n 3 "$TMP/e")"
fi

# one line for what cannot be honoured (one process: mpirun adds its own banner)
expect_error "train_elastic without --batch-global" "--batch-global B is required" "$EL" $F
expect_error "a restart with another global batch" "use --batch-global 12" "$EL" $F --batch-global 16 --resume "$TMP/ck.step10.safetensors"
# shellcheck disable=SC2086
$TRAIN $F --batch 12 --save "$TMP/own.safetensors" >/dev/null 2>&1
expect_error "a checkpoint of the course's own order" "not the DistributedSampler's" "$EL" $F --batch-global 12 --resume "$TMP/own.safetensors"
st_edit "$TMP/ck.step10.safetensors" "$TMP/old.safetensors" 's/"epoch":/"xpoch":/; s/"consumed":/"xonsumed":/; s/"data_replicas":/"xata_replicas":/'
expect_error "a checkpoint saved before the data position" "holds no data position" "$EL" $F --batch-global 12 --resume "$TMP/old.safetensors"
st_edit "$TMP/ck.step10.safetensors" "$TMP/bad.safetensors" 's/"consumed":"12"/"consumed":"1x"/'
expect_error "a damaged consumed count" "metadata 'consumed' is '1x'" "$EL" $F --batch-global 12 --resume "$TMP/bad.safetensors"
st_edit "$TMP/ck.step10.safetensors" "$TMP/lie.safetensors" 's/"consumed":"12"/"consumed":"13"/'
expect_error "a checkpoint that contradicts itself" "resume_position refused" "$EL" $F --batch-global 12 --resume "$TMP/lie.safetensors"
expect_error "--fsdp with a share above the micro cap" "needs B % N == 0 and --micro-cap >= B / N" "$EL" $F --fsdp --batch-global 12 --micro-cap 4
expect_error "more micro-batches than ELASTIC_MAX_MICRO" "raise --micro-cap" "$EL" $F --batch-global 100 --micro-cap 1
