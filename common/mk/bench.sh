#!/bin/sh
# bench.sh — `make bench`: the all-reduce benchmark at 2, 3 and 4 ranks, its plot, and the ratios
# the lessons talk about, all measured in this run (nothing is compared with remembered numbers).
#
#   out/bench/allreduce_np{2,3,4}.tsv   every row (size, algorithm, time, algbw, busbw, #wrong)
#   out/bench/allreduce_link_np4.tsv    4 ranks over an emulated link (α = 200 µs, β = 1 GB/s): the
#                                       latency-bound regime, where the tree beats the ring
#   out/bench/allreduce_busbw.png       busbw against size, one panel per run
#   out/bench/ddp_buckets.tsv, .png     DDP step time against bucket_cap_mb, overlap on and off, on 2
#                                       ranks over the emulated nvlink preset (lesson 05)
#   out/bench/gpt_speed.tsv             GPT training tokens/s (gpt-small, lesson 01's CPU reference) at
#                                       1 and 2 threads, and PyTorch's on the same model and work when
#                                       $PYTHON (default python3) imports torch: PyTorch is not a course
#                                       dependency, so without it the comparison is one line saying so.
#                                       Then the parity of loss and gradients (lessons/01-trainer/gpt_torch.py)
# BENCH_END=64M BENCH_FACTOR=4 BENCH_NPS="2 3 4" change the sweep; BENCH_GPT_STEPS (10) and
# BENCH_GPT_THREADS ("1 2") the GPT's. Exit status 1 if any result was wrong.
# BENCH_QUICK=1 make bench: the short form (about 10 s on 2 cores; for tests): every part, and every
# file above but allreduce_np{3,4}.tsv, on 2 ranks up to 1 MiB, one bucket cap, 2 DDP steps, one GPT
# step on one thread — BENCH_NPS=2 BENCH_END=1M BENCH_FACTOR=4 BENCH_CAPS=1 BENCH_DDP_STEPS=2
# BENCH_GPT_STEPS=1 BENCH_GPT_THREADS=1, each of which, given, still wins.
# Each program (bench_allreduce, train_ddp, bench_gpt) is your lesson's build where the lesson is
# yours (no DP_TODO() left in its files), else the reference's: the bench says which on stderr
# (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side). The build is ${O:-build}.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    : "${BENCH_NPS:=2}" "${BENCH_END:=1M}" "${BENCH_FACTOR:=4}" "${BENCH_CAPS:=1}" "${BENCH_DDP_STEPS:=2}" \
        "${BENCH_GPT_STEPS:=1}" "${BENCH_GPT_THREADS:=1}"
fi
OUT=${BENCH_OUT:-out/bench}
mkdir -p "$OUT"
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
lab_use B 04-ring-allreduce bench_allreduce
lab_use D 05-ddp train_ddp
lab_use G 01-trainer bench_gpt
# One copy through shared memory instead of two, where the kernel lets processes read each other.
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" = 0 ] && export DP_MPI_SINGLE_COPY=1
status=0
for np in ${BENCH_NPS:-2 3 4}; do
    echo "== all-reduce, $np ranks =="
    grading/mpirun -np "$np" "$B" --begin 8 --end "${BENCH_END:-64M}" --factor "${BENCH_FACTOR:-2}" \
        --tsv "$OUT/allreduce_np$np.tsv" || status=1
    echo
done

echo "== all-reduce, 4 ranks, emulated link: alpha = 200 us, beta = 1 GB/s =="
grading/mpirun -np 4 "$B" --begin 8 --end 4M --factor 4 --algos naive,ring,tree --warmup 1 --iters 3 \
    --link-latency-us 200 --link-gbps 8 --tsv "$OUT/allreduce_link_np4.tsv" || status=1
