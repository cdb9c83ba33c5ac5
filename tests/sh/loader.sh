# The data loader (lessons/01-trainer/loader.h): prefetching on a thread changes nothing the model
# sees. The same run with --prefetch-depth 0, 1 and 3 (and an emulated slow source) must give
# bit-identical losses, first-step gradients and parameters: lesson 01's trainer, DDP on 2 ranks,
# the DistributedSampler's trainer across an epoch boundary, and a resumed run. --stats reports the
# wait for data of every step of every rank.
. "$(dirname "$0")/lib.sh"
EQUIV=$BUILD/grading/equiv
DDP=$BUILD/solutions/05-ddp/train_ddp
SAMPLER=$BUILD/solutions/07-sampler/train_sampler
F="$QUICK --steps 12 --lr 1e-2"

# same NAME A B: A.st and B.st bit-identical
same() {
    if "$EQUIV" "$TMP/$2.st" "$TMP/$3.st" --exact >"$TMP/eq" 2>&1; then
        pass "$1: bit-identical losses, gradients and parameters"
    else
        fail "$1: differs: $(grep FAIL "$TMP/eq" | head -n 2 | tr '\n' ' ')"
    fi
}

$TRAIN $F --dump "$TMP/t0.st" >/dev/null 2>&1 || fail "train, no prefetch"
$TRAIN $F --dump "$TMP/t1.st" --prefetch-depth 1 >/dev/null 2>&1 || fail "train --prefetch-depth 1"
$TRAIN $F --dump "$TMP/t3.st" --prefetch-depth 3 --loader-delay-ms 1 --stats "$TMP/t3.json" >/dev/null 2>&1 ||
    fail "train --prefetch-depth 3 --loader-delay-ms 1"
same "train --prefetch-depth 1 against none" t0 t1
same "train --prefetch-depth 3 with a slow source against none" t0 t3
# the comparison itself must see a different batch order (another seed of the data order and model)
$TRAIN $F --seed 2 --dump "$TMP/seed2.st" --prefetch-depth 1 >/dev/null 2>&1
if "$EQUIV" "$TMP/t0.st" "$TMP/seed2.st" --exact >/dev/null 2>&1; then
    fail "the exact comparison cannot tell another seed apart"
else
    pass "the exact comparison tells a run with another seed apart"
fi

# --stats: a wait per step and rank, and with depth 0 every wait holds the whole delay
$TRAIN $F --loader-delay-ms 4 --stats "$TMP/slow.json" >/dev/null 2>&1 || fail "train --loader-delay-ms 4"
python3 - "$TMP/slow.json" "$TMP/t3.json" <<'PY' && pass "--stats: data_wait_ms has a wait per step; with no prefetch each is at least the 4 ms delay" || fail "--stats data_wait_ms"
import json, sys
slow, pre = (json.load(open(p)) for p in sys.argv[1:])
w = slow["ranks"][0]["data_wait_ms"]
assert len(w) == 12 and min(w) >= 4.0, w
assert len(pre["ranks"][0]["data_wait_ms"]) == 12
assert abs(slow["ranks"][0]["data_wait_ms_mean"] - sum(w) / len(w)) < 1e-6
PY

# DDP on 2 ranks, and lesson 07's sampler across epochs (on the micro fixture, a few steps an epoch:
# set_epoch runs on the loader's thread)
for prog in DDP SAMPLER; do
    eval "p=\$$prog"
    data=""
    [ $prog = SAMPLER ] && data="--data $ROOT/datasets/fixtures/micro-train.tok"
    "$MPIRUN" -np 2 "$p" $F $data --dump "$TMP/${prog}0.st" >/dev/null 2>&1 || fail "$prog on 2 ranks, no prefetch"
    "$MPIRUN" -np 2 "$p" $F $data --dump "$TMP/${prog}2.st" --prefetch-depth 2 --loader-delay-ms 1 --stats "$TMP/$prog.json" \
        >/dev/null 2>&1 || fail "$prog on 2 ranks --prefetch-depth 2"
    same "$(basename "$p") on 2 ranks --prefetch-depth 2 against none" "${prog}0" "${prog}2"
done
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["ranks"]; assert len(r)==2 and all(len(x["data_wait_ms"])==12 for x in r)' \
    "$TMP/DDP.json" && pass "--stats of DDP: each rank's wait for every step" || fail "--stats of DDP: data_wait_ms per rank"

# resumed with prefetch: the loader starts at the resumed step
$TRAIN $F --save-every 5 --save "$TMP/ck.safetensors" >/dev/null 2>&1
$TRAIN $F --resume "$TMP/ck.step5.safetensors" --prefetch-depth 2 --dump "$TMP/res.st" >/dev/null 2>&1 ||
    fail "resume with --prefetch-depth 2"
if "$EQUIV" "$TMP/t0.st" "$TMP/res.st" --exact --ref-offset 5 >"$TMP/eq" 2>&1; then
    pass "resumed at step 5 with --prefetch-depth 2: bit-identical to the uninterrupted run"
else
    fail "resumed with prefetch differs: $(grep FAIL "$TMP/eq" | head -n 2 | tr '\n' ' ')"
fi
expect_error "--prefetch-depth -1" "--prefetch-depth" $TRAIN $F --prefetch-depth -1
