#!/bin/sh
# 08-memory.sh: peak model-state bytes per rank (parameters, gradients, AdamW m and v, gathered
# buffers) of FSDP on 2 and 4 ranks must be within 10% of 16·P/N + 8·n_max — the sharded state plus
# the largest unit's gathered parameters and gradient — while the same model under DDP (no sharding,
# the reference lesson 05) holds 16·P. The small preset: P = 36939, n_max = 16512.
set -u
F="--preset small --data $FIXTURE_TRAIN --val none --batch 8 --steps 2 --log-every 1000"
P=36939
NMAX=16512
status=0
"$MPIRUN" -np 2 "$REF_BUILD/05-ddp/train_ddp" $F --stats ddp.json >ddp.log 2>&1 || { echo "grader error: the DDP run failed"; tail -n 5 ddp.log; exit 2; }
ddp=$(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' ddp.json | head -n 1)
echo "unsharded (DDP, 2 ranks): peak model state $ddp bytes = $(awk -v b="$ddp" -v p=$P 'BEGIN { printf "%.2f", b / p }') bytes per parameter"
for n in 2 4; do
    "$MPIRUN" -np $n "$SUB_BUILD/08-fsdp/train_fsdp" $F --stats fsdp$n.json >fsdp$n.log 2>&1 ||
        { echo "your FSDP trainer failed on $n ranks:"; tail -n 10 fsdp$n.log; exit 1; }
    for got in $(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' fsdp$n.json); do
        awk -v g="$got" -v p=$P -v n=$n -v m=$NMAX 'BEGIN {
            want = 16 * p / n + 8 * m
            printf "FSDP, %d ranks: peak model state %d bytes; 16P/N + 8·n_max = %d (%.0f%%)\n", n, g, want, 100 * g / want
            if (g > 1.1 * want || g < 0.9 * want) { print "FAIL: not within 10% of 16·P/N + 8·n_max: is the full model still allocated, or are gathered units not freed?"; exit 1 } }' || status=1
    done
done
exit $status
