# grade-all --quiz: each student's quiz answers (STUDENT/quiz/NN.txt, graded with the folder's name
# as the student id, normalised) land in the quiz and quiz_max columns, apart from the code's total; a
# malformed file, or one whose header is another student's, scores 0 with its one-line reason in the
# note; the reports are for credit (verdicts, no answers) and hold the answers' text made safe. The
# code is not graded (DPC_TOTAL_TIMEOUT=0: every check "not run"), so this costs grade-all's set-up of
# a batch: about 3 s.
. "$(dirname "$0")/lib.sh"
QUIZ=$BUILD/grading/quiz
C=$TMP/class
mkdir -p "$C/ann/quiz" "$C/ben/quiz" "$C/o'neil, jr/quiz" "$C/Eve/quiz" "$C/fay/quiz" "$C/gil/quiz"
# filled L ID: the file --questions writes for ID (its header names ID), answered with ID's key
filled() { "$QUIZ" "$1" --student "$2" --questions | grep -v '^[0-9]*: $' && "$QUIZ" "$1" --student "$2" --answer-key; }
filled 09 ' eve ' >"$C/Eve/quiz/09.txt" # folder Eve, the questions of ' eve ': one student
filled 09 ann >"$C/fay/quiz/09.txt"     # fay hands in ann's file, header and all
ESC=$(printf '\033')
printf '1: %s]0;owned%s%s[2J\n2: \377\376\n' "$ESC" "$(printf '\007')" "$ESC" >"$C/gil/quiz/09.txt"
printf '1: 3\n%s[1A00 q1: OK\377\n' "$ESC" >"$C/gil/quiz/00.txt"
mkdir "$C/hal"
ln -s ../ann/quiz "$C/hal/quiz" # hal's quiz/ is ann's folder
LONG=$(printf '%070d' 0 | tr 0 x) # a folder name that is no valid id (over 64 bytes)
mkdir -p "$C/$LONG/quiz"
"$QUIZ" 09 --student ann --answer-key >"$C/$LONG/quiz/09.txt"
"$QUIZ" 09 --student ann --answer-key >"$C/ann/quiz/09.txt"
"$QUIZ" 00 --student "o'neil, jr" --answer-key >"$C/o'neil, jr/quiz/00.txt"
printf '1: 3\nbad line\n' >"$C/ben/quiz/09.txt"
n00=$("$QUIZ" 00 --student ann --answer-key | wc -l)
n09=$("$QUIZ" 09 --student ann --answer-key | wc -l)
mkdir "$TMP/reports"
DPC_TOTAL_TIMEOUT=0 grading/grade-all "$C" --lessons "00 09" --quiz --out "$TMP/g.csv" --reports "$TMP/reports" >"$TMP/ga" 2>&1
max=$((n00 + n09))
if head -n 1 "$TMP/g.csv" | grep -q '^student,total,max,inconclusive,L00,L09,quiz,quiz_max,similar,note$' &&
    grep -q "^\"ann\",0,[0-9]*,0,0,0,$n09,$max," "$TMP/g.csv" &&
    grep -q "^\"o'neil, jr\",0,[0-9]*,0,0,0,$n00,$max," "$TMP/g.csv" &&
    grep "^\"ben\"" "$TMP/g.csv" | grep -q ",0,$max,.*quiz 09 scored 0: .*line 2: expected 'QUESTION: ANSWER'"; then
    pass "grade-all --quiz: quiz and quiz_max columns ($n09/$max, $n00/$max for an id with a quote and a comma), a malformed file noted"
else
    fail "grade-all --quiz: $(cat "$TMP/g.csv") / $(tail -n 3 "$TMP/ga")"
fi
if grep -q "^\"Eve\",0,[0-9]*,0,0,0,$n09,$max," "$TMP/g.csv"; then
    pass "grade-all --quiz: folder Eve with the questions of ' eve ' scores $n09/$max (ids normalised)"
else
    fail "grade-all --quiz: folder Eve, questions of ' eve ': $(grep '^"Eve"' "$TMP/g.csv")"
fi
if grep "^\"fay\"" "$TMP/g.csv" | grep -q ",0,$max,.*quiz 09 scored 0: .*these are the questions of student 'ann', not 'fay'"; then
    pass "grade-all --quiz: ann's file handed in by fay scores 0/$max and the note says whose it is"
else
    fail "grade-all --quiz: a classmate's file: $(grep '^"fay"' "$TMP/g.csv")"
fi
# everything grade-all wrote: the CSV, its output, the reports (the quiz's text logs among them)
unclean=""
for f in "$TMP/g.csv" "$TMP/ga" "$TMP/reports"/*; do
    { iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 && [ "$(LC_ALL=C tr -d '\n\t' <"$f" | LC_ALL=C grep -c '[[:cntrl:]]')" = 0 ]; } ||
        unclean="$unclean $(basename "$f")"
done
set -- "$TMP/reports"/*.quiz.txt
nq=$#
if [ -z "$unclean" ] && [ "$nq" = 8 ] && grep -q 'your answer: ?\]0;owned??\[2J' "$TMP/reports"/*.quiz.txt &&
    grep "^\"gil\"" "$TMP/g.csv" | grep -q "quiz 00 scored 0: .*got '?\[1A00 q1: OK"; then
    pass "grade-all --quiz: escape codes and invalid UTF-8 in answers reach no CSV, output or report raw ($nq quiz reports)"
else
    fail "grade-all --quiz: raw bytes of answers in:${unclean:- none} ($nq quiz reports): $(grep '^"gil"' "$TMP/g.csv" | od -c | head -n 3)"
fi
if grep "^\"hal\"" "$TMP/g.csv" | grep -q ",0,$max,.*quiz/ is a link, not a folder: its answers are not graded"; then
    pass "grade-all --quiz: a quiz/ that links to a classmate's folder is not graded, and the note says so"
else
    fail "grade-all --quiz: quiz/ a link to ann's: $(grep '^"hal"' "$TMP/g.csv")"
fi
if grep "^\"$LONG\"" "$TMP/g.csv" | grep -q ",0,$max,.*quiz 09 scored 0: quiz: the student id 'x*\.\.\.' is longer than 64 bytes"; then
    pass "grade-all --quiz: a folder name that is no valid id scores 0 of the same quiz_max ($max), and the note says why"
else
    fail "grade-all --quiz: a folder name of 70 bytes: $(grep "^\"$LONG\"" "$TMP/g.csv")"
fi
wrong=$(cat "$TMP/reports"/*.quiz.txt | grep -c ': WRONG')
if [ "$wrong" -gt 0 ] && ! grep -q 'the answer' "$TMP/reports"/*.quiz.txt; then
    pass "grade-all --quiz: for credit: $wrong WRONG verdicts in the reports, no answer nor working"
else
    fail "grade-all --quiz: the reports show answers: $(grep -h -A1 'the answer' "$TMP/reports"/*.quiz.txt | head -n 4)"
fi
