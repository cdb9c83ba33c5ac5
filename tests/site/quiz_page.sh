# tests/site/quiz_page.sh — sourced by tests/site/test.sh: the quiz page of the
# site in $SITE, answered in headless Chromium, must say what grading/quiz says (verdicts, output,
# score), and the comparison must fail for another student's numbers. Uses the caller's WORK, dom,
# has, unescape, ok and bad.
make -s quiz >/dev/null || { bad "make quiz failed"; exit 1; }
QUIZ=${O:-build}/grading/quiz
in_page() { # lesson student answers-file -> $WORK/page.html
    enc=$(od -An -tx1 -v "$3" | tr -d ' \n' | sed 's/../%&/g')
    dom "file://$SITE/quiz.html?lesson=$1&student=$2&answers=$enc" >"$WORK/page.html"
}
compare() { # lesson student file what
    grading/quiz "$1" --student "$2" --answers "$3" >"$WORK/native.txt" 2>&1
    in_page "$1" "$2" "$3"
    grep -o 'id="verdict-[0-9]*" data-verdict="[A-Z]*"' "$WORK/page.html" |
        sed 's/id="verdict-\([0-9]*\)" data-verdict="\([A-Z]*\)"/q\1 \2/' >"$WORK/page.verdicts"
    sed -n "s/^$1 \(q[0-9]*\): \(OK\|WRONG\).*/\1 \2/p" "$WORK/native.txt" >"$WORK/native.verdicts"
    sed -n 's/.*<pre id="quiz-output">\([^<]*\)<\/pre>.*/\1/p; /<pre id="quiz-output">/,/<\/pre>/p' "$WORK/page.html" | sed 's/.*<pre id="quiz-output">//; s/<\/pre>.*//' | unescape | sed '${/^$/d}' >"$WORK/page.txt"
    score=$(sed -n 's/.*id="quiz-score">\([^<]*\)<.*/\1/p' "$WORK/page.html")
    if has "$WORK/page.html" 'data-quiz-state="graded"' && [ -s "$WORK/native.verdicts" ] && cmp -s "$WORK/page.verdicts" "$WORK/native.verdicts" &&
        [ "$score" = "$(tail -n 1 "$WORK/native.txt")" ] && diff -q "$WORK/page.txt" "$WORK/native.txt" >/dev/null; then
        ok "quiz $1, $2, $4: the page says what grading/quiz says ($score; $(tr '\n' ' ' <"$WORK/page.verdicts"))"
    else
        bad "quiz $1, $2, $4: the page and grading/quiz differ"
        diff "$WORK/native.verdicts" "$WORK/page.verdicts" | head -n 5
        diff "$WORK/native.txt" "$WORK/page.txt" | head -n 5
    fi
}
for case in "02 alice" "04 bob" "07 carol" "08 s1234567"; do
    set -- $case
    "$QUIZ" "$1" --student "$2" --answer-key >"$WORK/right.txt"
    # partly wrong: the first answer changed, the third left out
    awk 'NR == 1 { v = $2; $2 = (v ~ /^[a-d]$/) ? (v == "a" ? "b" : "a") : (v == "0" ? "1" : "0") } NR != 3' \
        "$WORK/right.txt" >"$WORK/partly.txt"
    grading/quiz "$1" --student "$2" --answers "$WORK/partly.txt" >/dev/null 2>&1
    [ $? = 1 ] || bad "quiz $1: the partly wrong file is not partly wrong for grading/quiz"
    compare "$1" "$2" "$WORK/right.txt" "all right"
    compare "$1" "$2" "$WORK/partly.txt" "partly wrong"
done
# the comparison can fail: another student's page against alice's verdicts
"$QUIZ" 04 --student alice --answer-key >"$WORK/alice.txt"
in_page 04 mallory "$WORK/alice.txt"
grading/quiz 04 --student alice --answers "$WORK/alice.txt" >"$WORK/native.txt"
sed -n 's/.*id="quiz-score">\([^<]*\)<.*/\1/p' "$WORK/page.html" | grep -qx "$(tail -n 1 "$WORK/native.txt")" &&
    bad "the quiz comparison cannot tell two students apart" || ok "the quiz comparison fails for another student's numbers"
