#!/bin/sh
# critical_batch.sh — the critical batch size, measured two ways (make critical-batch; a few minutes):
#
#   1. the sweep: lesson 01's trainer on the word list (the MLP, --preset small, SGD with momentum
#      0.9, constant learning rate after a short warmup) at global batches B = 8 ... 2048, the
#      learning rate scaled with B (the linear scaling rule, lesson 09: lr = 0.02·B/32). For each B:
#      the steps until the training loss, averaged over a window of the same number of examples for
#      every B, first reaches the target. Fitted: steps·B = E_min + S_min·B (McCandlish et al.'s
#      S = S_min(1 + B_crit/B)), B_crit = E_min/S_min.
#   2. the estimate: lesson 10's train_noise --noise-scale on 4 ranks × 8 (B = 32), and on 4 × 64
#      (B = 256), with the same model, optimizer and data: B_simple over the second half of the
#      steps its loss takes to reach the target.
#
# Writes OUT/critical_batch.txt (a table and the numbers), OUT/cb_B*.csv, OUT/noise_B*.csv and,
# with gnuplot, OUT/critical_batch.png: steps to the target against B (log-log), the fit, and the
# estimates marked. Environment: CB_TARGET (default 2.40), CB_BATCHES, CB_MAX_STEPS (6000).
# The trainers are your lessons' (01's train, 10's train_noise) where the lesson is yours (no
# DP_TODO() left), else the reference's: the lab says which (common/mk/lab_build.sh;
# LAB_STACK=reference|own forces one side). The build is ${O:-build}.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/critical-batch}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
lab_use TRAIN 01-trainer train
lab_use NOISE 10-limits train_noise
. "$ROOT/common/mk/load.sh"
l0=$(load_now)
TARGET=${CB_TARGET:-2.40}
BATCHES=${CB_BATCHES:-8 16 32 64 128 256 512 1024 2048 4096}
MAX=${CB_MAX_STEPS:-6000}
# a run stops at max(400, 3 x 48000 / B) steps, at most MAX: a batch that needs 3 times the ideal
# steps (48000 examples / B) is past the knee by far, and running it longer teaches nothing
max_of() { awk -v b="$1" -v m="$MAX" 'BEGIN { s = int(3 * 48000 / b); if (s < 400) s = 400; if (s > m) s = m; print s }'; }
WINDOW=8192 # examples the smoothed loss averages over, whatever the batch
F="--data $lab_dir/data/words-train.tok --preset small --val none --optimizer sgd --momentum 0.9 --weight-decay 0 --clip 0 --min-lr-ratio 1 --warmup 20 --log-every 100000"
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
    if nice "$TRAIN" $F --batch "$B" --lr "$lr" --steps "$(max_of "$B")" --loss-csv "$OUT/cb_B$B.csv" >"$OUT/cb_B$B.log" 2>&1; then
        s=$(steps_to "$OUT/cb_B$B.csv" "$B")
    else
        s="diverged"
    fi
    echo "$B $lr $s" | tee -a "$OUT/sweep.txt"
