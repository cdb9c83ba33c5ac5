#!/bin/sh
# 10-stragglers.sh: the submission's straggler model, as a program (straggler_predict), against the
# reference model and against real DDP runs under seeded jitter (exp:20 on 1, 2, 4, 8 ranks).
#   run:   the submission's straggler_predict --jitter exp:20 --max-ranks 8: E[max of N delays]
#   judge: 1. its E[max] for N = 1..8 against the reference model's, to 0.01% (a pure function: no
#             timing; a wrong model fails here, in a second, without a measurement)
#          2. the lab measures the REFERENCE DDP trainer with and without the jitter on 1, 2, 4, 8
#             ranks; a measurement that misses the rule below is taken again, up to 3 times; when
#             even the third misses (a machine too busy to measure), the exact comparison decides,
#             and the output says so: how well the course's model fits this machine is not the
#             student's to answer for, and the reference must keep full marks
#
# The rule for the measurement: with E the model's E[max of N delays] and R the mean of the largest
# delay each measured step actually drew (the delays are seeded, and the run's --stats records them),
# the measured increase of the step (with jitter − without, same N: the communication's own growth
# with N cancels), corrected for the luck of the draw (− (R − E_reference)), must be within 20% + 3 ms
# of E. The 20% + 3 ms covers the OS waking a rank late when ranks outnumber cores (measured here,
# 2 busy cores: 0.2-8.6 ms off).
set -u
. "$GRADING/lessons/lib.sh"
JIT=exp:20
# LAB_TABLE REALISED MODEL_TABLE → a line per N; exit 1 when one is outside the rule. LAB_TABLE is the
# lab's straggler_predict table (N base E pred measured increase error: the reference's E), MODEL_TABLE
# the one to judge (its E in column 3).
fit() {
    awk 'FNR == 1 { f++ }
        f == 1 { if ($1 ~ /^[0-9]+$/ && NF >= 6) { ref[$1] = $3; inc[$1] = $6 } next }
        f == 2 { r[$1] = $2; next }
        $1 ~ /^[0-9]+$/ && NF >= 4 && ($1 in ref) && ($1 in r) && !seen[$1]++ { N = $1; n++; E = $3
          if (!(E ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) || E <= 0) { printf "N=%d: E[max] %s is not a time\n", N, E; bad++; next }
          luck = r[N] - ref[N]; allow = 0.2 * ref[N] + 3; err = inc[N] - luck - E
          printf "N=%d: E[max] %.3f ms, measured increase %.3f ms, realised delays %+.3f ms off E: %+.3f ms off (allowed ±%.3f)\n", N, E, inc[N], luck, err, allow
          if (!(err <= allow && -err <= allow)) bad++ }
        END { if (n < 4) { print "grader error: fewer than 4 measurements"; exit 2 } exit bad > 0 }' "$1" "$2" "$3"
}
case ${PHASE:-run} in
prep) ;;
run)
    launch 1 model.txt "$PROGS/10-limits/straggler_predict" --jitter "$JIT" --max-ranks 8
    ;;
judge)
    launched model.txt "straggler_predict" || exit 1
    head -c 2000 "$RUN_DIR/model.txt"
    hint="  hint: the step under jitter is the base plus E[max of N delays]: for exp:MEAN, MEAN·H_N"
    # 1. a pure function: the same E[max] as the reference model
    "$PROGS/10-limits/straggler_predict" --jitter "$JIT" --max-ranks 8 >reference.txt ||
        { echo "grader error: the reference straggler_predict failed"; exit 2; }
    awk 'FNR == NR { if ($1 ~ /^[0-9]+$/) want[$1] = $3; next } $1 ~ /^[0-9]+$/ && NF >= 4 && ($1 in want) && !seen[$1]++ { n++; p = $3
          if (!(p ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) || p - want[$1] > 1e-4 * want[$1] + 1e-3 || want[$1] - p > 1e-4 * want[$1] + 1e-3) {
              printf "N=%d: your model gives E[max] = %s ms, the reference model %s ms\n", $1, p, want[$1]; bad++ } }
        END { if (n < 8) { print "your straggler_predict printed no E[max] for some N of 1..8"; exit 1 } exit bad > 0 }' \
        reference.txt "$RUN_DIR/model.txt" >exact.txt ||
        { cat exact.txt; echo "FAIL: your model's predictions differ from the reference model's"; echo "$hint"; exit 1; }
    # 2. against the machine
    try=1
    while :; do
        rm -rf lab
        LAB_NS="1 2 4 8" LAB_JITTER=$JIT LAB_STEPS=40 LAB_DATA="--data $FIXTURE_TRAIN" LAB_BUILD="$PROGS" \
            LAB_PREDICT="$PROGS/10-limits/straggler_predict" \
            sh "$ROOT/lessons/10-limits/straggler_lab.sh" "$PWD/lab" >lab.log 2>&1 || { echo "grader error: the lab failed:"; tail -n 15 lab.log; exit 2; }
        fit lab/model.txt lab/realised.txt "$RUN_DIR/model.txt" >measured.txt && break
        [ $try = 3 ] && break
        try=$((try + 1))
    done
    if fit lab/model.txt lab/realised.txt reference.txt >/dev/null; then
        fit lab/model.txt lab/realised.txt "$RUN_DIR/model.txt" >measured.txt ||
            { cat measured.txt; echo "FAIL: a measured step is outside the model's allowance"; echo "$hint"; exit 1; }
        cat measured.txt
        [ $try = 1 ] || echo "(measured $try times: the machine is busy)"
        awk '{ v = $0; sub(/ ms off \(allowed.*/, "", v); sub(/.*: /, "", v); v += 0; if (v < 0) v = -v
               al = $0; sub(/.*allowed ±/, "", al); al += 0; if (al > 0 && v / al > w) w = v / al }
             END { printf "margin: the model equals the reference; the worst measured step used %.0f%% of its allowance\n", 100 * w }' measured.txt
    else
        cat measured.txt
        echo "(this machine was too busy to measure: even the reference model missed 3 measurements; your model equals the reference model, and that decides)"
        echo "margin: the model equals the reference to 0.01%; the measurement was too noisy to compare with"
    fi
    ;;
esac
