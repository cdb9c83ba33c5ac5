#!/bin/sh
# lr_lab.sh — the linear scaling rule, measured: the lesson-01 trainer with SGD (momentum 0.9) on
#   batch b = 32 with learning rate η = 0.02, 2000 steps, and on batch 4b = 128 for 500 steps (the
#   same number of examples) with  4η and warmup,  4η without warmup,  and η unscaled.
# Writes OUT/lr_*.csv and OUT/linear_scaling.png (loss against examples seen), and a summary.
# The trainer is your lesson 01's where the lesson is yours (no DP_TODO() left), else the reference's:
# the lab says which (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side; LAB_BUILD=dir
# names a build's solutions/ or lessons/ folder instead).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/scaling}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
if [ -n "${LAB_BUILD:-}" ]; then T=$LAB_BUILD/01-trainer/train; else lab_use T 01-trainer train; fi
F="--preset small --val none --optimizer sgd --momentum 0.9 --weight-decay 0 --clip 0 --min-lr-ratio 1 --log-every 100000 --data $lab_dir/data/words-train.tok ${LAB_DATA:-}"
run() { # NAME BATCH LR WARMUP STEPS
    "$T" $F --batch "$2" --lr "$3" --warmup "$4" --steps "$5" --loss-csv "$OUT/lr_$1.csv" >/dev/null ||
        { echo "lr_lab: run $1 failed"; exit 1; }
    awk -F, -v name="$1" -v b="$2" -v lr="$3" -v w="$4" 'NR > 1 && $2 != "" { n++; l[n] = $2; if ($2 > m) m = $2 }
        END { s = 0; k = 0; for (i = n - 49; i <= n; i++) if (i > 0) { s += l[i]; k++ }
              printf "%-22s batch %4d  lr %-5s warmup %3d: loss over the last 50 steps %.3f, highest %.2f\n", name, b, lr, w, s / k, m }' "$OUT/lr_$1.csv"
}
run b_lr 32 0.02 0 2000
run 4b_4lr_warmup 128 0.08 50 500
run 4b_4lr_no_warmup 128 0.08 0 500
run 4b_lr_unscaled 128 0.02 0 500
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP && echo "lr_lab: wrote $OUT/linear_scaling.png"
set terminal pngcairo size 1000,560 noenhanced
set output "$OUT/linear_scaling.png"
set title "linear scaling rule: the same examples in batches of b = 32 and 4b = 128 (SGD, momentum 0.9)"
set xlabel "examples seen"; set ylabel "training loss (bezier-smoothed)"; set grid; set key top right
set datafile separator ","
plot "$OUT/lr_b_lr.csv" every ::1 using (\$1 * 32):2 smooth bezier lw 2 title "b, lr 0.02", \
     "$OUT/lr_4b_4lr_warmup.csv" every ::1 using (\$1 * 128):2 smooth bezier lw 2 title "4b, lr 0.08 (4x), warmup 50", \
     "$OUT/lr_4b_4lr_no_warmup.csv" every ::1 using (\$1 * 128):2 smooth bezier lw 2 title "4b, lr 0.08 (4x), no warmup", \
     "$OUT/lr_4b_lr_unscaled.csv" every ::1 using (\$1 * 128):2 smooth bezier lw 2 title "4b, lr 0.02 (not scaled)"
GP
fi
