#!/bin/sh
# tests/bugs/check.sh LESSON|LESSON/BUG... — every seeded bug of the catalogue must be caught
# (a lesson's whole catalogue, or single bugs by name: 06/sync-every-micro-step).
#
# tests/bugs/NN/<bug>.patch is a realistic mistake in the student files of lesson NN, as a patch
# against the reference solution, headed by the message the grader must print for it:
#     # expect: <text the grader's output must contain>
#     (several "# expect:" lines: any one of them — for a hang, where which rank's watchdog reports
#      first is a race, each rank's honest report)
#     # bug: <what the mistake is>
#     # checks: <check,check>   (optional: grade only these checks of the lesson — quicker)
# For each: copy solutions/, apply the patch, grade lesson NN; the bug is caught when the score is
# below full marks AND the expected text is in the grader's output. One line per bug:
#     PASS bug 01/no-zero-grad: caught (80/100) with "zeroed"
# With BUGS_SANITIZE=1 (tests/bugs/sanitize.sh, an ASan+UBSan build) a bug passes when no sanitizer
# report in the grader's kept output has its top frame outside the student's files.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# Deadlock bugs end at the comm watchdog: a short limit keeps the catalogue fast (every legitimate
# wait in these checks takes well under a second).
export DP_TIMEOUT_S=${DP_TIMEOUT_S:-4}
# check_one PATCH: grade solutions/ with PATCH applied; one PASS/FAIL line (and details).
check_one() {
    p=$1
    L=$(basename "$(dirname "$p")")
    bug=$(basename "$p" .patch)
    if [ ! -f "$p" ]; then
        echo "FAIL bug $L/$bug: no such bug in the catalogue (tests/bugs/$L/$bug.patch; a subset names one that is gone?)"
        return 1
    fi
    expect=$(sed -n 's/^# expect: //p' "$p")
    only=$(sed -n 's/^# checks: //p' "$p") # optional: grade only these checks (the ones the bug is about)
    sub=$(mktemp -d "${TMPDIR:-/tmp}/dpc-bug.XXXXXX")
    cp -R "$ROOT/solutions/." "$sub/"
    dir=$(cd "$ROOT/solutions" && ls -d "$L"-*)
    if ! patch -s -p1 -d "$sub/$dir" <"$p" >"$sub/patch.log" 2>&1; then
        echo "FAIL bug $L/$bug: the patch no longer applies to solutions/$dir:"
        sed 's/^/    /' "$sub/patch.log"
        rm -rf "$sub"
        return 1
    fi
    # BUGS_SANITIZE=1 (tests/bugs/sanitize.sh: an ASan+UBSan build): keep the checks' captured output
    # and look in it for reports in given code
    "$ROOT/grading/grade" "$L" --submission "$sub" ${only:+--only "$only"} ${BUGS_SANITIZE:+--keep} \
        >"$sub/grade.out" 2>&1
    rc=$?
    score=$(sed -n 's/^Score: //p' "$sub/grade.out" | tail -n 1)
    kept=$(sed -n 's/^grade: kept //p' "$sub/grade.out")
    ok=1
    if [ -n "${BUGS_SANITIZE:-}" ]; then
        # Under the sanitizers the question is only where the reports are: a student's own bad access
        # now ends in a report (not a signal), so the grader's wording may differ (the plain catalogue
        # checks the messages).
        if [ -z "$kept" ] || [ ! -d "$kept" ]; then
            echo "FAIL bug $L/$bug: the grader kept no output to search for sanitizer reports:"
            tail -n 5 "$sub/grade.out" | sed 's/^/    /'
        elif ! sh "$ROOT/tests/bugs/san-frames.sh" "$kept" >"$sub/san.out"; then
            echo "FAIL bug $L/$bug: a sanitizer report outside the student's files (given code crashed on the mistake):"
            sort -u "$sub/san.out" | head -n 4 | sed 's/^/    /'
        else
            echo "PASS bug $L/$bug: no sanitizer report outside the student's files ($score)"
            ok=0
        fi
    elif [ $rc = 0 ]; then
        echo "FAIL bug $L/$bug: NOT caught — full score ($score)"
    elif grep -q 'INCONCLUSIVE' "$sub/grade.out"; then
        echo "FAIL bug $L/$bug: only INCONCLUSIVE ($score): a wrong implementation must fail outright:"
        grep -A3 'INCONCLUSIVE' "$sub/grade.out" | head -n 8 | sed 's/^/    /'
    elif [ $rc != 1 ]; then
        echo "FAIL bug $L/$bug: the grader itself failed (exit $rc):"
        tail -n 5 "$sub/grade.out" | sed 's/^/    /'
    elif ! printf '%s\n' "$expect" | grep -qFf - "$sub/grade.out"; then
        echo "FAIL bug $L/$bug: caught ($score) but the output never says \"$expect\":"
        grep -E 'FAIL|hint' "$sub/grade.out" | head -n 8 | sed 's/^/    /'
    else
        echo "PASS bug $L/$bug: caught ($score) with \"$(printf '%s\n' "$expect" | grep -F -f - -o "$sub/grade.out" | head -n 1)\""
        ok=0
    fi
    [ -n "$kept" ] && rm -rf "$kept"
    rm -rf "$sub"
    return $ok
}

if [ "${1:-}" = "--one" ]; then
    check_one "$2"
    exit $?
fi

# Two bugs at a time (each grading run is mostly a compile and a few short mpiruns); the lines come
# out in catalogue order.
out=$(mktemp -d "${TMPDIR:-/tmp}/dpc-bugs.XXXXXX")
trap 'rm -rf "$out"' EXIT
for L in "$@"; do
    case $L in
    */*) echo "$ROOT/tests/bugs/$L.patch" ;; # one bug, NN/name (tests/run's subset)
    *) for p in "$ROOT"/tests/bugs/"$L"/*.patch; do [ -f "$p" ] && echo "$p"; done ;;
    esac
done | awk -v out="$out" '{ printf "%s %s/%04d\n", $0, out, NR }' |
    xargs -n 2 -P "${BUG_JOBS:-2}" sh -c 'sh "$0" --one "$1" >"$2" 2>&1' "$0"
status=0
for f in "$out"/*; do
    [ -f "$f" ] || continue
    cat "$f"
    grep -q '^FAIL' "$f" && status=1
done
exit $status
