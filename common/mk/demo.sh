#!/bin/sh
# demo.sh — `make demo`, the course's main job: train the lesson-01 reference trainer on the
# default dataset (progress as it goes), then write the loss curve (PNG), a checkpoint and samples.
#
# Output in out/demo/ (DEMO_OUT=dir to change):
#   loss.csv, loss.png        training and validation loss
#   checkpoint.safetensors    the trained model and optimizer state (loads with python safetensors)
#   samples.txt               words the model made up
#   stats.json                timing and memory
#   ddp_trace.json            lesson 05: a Chrome trace of DDP on 2 ranks (open in ui.perfetto.dev)
#   ddp_timeline.png          the same trace drawn: all-reduces overlapping backward
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${DEMO_OUT:-out/demo}
STEPS=${DEMO_STEPS:-3000}
mkdir -p "$OUT"
TRAIN=build/solutions/01-trainer/train
start=$(date +%s)

echo "== demo 1/2: lesson 01, the single-device trainer ($STEPS steps on the word list) =="
"$TRAIN" --steps "$STEPS" --batch 64 --lr 2e-3 --warmup 100 --log-every 250 --eval-every 500 \
    --loss-csv "$OUT/loss.csv" --save "$OUT/checkpoint.safetensors" --stats "$OUT/stats.json" \
    --sample 600 --sample-out "$OUT/samples.txt"

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 960,540 noenhanced
set output "$OUT/loss.png"
set datafile separator ","
set key top right
set xlabel "step"
set ylabel "cross-entropy (nats per character)"
set title "lesson 01: MLP character model on the word list"
set grid
plot "$OUT/loss.csv" every ::1 using 1:2 with lines lc rgb "#9ecae1" title "train (per step)", \
     "$OUT/loss.csv" every ::1 using 1:(\$4 > 0 ? \$4 : 1/0) with linespoints pt 7 lc rgb "#e6550d" title "validation"
GP
else
    echo "demo: gnuplot not found: skipping loss.png (loss.csv has the numbers)"
fi

echo
echo "== demo 2/2: lesson 05, DDP on 2 ranks over an emulated link (alpha 100 us, 4 Gbit/s) =="
grading/mpirun -np 2 build/solutions/05-ddp/train_ddp --hidden 384 --layers 6 --batch 512 --steps 12 \
    --log-every 4 --val none --bucket-cap-mb 0.5 --link-latency-us 100 --link-gbps 4 --trace "$OUT/ddp_trace.json"
sh common/mk/timeline.sh "$OUT/ddp_trace.json.tsv" "$OUT/ddp_timeline.png" 3 2 \
    "lesson 05: DDP, 2 ranks, emulated link: all-reduces (orange) overlap backward (green)"

echo
echo "demo finished in $(($(date +%s) - start)) s. Files in $OUT/:"
for f in loss.csv loss.png checkpoint.safetensors samples.txt stats.json ddp_trace.json ddp_timeline.png; do
    [ -f "$OUT/$f" ] && printf '  %-24s %s\n' "$f" "$(wc -c <"$OUT/$f") bytes"
done
echo "a few made-up words:"
head -n 12 "$OUT/samples.txt" | tr '\n' ' '
echo
