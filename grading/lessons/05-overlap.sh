#!/bin/sh
# 05-overlap.sh: on 2 ranks, under an emulated link whose speed is set from THIS machine's measured
# backward time (so that the all-reduces take about half of backward, real copies included), the trace must show the
# buckets' all-reduces starting while backward runs, and steps no longer than 1.25 x max(compute, comm).
set -u
T="$SUB_BUILD/05-ddp/train_ddp"
# many thin layers: fine-grained buckets, so that little is left to send once backward ends
F="--hidden 384 --layers 6 --batch 512 --steps 12 --log-every 1000 --val none --data $FIXTURE_TRAIN --bucket-cap-mb 0.5 --seed 5"
# 1. calibrate: backward time with the link off and nothing overlapping it
"$MPIRUN" -np 2 "$T" $F --steps 4 --no-overlap --trace cal.json >cal.log 2>&1 || { echo "your DDP trainer failed:"; tail -n 15 cal.log; exit 1; }
bwd_ms=$(awk -F '\t' '$1 == 0 && $5 == "backward" { s += $4 - $3; n++ } END { if (n) printf "%.3f", s / n }' cal.json.tsv)
params=$(sed -n 's/.*parameters.*/&/p' cal.log | head -n 1 | sed 's/^[^:]*: \([0-9]*\) parameters.*/\1/')
# 2. the link: α = 100 µs, β such that the ring's bytes (|g| per rank for N = 2) take 0.35 × backward (the real copies come on top)
gbps=$(awk -v b="$bwd_ms" -v p="$params" 'BEGIN { printf "%.3f", 8 * 4 * p / (0.35 * b * 1e-3) / 1e9 }')
echo "backward $bwd_ms ms, $params parameters: emulated link alpha 100 us, beta $gbps Gbit/s"
"$MPIRUN" -np 2 "$T" $F --link-latency-us 100 --link-gbps "$gbps" --trace run.json >run.log 2>&1 ||
    { echo "your DDP trainer failed:"; tail -n 15 run.log; exit 1; }
exec "$ROOT/build/grading/overlap" run.json.tsv --skip 2 --max-ratio 1.25
