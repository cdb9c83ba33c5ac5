#!/bin/sh
# tests/hostile/check.sh [CASE...] — the hostile-submission catalogue: submissions that attack the
# grader rather than solve the lesson. Each tests/hostile/CASE.c is a student file with a header:
#     // lesson: 01                  the lesson it is graded in
#     // base: skeleton|solutions    where the lesson's other student files come from
#     // file: linear.c              the student file this case replaces, or
#     // append: linear.c            the student file this case is appended to
#     // score: 0|full|below         the score it must get (below: more than 0, less than full)
#     // expect: TEXT                text the grader's output must contain (optional)
#     // note: TEXT                  text the CSV note and the JSON report must contain (optional)
#     // forbid: TEXT                text that must appear in no output at all (optional)
#     // args: --timeout 5           grading options (optional)
#     // why: what the attack is
# For each case one grade-all batch grades three students in order: the case, then the reference
# solution ("clean") and the skeleton. It must hold that: the case gets its score in the text log,
# the JSON report, the Gradescope results (made from the same results by grading/report) and the
# CSV row, all agreeing, with no score above the maximum; the JSON and Gradescope files are valid;
# the expected texts are there and the forbidden ones nowhere; the clean submission scores full
# and the skeleton 0 AFTER it (nothing leaked into later grades); no process of the sandbox is left.
# One line per case: PASS/FAIL hostile CASE: ...  No CASE: every case.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpc-hostile.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
REPORT=$ROOT/build/grading/report
export DP_TIMEOUT_S=${DP_TIMEOUT_S:-4}

field() { sed -n "s|^// $1: ||p" "$2" | head -n 1; }

# A hidden check, kept outside the repository, with a secret no output may ever show.
SECRET="hidden-check-secret-$$"
mkdir -p "$TMP/hidden"
for l in "$ROOT"/grading/lessons/[0-9][0-9].sh; do cp "$l" "$TMP/hidden/"; done
printf '# %s\nhidden_check secret 0 30 "a hidden check" -- true\n' "$SECRET" >>"$TMP/hidden/01.sh"
export HOSTILE_SECRET_DIR="$TMP/hidden"

# The batch's sandbox uid: a process still running under it was left behind (as root only; a
# grader that is not root runs the sandbox under its own uid).
export DPC_SANDBOX_UID=$((65000 + $$ % 500))
# Zombies waiting for init to reap them are already dead and do not count.
sandbox_procs() {
    [ "$(id -u)" = 0 ] || { echo 0; return; }
    ps -eo uid=,stat= 2>/dev/null | awk -v u="$DPC_SANDBOX_UID" '$1 == u && $2 !~ /^Z/' | wc -l
}

