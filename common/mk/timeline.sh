#!/bin/sh
# timeline.sh TRACE.json.tsv OUT.png [FIRST_STEP] [STEPS] [TITLE] [LOAD]
#
# Draw the spans of a trainer's --trace (the .tsv written next to the JSON) as a timeline: one row
# per rank and track (compute, comm), a few steps wide, so that the overlap of all-reduces with
# backward can be seen without Perfetto. Skips the first steps (warm-up) by default. A key names
# every colour; the picture is 1000 px wide with large type, so that it stays legible shrunk into a
# page's column. LOAD is the machine's load during the run, printed under the title (a caller that
# ran it passes common/mk/load.sh's note); without it, the load when the plot is drawn, said so.
set -eu
tsv=$1
png=$2
first=${3:-2}
steps=${4:-3}
title=${5:-DDP timeline}
. "$(dirname "$0")/load.sh"
load=${6:-"load $(load_now) on $(load_cores) cores when drawn (the run's is not known here)"}
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
            seen[c] = 1
            printf "%.3f %.3f %.3f %d %.2f %.2f %d\n", (a[i] + b[i]) / 2 - lo, a[i] - lo, b[i] - lo, row, row - h, row + h, c > dat
            if (row + 1 > rows) rows = row + 1
        }
        printf "%d %.3f %d %d\n", rows, hi - lo, (16625259 in seen), (10066329 in seen)
    }' "$tsv" >"$dat.meta"
rows=$(cut -d' ' -f1 "$dat.meta")
span=$(cut -d' ' -f2 "$dat.meta")
other_coll=$(cut -d' ' -f3 "$dat.meta")
other=$(cut -d' ' -f4 "$dat.meta")
ytics=$(awk -v n="$rows" 'BEGIN { for (i = 0; i < n; i++) printf "%s\"rank %d %s\" %d", i ? ", " : "", int(i / 2), i % 2 ? "comm" : "compute", i }')
# the key: the five colours always (a run without one of them shows that it had none), the
# two rarer ones where the window has them
key='keyentry with boxes fc rgb "#3182bd" title "forward", keyentry with boxes fc rgb "#31a354" title "backward (one box per layer)", keyentry with boxes fc rgb "#756bb1" title "optimizer", keyentry with boxes fc rgb "#de2d26" title "waiting for all-reduces", keyentry with boxes fc rgb "#fd8d3c" title "all-reduce"'
[ "$other_coll" = 1 ] && key="$key"', keyentry with boxes fc rgb "#fdae6b" title "other collective"'
[ "$other" = 1 ] && key="$key"', keyentry with boxes fc rgb "#999999" title "other (e.g. gradient hooks)"'
gnuplot <<GP
set terminal pngcairo size 1000,$((190 + rows * 55)) noenhanced font ",15"
set output "$png"
set title "$title\n$load"
set xlabel "time (ms)"
set xrange [0:$span]
set yrange [-0.6:$rows - 0.4]
set ytics ($ytics)
set grid xtics
set key below horizontal maxcols 3 reverse Left samplen 1.5 width 1
set style fill solid 0.9 border lc rgb "#444444"
plot "$dat" using 1:4:2:3:5:6:7 with boxxyerror fc rgb variable notitle, $key
GP
rm -f "$dat.meta"
echo "wrote $png (compute: blue forward, green backward per layer, purple optimizer, red waiting; comm: orange all-reduce)"