awk -F '\t' '/^#/ { next } { t[$1 "," $3] = $4; s[$1] = 1 }
    END { cross = ""; for (x in s) { d = t[x ",tree"] < t[x ",ring"]; if (!d && (cross == "" || x + 0 < cross + 0)) cross = x }
          printf "the ring first beats the tree at %s bytes (the model puts the crossover at 0.8·alpha·beta = 160000 bytes)\n", cross }' "$OUT/allreduce_link_np4.tsv"
echo

echo "== ratios measured in this run (busbw, messages of 1 MiB and more) =="
for np in ${BENCH_NPS:-2 3 4}; do
    awk -F '\t' -v np="$np" '
        /^#/ { next }
        { bw[$1 "," $3] = $6; sizes[$1] = 1; memcpy = $9 }
        END {
            printf "np=%d  ring/lib:", np
            n = 0
            for (s in sizes) if (s + 0 >= 1048576) list[++n] = s + 0
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
            for (i = 1; i <= n; i++) {
                s = list[i]; r = bw[s ",ring"] / bw[s ",lib"]; p = bw[s ",ring-pipe"] / bw[s ",lib"]
                printf "  %gMiB %.2fx (pipelined %.2fx)", s / 1048576, r, p
            }
            printf "\n"
            if (np == 2 && bw["16777216,ring"] > 0)
                printf "np=2  16 MiB: ring busbw %.2f GB/s = %.0f%% of one thread'"'"'s memcpy (%.2f GB/s); pipelined %.0f%%\n",
                    bw["16777216,ring"], 100 * bw["16777216,ring"] / memcpy, memcpy, 100 * bw["16777216,ring-pipe"] / memcpy
        }' "$OUT/allreduce_np$np.tsv"
done

echo
echo "== DDP (lesson 05): step time against bucket_cap_mb, 2 ranks, --link nvlink =="
DF="--data $lab_dir/data/words-train.tok --hidden 384 --layers 6 --batch 512 --steps ${BENCH_DDP_STEPS:-8} --log-every 1000 --val none --link nvlink"
printf '# bucket_cap_mb\tbuckets\tstep_ms_overlap\tstep_ms_no_overlap\n' >"$OUT/ddp_buckets.tsv"
printf '%14s %8s %16s %16s %8s\n' bucket_cap_mb buckets "overlap on (ms)" "overlap off (ms)" saved
for cap in ${BENCH_CAPS:-0.05 0.25 1 4 25}; do
    on=$(grading/mpirun -np 2 "$D" $DF --bucket-cap-mb "$cap" 2>&1) || status=1
    off=$(grading/mpirun -np 2 "$D" $DF --bucket-cap-mb "$cap" --no-overlap 2>&1) || status=1
    nb=$(echo "$on" | sed -n 's/.*ddp: \([0-9]*\) bucket.*/\1/p')
    t_on=$(echo "$on" | sed -n 's/^mean \([0-9.]*\) ms.*/\1/p')
    t_off=$(echo "$off" | sed -n 's/^mean \([0-9.]*\) ms.*/\1/p')
    printf '%s\t%s\t%s\t%s\n' "$cap" "$nb" "$t_on" "$t_off" >>"$OUT/ddp_buckets.tsv"
    awk -v c="$cap" -v n="$nb" -v a="$t_on" -v b="$t_off" 'BEGIN { printf "%14s %8s %16.1f %16.1f %7.0f%%\n", c, n, a, b, 100 * (b - a) / b }'
done

echo
echo "== GPT training speed (lesson 01's CPU reference): gpt-small, batch 4x128, forward+backward+AdamW =="
GT=lessons/01-trainer/gpt_torch.py
PYTHON=${PYTHON:-python3}
GA="--model gpt-small --batch 4 --seq 128 --warmup 3 --steps ${BENCH_GPT_STEPS:-10}"
if "$PYTHON" -c 'import torch' >/dev/null 2>&1; then torch=1; else
    torch=0
    echo "PyTorch comparison skipped: $PYTHON cannot import torch (not a course dependency; PYTHON=/path/to/python make bench picks another interpreter)"
