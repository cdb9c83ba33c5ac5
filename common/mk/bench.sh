#!/bin/sh
# bench.sh — `make bench`: the all-reduce benchmark at 2, 3 and 4 ranks, its plot, and the ratios
# the lessons talk about, all measured in this run (nothing is compared with remembered numbers).
#
#   out/bench/allreduce_np{2,3,4}.tsv   every row (size, algorithm, time, algbw, busbw, #wrong)
#   out/bench/allreduce_link_np4.tsv    4 ranks over an emulated link (α = 200 µs, β = 1 GB/s): the
#                                       latency-bound regime, where the tree beats the ring
#   out/bench/allreduce_busbw.png       busbw against size (algbw on the right axis), one panel per run;
#                                       the emulated link's peak β drawn on its panel
#   out/bench/ddp_buckets.tsv, .png     DDP step time against bucket_cap_mb, overlap on and off, on 2
#                                       ranks over the emulated nvlink preset (lesson 05)
#   out/bench/ring_vs_lib.tsv           the ring against MPI_Allreduce on 2 ranks from 1 MiB, in pairs
#                                       (common/mk/pairs.sh): 5 runs of bench_allreduce --algos ring,lib,
#                                       which times the ring, then the library, at each size
#   out/bench/speed_MODEL_Nt.tsv        training speed against PyTorch, in pairs, when $PYTHON (default
#                                       python3) imports torch: lesson 01's MLP (the trainer's default
#                                       and large presets, batch 64: bench_mlp) and gpt-small (batch 4x128:
#                                       bench_gpt) against the same model and work in gpt_torch.py, with
#                                       torch's default AdamW and its fused one, at 1 and 2 threads. PyTorch
#                                       is not a course dependency: without it, one line says so and the
#                                       course's numbers are printed alone. Then the parity of the GPT's
#                                       loss and gradients (lessons/01-trainer/gpt_torch.py)
# A comparison is a median of 5 pairs, the course then its baseline, with the min-max of the pairs'
# ratios and the load before and after each pair; when the load exceeded the cores during its pairs
# it prints the pairs but no ratio (BENCH_ANY_LOAD=1 prints one anyway); before its first pair it
# waits up to BENCH_SETTLE_S (60) seconds for the load to fall to the cores. Every other table and plot
# says the load before and after it, and every TSV ends with it (common/mk/load.sh).
# Measured: about 10 minutes on 2 otherwise idle cores with PyTorch installed (12.5 at load 2-8 without the waits; each of
# the 7 comparisons may add up to BENCH_SETTLE_S on a busy machine).
# BENCH_END=64M BENCH_FACTOR=4 BENCH_NPS="2 3 4" change the sweep; BENCH_PAIRS (5) the pairs;
# BENCH_MODELS ("mlp-default mlp-large gpt-small"; mlp-PRESET is train --preset PRESET; empty: none),
# BENCH_SPEED_THREADS ("1 2") and BENCH_SPEED_STEPS (10) the speed comparisons. Exit status 1 if any
# result was wrong or missing.
# BENCH_QUICK=1 make bench: the short form (for tests): every part, and every file above but
# allreduce_np{3,4}.tsv, on 2 ranks up to 1 MiB, one bucket cap, 2 DDP steps, ONE pair per comparison
# (its ratio says it is no measurement) with no wait for the load, the default MLP and gpt-small,
# 1 step, one thread — BENCH_NPS=2 BENCH_END=1M BENCH_FACTOR=4 BENCH_CAPS=1 BENCH_DDP_STEPS=2
# BENCH_PAIRS=1 BENCH_SETTLE_S=0 BENCH_MODELS="mlp-default gpt-small" BENCH_SPEED_STEPS=1
# BENCH_SPEED_THREADS=1, each of which, given, still wins. About 6 s on 2 cores, 30 s with PyTorch.
# Each program (bench_allreduce, train_ddp, bench_gpt, bench_mlp) is your lesson's build where the
# lesson is yours (no DP_TODO() left in its files), else the reference's: the bench says which on
# stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side). The build is ${O:-build}.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    : "${BENCH_NPS:=2}" "${BENCH_END:=1M}" "${BENCH_FACTOR:=4}" "${BENCH_CAPS:=1}" "${BENCH_DDP_STEPS:=2}" \
        "${BENCH_PAIRS:=1}" "${BENCH_SETTLE_S:=0}" "${BENCH_MODELS=mlp-default gpt-small}" "${BENCH_SPEED_STEPS:=1}" "${BENCH_SPEED_THREADS:=1}"
