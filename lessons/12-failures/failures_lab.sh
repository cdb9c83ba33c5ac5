#!/bin/sh
# failures_lab.sh — lesson 12's lab: how often to checkpoint when ranks die.
#
#   sh lessons/12-failures/failures_lab.sh [OUT_DIR]        (make failures runs it into out/failures)
#
# 1. The restart: 4-rank DDP loses rank 2 at step 30 (checkpoints every 10 steps), elastic_run
#    restarts it on 3 ranks from step 20, and the run ends equivalent to the uninterrupted one
#    (build/grading/equiv against the one-process run) — with lesson 12's train_elastic, whose
#    global batch outlives the world size; without it (not built), lesson 05's train_ddp shows the
#    restart alone. Printed: the restart's line (steps redone, time from the death to training
#    again) and the verdict.
# 2. The interval: for every checkpoint interval τ of LAB_INTERVALS and every seed of LAB_SEEDS, a
#    2-rank DDP run of LAB_STEPS steps under seeded failures (elastic_run --mtbf-steps: a random rank
#    dies at exponential times of mean LAB_MTBF steps, a spare takes its place: --keep-world), and
#    the counts it ends with: failures, steps redone, checkpoints written. A checkpoint costs
#    LAB_COST steps' worth of time (set, not measured: what a large model's save takes beside its
#    step), so the work lost is
#        lost = LAB_COST · checkpoints + steps redone            (in steps; counts, not the clock)
#    set against Young's first-order model for a run of S steps, MTBF M and cost C,
#        lost(τ) = S·C/τ + (S/M)·τ/2,   minimal at τ* = √(2·C·M)   (Young 1974; Daly 2006)
#    The counts are exact for a seed (the failures and the steps are deterministic): the lab
#    repeats to the step. The seconds each restart took (death to training again) are in the table
#    too, as information: they depend on the machine and its load, so nothing is judged from them.
# Writes OUT/table.txt (per interval: the counts per seed, their mean, the model) and failures.png
# (the model's curve, τ* marked, the measured points; the load average in the title).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
OUT=${1:-out/failures}
mkdir -p "$OUT"
. "$ROOT/common/mk/lab_build.sh"
lab_use DDP 05-ddp train_ddp
. "$ROOT/common/mk/load.sh"
RUN=$lab_dir/solutions/12-failures/elastic_run # given code: the same in both builds
EQUIV=$lab_dir/grading/equiv
TRAIN=$lab_dir/solutions/01-trainer/train
ELASTIC=""
[ -x "$lab_dir/solutions/12-failures/train_elastic" ] && lab_use ELASTIC 12-failures train_elastic
for p in "$RUN" "$EQUIV" "$TRAIN" "$DDP"; do
    [ -x "$p" ] || { echo "lab: $p is not built: run make" >&2; exit 2; }
done
STEPS=${LAB_STEPS:-240} MTBF=${LAB_MTBF:-60} COST=${LAB_COST:-4}
INTERVALS=${LAB_INTERVALS:-4 8 16 24 40 80} SEEDS=${LAB_SEEDS:-1 2}
for v in "$STEPS" "$MTBF" "$COST" $INTERVALS $SEEDS; do
    case $v in
    '' | *[!0-9]* | 0) echo "lab: LAB_STEPS, LAB_MTBF, LAB_COST, LAB_INTERVALS and LAB_SEEDS take whole numbers from 1, got '$v'" >&2; exit 2 ;;
    esac
done
DATA=${LAB_DATA:-datasets/fixtures/tiny-train.tok}
F="--preset tiny --data $DATA --val none --log-every 100000 --seed 3 --timeout-s 20"
status=0
l0=$(load_now)

# 1. The restart, and its verdict.
rm -rf "$OUT/restart"
if [ -n "$ELASTIC" ]; then
    P=$ELASTIC BATCH="--batch-global 32 --micro-cap 8"
else
    P=$DDP BATCH="--batch 8"
fi
# shellcheck disable=SC2086
"$RUN" --nproc 4 --max-restarts 1 --save "$OUT/restart/ck.safetensors" -- "$P" $F $BATCH --steps 60 --save-every 10 \
    --fail 2:30 --dump "$OUT/restart/run.st" >"$OUT/restart.log" 2>&1 ||
    { echo "lab: the restart run failed:"; tail -n 5 "$OUT/restart.log"; status=1; }
restart=$(grep "^elastic_run: restart 1: " "$OUT/restart.log" | sed 's/^elastic_run: restart 1: //')
echo "restart: ${restart:-none (see $OUT/restart.log)}" | tee "$OUT/table.txt"
if [ -z "$ELASTIC" ]; then
    echo "verdict: none: lesson 12's train_elastic is not built, and lesson 05's train_ddp changes the global batch on 3 ranks" |
        tee -a "$OUT/table.txt"
else
    # shellcheck disable=SC2086
    "$TRAIN" $F --batch 32 --steps 60 --order sampler --sampler-replicas 4 --dump "$OUT/restart/ref.st" \
        >"$OUT/restart/ref.log" 2>&1 || { echo "lab: the one-process run failed"; status=1; }
    if "$EQUIV" "$OUT/restart/ref.st" "$OUT/restart/run.st" --ref-offset 20 --world 3 >"$OUT/restart/equiv.txt" 2>&1; then
        v="equivalent to the uninterrupted run (judged against its one-process reference)"
    else
        v="NOT equivalent to the uninterrupted run (judged against its one-process reference)"
        status=1
    fi
    echo "verdict: 4 ranks, rank 2 lost at step 30, finished on 3: $v" | tee -a "$OUT/table.txt"
    sed 's/^/  /' "$OUT/restart/equiv.txt" | tee -a "$OUT/table.txt"
