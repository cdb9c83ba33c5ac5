#!/bin/sh
# demo.sh — `make demo`, the course's main job: the full tour, on the default dataset.
#
#   1. lesson 01: train the single-device trainer, plot its loss, save a checkpoint, sample words
#   2. the same global batches three ways — one process, DDP on 4 ranks, FSDP on 4 ranks — and a
#      table showing that they agree (final loss, parameter difference) and what each cost (memory
#      per rank, bytes sent per step)
#   3. the plots: loss curves overlaid, all-reduce bus bandwidth, the DDP overlap timeline, scaling
#
# Everything lands in out/demo/ (DEMO_OUT=dir to change); the list is printed at the end.
# DEMO_STEPS (default 3000) sets the length of part 1.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${DEMO_OUT:-out/demo}
STEPS=${DEMO_STEPS:-3000}
CMP_STEPS=${DEMO_CMP_STEPS:-200}
mkdir -p "$OUT"
S=build/solutions
EQUIV=build/grading/equiv
start=$(date +%s)
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1

echo "== 1/4 lesson 01: the single-device trainer, $STEPS steps on the word list =="
"$S/01-trainer/train" --steps "$STEPS" --batch 64 --lr 2e-3 --warmup 100 --log-every 250 --eval-every 500 \
    --loss-csv "$OUT/loss.csv" --save "$OUT/checkpoint.safetensors" --stats "$OUT/stats.json" \
    --sample 600 --sample-out "$OUT/samples.txt"
if [ $have_gnuplot = 1 ]; then
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
fi

echo
echo "== 2/4 the same global batches (64 examples per step, $CMP_STEPS steps): 1 process, DDP on 4 ranks, FSDP on 4 ranks =="
C="--steps $CMP_STEPS --lr 2e-3 --warmup 20 --log-every 50 --val none --seed 11"
echo "-- single process --"
"$S/01-trainer/train" $C --batch 64 --loss-csv "$OUT/cmp_single.csv" --dump "$OUT/cmp_single.st" --stats "$OUT/cmp_single.json"
echo "-- DDP, 4 ranks x 16 (lesson 05) --"
grading/mpirun -np 4 "$S/05-ddp/train_ddp" $C --batch 16 --bucket-cap-mb 4 --loss-csv "$OUT/cmp_ddp.csv" \
    --dump "$OUT/cmp_ddp.st" --stats "$OUT/cmp_ddp.json"
echo "-- FSDP, 4 ranks x 16 (lesson 08) --"
grading/mpirun -np 4 "$S/08-fsdp/train_fsdp" $C --batch 16 --prefetch --loss-csv "$OUT/cmp_fsdp.csv" \
    --dump "$OUT/cmp_fsdp.st" --stats "$OUT/cmp_fsdp.json"
field() { sed -n "s/.*\"$2\":[[:space:]]*\\([0-9.e+]*\\).*/\\1/p" "$1" | head -n 1; }
{
    printf '%-22s %12s %14s %14s %16s %18s\n' run "final loss" "max |dtheta|" "|dtheta|/|theta|" "peak model MB/rank" "MB sent/step/rank"
    for run in single ddp fsdp; do
        set -- $("$EQUIV" "$OUT/cmp_single.st" "$OUT/cmp_$run.st" --summary)
        mem=$(field "$OUT/cmp_$run.json" mem_peak_model_bytes)
        sent=$(field "$OUT/cmp_$run.json" bytes_sent)
        awk -v r="$run" -v l="$2" -v a="$3" -v n="$4" -v m="$mem" -v s="$sent" -v k="$CMP_STEPS" 'BEGIN {
            name = r == "single" ? "1 process (reference)" : (r == "ddp" ? "DDP, 4 ranks" : "FSDP, 4 ranks")
            printf "%-22s %12.4f %14.3g %14.3g %16.2f %18.2f\n", name, l, a, n, m / 1e6, s / k / 1e6 }'
    done
} | tee "$OUT/agreement.txt"
echo "(the parameters after $CMP_STEPS AdamW steps differ only by float32 rounding of the different summation orders)"
if [ $have_gnuplot = 1 ]; then
    gnuplot <<GP
set terminal pngcairo size 960,540 noenhanced
set output "$OUT/loss_overlaid.png"
set datafile separator ","
set title "the same global batches: one process, DDP and FSDP on 4 ranks"
set xlabel "step"; set ylabel "training loss"; set grid; set key top right
plot "$OUT/cmp_single.csv" every ::1 using 1:2 with lines lw 5 lc rgb "#bdbdbd" title "1 process", \
     "$OUT/cmp_ddp.csv" every ::1 using 1:2 with lines lw 2 lc rgb "#3182bd" title "DDP, 4 ranks", \
     "$OUT/cmp_fsdp.csv" every ::1 using 1:2 with lines lw 1 dt 2 lc rgb "#e6550d" title "FSDP, 4 ranks"
GP
fi

echo
echo "== 3/4 collectives and overlap: all-reduce bus bandwidth (lessons 03-04), DDP trace (lesson 05) =="
BENCH_OUT="$OUT/bench" BENCH_NPS=4 BENCH_FACTOR=4 BENCH_END=16M BENCH_CAPS="0.25 4" BENCH_DDP_STEPS=5 \
    sh common/mk/bench.sh | grep -E '^==|ring/mpi|ring first|wrote' || true
grading/mpirun -np 2 "$S/05-ddp/train_ddp" --hidden 384 --layers 6 --batch 512 --steps 12 --log-every 6 --val none \
    --bucket-cap-mb 0.5 --link-latency-us 100 --link-gbps 4 --trace "$OUT/ddp_trace.json"
sh common/mk/timeline.sh "$OUT/ddp_trace.json.tsv" "$OUT/ddp_timeline.png" 3 2 \
    "lesson 05: DDP, 2 ranks, emulated link: all-reduces (orange) overlap backward (green)"

echo
echo "== 4/4 scaling (lesson 09): model against measurement, and the linear scaling rule =="
LAB_NS="1 2 4 8" sh lessons/09-scaling/lab.sh "$OUT/scaling" | grep -vE '^ *[357] '
sh lessons/09-scaling/lr_lab.sh "$OUT/scaling"

echo
echo "demo finished in $(($(date +%s) - start)) s. Files in $OUT/:"
for f in loss.png checkpoint.safetensors samples.txt agreement.txt loss_overlaid.png bench/allreduce_busbw.png \
    bench/ddp_buckets.png ddp_trace.json ddp_timeline.png scaling/scaling.png scaling/linear_scaling.png; do
    [ -f "$OUT/$f" ] && printf '  %-32s %10s bytes\n' "$f" "$(wc -c <"$OUT/$f")"
done
echo "  (ddp_trace.json opens in https://ui.perfetto.dev; checkpoint.safetensors in Python's safetensors)"
echo "a few made-up words: $(head -n 12 "$OUT/samples.txt" | tr '\n' ' ')"