run_case() {
    c=$1
    name=$(basename "$c" .c)
    L=$(field lesson "$c")
    d=$(cd "$ROOT/solutions" && ls -d "$L"-*)
    base=$(field base "$c")
    [ "$base" = skeleton ] && base=lessons
    want=$(field score "$c")
    expect=$(field expect "$c")
    note=$(field note "$c")
    forbid=$(field forbid "$c")
    args=$(field args "$c")
    w=$TMP/$name
    mkdir -p "$w/class/1-case/$d" "$w/class/2-clean/$d" "$w/class/3-skeleton/$d" "$w/reports"
    cp -R "$ROOT/$base/$d/." "$w/class/1-case/$d/"
    cp -R "$ROOT/solutions/$d/." "$w/class/2-clean/$d/"
    cp -R "$ROOT/lessons/$d/." "$w/class/3-skeleton/$d/"
    if [ -n "$(field file "$c")" ]; then
        cp "$c" "$w/class/1-case/$d/$(field file "$c")"
    else
        cat "$c" >>"$w/class/1-case/$d/$(field append "$c")"
    fi
    before=$(cd "$ROOT" && find build/grading build/solutions grading -type f -newer "$c" 2>/dev/null | wc -l)
    # shellcheck disable=SC2086
    "$ROOT/grading/grade-all" "$w/class" --lessons "$L" --out "$w/grades.csv" --reports "$w/reports" \
        --checks "$TMP/hidden" $args >"$w/batch.log" 2>&1
    problems=""
    bad() { problems="$problems; $*"; }
    row=$(grep '^"1-case"' "$w/grades.csv")
    total=$(echo "$row" | cut -d, -f2) max=$(echo "$row" | cut -d, -f3)
    [ -n "$total" ] || bad "no CSV row for the case: $(tail -n 2 "$w/batch.log")"
    case $want in
    0) [ "$total" = 0 ] || bad "scored $total/$max, expected 0" ;;
    full) [ -n "$total" ] && [ "$total" = "$max" ] || bad "scored $total/$max, expected full marks" ;;
    below) [ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" -lt "$max" ] || bad "scored $total/$max, expected between 0 and full" ;;
    esac
    [ -n "$max" ] && [ -n "$total" ] && [ "$total" -le "$max" ] || bad "score $total above the maximum $max"
    j=$w/reports/0001.json
    "$REPORT" --validate "$j" >/dev/null 2>&1 || true # JSON reports are not Gradescope's format; checked below
    "$REPORT" --format gradescope --out "$w/gs.json" "$w/reports/0001.tsv" 2>/dev/null
    "$REPORT" --validate "$w/gs.json" >"$w/gs.v" 2>&1 || bad "Gradescope results invalid: $(cat "$w/gs.v")"
    js=$(sed -n 's/^[[:space:]]*"score":[[:space:]]*\([0-9.]*\),*$/\1/p' "$j" | head -n 1)
    gs=$(sed -n 's/^[[:space:]]*"score":[[:space:]]*\([0-9.]*\),*$/\1/p' "$w/gs.json" | head -n 1)
    [ "$js" = "$total" ] || bad "the JSON report says $js, the CSV $total"
    [ "$gs" = "$total" ] || bad "the Gradescope results say $gs, the CSV $total"
    grep -q '"state":[[:space:]]*"complete"' "$j" || bad "the JSON report is not complete: $(grep '"state"' "$j")"
    tail -n 1 "$w/reports/0001.txt" | grep -q "^Score: $total/$max\$" || bad "the text log ends '$(tail -n 1 "$w/reports/0001.txt")', not Score: $total/$max"
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$w/reports/0001.txt"; then bad "the text never says \"$expect\""; fi
    if [ -n "$note" ]; then
        echo "$row" | grep -qF -- "$note" || bad "the CSV note lacks \"$note\": $row"
        grep -qF -- "$note" "$j" || bad "the JSON report lacks the note \"$note\""
    fi
    if [ -n "$forbid" ] && grep -rqF -- "$forbid" "$w/reports" "$w/grades.csv" "$w/batch.log"; then bad "an output shows \"$forbid\""; fi
    if grep -rqF -- "$SECRET" "$w/reports/0001.txt" "$w/reports/0001.tsv" "$w/gs.json" "$w/grades.csv"; then
        bad "the hidden check's secret reached the student's output"
    fi
    grep -q '^"2-clean",\([0-9]*\),\1,' "$w/grades.csv" || bad "the clean submission after it: $(grep '^"2-clean"' "$w/grades.csv")"
    grep -q '^"3-skeleton",0,' "$w/grades.csv" || bad "the skeleton after it: $(grep '^"3-skeleton"' "$w/grades.csv")"
    left=$(sandbox_procs)
    [ "$left" = 0 ] || bad "$left sandbox processes left running"
    after=$(cd "$ROOT" && find build/grading build/solutions grading -type f -newer "$c" 2>/dev/null | wc -l)
    [ "$before" = "$after" ] || bad "the grader's files changed"
    if [ -z "$problems" ]; then
        echo "PASS hostile $name: $total/$max as expected, clean and skeleton right after it ($(field why "$c"))"
    else
        echo "FAIL hostile $name:${problems#;}"
        sed -n '1,12p' "$w/reports/0001.txt" 2>/dev/null | sed 's/^/    /'
    fi
}

cases=""
if [ $# = 0 ]; then
    cases=$(ls "$ROOT"/tests/hostile/*.c)
else
    for c in "$@"; do cases="$cases $ROOT/tests/hostile/$c.c"; done
fi
status=0
for c in $cases; do
    [ -f "$c" ] || { echo "FAIL hostile $(basename "$c" .c): no such case"; status=1; continue; }
    out=$(run_case "$c")
    echo "$out"
    case $out in FAIL*) status=1 ;; esac
done
exit $status
