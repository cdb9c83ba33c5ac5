# tests/site/quiz_ui.sh — sourced by tests/site/test.sh after quiz_page.sh: the quiz page of the
# site in $SITE used as a reader uses it (tests/site/quiz_ui.js, added to a copy of the page in
# $WORK/site, types, clicks a choice and presses Enter), against what grading/quiz prints:
#   id:      a blank id is refused with a message under the field that states grading/quiz's rule for
#            ids (QUIZ_ID_MAX of grading/quizzes/quiz.c), and so is one too long, with the program's
#            reason; a good id clears it;
#   choices: a question the program asks with lettered choices has a radio button per choice, its
#            letter and text the lines the program prints; every other question is typed;
#   enter:   Enter in the id field shows the questions, Enter in an answer checks the answers (the
#            score grading/quiz gives for them);
#   working: under each checked question, its verdict and working as grading/quiz prints them, and
#            the question not again;
#   width:   the page answered and checked, at 1280 px and at 390 px, is no wider than the window
#            outside a block that scrolls (tests/site/width.js, as check (b)).
# Each of the first four is shown to fail on a page with its behaviour broken (planted in the copy's
# quiz.js); the width check's planted defect is check (b)'s.
# Uses the caller's WORK, SITE, QUIZ, dom, unescape, ok and bad.
cp tests/site/quiz_ui.js tests/site/width.js "$WORK/site/"
sed -i 's|</body>|<script src="quiz_ui.js"></script><script src="width.js"></script></body>|' "$WORK/site/quiz.html"
IDMAX=$(sed -n 's/^#define QUIZ_ID_MAX *\([0-9]*\).*/\1/p' grading/quizzes/quiz.c)
LONG=$(printf "%$((IDMAX + 1))s" "" | tr ' ' x)
ui_run() { # LESSON STUDENT ANSWERS-FILE [WIDTH] -> $WORK/ui.txt, what quiz_ui.js and width.js saw
    enc=$(od -An -tx1 -v "$3" | tr -d ' \n' | sed 's/../%&/g')
    dom "file://$WORK/site/quiz.html#lesson=$1&student=$2&long=$LONG&answers=$enc" "${4:-1280}" >"$WORK/ui.html"
    sed -n '/<pre id="quiz-ui">/,/<\/pre>/p' "$WORK/ui.html" | sed 's/.*<pre id="quiz-ui">//; s/<\/pre>.*//' | unescape >"$WORK/ui.txt"
    grep -o '<body[^>]*>' "$WORK/ui.html" | grep -o 'data-overflow="[^"]*"\|data-overflow-what="[^"]*"' | tr '\n' ' ' >>"$WORK/ui.txt"
}
ui_expect() { # LESSON STUDENT ANSWERS-FILE -> $WORK/expect.*, from grading/quiz itself
    "$QUIZ" "$1" --student "$2" --questions >"$WORK/questions.txt"
    "$QUIZ" "$1" --student "$2" --answers "$3" >"$WORK/report.txt"
    # "# N. TEXT", "#    x) CHOICE" a choice, "#    (a letter)" for a question answered by one
    awk '/^# [0-9]+\. / { n = $2 + 0; c = ""; kind[n] = "text"; sub(/^# [0-9]+\. /, ""); text[n] = $0; next }
        /^#    [a-z]\) / { l = substr($0, 6, 1); c = c "q" n " radio " l ": " substr($0, 6) "\n"; next }
        /^#    \(a letter\)$/ { kind[n] = c }
        END { for (i = 1; i <= n; i++) printf "%s", kind[i] == "text" ? "q" i " text\n" : kind[i]
              for (i = 1; i <= n; i++) print text[i] >"/dev/stderr" }' "$WORK/questions.txt" \
        >"$WORK/expect.kinds" 2>"$WORK/expect.texts"
    # the report: "NN qK: VERDICT", then for a wrong one the question, "your answer: ...", the working
    awk '/^[0-9]+ q[0-9]+: / { k = substr($2, 2) + 0; sub(/^[^:]*: /, ""); print "q" k " shows: " $0; i = 0; next }
        /^    / { if (++i > 2) print "q" k " shows: " substr($0, 5) }' "$WORK/report.txt" >"$WORK/expect.shows"
}
ui_check() { # -> a line per problem, each starting with its check's name
    n=$(grep -c '^[0-9]*: $' "$WORK/questions.txt")
    blank=$(sed -n 's/^blank: //p' "$WORK/ui.txt")
    below=$(sed -n 's/^blank-below: //p' "$WORK/ui.txt")
    case $blank in
    "(none) | "*) echo "id: a blank id is not refused with a message tied to the field ($blank)" ;;
    *"1 to $IDMAX bytes"*"| questions 0") [ "$below" -ge 0 ] && [ "$below" -le 48 ] ||
        echo "id: the message for a blank id is ${below} px below the field, not next to it" ;;
    *) echo "id: a blank id gets '$blank', not grading/quiz's rule (1 to $IDMAX bytes) and no questions" ;;
    esac
    case $(sed -n 's/^long: //p' "$WORK/ui.txt") in
    *"longer than $IDMAX bytes"*"| questions 0") ;;
    *) echo "id: an id of $((IDMAX + 1)) bytes gets '$(sed -n 's/^long: //p' "$WORK/ui.txt")', not grading/quiz's refusal" ;;
    esac
    asked=$(sed -n 's/^asked: //p' "$WORK/ui.txt")
    [ "$asked" = "$n | message: (none)" ] || echo "enter: Enter in the id field shows '$asked', not grading/quiz's $n questions (and no message)"
    grep '^q[0-9]* \(radio\|text\)' "$WORK/ui.txt" >"$WORK/ui.kinds"
    cmp -s "$WORK/ui.kinds" "$WORK/expect.kinds" ||
        echo "choices: the page's answers are not grading/quiz's choices: $(diff "$WORK/expect.kinds" "$WORK/ui.kinds" | grep '^[<>]' | head -n 3 | tr '\n' ';')"
    score=$(sed -n 's/^score: //p' "$WORK/ui.txt")
    [ "$score" = "$(tail -n 1 "$WORK/report.txt")" ] ||
        echo "enter: Enter in an answer gives the score '$score', not grading/quiz's '$(tail -n 1 "$WORK/report.txt")'"
    grep '^q[0-9]* shows: ' "$WORK/ui.txt" >"$WORK/ui.shows"
    cmp -s "$WORK/ui.shows" "$WORK/expect.shows" ||
        echo "working: under the questions, not grading/quiz's verdicts and working: $(diff "$WORK/expect.shows" "$WORK/ui.shows" | grep '^[<>]' | head -n 3 | tr '\n' ';')"
    grep -q 'data-overflow="0"' "$WORK/ui.txt" || echo "width: wider than the window: $(tail -n 1 "$WORK/ui.txt")"
    i=0
    while IFS= read -r text; do
        i=$((i + 1))
        times=$(grep "^q$i box: " "$WORK/ui.txt" | grep -cF -- "$text")
        [ "$times" = 1 ] || echo "working: question $i's text is shown $times times in its box"
    done <"$WORK/expect.texts"
}
tr '\n' ' ' <"$SITE/quiz.html" | grep -q "1 to $IDMAX bytes without control characters" ||
    bad "the quiz page does not state grading/quiz's rule for ids (1 to $IDMAX bytes, QUIZ_ID_MAX)"