fi
OUT=${BENCH_OUT:-out/bench}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
lab_use B 04-ring-allreduce bench_allreduce
lab_use D 05-ddp train_ddp
lab_use G 01-trainer bench_gpt
lab_use M 01-trainer bench_mlp
. "$ROOT/common/mk/load.sh"
. "$ROOT/common/mk/pairs.sh"
# after_table FILE START: the load line under a table, and at the end of its TSV
after_table() {
    n=$(load_note "$2")
    [ -f "$1" ] && echo "# $n" >>"$1"
    echo "(measured under $n)"
}
# One copy through shared memory instead of two, where the kernel lets processes read each other.
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" = 0 ] && export DP_MPI_SINGLE_COPY=1
status=0
for np in ${BENCH_NPS:-2 3 4}; do
    echo "== all-reduce, $np ranks =="
    l0=$(load_now)
    grading/mpirun -np "$np" "$B" --begin 8 --end "${BENCH_END:-64M}" --factor "${BENCH_FACTOR:-2}" \
        --tsv "$OUT/allreduce_np$np.tsv" || status=1
    after_table "$OUT/allreduce_np$np.tsv" "$l0"
    echo
done

# the emulated link: alpha LINK_US, beta LINK_GBPS gigabits/s; the ring's busbw tends to beta (each rank
# sends 2(N-1)/N of the message through its one port), which no all-reduce can pass: the plot's peak
LINK_US=200 LINK_GBPS=8
echo "== all-reduce, 4 ranks, emulated link: alpha = $LINK_US us, beta = $((LINK_GBPS / 8)) GB/s =="
l0=$(load_now)
grading/mpirun -np 4 "$B" --begin 8 --end 4M --factor 4 --algos naive,ring,tree --warmup 1 --iters 3 \
    --link-latency-us "$LINK_US" --link-gbps "$LINK_GBPS" --tsv "$OUT/allreduce_link_np4.tsv" || status=1
after_table "$OUT/allreduce_link_np4.tsv" "$l0"
# for 4 ranks the tree costs 4(alpha + n/beta), the ring 6 alpha + 1.5 n/beta: equal at n = 0.8 alpha beta
CROSS_MODEL=$(awk -v us="$LINK_US" -v g="$LINK_GBPS" 'BEGIN { printf "%.0f", 0.8 * us * 1e-6 * g / 8 * 1e9 }')
awk -F '\t' -v model="$CROSS_MODEL" '/^#/ { next } { t[$1 "," $3] = $4; s[$1] = 1 }
    END { cross = ""; for (x in s) { d = t[x ",tree"] < t[x ",ring"]; if (!d && (cross == "" || x + 0 < cross + 0)) cross = x }
          if (cross == "") printf "the tree beat the ring at every size"; else printf "the ring first beats the tree at %s bytes", cross
          printf " (the model puts the crossover at 0.8·alpha·beta = %s bytes)\n", model }' "$OUT/allreduce_link_np4.tsv"
echo

# One pair: a run of bench_allreduce, which at each size times the ring's calls, then the library's.
ring_lib_pair() {
    grading/mpirun -np 2 "$B" --begin 1M --end "${BENCH_END:-64M}" --factor 4 --algos ring,lib \
        --tsv "$OUT/ring_lib_run.tsv" >/dev/null || return 1
    awk -F '\t' '/^#/ { next } $3 == "ring" { r = $6 }
        $3 == "lib" { printf "ring/MPI_Allreduce, 2 ranks, %g MiB (busbw)\t%s\t%s\n", $1 / 1048576, r, $6 }' "$OUT/ring_lib_run.tsv"
}
pairs "the ring against MPI_Allreduce" ring_lib_pair "$OUT/ring_vs_lib.tsv" || status=1
rm -f "$OUT/ring_lib_run.tsv"
[ -s "$OUT/allreduce_np2.tsv" ] && awk -F '\t' '/^#/ { next } { bw[$1 "," $3] = $6; memcpy = $9 }
    END { if (bw["16777216,ring"] > 0)
        printf "np=2  16 MiB (the sweep above): ring busbw %.2f GB/s = %.0f%% of one thread'"'"'s memcpy (%.2f GB/s); pipelined %.0f%%\n",
            bw["16777216,ring"], 100 * bw["16777216,ring"] / memcpy, memcpy, 100 * bw["16777216,ring-pipe"] / memcpy }' "$OUT/allreduce_np2.tsv"

