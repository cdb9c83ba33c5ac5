#!/bin/sh
# lab.sh — the topology lab: the flat ring (placement block and spread) against the hierarchical
# all-reduce on emulated two-level clusters, measured (bench_topology) beside the lesson's cost model.
#
#   sh lessons/11-topology/lab.sh [OUT_DIR]          (make topology runs it into out/topology)
#
# For every shape MxK of LAB_SHAPES (default "2x2 2x4 4x2") and every size from LAB_BEGIN (4K) to
# LAB_END (64M), ×2: bench_topology once with --placement block (ring and hier) and once with
# --placement spread (ring), nvlink inside the nodes and ib-hdr across, one card per rank. The links
# are played back LAB_SLOWDOWN (1000, the course's default) times slower than real: the flat ring's
# 64 MiB call then takes about 5 s, and the CPU's own copies and additions (which the emulator does
# not slow down) stay a small part of the time. Only the ratios mean something, not the seconds.
# Writes out/topology/MxK.tsv (every row), table.txt (measured and model side by side, the crossover
# size per shape, the mean distance from the model) and topology.png (one panel per shape: the
# model's lines, the measured points, the load average before→after in each title).
# bench_topology is your lesson's build where hier.c is yours (no DP_TODO() left), else the
# reference's (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-out/topology}
mkdir -p "$OUT"
. "$ROOT/common/mk/lab_build.sh"
lab_use B 11-topology bench_topology
. "$ROOT/common/mk/load.sh"
SHAPES=${LAB_SHAPES:-2x2 2x4 4x2}
F="--begin ${LAB_BEGIN:-4K} --end ${LAB_END:-64M} --factor 2 --intra nvlink --inter ib-hdr --nic rank --link-slowdown ${LAB_SLOWDOWN:-1000}"
for s in $SHAPES; do
    case $s in
    [1-9]x[1-9] | [1-9]x[1-9][0-9] | [1-9][0-9]x[1-9]) ;;
    *) echo "lab: LAB_SHAPES: '$s' is not a shape MxK (examples: 2x2 2x4 4x2)" >&2; exit 2 ;;
    esac
