#!/bin/sh
# The student's measure program, end to end, against an emulated link of known α and β.
set -u
"$MPIRUN" -np 2 "$SUB_BUILD/00-launch/measure" --link-latency-us 300 --link-gbps 2 --max-bytes 1048576 --iters 4 \
    --out ab.json >measure.log 2>&1 || { echo "measure failed:"; tail -n 20 measure.log; exit 1; }
cat measure.log
# {"alpha_s": A, "beta_bytes_per_s": B}
a=$(sed 's/.*"alpha_s": *\([^,}]*\).*/\1/' ab.json)
b=$(sed 's/.*"beta_bytes_per_s": *\([^,}]*\).*/\1/' ab.json)
awk -v a="$a" -v b="$b" 'BEGIN {
    ok = (a > 0.75 * 300e-6 && a < 1.35 * 300e-6 && b > 0.6 * 250e6 && b < 1.25 * 250e6)
    printf "fitted alpha = %.1f us (emulated 300), beta = %.1f MB/s (emulated 250)\n", a * 1e6, b / 1e6
    if (!ok) print "FAIL: the fit is too far from the emulated link (alpha within 25%, beta within 40% expected)"
    exit !ok }'