echo
echo "== DDP (lesson 05): step time against bucket_cap_mb, 2 ranks, --link nvlink =="
DF="--data $lab_dir/data/words-train.tok --hidden 384 --layers 6 --batch 512 --steps ${BENCH_DDP_STEPS:-8} --log-every 1000 --val none --link nvlink"
printf '# bucket_cap_mb\tbuckets\tstep_ms_overlap\tstep_ms_no_overlap\n' >"$OUT/ddp_buckets.tsv"
printf '%14s %8s %16s %16s %8s\n' bucket_cap_mb buckets "overlap on (ms)" "overlap off (ms)" saved
l0=$(load_now)
for cap in ${BENCH_CAPS:-0.05 0.25 1 4 25}; do
    on=$(grading/mpirun -np 2 "$D" $DF --bucket-cap-mb "$cap" 2>&1) || status=1
    off=$(grading/mpirun -np 2 "$D" $DF --bucket-cap-mb "$cap" --no-overlap 2>&1) || status=1
    nb=$(echo "$on" | sed -n 's/.*ddp: \([0-9]*\) bucket.*/\1/p')
    t_on=$(echo "$on" | sed -n 's/^mean \([0-9.]*\) ms.*/\1/p')
    t_off=$(echo "$off" | sed -n 's/^mean \([0-9.]*\) ms.*/\1/p')
    printf '%s\t%s\t%s\t%s\n' "$cap" "$nb" "$t_on" "$t_off" >>"$OUT/ddp_buckets.tsv"
    awk -v c="$cap" -v n="$nb" -v a="$t_on" -v b="$t_off" 'BEGIN { printf "%14s %8s %16.1f %16.1f %7.0f%%\n", c, n, a, b, 100 * (b - a) / b }'
done
after_table "$OUT/ddp_buckets.tsv" "$l0"

echo
GT=lessons/01-trainer/gpt_torch.py
PYTHON=${PYTHON:-python3}
# torch's fused AdamW runs on the CPU from PyTorch 2.4
if "$PYTHON" -c 'import torch; torch.optim.AdamW([torch.zeros(1, requires_grad=True)], fused=True)' >/dev/null 2>&1; then
    torch=1
else
    torch=0
    echo "PyTorch comparison skipped: $PYTHON cannot import torch 2.4 or later (not a course dependency; PYTHON=/path/to/python make bench picks another interpreter); the course's speed alone:"
fi
SA="--warmup 3 --steps ${BENCH_SPEED_STEPS:-10}"
tps() { sed -n 's/^tokens_per_s \([0-9.]*\).*/\1/p'; }
# The course's training step for model $sm (gpt-small, or mlp-PRESET) at $th threads.
course_speed() {
    case $sm in
    gpt-small) "$G" --model gpt-small --batch 4 --seq 128 $SA --threads "$th" ;;
    *) "$M" --preset "${sm#mlp-}" --batch 64 $SA --threads "$th" ;;
    esac
}
# One pair for each of torch's AdamWs: the course, then PyTorch with its default AdamW, then with
# the fused one, on the same model and batch. The MLP's sizes come from bench_mlp's first line.
speed_pair() {
    c=$(course_speed) || return 1
    case $sm in
    gpt-small) targs="--model gpt-small --batch 4 --seq 128" ;;
    *) targs="--model mlp --batch 64 --mlp" ;;
    esac
    sizes=$(echo "$c" | sed -n 's/^mlp --preset [a-z]*: \(vocab=[0-9a-z= ]*[0-9]\) (.*/\1/p')
    for o in adamw fused; do
        # shellcheck disable=SC2086 # targs: words on purpose; the MLP's sizes one argument
        t=$("$PYTHON" "$GT" bench $targs ${sizes:+"$sizes"} $SA --threads "$th" --optim "$o" | tps)
        printf '%s, %s thread(s), vs %s AdamW\t%s\t%s\n' "$sm" "$th" \
            "$([ $o = fused ] && echo fused || echo default)" "$(echo "$c" | tps)" "$t"
    done
}
for sm in ${BENCH_MODELS-mlp-default mlp-large gpt-small}; do
    for th in ${BENCH_SPEED_THREADS:-1 2}; do
        if [ "$torch" = 1 ]; then
            pairs "training speed, $sm, $th thread(s), against PyTorch" speed_pair "$OUT/speed_${sm}_${th}t.tsv" || status=1
            echo
        else
            c=$(course_speed) || status=1
            echo "$sm, $th thread(s): $(echo "$c" | tail -n 1)"
        fi
    done