done
status=0
: >"$OUT/table.txt"
for s in $SHAPES; do
    M=${s%x*} K=${s#*x}
    N=$((M * K))
    l0=$(load_now)
    for p in block spread; do
        algos=ring,hier
        [ $p = spread ] && algos=ring # hier on spread is hier on block: the same node rings
        # shellcheck disable=SC2086
        grading/mpirun -np "$N" "$B" --topology "$s" --placement $p --algos $algos $F --tsv "$OUT/$s-$p.tsv" \
            >"$OUT/run.log" 2>&1 || { echo "lab: bench_topology on $s, $p failed:"; tail -n 5 "$OUT/run.log"; status=1; }
    done
    note=$(load_note "$l0")
    # one file per shape: size, algorithm (ring-block, ring-spread, hier), measured and model µs
    # one block per algorithm, two blank lines apart (gnuplot's index 0, 1, 2)
    {
        printf '# size\talgo\ttime_us\tmodel_us\tbusbw\n'
        for a in ring-block ring-spread hier; do
            cat "$OUT/$s-block.tsv" "$OUT/$s-spread.tsv" 2>/dev/null | awk -F '\t' -v want=$a '!/^#/ {
                a = $2 == "hier" ? "hier" : $2 "-" $3; if (a == want) printf "%s\t%s\t%s\t%s\t%s\n", $1, a, $4, $7, $6 }'
            printf '\n\n'
        done
        echo "# $note"
    } >"$OUT/$s.tsv"
    echo "$note" >"$OUT/$s.load"
    rm -f "$OUT/$s-block.tsv" "$OUT/$s-spread.tsv"
    {
        echo "== $s: $M nodes of $K ranks, nvlink inside, ib-hdr across, one card per rank (measured under $note) =="
        printf '%10s %12s %12s %12s %12s %12s %10s %10s\n' size ring-block ring-spread hier "model ring" "model hier" \
            "flat/hier" "flat/hier"
        printf '%10s %12s %12s %12s %12s %12s %10s %10s\n' "(B)" "(us)" "(us)" "(us)" "(us)" "(us)" "(measured)" "(model)"
        # the crossover: the smallest size from which hier beats both flat rings at every size above;
        # the distance from the model: the mean of |measured/model - 1| per algorithm
        awk -F '\t' '!/^#/ && NF { t[$1, $2] = $3; m[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; sz[n++] = $1 } }
            END {
                for (i = 0; i < n; i++) {
                    x = sz[i]; f = t[x, "ring-block"] < t[x, "ring-spread"] ? t[x, "ring-block"] : t[x, "ring-spread"]
                    printf "%10d %12.0f %12.0f %12.0f %12.0f %12.0f %10.2f %10.2f\n", x, t[x, "ring-block"],
                        t[x, "ring-spread"], t[x, "hier"], m[x, "ring-block"], m[x, "hier"], f / t[x, "hier"],
                        m[x, "ring-block"] / m[x, "hier"]
                    win[i] = t[x, "hier"] < f; mwin[i] = m[x, "hier"] < m[x, "ring-block"]
                    for (a = 0; a < 3; a++) { al = a == 0 ? "ring-block" : a == 1 ? "ring-spread" : "hier"
                        if (m[x, al] > 0) { d = t[x, al] / m[x, al] - 1; err[al] += d < 0 ? -d : d; cnt[al]++ } }
                }
                c = -1; for (i = n - 1; i >= 0 && win[i]; i--) c = i
                mc = -1; for (i = n - 1; i >= 0 && mwin[i]; i--) mc = i
                printf "crossover (hier beats both flat rings from this size up): measured %s, model %s\n",
                    c < 0 ? "none" : c == 0 ? "every size (" sz[0] " B and up)" : sz[c] " B",
                    mc < 0 ? "none" : mc == 0 ? "every size (" sz[0] " B and up)" : sz[mc] " B"
                printf "measured / model, mean |ratio - 1|: ring-block %.0f%%, ring-spread %.0f%%, hier %.0f%%\n",
                    100 * err["ring-block"] / cnt["ring-block"], 100 * err["ring-spread"] / cnt["ring-spread"],
                    100 * err["hier"] / cnt["hier"]
            }' "$OUT/$s.tsv"
        echo
    } | tee -a "$OUT/table.txt"
done
rm -f "$OUT/run.log"
if command -v gnuplot >/dev/null 2>&1; then
    n=$(echo "$SHAPES" | wc -w)
    w=$((460 * n + 80))
    [ "$w" -lt 820 ] && w=820 # room for the title over a single panel
    {
        echo "set terminal pngcairo size $w,520 noenhanced font \",12\""
        echo "set output '$OUT/topology.png'"
        printf 'set multiplot layout 1,%d title "%s\\n%s"\n' "$n" "all-reduce on an emulated two-level cluster: model (lines) vs measured (points)" "nvlink inside, ib-hdr across, one card per rank, slowdown ${LAB_SLOWDOWN:-1000}"
        # x on powers of two (4K, 16K, ...); y on a log scale: 30 ms to 5 s in one panel
        echo 'set logscale x 2; set logscale y; set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864); set grid; set key top left font ",10"'
        echo 'set xlabel "size (bytes)"; set ylabel "time per call (us)"'
        for s in $SHAPES; do
            printf 'set title "%s\\n%s"\n' "$s" "$(cat "$OUT/$s.load")"
            printf 'plot '
            k=0 sep=""
            for a in ring-block ring-spread hier; do
                k=$((k + 1))
                # model lines for ring-block and ring-spread coincide (one card per rank): dashed for spread
                dt=1
                [ $a = ring-spread ] && dt=2
                printf "%s'%s' index %d using 1:4 with lines lw 2 dt %d lc %d title '%s model', '%s' index %d using 1:3 with points pt %d ps 1.3 lc %d title '%s measured'" \
                    "$sep" "$OUT/$s.tsv" $((k - 1)) "$dt" "$k" "$a" "$OUT/$s.tsv" $((k - 1)) $((k + 4)) "$k" "$a"
                sep=", "
            done
            echo
        done
        echo 'unset multiplot'
    } | gnuplot && echo "lab: wrote $OUT/topology.png"
fi
exit $status