for case in "04 alice 1280" "07 carol 390"; do
    set -- $case
    # partly wrong: the first answer changed, every choice moved to the next letter, the third left out
    "$QUIZ" "$1" --student "$2" --answer-key |
        awk 'NR == 1 && $2 !~ /^[a-d]$/ { $2 = ($2 == "0") ? "1" : "0" } $2 ~ /^[a-d]$/ && NF == 2 { $2 = ($2 == "a") ? "b" : "a" } NR != 3' >"$WORK/ui-answers.txt"
    ui_expect "$1" "$2" "$WORK/ui-answers.txt"
    grep -q 'q[0-9]* radio' "$WORK/expect.kinds" && grep -q '^[0-9]* q[0-9]*: WRONG' "$WORK/report.txt" ||
        bad "quiz $1: the reader's answers need a choice and a wrong answer"
    ui_run "$1" "$2" "$WORK/ui-answers.txt" "$3"
    ui_check >"$WORK/ui.problems"
    if [ -s "$WORK/ui.problems" ]; then
        bad "quiz $1, $2, at $3 px, as a reader uses it:"
        sed 's/^/    /' "$WORK/ui.problems"
    else
        ok "quiz $1, $2, at $3 px, as a reader uses it: a blank id refused beside the field ($IDMAX-byte rule), Enter asks and checks ($(sed -n 's/^score: //p' "$WORK/ui.txt")), $(grep -c ' radio ' "$WORK/ui.kinds") radio buttons for grading/quiz's choices, under each question only its verdict and working, nothing wider than the window"
    fi
done
# planted, in the copy's quiz.js (lesson 04's answers from above): each behaviour broken in turn
plant() { # CHECK WHAT SED-SCRIPT: the copy's quiz.js edited by SED-SCRIPT must fail CHECK
    cp "$SITE/quiz.js" "$WORK/site/quiz.js"
    sed -i "$3" "$WORK/site/quiz.js"
    if cmp -s "$SITE/quiz.js" "$WORK/site/quiz.js"; then
        bad "could not plant $2 in quiz.js (the sed script matches nothing: update tests/site/quiz_ui.sh)"
        return
    fi
    ui_run 04 alice "$WORK/ui-answers.04"
    ui_check | grep "^$1: " >"$WORK/ui.problems"
    [ -s "$WORK/ui.problems" ] && ok "the $1 check fails on $2: $(head -n 1 "$WORK/ui.problems" | cut -c1-110)..." ||
        bad "the $1 check passes $2"
}
"$QUIZ" 04 --student alice --answer-key |
    awk 'NR == 1 { $2 = "0" } $2 ~ /^[a-d]$/ && NF == 2 { $2 = ($2 == "a") ? "b" : "a" } NR != 3' >"$WORK/ui-answers.04"
ui_expect 04 alice "$WORK/ui-answers.04"
plant id 'a blank id read as "student"' 's/showQuestions(select.value, student.value)/showQuestions(select.value, student.value.trim() || "student")/'
plant choices 'choices typed as letters' 's/if (hint === "a letter" \&\& choices.length > 0)/if (false)/'
plant enter 'Enter left to the browser' '/f.requestSubmit();/d'
plant working 'the question repeated in the working' '/text === question) {/d; /text.startsWith("your answer: ")) {/d'
cp "$SITE/quiz.js" "$WORK/site/quiz.js"
cp "$SITE/quiz.html" "$WORK/site/quiz.html"
rm -f "$WORK/site/quiz_ui.js" "$WORK/site/width.js"