done
if [ "$torch" = 1 ]; then
    # The same parameters and batch through both: loss and every gradient within float32 rounding.
    if "$G" --model gpt-small --batch 2 --seq 128 --dump "$OUT/gpt_parity.bin" >/dev/null; then
        par=$("$PYTHON" "$GT" parity "$OUT/gpt_parity.bin") || status=1
        echo "$par"
    else status=1; fi
fi

if command -v gnuplot >/dev/null 2>&1; then
    # Where overlap off came out faster, one line on the plot says why, for the case it is: with one
    # bucket nothing can overlap (it starts when backward ends either way); with more, the two threads
    # of a rank share a core here (lesson 05, "Overlap"), more so on a loaded machine.
    note=$(awk -F '\t' -v cores="$(load_cores)" '/^#/ { next } $4 != "" && $4 + 0 < $3 + 0 {
            if ($2 == 1) one = one (one == "" ? "" : ", ") $1; else many = many (many == "" ? "" : ", ") $1 }
        END { if (many != "") printf "overlap off faster at cap %s MB: on %s shared cores the comm thread competes with backward for a core (lesson 05)", many, cores
              else if (one != "") printf "overlap off faster at cap %s MB: one bucket, sent when backward ends either way, so the difference is noise", one }' "$OUT/ddp_buckets.tsv")
    gnuplot <<GP && echo "wrote $OUT/ddp_buckets.png"
set terminal pngcairo size 1000,560 noenhanced font ",13"
set output "$OUT/ddp_buckets.png"
set title "DDP step time against bucket_cap_mb (2 ranks, emulated nvlink, 1.0 M parameters)\n$(sed -n 's/^# load/load/p' "$OUT/ddp_buckets.tsv" | tail -n 1)"
set logscale x; set xlabel "bucket_cap_mb (points labelled with their bucket count)"; set ylabel "ms per step"
set yrange [0:*]; set grid; set key bottom right; set offsets graph 0.08, graph 0.08, graph 0.1, 0
$([ -n "$note" ] && printf 'set bmargin 6\nset label 1 "%s" at screen 0.01, screen 0.03 left font ",12" tc rgb "#a50f15"' "$note")
plot "$OUT/ddp_buckets.tsv" using 1:3 with linespoints lw 2 pt 7 title "overlap on", \
     "$OUT/ddp_buckets.tsv" using 1:4 with linespoints lw 2 pt 5 title "overlap off (all buckets after backward)", \
     "$OUT/ddp_buckets.tsv" using 1:(\$3 > \$4 ? \$3 : \$4):(\$2 == 1 ? "1 bucket" : sprintf("%d buckets", \$2)) with labels offset 0,1 notitle
