#!/bin/sh
# 05-train.sh NRANKS [flags]: DDP on NRANKS ranks, each initialised from a different seed, for each
# bucket cap (tiny: one tensor per bucket; PyTorch's default 25; huge: one bucket) must be
# equivalent to the reference trainer on the global batch, launch its buckets in order, and send
# exactly one ring all-reduce per bucket per step (2(N−1) messages each) plus the initial broadcast.
set -u
n=$1
shift
K=8
for cap in 0.000001 25 1000000; do
    echo "== bucket_cap_mb $cap =="
    SUB_EXTRA="--stats stats.json --ddp-log ddp.json --init-seed-per-rank --bucket-cap-mb $cap" \
        sh "$GRADING/lessons/train-equiv.sh" "$SUB_BUILD/05-ddp/train_ddp" "$n" 8 "$@" || exit 1
    nb=$(sed -n 's/.*"nbuckets": *\([0-9]*\).*/\1/p' ddp.json)
    order=$(sed -n 's/.*"launch_order": *\[\(.*\)\].*/\1/p' ddp.json | tr -d ' ')
    want=$(awk -v n="$nb" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? "," : "", i }')
    echo "buckets: $nb, launch order of the last step: [$order]"
    if [ "$order" != "$want" ]; then
        echo "FAIL: the buckets were launched in the order [$order], expected [$want]"
        exit 1
    fi
    per_step=$((nb * 2 * (n - 1)))
    "$STATCHECK" stats.json \
        rank0.msgs_sent=$((K * per_step + n - 1)) rank0.msgs_recv=$((K * per_step)) \
        workers.msgs_sent=$((K * per_step)) workers.msgs_recv=$((K * per_step + 1)) all.lib_calls=0 \
        --hint "per step every bucket is all-reduced once by the ring (2(N−1) messages per rank), after rank 0 broadcast the parameters once at construction (one message to each rank)" ||
        exit 1
done
