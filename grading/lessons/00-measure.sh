#!/bin/sh
# The student's measure program, end to end, against an emulated link of known α and β.
#   run:   measure on 2 ranks → ab.json (the fitted α and β)
#   judge: the fit must be near the emulated link
set -u
. "$GRADING/lessons/lib.sh"
case $PHASE in
run)
    launch 2 measure.log "$PROGS/00-launch/measure" --link-latency-us 300 --link-gbps 2 --max-bytes 1048576 --iters 4 --out ab.json
    ;;
judge)
    launched measure.log "measure" || exit 1
    head -c 4000 "$RUN_DIR/measure.log"
    a=$(sed -n 's/.*"alpha_s": *\([-+0-9.eE]*\).*/\1/p' "$RUN_DIR/ab.json" | head -n 1)
    b=$(sed -n 's/.*"beta_bytes_per_s": *\([-+0-9.eE]*\).*/\1/p' "$RUN_DIR/ab.json" | head -n 1)
    [ -n "$a" ] && [ -n "$b" ] || { echo "FAIL: measure wrote no alpha_s and beta_bytes_per_s to ab.json"; exit 1; }
    awk -v a="$a" -v b="$b" 'BEGIN {
        ok = (a > 0.75 * 300e-6 && a < 1.35 * 300e-6 && b > 0.6 * 250e6 && b < 1.25 * 250e6)
        printf "fitted alpha = %.1f us (emulated 300), beta = %.1f MB/s (emulated 250)\n", a * 1e6, b / 1e6
        if (!ok) print "FAIL: the fit is too far from the emulated link (alpha within 25%, beta within 40% expected)"
        exit !ok }'
    ;;
esac
