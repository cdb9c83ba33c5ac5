# grade-all --quiz: each student's quiz answers (STUDENT/quiz/NN.txt, graded with the folder's name
# as the student id) land in the quiz and quiz_max columns, apart from the code's total; a malformed
# file scores 0 with its one-line reason in the note. The code is not graded (DPC_TOTAL_TIMEOUT=0:
# every check "not run"), so this costs grade-all's set-up of a batch: about 3 s.
. "$(dirname "$0")/lib.sh"
QUIZ=$BUILD/grading/quiz
C=$TMP/class
mkdir -p "$C/ann/quiz" "$C/ben/quiz" "$C/o'neil, jr/quiz"
"$QUIZ" 09 --student ann --answer-key >"$C/ann/quiz/09.txt"
"$QUIZ" 00 --student "o'neil, jr" --answer-key >"$C/o'neil, jr/quiz/00.txt"
printf '1: 3\nbad line\n' >"$C/ben/quiz/09.txt"
n00=$("$QUIZ" 00 --student ann --answer-key | wc -l)
n09=$("$QUIZ" 09 --student ann --answer-key | wc -l)
DPC_TOTAL_TIMEOUT=0 grading/grade-all "$C" --lessons "00 09" --quiz --out "$TMP/g.csv" >"$TMP/ga" 2>&1
max=$((n00 + n09))
if head -n 1 "$TMP/g.csv" | grep -q '^student,total,max,inconclusive,L00,L09,quiz,quiz_max,similar,note$' &&
    grep -q "^\"ann\",0,[0-9]*,0,0,0,$n09,$max," "$TMP/g.csv" &&
    grep -q "^\"o'neil, jr\",0,[0-9]*,0,0,0,$n00,$max," "$TMP/g.csv" &&
    grep "^\"ben\"" "$TMP/g.csv" | grep -q ",0,$max,.*quiz 09 scored 0: .*line 2: expected 'QUESTION: ANSWER'"; then
    pass "grade-all --quiz: quiz and quiz_max columns ($n09/$max, $n00/$max for an id with a quote and a comma), a malformed file noted"
else
    fail "grade-all --quiz: $(cat "$TMP/g.csv") / $(tail -n 3 "$TMP/ga")"
fi
