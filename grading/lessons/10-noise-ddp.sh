#!/bin/sh
# 10-noise-ddp.sh: the noise scale measured inside DDP (train_noise --noise-scale, 2 ranks × 4, 12
# steps, clipping active at 0.3 so that a measurement after the clip shows).
#   prep:  the reference train_noise with the same flags → ref.csv (the judge's oracle)
#   run:   the submission's → noise.csv
#   judge: per step, the submission's |G_b|² (mean over ranks) and |G_B|² against the reference's
#          (rtol 1e-3: the same computation, summed in another order at most); its B_simple against
#          the grader's own formulas and running averages (decay 0.95) applied to ITS logged norms
set -u
. "$GRADING/lessons/lib.sh"
F="--preset tiny --data $FIXTURE_TRAIN --val none --batch 4 --steps 12 --lr 1e-2 --clip 0.3 --log-every 1000 --noise-scale"
case ${PHASE:-run} in
prep)
    "$MPIRUN" -np 2 "$REF_BUILD/10-limits/train_noise" $F --loss-csv "$PWD/ref.csv" >ref.log 2>&1 ||
        { echo "grader error: the reference train_noise failed:"; tail -n 5 ref.log; exit 2; }
    ;;
run)
    launch 2 noise.log "$PROGS/10-limits/train_noise" $F --loss-csv noise.csv
    ;;
judge)
    launched noise.log "train_noise --noise-scale on 2 ranks" || exit 1
    [ -f "$RUN_DIR/noise.csv" ] || { echo "train_noise wrote no loss CSV"; exit 1; }
    awk -F, -v clip=0.3 'FNR == 1 { next }
        FNR == NR { rs[$1] = $5; rb[$1] = $6; rl[$1] = $2; nref++; next }
        function off(a, b) { return (a - b) > 1e-3 * (b > 0 ? b : -b) || (b - a) > 1e-3 * (b > 0 ? b : -b) }
        { n++; step = $1; s = $5 + 0; b = $6 + 0
          if (!(step in rs)) { printf "FAIL: step %s is not a step of the run\n", step; bad = 1; exit 1 }
          if ($5 == "" || $6 == "" || $5 == "nan" || $6 == "nan") { printf "FAIL: step %d: no |G_b|², |G_B|² logged (%s, %s): nd->small_sq and nd->big_sq are not set\n", step, $5, $6; bad = 1; exit 1 }
          if (off(b, rb[step])) {
              hint = b == 0 ? " — nothing measured: set nd->big_sq (ops_sumsq of the averaged gradient)" : b <= clip * clip * 1.0001 && rb[step] > clip * clip * 1.01 ? " — it is at most clip² = " clip * clip ": you measured the CLIPPED gradient; take |G_B|² before clip_grad_norm" : (b > 0 && !off(b, 4 * rb[step]) ? " — 4× too big: measured before the average (or with its 1/N undone)?" : "")
              printf "FAIL: step %d: |G_B|² = %.9g, the reference measures %.9g%s\n", step, b, rb[step], hint; bad = 1; exit 1 }
          if (off(s, rs[step])) {
              hint = !off(s, 2 * rs[step]) ? " — twice the reference: the SUM over the 2 ranks, not their mean" : (!off(s, rb[step]) ? " — that is |G_B|²: |G_b|² is each rank'"'"'s own gradient, before the all-reduce" : " — the mean over the ranks of each rank'"'"'s |g_b|² (nd->local_sq), in the all-reduce of the loss")
              printf "FAIL: step %d: |G_b|² = %.9g, the reference measures %.9g%s\n", step, s, rs[step], hint; bad = 1; exit 1 }
          if (off($2, rl[step])) { printf "FAIL: step %d: loss %s, the reference %s: the mean over the ranks of the loss\n", step, $2, rl[step]; bad = 1; exit 1 }
          # the grader'"'"'s estimator on the logged norms (decay 0.95, averages from 0)
          lb = 4; LB = 8; g2 = (LB * b - lb * s) / (LB - lb); tr = (s - b) / (1 / lb - 1 / LB)
          ga = 0.95 * ga + 0.05 * g2; ta = 0.95 * ta + 0.05 * tr
          want = ga > 0 ? ta / ga : "nan"; got = $9
          if (want == "nan" ? got != "nan" && got != "-nan" : (got == "nan" || off(got + 0, want))) {
              printf "FAIL: step %d: B_simple = %s, but the estimator on your logged |G_b|² = %.9g and |G_B|² = %.9g gives %s (running averages, decay 0.95)\n", step, got, s, b, want; bad = 1; exit 1 }
          last = got }
        END { if (bad) exit 1
              if (n != nref || n < 12) { printf "FAIL: %d steps logged, expected %d\n", n, nref; exit 1 }
              printf "|G_b|², |G_B|² (before clipping) and the loss equal the reference'"'"'s over %d steps; B_simple follows from them (the grader'"'"'s formulas): %s at the end\n", n, last }' \
        "$PWD/ref.csv" "$RUN_DIR/noise.csv"
    ;;
esac
