#!/bin/sh
# timeline.sh TRACE.json.tsv OUT.png [FIRST_STEP] [STEPS] [TITLE]
#
# Draw the spans of a trainer's --trace (the .tsv written next to the JSON) as a timeline: one row
# per rank and track (compute, comm), a few steps wide, so that the overlap of all-reduces with
# backward can be seen without Perfetto. Skips the first steps (warm-up) by default.
set -eu
tsv=$1
png=$2
first=${3:-2}
steps=${4:-3}
title=${5:-DDP timeline}
command -v gnuplot >/dev/null 2>&1 || { echo "timeline: gnuplot not found; skipping $png"; exit 0; }
dat=${png%.png}.dat
# the window: from the start of step FIRST to the end of step FIRST+STEPS-1 on rank 0
awk -F '\t' -v first="$first" -v steps="$steps" -v dat="$dat" '
    /^#/ { next }
    { n++; r[n] = $1; tr[n] = $2; a[n] = $3; b[n] = $4; nm[n] = $5
      if ($1 == 0 && $5 == "step") { k++; if (k == first + 1) lo = $3; if (k == first + steps) hi = $4 } }
    END {
        if (lo == "" || hi == "") { lo = 0; hi = 1e30 }
        for (i = 1; i <= n; i++) {
            if (b[i] < lo || a[i] > hi || nm[i] == "step" || nm[i] == "backward" || nm[i] ~ /^fwd /) continue  # layers, "forward" show it
            row = r[i] * 2 + (tr[i] == "comm" ? 1 : 0)
            c = 10066329; h = 0.38
            if (nm[i] == "forward") c = 3244733
            else if (nm[i] ~ /^bwd /) c = 3253076
            else if (nm[i] ~ /^wait/) c = 14560550
            else if (nm[i] ~ /optimizer/) c = 7695281
            else if (nm[i] ~ /^allreduce/) c = 16616764
            else if (nm[i] ~ /^(all_gather|reduce_scatter|gather|scatter)/) c = 16625259
            printf "%.3f %.3f %.3f %d %.2f %.2f %d\n", (a[i] + b[i]) / 2 - lo, a[i] - lo, b[i] - lo, row, row - h, row + h, c > dat
            if (row + 1 > rows) rows = row + 1
        }
        printf "%d %.3f\n", rows, hi - lo
    }' "$tsv" >"$dat.meta"
rows=$(cut -d' ' -f1 "$dat.meta")
span=$(cut -d' ' -f2 "$dat.meta")
ytics=$(awk -v n="$rows" 'BEGIN { for (i = 0; i < n; i++) printf "%s\"rank %d %s\" %d", i ? ", " : "", int(i / 2), i % 2 ? "comm" : "compute", i }')
gnuplot <<GP
set terminal pngcairo size 1400,$((140 + rows * 45)) noenhanced
set output "$png"
set title "$title"
set xlabel "time (ms)"
set xrange [0:$span]
set yrange [-0.6:$rows - 0.4]
set ytics ($ytics)
set grid xtics
unset key
set style fill solid 0.9 border lc rgb "#444444"
plot "$dat" using 1:4:2:3:5:6:7 with boxxyerror fc rgb variable
GP
rm -f "$dat.meta"
echo "wrote $png (compute: blue forward, green backward per layer, purple optimizer, red waiting; comm: orange all-reduce)"
