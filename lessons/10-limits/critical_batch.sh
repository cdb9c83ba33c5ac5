#!/bin/sh
# critical_batch.sh — the critical batch size, measured two ways (make critical-batch; a few minutes):
#
#   1. the sweep: lesson 01's trainer on the word list (the MLP, --preset small, SGD with momentum
#      0.9, constant learning rate after a short warmup) at global batches B = 8 ... 2048, the
#      learning rate scaled with B (the linear scaling rule, lesson 09: lr = 0.02·B/32). For each B:
#      the steps until the training loss, averaged over a window of the same number of examples for
#      every B, first reaches the target. Fitted: steps·B = E_min + S_min·B (McCandlish et al.'s
#      S = S_min(1 + B_crit/B)), B_crit = E_min/S_min.
#   2. the estimate: lesson 10's train_noise --noise-scale on 4 ranks × 8 (B = 32) with the same
#      model, optimizer and data: B_simple (running averages) where its loss reaches the target.
#
# Writes OUT/critical_batch.txt (a table and both numbers), OUT/cb_B*.csv, OUT/noise.csv and,
# with gnuplot, OUT/critical_batch.png: steps to the target against B (log-log), the fit, and the
# estimate marked. Environment: CB_TARGET (default 2.40), CB_BATCHES, CB_MAX_STEPS (6000).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/critical-batch}
mkdir -p "$OUT"
B_DIR=build/solutions
[ -d "$B_DIR" ] || B_DIR=build/lessons
TRAIN=$B_DIR/01-trainer/train
NOISE=$B_DIR/10-limits/train_noise
TARGET=${CB_TARGET:-2.40}
BATCHES=${CB_BATCHES:-8 16 32 64 128 256 512 1024 2048}
MAX=${CB_MAX_STEPS:-6000}
WINDOW=8192 # examples the smoothed loss averages over, whatever the batch
F="--preset small --val none --optimizer sgd --momentum 0.9 --weight-decay 0 --clip 0 --min-lr-ratio 1 --warmup 20 --log-every 100000"
lr_of() { awk -v b="$1" 'BEGIN { printf "%g", 0.02 * b / 32 }'; }
# steps_to CSV BATCH: the first step whose trailing mean loss over WINDOW examples is <= TARGET
steps_to() {
    awk -F, -v b="$2" -v target="$TARGET" -v window=$WINDOW 'NR > 1 && $2 != "" {
            n++; l[n] = $2; s += $2; w = int(window / b); if (w < 5) w = 5
            if (n > w) s -= l[n - w]
            if (n >= w && s / w <= target) { print n; found = 1; exit } }
        END { if (!found) print "-" }' "$1"
}
: >"$OUT/sweep.txt"
for B in $BATCHES; do
    lr=$(lr_of "$B")
    if nice "$TRAIN" $F --batch "$B" --lr "$lr" --steps "$MAX" --loss-csv "$OUT/cb_B$B.csv" >"$OUT/cb_B$B.log" 2>&1; then
        s=$(steps_to "$OUT/cb_B$B.csv" "$B")
    else
        s="diverged"
    fi
    echo "$B $lr $s" | tee -a "$OUT/sweep.txt"
done
# the estimate, from a DDP run at B = 32 (4 ranks x 8)
lr=$(lr_of 32)
nice grading/mpirun -np 4 "$NOISE" $F --batch 8 --lr "$lr" --steps "$MAX" --noise-scale --noise-decay 0.99 \
    --loss-csv "$OUT/noise.csv" >"$OUT/noise.log" 2>&1 || { echo "critical_batch: the noise-scale run failed"; tail -n 5 "$OUT/noise.log"; exit 1; }
s32=$(steps_to "$OUT/noise.csv" 32)
est=$(awk -F, -v s="$s32" 'NR > 1 && $1 == s { print $9 }' "$OUT/noise.csv")
est_end=$(awk -F, 'NR > 1 { v = $9 } END { print v }' "$OUT/noise.csv")
{
    echo "target training loss $TARGET (mean over the last $WINDOW examples); lr = 0.02 * B / 32"
    echo "B     lr        steps to target"
    awk '{ printf "%-5s %-9s %s\n", $1, $2, $3 }' "$OUT/sweep.txt"
    # E = steps * B = E_min + S_min * B, least squares over the batches that reached the target
    awk '$3 ~ /^[0-9]+$/ { n++; x = $1; y = $1 * $3; sx += x; sy += y; sxx += x * x; sxy += x * y }
        END { if (n < 2) { print "fit: fewer than 2 batches reached the target"; exit }
              smin = (n * sxy - sx * sy) / (n * sxx - sx * sx); emin = (sy - smin * sx) / n
              printf "fit steps*B = E_min + S_min*B: E_min = %.0f examples, S_min = %.0f steps, B_crit = E_min/S_min = %.0f\n", emin, smin, smin > 0 ? emin / smin : -1 }' "$OUT/sweep.txt"
    echo "noise scale (train_noise, 4 ranks x 8): B_simple = $est where its loss reached the target (step $s32), $est_end after $MAX steps"
} | tee "$OUT/critical_batch.txt"
if command -v gnuplot >/dev/null 2>&1; then
    fit=$(sed -n 's/.*E_min = \([0-9.-]*\) examples, S_min = \([0-9.-]*\) steps.*/\1 \2/p' "$OUT/critical_batch.txt")
    set -- $fit
    gnuplot <<GP && echo "critical_batch: wrote $OUT/critical_batch.png"
set terminal pngcairo size 1000,600 noenhanced
set output "$OUT/critical_batch.png"
set title "steps to training loss $TARGET against the global batch (linear scaling rule, SGD); B_simple from DDP marked"
set xlabel "global batch B"; set ylabel "steps to the target"; set logscale xy; set grid; set key top right
set arrow from ${est:-1},graph 0 to ${est:-1},graph 1 nohead lw 2 dt 2 lc rgb "red"
set label "B_simple = ${est:-?}" at ${est:-1},graph 0.92 offset 1,0 tc rgb "red"
plot "$OUT/sweep.txt" using 1:(\$3 + 0 > 0 ? \$3 : 1/0) with linespoints lw 2 pt 7 title "measured", \
     ${2:-1} * (1 + ${1:-0} / ${2:-1} / x) lw 2 dt 3 title "fit S_min (1 + B_crit / B)"
GP
fi