done
# the estimate, from DDP runs at B = 32 (4 ranks x 8) and B = 256 (4 x 64): the same quantity, it must
# not depend on the batch that measures it. Read over the second half of each run's way to the
# target: the per-step estimates of tr(Σ) and |G|² (from the logged |G_b|², |G_B|²) summed separately
# over those steps, then divided — the paper's averaging, with a window in place of the running
# average (whose single values, at decay 0.99, still swing by a factor of 2 from step to step).
estimate() { # LOCAL_BATCH -> "B_simple step"
    B=$((4 * $1))
    nice grading/mpirun -np 4 "$NOISE" $F --batch "$1" --lr "$(lr_of $B)" --steps "$(max_of $B)" --noise-scale \
        --noise-decay 0.99 --loss-csv "$OUT/noise_B$B.csv" >"$OUT/noise_B$B.log" 2>&1 ||
        { echo "critical_batch: the noise-scale run at B = $B failed" >&2; tail -n 5 "$OUT/noise_B$B.log" >&2; exit 1; }
    s=$(steps_to "$OUT/noise_B$B.csv" "$B")
    awk -F, -v s="$s" -v B="$B" -v b="$1" 'NR > 1 && $1 + 0 > s / 2 && $1 + 0 <= s {
            g += (B * $6 - b * $5) / (B - b); t += ($5 - $6) / (1 / b - 1 / B) }
        END { if (s ~ /^[0-9]+$/ && g > 0) printf "%.0f %s\n", t / g, s; else print "- -" }' "$OUT/noise_B$B.csv"
}
set -- $(estimate 8)
est=$1 s32=$2
set -- $(estimate 64)
est256=$1 s256=$2
{
    echo "target training loss $TARGET (mean over the last $WINDOW examples); lr = 0.02 * B / 32"
    echo "B     lr        steps to target   examples (steps*B)"
    awk '{ printf "%-5s %-9s %-17s %s\n", $1, $2, $3, $3 ~ /^[0-9]+$/ ? $1 * $3 : "-" }' "$OUT/sweep.txt"
    # E = steps * B = E_min + S_min * B, least squares over the batches that reached the target
    awk '$3 ~ /^[0-9]+$/ { n++; x = $1; y = $1 * $3; sx += x; sy += y; sxx += x * x; sxy += x * y }
        END { if (n >= 2) { smin = (n * sxy - sx * sy) / (n * sxx - sx * sx); emin = (sy - smin * sx) / n }
              if (n >= 2 && smin > 0) printf "fit steps*B = E_min + S_min*B: E_min = %.0f examples, S_min = %.1f steps, B_crit = E_min/S_min = %.0f\n", emin, smin, emin / smin
              else print "fit: not enough batches reached the target" }' "$OUT/sweep.txt"
    echo "noise scale from DDP (4 ranks): B_simple = $est at B = 32 (over steps $((s32 / 2 + 1))-$s32, its loss reaching the target at $s32), $est256 at B = 256 (over steps $((s256 / 2 + 1))-$s256)"
    # the numbers are steps and gradient statistics, not times; the load is printed as for every measurement
    echo "measured under $(load_note "$l0") (step counts, not times)"
} | tee "$OUT/critical_batch.txt"
if command -v gnuplot >/dev/null 2>&1; then
    set -- $(sed -n 's/.*E_min = \([0-9.-]*\) examples, S_min = \([0-9.-]*\) steps, B_crit = E_min\/S_min = \([0-9]*\).*/\1 \2 \3/p' "$OUT/critical_batch.txt")
    emin=${1:-0} smin=${2:-1} bcrit=${3:-1}
    gnuplot <<GP && echo "critical_batch: wrote $OUT/critical_batch.png"
set terminal pngcairo size 1000,600 noenhanced
set output "$OUT/critical_batch.png"
set title "steps to training loss $TARGET against the global batch (SGD, linear scaling rule); the noise scale from DDP marked\n$(sed -n 's/^measured under //p' "$OUT/critical_batch.txt")"
set xlabel "global batch B"; set ylabel "steps to the target"; set logscale xy; set grid; set key bottom left
set xrange [4:8192]
set arrow from ${est:-1},graph 0 to ${est:-1},graph 1 nohead lw 2 dt 2 lc rgb "red"
set arrow from ${est256:-1},graph 0 to ${est256:-1},graph 1 nohead lw 2 dt 4 lc rgb "orange"
set arrow from $bcrit,graph 0 to $bcrit,graph 1 nohead lw 1 dt 3 lc rgb "dark-green"
set label "B_simple $est (DDP, B=32)" at ${est:-1},graph 0.95 right offset -0.5,0 tc rgb "red"
set label "B_simple $est256 (DDP, B=256)" at ${est256:-1},graph 0.88 right offset -0.5,0 tc rgb "orange"
set label "fitted B_crit $bcrit" at $bcrit,graph 0.81 offset 0.5,0 tc rgb "dark-green"
plot "$OUT/sweep.txt" using 1:(\$3 + 0 > 0 ? \$3 : 1/0) with linespoints lw 2 pt 7 title "measured", \
     $smin * (1 + $emin / $smin / x) lw 2 dt 3 lc rgb "dark-green" title "fit S_min (1 + B_crit / B)"
GP
fi
