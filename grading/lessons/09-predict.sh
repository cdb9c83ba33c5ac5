#!/bin/sh
# 09-predict.sh: the submission's cost model, as a program, on the inputs of real DDP runs (1, 2, 4
# ranks, nvlink, emulated): its predictions must equal the reference model's (to 0.01%, overlap off
# AND on: a pure function, no timing), and come within 30% of the measured step times.
#   prep:  the lab measures the REFERENCE DDP trainer and predicts with the reference model; a
#          measurement the reference model misses by more than 30% (a busy machine) is taken again,
#          up to 3 times → input/ (the model's inputs), the measured step times and the reference
#          model's predictions, without and with overlap
#   run:   the submission's scaling_model on those inputs, without and with --overlap
#   judge: its predictions against the reference model's (exact), then against the measurement —
#          or, when even the reference model could not fit 3 measurements (the machine too busy to
#          measure), the exact comparison alone decides, said so: how well the course's model fits
#          this machine is not the student's to answer for, and the reference must keep full marks
set -u
. "$GRADING/lessons/lib.sh"
# "N predicted_ms measured_ms" → FAIL lines and exit 1 when an error is over LIMIT %
compare() { # FILE_OF_PREDICTIONS FILE_OF_WANTED LIMIT WHAT
    # a prediction must be a plain positive number: "nan", "inf" or text never compare as within LIMIT
    awk -v lim="$3" -v what="$4" 'FNR == NR { if ($1 ~ /^[0-9]+$/ && NF >= 3 && !($1 in pred)) pred[$1] = $3; next }
        { n++; p = pred[$1]; num = p ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && p + 0 > 0
          e = num ? 100 * (p - $2) / $2 : 0
          if (!num) { printf "N=%d: predicted %s, %s %.3f ms: not a time\n", $1, p == "" ? "nothing" : p, what, $2; bad++; next }
          printf "N=%d: predicted %s ms, %s %.3f ms (%+.1f%%)\n", $1, p, what, $2, e
          if (!(e >= -lim && e <= lim)) bad++ }
        END { if (n < 3) { print "grader error: no measurement"; exit 2 } exit bad > 0 }' "$1" "$2"
}
case ${PHASE:-run} in
prep)
    try=1
    while :; do
        rm -rf lab
        LAB_NS="1 2 4" LAB_LINKS=nvlink LAB_BATCH=1680 LAB_STEPS=10 LAB_DATA="--data $FIXTURE_TRAIN" \
            LAB_BUILD="$REF_BUILD" LAB_MODEL="$REF_BUILD/09-scaling/scaling_model" \
            sh "$ROOT/lessons/09-scaling/lab.sh" "$PWD/lab" >lab.log 2>&1 || { echo "grader error: the lab failed:"; tail -n 15 lab.log; exit 2; }
        compare lab/model_nvlink.txt lab/measured_nvlink.txt 30 measured >fit.txt && break
        [ $try = 3 ] && break
        try=$((try + 1))
    done
    mkdir -p input judge
    cp lab/model_args_nvlink.txt input/ # what the run gets
    cp lab/measured_nvlink.txt judge/   # what it does not
    awk '$1 ~ /^[0-9]+$/ { print $1, $3 }' lab/model_nvlink.txt >reference_predictions.txt
    # shellcheck disable=SC2046
    "$REF_BUILD/09-scaling/scaling_model" $(cat input/model_args_nvlink.txt) --overlap >lab/model_overlap.txt ||
        { echo "grader error: the reference model failed with --overlap"; exit 2; }
    awk '$1 ~ /^[0-9]+$/ { print $1, $3 }' lab/model_overlap.txt >reference_predictions_overlap.txt
    { compare lab/model_nvlink.txt lab/measured_nvlink.txt 30 measured >/dev/null && echo fits || echo busy; } >reference_fit.txt
    echo "$try" >tries.txt
    ;;
run)
    # the model's inputs only: the measured times stay with the judge
    # shellcheck disable=SC2046
    launch 1 model.txt "$PROGS/09-scaling/scaling_model" $(cat input/model_args_nvlink.txt)
    # shellcheck disable=SC2046
    launch 1 model_overlap.txt "$PROGS/09-scaling/scaling_model" $(cat input/model_args_nvlink.txt) --overlap
    ;;
judge)
    launched model.txt "scaling_model" || exit 1
    launched model_overlap.txt "scaling_model --overlap" || exit 1
    head -c 3000 "$RUN_DIR/model.txt"
    hint="  hint: the step is compute/min(N, cores) + buckets · 2(N−1)·α + 2(N−1)/N·|g|/β without overlap, the larger of the two with it"
    # 1. a pure function: the same predictions as the reference model, overlap off and on
    for v in "" _overlap; do
        compare "$RUN_DIR/model$v.txt" reference_predictions$v.txt 0.01 "the reference model predicts" >exact$v.txt ||
            { cat exact$v.txt
              echo "FAIL: your model's predictions ${v:+with --overlap }differ from the reference model's for the same inputs"
              echo "$hint"; exit 1; }
    done
    # 2. against the machine, when the reference model could measure it
    if [ "$(cat reference_fit.txt)" = fits ]; then
        compare "$RUN_DIR/model.txt" judge/measured_nvlink.txt 30 measured >measured.txt ||
            { cat measured.txt; echo "FAIL: a prediction is more than 30% off the measured step time"; echo "$hint"; exit 1; }
        cat measured.txt
        echo "every prediction within 30% of the measurement$([ "$(cat tries.txt)" = 1 ] || echo " (measured $(cat tries.txt) times: the machine is busy)")"
        awk '{ e = $NF; gsub(/[()%+-]/, "", e); if (e + 0 > w) w = e + 0 } END { printf "margin: the model equals the reference (overlap off and on); worst error against the measurement %.1f%% (at most 30%%)\n", w }' measured.txt
    else
        echo "(this machine was too busy to measure: even the reference model missed 3 measurements by more than 30%; your predictions equal the reference model's for the same inputs, overlap off and on, and that decides)"
        echo "margin: the model equals the reference to 0.01% (overlap off and on); the measurement was too noisy to compare with"
    fi
    ;;
esac
