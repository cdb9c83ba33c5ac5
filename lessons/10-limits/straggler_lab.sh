#!/bin/sh
# straggler_lab.sh — the straggler lab: the lesson-05 DDP trainer on N ranks with and without seeded
# jitter, the step time it measures against the model (straggler_predict, your straggler_model.c),
# and a plot.
#
#   sh lessons/10-limits/straggler_lab.sh [OUT_DIR]        (make stragglers runs it into out/stragglers)
#
# For every N in LAB_NS (default 1 2 4 8): a run without jitter gives the base step (compute + comm
# on N ranks), a run with --jitter LAB_JITTER (default exp:20) the step under jitter; both are rank
# 0's mean step after LAB_WARMUP (3) steps, from the --stats file (straggler_report). The model
# predicts base + E[max of N delays]. The delay is slept, not computed, so the ranks may outnumber
# the cores: what a rank waits for is the slowest rank's sleep. Writes OUT/base.txt, measured.txt,
# realised.txt ("N ms": the mean over the measured steps of the largest delay the run drew, known
# exactly because the delays are seeded), model.txt (straggler_predict's table) and stragglers.png.
# The trainer (lesson 05) and straggler_predict and straggler_report (lesson 10) are your lessons'
# where the lesson is yours (no DP_TODO() left), else the reference's: the lab says which
# (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side). LAB_BUILD=dir (a build's
# solutions/ or lessons/ folder), LAB_PREDICT=program and LAB_REPORT=program name them instead (the
# grader does; straggler_report then comes from LAB_BUILD).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/stragglers}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
if [ -n "${LAB_BUILD:-}" ]; then DDP=$LAB_BUILD/05-ddp/train_ddp; else lab_use DDP 05-ddp train_ddp; fi
if [ -n "${LAB_PREDICT:-}" ]; then PREDICT=$LAB_PREDICT; else lab_use PREDICT 10-limits straggler_predict; fi
if [ -n "${LAB_REPORT:-}" ]; then REPORT=$LAB_REPORT
elif [ -n "${LAB_BUILD:-}" ]; then REPORT=$LAB_BUILD/10-limits/straggler_report
else lab_use REPORT 10-limits straggler_report; fi
. "$ROOT/common/mk/load.sh"
J=${LAB_JITTER:-exp:20}
W=${LAB_WARMUP:-3}
F="--preset tiny --batch 8 --steps ${LAB_STEPS:-60} --log-every 100000 --val none --seed ${LAB_SEED:-1} --data $lab_dir/data/words-train.tok ${LAB_DATA:-}"
: >"$OUT/base.txt"
: >"$OUT/measured.txt"
: >"$OUT/realised.txt"
l0=$(load_now)
for N in ${LAB_NS:-1 2 4 8}; do
    for mode in base jitter; do
        extra=""
        [ $mode = jitter ] && extra="--jitter $J"
        # shellcheck disable=SC2086
        grading/mpirun -np "$N" "$DDP" $F $extra --stats "$OUT/run.json" >"$OUT/run.log" 2>&1 ||
            { echo "lab: the $mode run on $N ranks failed:"; tail -n 5 "$OUT/run.log"; exit 1; }
        "$REPORT" "$OUT/run.json" --warmup "$W" >"$OUT/report_${mode}_$N.txt" ||
            { echo "lab: straggler_report failed on the $mode run on $N ranks"; exit 1; }
        if [ $mode = base ]; then
            # the MEDIAN step: without jitter every step is alike, and the median ignores the few the
            # OS delayed (ranks share the cores)
            sed -n "s/^step_ms: mean [0-9.]* median \([0-9.]*\) .*/$N \1/p" "$OUT/report_${mode}_$N.txt" >>"$OUT/base.txt"
        else
            # the MEAN step: E[max] is a mean, and the steps with a long delay are the point
            sed -n "s/^step_ms: mean \([0-9.]*\) .*/$N \1/p" "$OUT/report_${mode}_$N.txt" >>"$OUT/measured.txt"
            sed -n "s/^max_delay_ms: mean \([0-9.]*\) .*/$N \1/p" "$OUT/report_${mode}_$N.txt" >>"$OUT/realised.txt"
        fi
    done
done
rm -f "$OUT/run.json" "$OUT/run.log"
ld=$(load_note "$l0")
"$PREDICT" --jitter "$J" --base "$OUT/base.txt" --measured "$OUT/measured.txt" >"$OUT/model.txt" ||
    { echo "lab: straggler_predict failed"; exit 1; }
# the table, with the realised delays beside it
awk 'FNR == NR { r[$1] = $2; next } /^#/ { print; next } $1 == "N" { print $0 "  realised_max_ms"; next }
     { printf "%s %15s\n", $0, ($1 in r) ? r[$1] : "" }' "$OUT/realised.txt" "$OUT/model.txt" | tee "$OUT/table.txt"
echo "# measured under $ld" | tee -a "$OUT/table.txt"
if command -v gnuplot >/dev/null 2>&1; then
    {
        echo 'set terminal pngcairo size 1000,600 noenhanced font ",13"'
        echo "set output '$OUT/stragglers.png'"
        printf 'set title "%s\\n%s"\n' "DDP step time under --jitter $J (this machine): model vs measurement" "$ld"
        echo 'set xlabel "ranks N"; set ylabel "step time (ms)"; set grid; set key top left; set logscale x 2; set yrange [0:*]; set offsets graph 0.03, graph 0.03, 0, 0'
        echo "plot '$OUT/model.txt' using 1:4 with linespoints lw 2 title 'model: base + E[max of N delays]', \\"
        echo "     '$OUT/measured.txt' using 1:2 with points pt 7 ps 1.6 title 'measured with jitter', \\"
        echo "     '$OUT/base.txt' using 1:2 with linespoints lw 1 pt 6 title 'measured without jitter (base)'"
    } | gnuplot && echo "lab: wrote $OUT/stragglers.png"
fi
