#!/bin/sh
# The student's measure program, end to end, against an emulated link of known α and β.
#   run:   the submission's measure 4 times, each on 2 ranks (the fastest of 11 single round trips
#          per size) → ab<i>.json (α and β)
#   judge: a busy machine only ever makes messages SLOWER (the emulator sleeps at least α + b/β),
#          so the best of the submission's 4 fits must be near the emulated link: α within
#          −25%..+35%, β within −40%..+25%. If none is, the judge measures the REFERENCE 4 times
#          itself, right after the run, in its own directory: all 4 near the link (the machine is
#          quiet enough to measure it) → FAIL; otherwise the machine was too busy to tell → exit 75
#          (measured again; INCONCLUSIVE if it stays so), with the numbers. The reference's program
#          and its fits are never where a run can write (a run that overwrote them turned a wrong
#          fit into INCONCLUSIVE).
set -u
. "$GRADING/lessons/lib.sh"
LINK="--link-latency-us 300 --link-gbps 2 --max-bytes 1048576 --iters 1 --repeat 11"
REPS="1 2 3 4"
# "alpha beta" of a measure's JSON, empty when it has none
ab() { sed -n 's/.*"alpha_s": *\([-+0-9.eE]*\).*"beta_bytes_per_s": *\([-+0-9.eE]*\).*/\1 \2/p' "$1" 2>/dev/null | head -n 1; }
case ${PHASE:-run} in
run)
    for i in $REPS; do
        # shellcheck disable=SC2086
        launch 2 measure$i.log "$PROGS/00-launch/measure" $LINK --out ab$i.json
    done
    ;;
judge)
    for i in $REPS; do
        launched measure$i.log "measure" || exit 1
    done
    head -c 3000 "$RUN_DIR/measure1.log"
    {
        for i in $REPS; do
            s=$(ab "$RUN_DIR/ab$i.json")
            [ -n "$s" ] || { echo "FAIL: measure wrote no alpha_s and beta_bytes_per_s to its --out file"; exit 1; }
            echo "you $s"
        done
    } >fits.txt || { cat fits.txt; exit 1; }
    near='function near(a, b) { return a > 0.75 * 300e-6 && a < 1.35 * 300e-6 && b > 0.6 * 250e6 && b < 1.25 * 250e6 }'
    # none of the submission's fits near the link: is the machine quiet enough to tell? The
    # reference, measured here (trusted: outside the sandbox, in the judge's directory)
    if ! awk "$near"' $1 == "you" && near($2 + 0, $3 + 0) { ok = 1 } END { exit !ok }' fits.txt; then
        for i in $REPS; do
            rm -f "ref$i.json"
            # shellcheck disable=SC2086
            "$MPIRUN" -np 2 "$REF_BUILD/00-launch/measure" $LINK --out "ref$i.json" >"ref$i.log" 2>&1
            echo "reference $(ab "ref$i.json")" >>fits.txt
        done
    fi
    awk "$near"'
        function show(a, b) { return sprintf("alpha %.1f us, beta %.1f MB/s", a * 1e6, b / 1e6) }
        $1 == "you" { n++; a = $2 + 0; b = $3 + 0; yours = yours (n > 1 ? "; " : "") show(a, b)
                      if (near(a, b)) { ok++; d = (a > 300e-6 ? a / 300e-6 : 300e-6 / a) * (b > 250e6 ? b / 250e6 : 250e6 / b)
                                        if (!best || d < bd) { best = 1; bd = d; ba = a; bb = b } } }
        $1 == "reference" { m++; if (NF == 3 && near($2 + 0, $3 + 0)) refok++; refs = refs (m > 1 ? "; " : "") (NF == 3 ? show($2, $3) : "none") }
        END {
            printf "emulated: alpha 300 us, beta 250 MB/s\nyour fits: %s\n", yours
            if (ok) {
                printf "margin: best fit alpha %+.0f%% (within -25%%..+35%%), beta %+.0f%% (within -40%%..+25%%); %d of %d fits near the link\n",
                    100 * (ba / 300e-6 - 1), 100 * (bb / 250e6 - 1), ok, n
                exit 0
            }
            printf "the reference'"'"'s, measured by the grader right after: %s\n", refs
            if (m && refok == m) {
                print "FAIL: none of your 4 fits is near the emulated link (alpha within -25%..+35%, beta within -40%..+25%), while every fit of the reference, measured right after yours, is"
                exit 1
            }
            printf "INCONCLUSIVE: none of your fits is near the emulated link, but the reference too missed it in %d of %d fits: the machine is too busy to measure\n", m - refok, m
            exit 75 }' fits.txt
    ;;
esac