fi
printf '# threads\tours_tokens_per_s\ttorch_tokens_per_s\n' >"$OUT/gpt_speed.tsv"
printf '%8s %16s %16s %14s\n' threads "ours (tok/s)" "PyTorch (tok/s)" ours/PyTorch
for th in ${BENCH_GPT_THREADS:-1 2}; do
    ours=$("$G" $GA --threads "$th" | sed -n 's/^tokens_per_s \([0-9.]*\).*/\1/p')
    [ -n "$ours" ] || { echo "bench_gpt --threads $th gave no tokens_per_s line"; status=1; continue; }
    ref=
    [ "$torch" = 1 ] && ref=$("$PYTHON" "$GT" bench $GA --threads "$th" | sed -n 's/^tokens_per_s \([0-9.]*\).*/\1/p')
    printf '%s\t%s\t%s\n' "$th" "$ours" "$ref" >>"$OUT/gpt_speed.tsv"
    awk -v t="$th" -v a="$ours" -v b="$ref" 'BEGIN { if (b == "") printf "%8s %16.0f %16s %14s\n", t, a, "-", "-"
        else printf "%8s %16.0f %16.0f %13.2fx\n", t, a, b, a / b }'
done
if [ "$torch" = 1 ]; then
    # The same parameters and batch through both: loss and every gradient within float32 rounding.
    if "$G" --model gpt-small --batch 2 --seq 128 --dump "$OUT/gpt_parity.bin" >/dev/null; then
        par=$("$PYTHON" "$GT" parity "$OUT/gpt_parity.bin") || status=1
        echo "$par"
    else status=1; fi
fi

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP && echo "wrote $OUT/ddp_buckets.png"
set terminal pngcairo size 900,500 noenhanced
set output "$OUT/ddp_buckets.png"
set title "DDP step time against bucket_cap_mb (2 ranks, emulated nvlink, 1.0 M parameters)"
set logscale x; set xlabel "bucket_cap_mb"; set ylabel "ms per step"; set grid; set key top right
plot "$OUT/ddp_buckets.tsv" using 1:3 with linespoints lw 2 title "overlap on", \
     "$OUT/ddp_buckets.tsv" using 1:4 with linespoints lw 2 title "overlap off (all buckets after backward)"
GP
    {
        echo 'set terminal pngcairo size 1400,900 noenhanced'
        echo "set output '$OUT/allreduce_busbw.png'"
        echo 'set multiplot layout 2,2 title "all-reduce bus bandwidth (float32 sum, in place), measured in one run"'
        echo 'set logscale x 2; set format x "%.0s%cB"; set xlabel "message size"; set ylabel "busbw (GB/s)"; set grid'
        echo 'set key top left'
        for f in "$OUT"/allreduce_np*.tsv "$OUT/allreduce_link_np4.tsv"; do
            [ -s "$f" ] || continue
            col=6
            case $f in *link*)
                echo "set title '4 ranks, emulated link (alpha 200 us, beta 1 GB/s): time per call'"
                echo 'set logscale y; set ylabel "time per all-reduce (us)"; set key top left'
                col=4 ;;
            *) echo "set title '$(basename "$f" .tsv | sed 's/allreduce_np//') ranks, shared memory'" ;; esac
            printf 'plot '
            sep=""
            for a in naive ring tree ring-pipe lib; do
                grep -q "	$a	" "$f" || continue
                printf "%s'< grep \"\t%s\t\" %s' using 1:%s with linespoints title '%s'" "$sep" "$a" "$f" "$col" "$a"
                sep=", "
            done
            echo
        done
        echo 'unset multiplot'
    } >"$OUT/allreduce_busbw.gp"
    gnuplot "$OUT/allreduce_busbw.gp" && echo "wrote $OUT/allreduce_busbw.png"
fi
exit $status