GP
    # bus bandwidth: one panel per measured TSV of this run, two to a row; size on powers of two
    # labelled in binary units, busbw from 0 on the left axis, algbw = busbw * N / (2(N-1)) on the
    # right (nccl-tests' two columns), and on the emulated link its peak beta
    panels=""
    for np in ${BENCH_NPS:-2 3 4}; do [ -s "$OUT/allreduce_np$np.tsv" ] && panels="$panels $OUT/allreduce_np$np.tsv"; done
    [ -s "$OUT/allreduce_link_np4.tsv" ] && panels="$panels $OUT/allreduce_link_np4.tsv"
    n=0
    for f in $panels; do n=$((n + 1)); done
    cols=$((n < 2 ? n : 2))
    rows=$(((n + 1) / 2))
    {
        echo "set terminal pngcairo size $((cols * 660)),$((rows * 500 + 40)) noenhanced font \",12\""
        echo "set output '$OUT/allreduce_busbw.png'"
        echo "set multiplot layout $rows,$cols title \"all-reduce bandwidth against message size, float32 sum in place: busbw (left axis) and algbw = size/time (right axis)\""
        echo 'set ylabel "busbw (GB/s)"; set y2label "algbw (GB/s)"'
        echo 'set grid xtics ytics; set key below horizontal; set ytics nomirror; set y2tics'
        for f in $panels; do
            # N, the largest busbw, the smallest and largest size, the load line bench.sh appended
            # shellcheck disable=SC2046 # five fields, split into words on purpose
            set -- $(awk -F '\t' '/^# load / { ld = $0; sub(/^# /, "", ld); gsub(/ /, "_", ld); next } /^#/ { next }
                { np = $8; if ($6 > m) m = $6; if (lo == "" || $1 + 0 < lo) lo = $1 + 0; if ($1 + 0 > hi) hi = $1 + 0 }
                END { print np + 0, m + 0, lo + 0, hi + 0, ld == "" ? "load_unknown" : ld }' "$f")
            np=$1 top=$2 lo=$3 hi=$4 ld=$(echo "$5" | tr _ ' ')
            peak=""
            case $f in *link*)
                peak=$(awk -v g="$LINK_GBPS" 'BEGIN { print g / 8 }')
                printf 'set title "%s\\n%s"\n' "$np ranks, emulated link (α = $LINK_US µs, β = $peak GB/s)" "$ld"
                echo "set arrow 1 from $CROSS_MODEL, graph 0 to $CROSS_MODEL, graph 1 nohead dt 3 lc rgb '#636363'"
                echo "set label 1 'model: tree = ring at 0.8·α·β = $CROSS_MODEL B' at $CROSS_MODEL, graph 0.6 right offset -0.5,0 tc rgb '#636363'" ;;
            *) printf 'set title "%s\\n%s"\n' "$np ranks, shared memory (no stated peak)" "$ld"
               echo 'unset arrow 1; unset label 1' ;;
            esac
            # a labelled tick every factor of 16 (16 B, 256 B, 4 KiB ... 16 MiB), a minor one at every power of two
            awk -v lo="$lo" -v hi="$hi" 'function label(s) { return s < 1024 ? s " B" : s < 1048576 ? s / 1024 " KiB" : s < 1073741824 ? s / 1048576 " MiB" : s / 1073741824 " GiB" }
                BEGIN { printf "set logscale x 2; set xrange [%g:%g]; set xtics (", lo / 1.25, hi * 1.25
                        sep = ""; for (k = 0; 2 ^ k <= hi; k++) if (2 ^ k >= lo) {
                            if (k % 4 == 0) printf "%s\"%s\" %.0f", sep, label(2 ^ k), 2 ^ k; else printf "%s\"\" %.0f 1", sep, 2 ^ k
                            sep = ", " }
                        print ")" }'
            awk -v t="$top" -v p="${peak:-0}" -v np="$np" 'BEGIN { m = (p > t ? p : t) * 1.12; if (m <= 0) m = 1
                printf "set yrange [0:%g]\n", m
                if (np > 1) printf "set y2range [0:%g]; set y2tics; set y2label \"algbw (GB/s)\"\n", m * np / (2 * (np - 1))
                else print "unset y2tics; unset y2label" }'
            printf 'plot '
            sep=""
            for a in naive ring tree ring-pipe lib; do
                grep -q "	$a	" "$f" || continue
                printf "%s'< grep \"\t%s\t\" %s' using 1:6 with linespoints lw 2 title '%s'" "$sep" "$a" "$f" "$a"
                sep=", "
            done
            [ -n "$peak" ] && printf "%s%s with lines dt 2 lw 2 lc rgb 'black' title 'link peak β = %s GB/s'" "$sep" "$peak" "$peak"
            echo
        done
        echo 'unset multiplot'
    } >"$OUT/allreduce_busbw.gp"
    gnuplot "$OUT/allreduce_busbw.gp" && echo "wrote $OUT/allreduce_busbw.png"
fi
exit $status