fi
echo | tee -a "$OUT/table.txt"

# 2. The interval sweep: one line per (interval, seed) in OUT/runs.tsv.
printf '# interval\tseed\tfailures\tredone\tcheckpoints\tsteps_run\tlost_steps\trestart_s\n' >"$OUT/runs.tsv"
for tau in $INTERVALS; do
    for seed in $SEEDS; do
        rm -rf "$OUT/sweep"
        # shellcheck disable=SC2086
        "$RUN" --nproc 2 --keep-world --max-restarts 1000 --mtbf-steps "$MTBF" --fail-seed "$seed" \
            --save "$OUT/sweep/ck.safetensors" -- "$DDP" $F --batch 8 --steps "$STEPS" --save-every "$tau" \
            >"$OUT/sweep.log" 2>&1 || { echo "lab: interval $tau, seed $seed failed:"; tail -n 5 "$OUT/sweep.log"; status=1; continue; }
        # "finished on 2 ranks after K restarts: R steps run for S, D steps redone, C checkpoints written, T s lost"
        grep "^elastic_run: finished" "$OUT/sweep.log" | awk -v tau="$tau" -v seed="$seed" -v cost="$COST" '{
            for (i = 1; i <= NF; i++) {
                if ($(i + 1) ~ /^restarts?:$/) k = $i
                if ($(i + 1) == "steps" && $(i + 2) == "run") run = $i
                if ($(i + 1) == "steps" && $(i + 2) == "redone,") red = $i
                if ($(i + 1) == "checkpoints") ck = $i
                if ($(i + 1) == "s" && $(i + 2) == "lost") s = $i
            }
            printf "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\n", tau, seed, k, red, ck, run, cost * ck + red, k ? s / k : 0 }' \
            >>"$OUT/runs.tsv"
    done
done
rm -rf "$OUT/sweep" "$OUT/sweep.log"
note=$(load_note "$l0")

# The table: per interval the mean over the seeds beside the model. The model is a local copy of
# Young's formula; once lesson 12's young_daly.c lands, its young_daly_interval and
# expected_lost_work are the same closed forms (the lead may point this at them).
awk -F '\t' -v S="$STEPS" -v M="$MTBF" -v C="$COST" -v note="$note" '!/^#/ && NF {
        t = $1; if (!(t in n)) order[m++] = t
        n[t]++; f[t] += $3; r[t] += $4; c[t] += $5; l[t] += $7; rs[t] += $8; per[t] = per[t] sprintf(" %d", $7) }
    END {
        printf "interval sweep: %d steps, MTBF %d steps, a checkpoint costs %d steps; lost = %d x checkpoints + steps redone\n", S, M, C, C
        printf "model (Young): lost(t) = S*C/t + (S/M)*t/2; optimum t* = sqrt(2*C*M) = %.1f steps (measured under %s)\n\n", sqrt(2 * C * M), note
        printf "%9s %9s %9s %12s %10s %10s %18s %12s\n", "interval", "failures", "redone", "checkpoints", "lost", "model", "lost per seed", "restart (s)"
        best = -1
        for (i = 0; i < m; i++) {
            t = order[i]; k = n[t]; model = S * C / t + S / M * t / 2
            printf "%9d %9.1f %9.1f %12.1f %10.1f %10.1f %18s %12.2f\n", t, f[t] / k, r[t] / k, c[t] / k, l[t] / k, model, per[t], rs[t] / k
            if (best < 0 || l[t] / k < bl) { best = t; bl = l[t] / k }
        }
        printf "\nleast lost work measured at interval %d (%.1f steps); the model'"'"'s optimum is %.1f\n", best, bl, sqrt(2 * C * M)
    }' "$OUT/runs.tsv" | tee -a "$OUT/table.txt"

if command -v gnuplot >/dev/null 2>&1; then
    opt=$(awk -v C="$COST" -v M="$MTBF" 'BEGIN { printf "%.3f", sqrt(2 * C * M) }')
    {
        echo "set terminal pngcairo size 900,560 noenhanced font \",12\""
        echo "set output '$OUT/failures.png'"
        printf 'set title "work lost to failures against the checkpoint interval: %s steps, MTBF %s steps, checkpoint cost %s steps\\n%s"\n' \
            "$STEPS" "$MTBF" "$COST" "$note"
        echo 'set logscale x 2; set grid; set key bottom right font ",10"'
        echo 'set xlabel "checkpoint interval (steps)"; set ylabel "work lost (steps): cost x checkpoints + steps redone"'
        echo "S = $STEPS.0; M = $MTBF.0; C = $COST.0; model(t) = S * C / t + S / M * t / 2"
        echo "set arrow from $opt, graph 0 to $opt, graph 1 nohead dt 2 lc rgb 'gray40'"
        echo "set label 'Young-Daly optimum sqrt(2 C MTBF) = $opt' at $opt, graph 0.95 offset 1,0 font ',10'"
        echo "set xrange [2:128]; set yrange [0:*]; set samples 400"
        echo "plot model(x) with lines lw 2 lc 1 title 'model: S C / t + (S / MTBF) t / 2', '$OUT/runs.tsv' using 1:7 with points pt 7 ps 1.2 lc 2 title 'measured (one point per seed)'"
    } | gnuplot && echo "lab: wrote $OUT/failures.png"
fi
exit $status
