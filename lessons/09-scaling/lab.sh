#!/bin/sh
# lab.sh — the scaling lab: measure the lesson-05 DDP trainer on N ranks under an emulated link,
# predict the same runs with the cost model (scaling_model, your scaling.c), compare, and plot.
#
#   sh lessons/09-scaling/lab.sh [OUT_DIR]          (make scaling runs it into out/scaling)
#
# Strong scaling: a FIXED global batch (LAB_BATCH, default 3360 = a multiple of 1..8) split over N
# ranks, one bucket, no overlap — so a step is compute/min(N, cores) plus the all-reduces, which is
# what the model says. One bucket because --bucket-cap-mb is explicit: like PyTorch, an explicit cap
# applies to the first bucket too (only the unset default has a 1 MiB first bucket); the model is
# given the run's own bucket count from --ddp-log all the same. The ranks share this machine's cores; the emulated link (not the CPU) is what
# the extra ranks cost. For every link (LAB_LINKS, default "nvlink ib": fast in-node, slow
# cross-node) and N in LAB_NS (default 1..8): out/model_<link>.txt (predicted and measured step
# times, speed-up, efficiency T1/(N·TN), error), and scaling.png.
# The trainer and the model are your lessons' where lessons 05 and 09 are yours (no DP_TODO() left),
# else the reference's: the lab says which (common/mk/lab_build.sh; LAB_STACK=reference|own forces
# one side). LAB_BUILD=dir (a build's solutions/ or lessons/ folder) and LAB_MODEL=program name them
# instead (the grader does).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/scaling}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
if [ -n "${LAB_BUILD:-}" ]; then DDP=$LAB_BUILD/05-ddp/train_ddp; else lab_use DDP 05-ddp train_ddp; fi
if [ -n "${LAB_MODEL:-}" ]; then MODEL=$LAB_MODEL; else lab_use MODEL 09-scaling scaling_model; fi
. "$ROOT/common/mk/load.sh"
G=${LAB_BATCH:-3360}
NS=${LAB_NS:-1 2 3 4 5 6 7 8}
CORES=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
F="--hidden 256 --layers 2 --steps ${LAB_STEPS:-8} --log-every 100000 --val none --bucket-cap-mb 1000 --no-overlap --data $lab_dir/data/words-train.tok ${LAB_DATA:-}"
status=0
lab_l0=$(load_now)
for link in ${LAB_LINKS:-nvlink ib}; do
    : >"$OUT/measured_$link.txt"
    l0=$(load_now)
    for N in $NS; do
        if [ $((G % N)) != 0 ]; then echo "lab: global batch $G is not divisible by $N" >&2; exit 2; fi
        grading/mpirun -np "$N" "$DDP" $F --batch $((G / N)) --link "$link" \
            --trace "$OUT/run.json" --ddp-log "$OUT/run_ddp.json" >"$OUT/run.log" 2>&1 ||
            { echo "lab: the run on $N ranks failed:"; tail -n 5 "$OUT/run.log"; exit 1; }
        # the MEDIAN step time on rank 0, warm-up (3 steps: first touches, caches) excluded. A median,
        # not a mean: ranks share the cores, and one step that the OS delays would drag a mean of a few
        # steps 20-30% away from what the link and the compute cost.
        ms=$(awk -F '\t' '$1 == 0 && $5 == "step" { k++; if (k > 3) t[n++] = $4 - $3 }
            END { if (n == 0) exit 1; for (i = 1; i < n; i++) for (j = i; j > 0 && t[j - 1] > t[j]; j--) { x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
                  printf "%.3f", n % 2 ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2 }' "$OUT/run.json.tsv") ||
            { echo "lab: no step after the warm-up on $N ranks: give LAB_STEPS > 3" >&2; exit 2; }
        echo "$N $ms" >>"$OUT/measured_$link.txt"
    done
    P=$(sed -n 's/^train_ddp: \([0-9]*\) parameters.*/\1/p' "$OUT/run.log" | head -n 1)
    nb=$(sed -n 's/.*"nbuckets": *\([0-9]*\).*/\1/p' "$OUT/run_ddp.json")
    c1=$(awk '$1 == 1 { print $2 }' "$OUT/measured_$link.txt")
    # the model's inputs, kept so that another model (a submission's, in the grader) predicts the same runs
    echo "--compute-ms $c1 --bytes $((P * 4)) --buckets $nb --cores $CORES --link $link --max-ranks 8" >"$OUT/model_args_$link.txt"
    # shellcheck disable=SC2046
    "$MODEL" $(cat "$OUT/model_args_$link.txt") --measured "$OUT/measured_$link.txt" | tee "$OUT/model_$link.txt" || status=1
    # the model's error grows with the machine's load: every measurement is printed beside it
    echo "# measured under $(load_note "$l0")" | tee -a "$OUT/model_$link.txt"
    echo
done
rm -f "$OUT/run.json" "$OUT/run.json.tsv" "$OUT/run_ddp.json"
lab_load=$(load_note "$lab_l0")
# Where a measured speed-up falls well (10%) below the model's, one line on the plot says the usual
# reason: the model gives the ranks min(N, cores) cores, and other work on a shared machine takes some
note=$(for link in ${LAB_LINKS:-nvlink ib}; do cat "$OUT/model_$link.txt"; done |
    awk -v cores="$CORES" '$1 ~ /^[0-9]+$/ && $1 > 1 && $7 != "" && $7 + 0 < 0.9 * $4 { low = 1 }
        END { if (low) printf "measured speed-ups below the model: other work on these %s shared cores takes the cores the model gives the ranks (see lesson 09)", cores }')
if command -v gnuplot >/dev/null 2>&1; then
    {
        echo 'set terminal pngcairo size 1300,560 noenhanced font ",13"'
        echo "set output '$OUT/scaling.png'"
        printf 'set multiplot layout 1,2 title "%s\\n%s"\n' "strong scaling of DDP (fixed global batch, this machine, emulated links): model vs measurement" "$lab_load"
        echo 'set xlabel "ranks N"; set grid; set key top right; set xrange [0.8:8.2]; set yrange [0:*]'
        [ -n "$note" ] && printf 'set bmargin 5\nset label 1 "%s" at screen 0.01, screen 0.03 left font ",12" tc rgb "#a50f15"\n' "$note"
        # one panel: the model's column MODEL_COL as lines, the measurement's MEASURED_COL as points, per link
        panel() { # YLABEL MODEL_COL MEASURED_COL
            echo "set ylabel \"$1\""
            printf 'plot '
            sep="" k=0
            for link in ${LAB_LINKS:-nvlink ib}; do
                # one colour per link, for its model's line and its measured points alike
                k=$((k + 1))
                printf "%s'%s' using 1:%d every ::2 with lines lw 2 lc %d title '%s model', '%s' using 1:%d every ::2 with points pt 7 ps 1.5 lc %d title '%s measured'" \
                    "$sep" "$OUT/model_$link.txt" "$2" "$k" "$link" "$OUT/model_$link.txt" "$3" "$k" "$link"
                sep=", "
            done
            echo
        }
        panel "speed-up T1/TN" 4 7
        echo 'unset label 1' # drawn once, not once per panel
        panel "efficiency T1/(N·TN)" 5 8
        echo 'unset multiplot'
    } | gnuplot && echo "lab: wrote $OUT/scaling.png"
fi
exit $status
