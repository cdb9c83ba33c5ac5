#!/bin/sh
# 10-stragglers.sh: the submission's straggler model, as a program (straggler_predict), on the inputs
# of real DDP runs under seeded jitter (exp:20 on 1, 2, 4, 8 ranks, the reference trainer): its
# predictions must equal the reference model's (to 0.01%: a pure function, no timing), and the
# measured increase of the step over the same run without jitter must follow the model.
#   prep:  the lab measures the REFERENCE DDP trainer with and without jitter; a measurement the
#          reference model misses (the rule below) is taken again, up to 3 times → input/base.txt
#          (the model's inputs), the measured steps and realised delays, the reference predictions
#   run:   the submission's straggler_predict on those inputs
#   judge: its predictions against the reference model's (exact), then against the measurement —
#          or, when even the reference model could not fit 3 measurements (a machine too busy to
#          measure), the exact comparison alone decides, said so
#
# The rule for the measurement: with E = the model's E[max of N delays] and R = the mean of the
# largest delay each measured step actually drew (the delays are seeded: the run's --stats records
# them), the measured increase of the step (with jitter − without, same N), corrected for the luck
# of the draw (− (R − E), E the REFERENCE model's, whatever the submission says), must be within
# 20% + 3 ms of E. The 20% + 3 ms is the OS waking a rank late on a machine whose ranks outnumber
# its cores (measured here on 2 busy cores: corrected increases 1-29% off, median 6%).
set -u
. "$GRADING/lessons/lib.sh"
JIT=exp:20
# MODEL_TABLE MEASURED REALISED REFERENCE_TABLE → a line per N and exit 1 when one is outside the rule
fit() {
    # files in turn (counted, not named: the reference table may be the model table itself)
    awk 'FNR == 1 { f++ } f == 1 { m[$1] = $2; next } f == 2 { r[$1] = $2; next }
        f == 3 { if ($1 ~ /^[0-9]+$/ && NF >= 4) ref[$1] = $4 - $2; next }
        $1 ~ /^[0-9]+$/ && NF >= 4 { N = $1; if (!(N in m) || !(N in r) || !(N in ref) || seen[N]++) next; n++
          base = $2; pred = $4; E = pred - base; inc = m[N] - base; luck = r[N] - ref[N]
          ok = pred ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && E > 0
          if (!ok) { printf "N=%d: predicted %s: not a step above the base %.3f ms\n", N, pred, base; bad++; next }
          allow = 0.2 * ref[N] + 3; err = inc - luck - E
          printf "N=%d: E[max] %.3f ms, measured increase %.3f ms, realised delays %+.3f ms off E: %+.3f ms off (allowed ±%.3f)\n", N, E, inc, luck, err, allow
          if (!(err <= allow && -err <= allow)) bad++ }
        END { if (n < 4) { print "grader error: fewer than 4 measurements"; exit 2 } exit bad > 0 }' "$2" "$3" "$4" "$1"
}
case $PHASE in
prep)
    try=1
    while :; do
        rm -rf lab
        LAB_NS="1 2 4 8" LAB_JITTER=$JIT LAB_STEPS=40 LAB_DATA="--data $FIXTURE_TRAIN" LAB_BUILD="$REF_BUILD" \
            LAB_PREDICT="$REF_BUILD/10-limits/straggler_predict" \
            sh "$ROOT/lessons/10-limits/straggler_lab.sh" "$PWD/lab" >lab.log 2>&1 || { echo "grader error: the lab failed:"; tail -n 15 lab.log; exit 2; }
        fit lab/model.txt lab/measured.txt lab/realised.txt lab/model.txt >fit.txt && break
        [ $try = 3 ] && break
        try=$((try + 1))
    done
    mkdir -p input judge
    cp lab/base.txt input/                             # what the run gets
    cp lab/measured.txt lab/realised.txt lab/model.txt judge/ # what it does not
    awk '$1 ~ /^[0-9]+$/ { print $1, $4 }' lab/model.txt >reference_predictions.txt
    { fit lab/model.txt lab/measured.txt lab/realised.txt lab/model.txt >/dev/null && echo fits || echo busy; } >reference_fit.txt
    echo "$try" >tries.txt
    ;;
run)
    launch 1 model.txt "$PROGS/10-limits/straggler_predict" --jitter "$JIT" --base input/base.txt
    ;;
judge)
    launched model.txt "straggler_predict" || exit 1
    head -c 3000 "$RUN_DIR/model.txt"
    hint="  hint: the step under jitter is the base plus E[max of N delays]: for exp:MEAN, MEAN·H_N"
    # 1. a pure function: the same predictions as the reference model
    awk 'FNR == NR { want[$1] = $2; next } $1 ~ /^[0-9]+$/ && NF >= 4 && ($1 in want) && !seen[$1]++ { n++; p = $4
          if (!(p ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) || (p - want[$1] > 1e-4 * want[$1] + 1e-3) || (want[$1] - p > 1e-4 * want[$1] + 1e-3)) {
              printf "N=%d: your model predicts %s ms, the reference model %s ms\n", $1, p, want[$1]; bad++ } }
        END { if (n < 4) { print "your straggler_predict printed no prediction for some N"; exit 1 } exit bad > 0 }' \
        reference_predictions.txt "$RUN_DIR/model.txt" >exact.txt ||
        { cat exact.txt; echo "FAIL: your model's predictions differ from the reference model's for the same inputs"; echo "$hint"; exit 1; }
    # 2. against the machine, when the reference model could measure it
    if [ "$(cat reference_fit.txt)" = fits ]; then
        fit "$RUN_DIR/model.txt" judge/measured.txt judge/realised.txt judge/model.txt >measured.txt ||
            { cat measured.txt; echo "FAIL: a measured increase is outside the model's allowance"; echo "$hint"; exit 1; }
        cat measured.txt
        awk '{ v = $0; sub(/ ms off \(allowed.*/, "", v); sub(/.*: /, "", v); v += 0; if (v < 0) v = -v
               al = $0; sub(/.*allowed ±/, "", al); al += 0; if (al > 0 && v / al > w) w = v / al }
             END { printf "margin: the model equals the reference; the worst measured step used %.0f%% of its allowance\n", 100 * w }' measured.txt
        [ "$(cat tries.txt)" = 1 ] || echo "(measured $(cat tries.txt) times: the machine is busy)"
    else
        echo "(this machine was too busy to measure: even the reference model missed 3 measurements; your predictions equal the reference model's for the same inputs, and that decides)"
        echo "margin: the model equals the reference to 0.01%; the measurement was too noisy to compare with"
    fi
    ;;
esac
