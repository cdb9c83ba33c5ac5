# --examples records (common/records.h): each word of the fixture is an example of its own length.
# With --loss-norm tokens, DDP, FSDP and the parameter server on 3 ranks are equivalent to one process
# on the global batch (with and without --group-by-length); with each rank's own mean (rank, DDP's
# default) they are not — the point lesson 10 makes. --group-by-length evens the ranks' work: from the
# trace, the longest rank's batch length over the mean rank's, per step (a count, not a time).
# shellcheck disable=SC2086 # the flag strings are meant to split into words
. "$(dirname "$0")/lib.sh"
SOL=$BUILD/solutions
EQUIV=$BUILD/grading/equiv
R="--model gpt-tiny --data $FIX --val none --steps 8 --lr 1e-2 --log-every 1000 --examples records --seed 3"

for group in 0 4; do
    G="--group-by-length $group"
    if ! $TRAIN $R $G --batch 12 --dump "$TMP/ref.st" >"$TMP/log" 2>&1; then
        fail "one process, --examples records $G: $(tail -n 1 "$TMP/log")"
        continue
    fi
    for prog in 05-ddp/train_ddp 08-fsdp/train_fsdp 02-param-server/train_ps; do
        [ $group = 4 ] && [ $prog != 05-ddp/train_ddp ] && continue
        if "$MPIRUN" -np 3 $SOL/$prog $R $G --batch 4 --loss-norm tokens --dump "$TMP/sub.st" >"$TMP/log" 2>&1 &&
            "$EQUIV" "$TMP/ref.st" "$TMP/sub.st" --batch 4 --world 3 --lr 1e-2 >"$TMP/eq" 2>&1; then
            pass "${prog#*/} 3 x 4, --examples records $G --loss-norm tokens: equivalent to 1 x 12 ($(grep '^grads' "$TMP/eq"))"
        else
            fail "${prog#*/} 3 x 4, --examples records $G --loss-norm tokens: $(grep -e FAIL -e rror "$TMP/eq" "$TMP/log" | head -n 2)"
        fi
    done
done
# the ranks' own means: the gradient of the average of three means is not that of the global mean
if "$MPIRUN" -np 3 $SOL/05-ddp/train_ddp $R --batch 4 --dump "$TMP/rank.st" >"$TMP/log" 2>&1 &&
    $TRAIN $R --batch 12 --dump "$TMP/ref.st" >/dev/null 2>&1; then
    if "$EQUIV" "$TMP/ref.st" "$TMP/rank.st" --batch 4 --world 3 --lr 1e-2 >"$TMP/eq" 2>&1; then
        fail "--loss-norm rank with variable lengths came out equivalent to the global mean: the weighting does nothing"
    else
        pass "--loss-norm rank (each rank's own mean) is NOT the global batch's mean with variable lengths: $(grep -m1 FAIL "$TMP/eq" | cut -c1-110)"
    fi
else
    fail "train_ddp --loss-norm rank: $(tail -n 1 "$TMP/log")"
fi

# the work per rank: the longest example of each rank's batch, per step, from the trace's spans
imbalance() {
    python3 - "$1" <<'PY'
import collections, json, re, sys
per = collections.defaultdict(list)
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    m = re.match(r"fwd b=\d+ t=(\d+)", e.get("name", ""))
    if m:
        per[e["pid"]].append(int(m.group(1)))
ranks = sorted(per)
steps = min(len(per[r]) for r in ranks)
ratio = [max(per[r][s] for r in ranks) * len(ranks) / sum(per[r][s] for r in ranks) for s in range(steps)]
print(f"{sum(ratio) / steps:.3f}")
PY
}
M="--model gpt-mini --data $FIX --val none --steps 20 --lr 1e-3 --log-every 1000 --examples records --batch 4"
if "$MPIRUN" -np 4 $SOL/05-ddp/train_ddp $M --trace "$TMP/t0.json" >"$TMP/log" 2>&1 &&
    "$MPIRUN" -np 4 $SOL/05-ddp/train_ddp $M --group-by-length 8 --trace "$TMP/t8.json" >"$TMP/log" 2>&1; then
    a=$(imbalance "$TMP/t0.json") b=$(imbalance "$TMP/t8.json")
    if awk -v a="$a" -v b="$b" 'BEGIN {exit !(a >= 1.08 && b <= 1.04)}'; then
        pass "gpt-mini on 4 ranks, words as examples: longest rank's batch length / mean rank's $a, grouped by length $b"
    else
        fail "--group-by-length: longest rank / mean rank $a ungrouped (want >= 1.08), $b grouped (want <= 1.04)"
    fi
else
    fail "gpt-mini --examples records runs: $(tail -n 1 "$TMP/log")"
fi

expect_error "--examples records with the MLP" "needs a GPT" $TRAIN $QUICK --steps 1 --examples records
expect_error "--group-by-length with windows" "are for --examples records" $TRAIN $QUICK --steps 1 --group-by-length 4
expect_error "--examples records with the sampler's order" "course's order" \
    $TRAIN $R --batch 4 --steps 1 --order sampler
expect_error "--loss-norm tokens with micro-batches" "--loss-norm tokens with --accum-steps 2" \
    $SOL/06-accum/train_accum $R --batch 4 --steps 1 --loss-norm tokens --accum-steps 2
