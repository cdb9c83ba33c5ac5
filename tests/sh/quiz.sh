# grading/quiz: every lesson's quiz draws per student, is deterministic, gives full marks to its own
# answers and less (with the working) to a wrong one; its reports are grade's; bad input is one line;
# and a few answers are recomputed here from the formulas, independently of the C code (awk).
. "$(dirname "$0")/lib.sh"
QUIZ=$BUILD/grading/quiz
export DPC_PREBUILT=1 # the front must not rebuild inside make test: the build under test is given
[ -x "$QUIZ" ] || { fail "quiz: $QUIZ is not built (make)"; exit 0; }
lessons=$("$QUIZ" --list)
[ "$(echo "$lessons" | wc -w)" -ge 10 ] || fail "quiz: only $(echo $lessons) have a quiz"

# each student's questions and answers, computed once (a call loads the course's libraries: 0.1 s)
for L in $lessons; do
    "$QUIZ" "$L" --student alice --questions >"$TMP/$L-alice.q" && "$QUIZ" "$L" --student alice --questions >"$TMP/qa2" &&
        "$QUIZ" "$L" --student bob --questions >"$TMP/$L-bob.q" || { fail "quiz $L: --questions failed"; continue; }
    cp "$TMP/$L-alice.q" "$TMP/qa"
    cp "$TMP/$L-bob.q" "$TMP/qb"
    n=$(grep -c '^[0-9]*: $' "$TMP/qa")
    if [ "$n" -lt 5 ] || [ "$n" -gt 10 ]; then fail "quiz $L: $n questions (want 5-10)"; fi
    if ! cmp -s "$TMP/qa" "$TMP/qa2"; then fail "quiz $L: the same student got different questions"; fi
    if cmp -s "$TMP/qa" "$TMP/qb" || [ "$(grep -v "student '" "$TMP/qa")" = "$(grep -v "student '" "$TMP/qb")" ]; then
        fail "quiz $L: alice and bob got the same numbers"
    fi
    "$QUIZ" "$L" --student alice --answer-key >"$TMP/key"
    cp "$TMP/key" "$TMP/$L-alice.key"
    if "$QUIZ" "$L" --student alice --answers "$TMP/key" >"$TMP/out" 2>&1 && [ "$(tail -n 1 "$TMP/out")" = "Score: $n/$n" ]; then
        pass "quiz $L: $n questions, drawn per student, the same for the same id, full marks for the computed answers"
    else
        fail "quiz $L: the computed answers do not score $n/$n: $(tail -n 3 "$TMP/out")"
    fi
    # the first numeric answer off by 10%, a choice moved to the next letter
    awk '!done && /^[0-9]+: -?[0-9.e+-]+$/ { split($0, a, ": "); printf "%s: %.10g\n", a[1], a[2] * 1.1 + 1; done = 1; next } { print }' \
        "$TMP/key" >"$TMP/wrong"
    "$QUIZ" "$L" --student alice --answers "$TMP/wrong" >"$TMP/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && [ "$(tail -n 1 "$TMP/out")" = "Score: $((n - 1))/$n" ] && grep -q '^    the answer: ' "$TMP/out" &&
        [ "$(grep -A4 'WRONG' "$TMP/out" | sed -n 5p | wc -c)" -gt 20 ]; then
        pass "quiz $L: a wrong answer scores $((n - 1))/$n (exit 1) with the answer and its working"
    else
        fail "quiz $L: a wrong answer (exit $rc): $(head -c 600 "$TMP/out")"
    fi
done

# ---- independent computations (awk, from the lessons' formulas) of some answers ----------------
# ans L ID Q: the quiz's answer to question Q; text L ID Q: its question text
ans() {
    [ -f "$TMP/$1-$2.key" ] || "$QUIZ" "$1" --student "$2" --answer-key >"$TMP/$1-$2.key"
    sed -n "s/^$3: //p" "$TMP/$1-$2.key"
}
text() { sed -n "s/^# $3\. //p" "$TMP/$1-$2.q"; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= 1e-6 * m + 1e-9) }'; }
for id in alice bob; do
    # 04 q3: the ring's bytes sent by rank r: every chunk but r (reduce-scatter), every chunk but r+1
    t=$(text 04 "$id" 1)
    count=$(echo "$t" | sed -n 's/A buffer of \([0-9]*\) floats is split into \([0-9]*\) chunks.*/\1/p')
    N=$(echo "$t" | sed -n 's/A buffer of \([0-9]*\) floats is split into \([0-9]*\) chunks.*/\2/p')
    r=$(text 04 "$id" 3 | sed -n 's/How many bytes does rank \([0-9]*\) send.*/\1/p')
    want=$(awk -v c="$count" -v N="$N" -v r="$r" 'BEGIN { b = int(c / N); e = c % N
        for (i = 0; i < N; i++) { len = b + (i < e); if (i != r) s += len; if (i != (r + 1) % N) s += len }
        print 4 * s }')
    got=$(ans 04 "$id" 3)
    if [ -n "$count" ] && [ "$got" = "$want" ]; then pass "quiz 04 ($id): ring bytes of rank $r for $count floats on $N ranks = $want, as awk computes"; else fail "quiz 04 ($id): ring bytes $got, awk says $want (count $count, N $N, rank $r)"; fi

    # 07 q4: rank N-1's indices without shuffle, padded with the head
    t=$(text 07 "$id" 1)
    L7=$(echo "$t" | sed -n 's/.*dataset of \([0-9]*\) examples and \([0-9]*\) replicas.*/\1/p')
    N7=$(echo "$t" | sed -n 's/.*dataset of \([0-9]*\) examples and \([0-9]*\) replicas.*/\2/p')
    want=$(awk -v L="$L7" -v N="$N7" 'BEGIN { ns = int((L + N - 1) / N); r = N - 1
        for (j = 0; j < ns; j++) { i = r + j * N; printf "%s%d", j ? " " : "", i % L } }')
    got=$(ans 07 "$id" 4)
    if [ -n "$L7" ] && [ "$got" = "$want" ]; then pass "quiz 07 ($id): sampler indices of rank $((N7 - 1)) for L=$L7, N=$N7: $want"; else fail "quiz 07 ($id): sampler indices '$got', awk says '$want'"; fi

    # 08 q1 and q4: FSDP's chunk ceil(n/N) and 3(N-1) * sum(c) * 4 bytes a step
    t=$(text 08 "$id" 1)
    set -- $(echo "$t" | sed -n 's/FSDP on \([0-9]*\) ranks shards a model of three units of \([0-9]*\), \([0-9]*\) and \([0-9]*\) parameters.*/\1 \2 \3 \4/p')
    if [ $# = 4 ]; then
        want=$(awk -v N="$1" -v a="$2" -v b="$3" -v c="$4" 'BEGIN { s = int((a+N-1)/N) + int((b+N-1)/N) + int((c+N-1)/N); print int((a+N-1)/N), 3*(N-1)*s*4 }')
        got="$(ans 08 "$id" 1) $(ans 08 "$id" 4)"
        if [ "$got" = "$want" ]; then pass "quiz 08 ($id): chunk and step traffic $want"; else fail "quiz 08 ($id): chunk and traffic '$got', awk says '$want'"; fi
    else
        fail "quiz 08 ($id): cannot read the units from: $t"
    fi

    # 05 q1: PyTorch's bucket rule over the drawn sizes and cap
    t=$(text 05 "$id" 1)
    sizes=$(echo "$t" | sed -n 's/.*sizes in bytes: \([0-9, ]*\)\. DDP runs.*/\1/p' | tr -d ',')
    cap=$(echo "$t" | sed -n 's/.*(\([0-9]*\) bytes)\. How many.*/\1/p')
    want=$(echo "$sizes" | awk -v cap="$cap" '{ n = 0; open = 0; for (i = NF; i >= 1; i--) { open += $i; if (open >= cap || i == 1) { n++; open = 0 } } print n }')
    got=$(ans 05 "$id" 1)
    if [ -n "$cap" ] && [ "$got" = "$want" ]; then pass "quiz 05 ($id): $want buckets for [$sizes] at cap $cap"; else fail "quiz 05 ($id): $got buckets, awk says $want ([$sizes], cap $cap)"; fi

    # 01 q1: AdamW's first step, theta(1 - lr wd) - lr g/(|g| + eps) - theta
    t=$(text 01 "$id" 1)
    set -- $(echo "$t" | sed -n 's/.*weight_decay \([0-9.e-]*\), lr \([0-9.e-]*\)).*theta = \([0-9.e-]*\) whose gradient is \([0-9.e-]*\)\..*/\1 \2 \3 \4/p')
    if [ $# = 4 ]; then
        want=$(awk -v wd="$1" -v lr="$2" -v th="$3" -v g="$4" 'BEGIN { a = g < 0 ? -g : g; printf "%.10g", th * (1 - lr * wd) - lr * g / (a + 1e-8) - th }')
        got=$(ans 01 "$id" 1)
        if awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= 1e-3 * m) }'; then
            pass "quiz 01 ($id): AdamW's first step $got (awk, in double: $want)"
        else
            fail "quiz 01 ($id): AdamW's first step $got, awk says $want"
        fi
    else
        fail "quiz 01 ($id): cannot read the hyperparameters from: $t"
    fi

    # 09 q3: the predicted step, compute/min(N, cores) + b * ring(|g|/b)
    t=$(text 09 "$id" 3)
    set -- $(echo "$t" | sed -n 's/.*takes \([0-9]*\) ms of compute.*N = \([0-9]*\) ranks sharing \([0-9]*\) cores; the \([0-9]*\) MiB gradient goes as \([0-9]*\) equal.*alpha = \([0-9.]*\) us, beta = \([0-9.]*\) GB\/s.*/\1 \2 \3 \4 \5 \6 \7/p')
    if [ $# = 7 ]; then
        want=$(awk -v c="$1" -v N="$2" -v k="$3" -v mib="$4" -v b="$5" -v a="$6" -v be="$7" 'BEGIN {
            p = N < k ? N : k; g = mib * 1048576 / b
            printf "%.10g", c / p + b * (2 * (N - 1) * a * 1e-3 + 2 * (N - 1) / N * g / (be * 1e9) * 1e3) }')
        got=$(ans 09 "$id" 3)
        if close "$got" "$want"; then pass "quiz 09 ($id): predicted step $got ms (awk: $want)"; else fail "quiz 09 ($id): predicted step $got ms, awk says $want"; fi
    else
        fail "quiz 09 ($id): cannot read the model's inputs from: $t"
    fi

    # 10 q1 and q4: E[max] of N exponential delays = mean * H_N; B_simple from the two squared norms
    t=$(text 10 "$id" 1)
    set -- $(echo "$t" | sed -n 's/.*N = \([0-9]*\) ranks.*of mean \([0-9]*\) ms.*/\1 \2/p')
    if [ $# = 2 ]; then
        want=$(awk -v N="$1" -v m="$2" 'BEGIN { h = 0; for (k = 1; k <= N; k++) h += 1 / k; printf "%.10g", m * h }')
        got=$(ans 10 "$id" 1)
        if close "$got" "$want"; then pass "quiz 10 ($id): E[max] of $1 exponential delays of mean $2 ms = $got (awk: $want)"; else fail "quiz 10 ($id): E[max] $got, awk says $want"; fi
    else
        fail "quiz 10 ($id): cannot read N and the mean from: $t"
    fi
    t=$(text 10 "$id" 4)
    set -- $(echo "$t" | sed -n 's/.*on \([0-9]*\) ranks with \([0-9]*\) examples each.*before the all-reduce is \([0-9.e+-]*\), and |G_B|^2 after it is \([0-9.e+-]*\)\..*/\1 \2 \3 \4/p')
    if [ $# = 4 ]; then
        want=$(awk -v n="$1" -v b="$2" -v s="$3" -v l="$4" 'BEGIN { B = n * b
            g2 = (B * l - b * s) / (B - b); tr = (s - l) / (1 / b - 1 / B); printf "%.10g", tr / g2 }')
        got=$(ans 10 "$id" 4)
        if close "$got" "$want"; then pass "quiz 10 ($id): B_simple $got (awk: $want)"; else fail "quiz 10 ($id): B_simple $got, awk says $want"; fi
    else
        fail "quiz 10 ($id): cannot read the norms from: $t"
    fi

    # 11 q2: the hierarchical all-reduce's bytes across the nodes, from rank r's shard (chunk l of
    # count over K) and the ring over M on it: every piece but n, then every piece but n+1
    t=$(text 11 "$id" 2)
    set -- $(echo "$t" | sed -n 's/.*all-reduce of \([0-9]*\) floats on --topology \([0-9]*\)x\([0-9]*\) (block).*does rank \([0-9]*\) send.*/\1 \2 \3 \4/p')
    if [ $# = 4 ]; then
        want=$(awk -v c="$1" -v M="$2" -v K="$3" -v r="$4" 'BEGIN { n = int(r / K); l = r % K
            S = int(c / K) + (l < c % K); b = int(S / M); e = S % M
            for (i = 0; i < M; i++) { len = b + (i < e); if (i != n) s += len; if (i != (n + 1) % M) s += len }
            print 4 * s }')
        got=$(ans 11 "$id" 2)
        if [ "$got" = "$want" ]; then pass "quiz 11 ($id): bytes across of rank $4 on $2x$3 for $1 floats = $got (awk: $want)"; else fail "quiz 11 ($id): bytes across $got, awk says $want"; fi
    else
        fail "quiz 11 ($id): cannot read the cluster from: $t"
    fi

    # 12 q1: rank 0's slice of B on N ranks (chunk_range: the first B % N one longer), and q6: the
    # Young-Daly interval sqrt(2 C MTBF) in minutes
    set -- $(text 12 "$id" 1 | sed -n 's/.*global batch of B = \([0-9]*\) .*restarts on N = \([0-9]*\)\..*/\1 \2/p')
    if [ $# = 2 ]; then
        want=$(awk -v B="$1" -v N="$2" 'BEGIN { print int(B / N) + (B % N > 0), 0 }')
        got=$(ans 12 "$id" 1)
        if [ "$got" = "$want" ]; then pass "quiz 12 ($id): rank 0's slice of B = $1 on $2 ranks = $got (awk: $want)"; else fail "quiz 12 ($id): slice $got, awk says $want"; fi
    else
        fail "quiz 12 ($id): cannot read B and N from: $(text 12 "$id" 1)"
    fi
    set -- $(text 12 "$id" 6 | sed -n 's/.*takes C = \([0-9]*\) s, and the job fails on average every \([0-9]*\) hours.*/\1 \2/p')
    if [ $# = 2 ] && close "$(ans 12 "$id" 6)" "$(awk -v C="$1" -v H="$2" 'BEGIN { printf "%.10g", sqrt(2 * C * H * 3600) / 60 }')"; then
        pass "quiz 12 ($id): Young-Daly interval for C = $1 s, MTBF = $2 h matches awk"
    else
        fail "quiz 12 ($id): Young-Daly interval $(ans 12 "$id" 6) does not match sqrt(2 C MTBF) for: $(text 12 "$id" 6)"
    fi
done

# ---- the reports: grade's JSON and Gradescope, and the interactive mode ------------------------------
"$QUIZ" 04 --student alice --answer-key | sed '2s/.*/2: 99/' >"$TMP/a04"
n=$("$QUIZ" 04 --student alice --answer-key | wc -l)
grading/quiz 04 --student alice --answers "$TMP/a04" --format gradescope --out "$TMP/gs.json" >/dev/null 2>&1
rc=$?
if [ $rc = 1 ] && "$BUILD/grading/report" --validate "$TMP/gs.json" && grep -q "\"score\":[[:space:]]*$((n - 1))," "$TMP/gs.json" &&
    grep -q 'the answer: ' "$TMP/gs.json"; then
    pass "quiz: --format gradescope is a valid results.json, $((n - 1))/$n, the working in the failed test's output"
else
    fail "quiz: --format gradescope (exit $rc): $(head -c 400 "$TMP/gs.json" 2>/dev/null)"
fi
grading/quiz 04 --student alice --answers "$TMP/a04" --format json >"$TMP/r.json" 2>"$TMP/text"
if grep -q "\"max_score\":[[:space:]]*$n," "$TMP/r.json" && grep -q '"state":[[:space:]]*"complete"' "$TMP/r.json" &&
    [ "$(tail -n 1 "$TMP/text")" = "Score: $((n - 1))/$n" ]; then
    pass "quiz: --format json on stdout (the text on stderr)"
else
    fail "quiz: --format json: $(head -c 300 "$TMP/r.json")"
fi
"$QUIZ" 09 --student alice --answer-key | sed 's/^[0-9]*: //' | "$QUIZ" 09 --student alice >"$TMP/out" 2>&1
n=$("$QUIZ" 09 --student alice --answer-key | wc -l)
if [ "$(tail -n 1 "$TMP/out")" = "Score: $n/$n" ] && [ "$(grep -c '^> Right' "$TMP/out")" = "$n" ]; then
    pass "quiz: interactive, one question at a time, all right"
else
    fail "quiz: interactive: $(tail -n 5 "$TMP/out")"
fi
printf 'nonsense\n1\n' | "$QUIZ" 09 --student alice >"$TMP/out" 2>&1
if grep -q "is not a number; try again" "$TMP/out" && grep -q "^  the answer: " "$TMP/out"; then
    pass "quiz: interactive: asks again after an unreadable answer, explains a wrong one"
else
    fail "quiz: interactive, bad and wrong answers: $(head -c 400 "$TMP/out")"
fi

# ---- student ids: one student however the id is typed; a file written for another is said so ------
# (without normalising, '  ALICE ' draws other numbers than alice: her own key would score about 0)
n=$("$QUIZ" 04 --student alice --answer-key | wc -l)
"$QUIZ" 04 --student '  ALICE ' --answers "$TMP/04-alice.key" >"$TMP/out" 2>&1
rc=$?
"$QUIZ" 04 --student ' Ann   LEE' --questions >"$TMP/q1"
"$QUIZ" 04 --student 'ann lee' --questions >"$TMP/q2"
if [ $rc = 0 ] && [ "$(tail -n 1 "$TMP/out")" = "Score: $n/$n" ] && cmp -s "$TMP/q1" "$TMP/q2" && grep -q "^# lesson 04 quiz for student 'ann lee':" "$TMP/q1"; then
    pass "quiz: ids are normalised: '  ALICE ' is alice ($n/$n with her key), ' Ann   LEE' is 'ann lee' (same questions, header)"
else
    fail "quiz: ids in another case or with spaces (exit $rc): $(tail -n 2 "$TMP/out") / $(head -n 1 "$TMP/q1")"
fi
# bob's questions filled with bob's answers: right for bob (whatever the case of the id), bad input for alice
"$QUIZ" 04 --student bob --answer-key >"$TMP/bobkey"
{ sed 's/bob/ BOB /' "$TMP/04-bob.q" | grep -v '^[0-9]*: $'; cat "$TMP/bobkey"; } >"$TMP/bobfile"
"$QUIZ" 04 --student Bob --answers "$TMP/bobfile" >"$TMP/out" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(tail -n 1 "$TMP/out")" = "Score: $n/$n" ]; then
    pass "quiz: a header whose id differs only in case and spaces is the student's ($n/$n)"
else
    fail "quiz: bob's own file with header id ' BOB ': $(tail -n 2 "$TMP/out")"
fi
expect_error "quiz: an answers file whose header is another student's" \
    "line 1: these are the questions of student ' BOB ', not 'alice'" grading/quiz 04 --student alice --answers "$TMP/bobfile"
expect_error "quiz: an answers file whose header is another lesson's" \
    "line 1: these are the questions of lesson '04', not lesson 05" grading/quiz 05 --student bob --answers "$TMP/bobfile"
expect_error "quiz: a student id with a control character" "has a control character or invalid UTF-8" \
    grading/quiz 04 --student "$(printf 'al\033[2Jice')" --questions
expect_error "quiz: a student id of spaces" "the student id is empty" grading/quiz 04 --student '   ' --answers "$TMP/bobfile"
expect_error "quiz: a student id of 65 bytes" "is longer than 64 bytes" grading/quiz 04 --student "$(printf '%065d' 0)" --questions

# ---- the student's text is printed safe: no escape codes, no invalid UTF-8, in any report -----------
# clean FILE: valid UTF-8 (iconv) with no control character but newline and tab
clean() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 && [ "$(LC_ALL=C tr -d '\n\t' <"$1" | LC_ALL=C grep -c '[[:cntrl:]]')" = 0 ]; }
ESC=$(printf '\033')
printf '1: %s]0;owned%s%s[2J%s[1A04 q1: OK\r\n2: \377\376 \200b\n3: 12%s[31m\n' "$ESC" "$(printf '\007')" "$ESC" "$ESC" "$ESC" >"$TMP/hostile"
printf '1: 4\nthree%s[31m\377: 5\n' "$ESC" >"$TMP/hostile-line"
printf 'x%s[2J\n\377\n' "$ESC" >"$TMP/hostile-tty"
grading/quiz 04 --student alice --answers "$TMP/hostile" >"$TMP/h-text" 2>&1
grading/quiz 04 --student alice --answers "$TMP/hostile" --for-credit >"$TMP/h-credit" 2>&1
grading/quiz 04 --student alice --answers "$TMP/hostile" --format json >"$TMP/h-json" 2>"$TMP/h-json-text"
grading/quiz 04 --student alice --answers "$TMP/hostile-line" >"$TMP/h-line" 2>&1
"$QUIZ" 04 --student alice <"$TMP/hostile-tty" >"$TMP/h-tty" 2>&1
bad=""
for f in h-text h-credit h-json h-json-text h-line h-tty; do clean "$TMP/$f" || bad="$bad $f"; done
if [ -z "$bad" ] && ! clean "$TMP/hostile" && grep -q '^    your answer: ?\]0;owned??\[2J?\[1A04 q1: OK' "$TMP/h-text" &&
    [ "$(grep -c '^04 q1: OK' "$TMP/h-text")" = 0 ] && grep -q "got 'three?\[31m" "$TMP/h-line" &&
    grep -q "your answer: $(printf '\357\277\275\357\277\275') $(printf '\357\277\275')b" "$TMP/h-text"; then
    pass "quiz: escape codes, a carriage return and invalid UTF-8 in answers come out as ? and U+FFFD (text, --for-credit, json, a malformed line, asked)"
else
    fail "quiz: the answers' raw bytes reach a report (unclean:${bad:- none}): $(head -n 3 "$TMP/h-text" | od -c | head -n 5)"
fi
# the quiz's rule is the reports' (grading/safe_text.h and grading/report.c): the same bytes, the same text
printf '\377\376 \200b%s[31m\001\177x\355\240\200y\300\257z\302\233c\342\200\250d\342\200\256e' "$ESC" >"$TMP/bytes"
printf '1: ' | cat - "$TMP/bytes" >"$TMP/bytes-answer"
"$QUIZ" 04 --student alice --answers "$TMP/bytes-answer" >"$TMP/out" 2>&1
by_quiz=$(sed -n '1,/^04 q2/s/^    your answer: //p' "$TMP/out")
by_report=$("$BUILD/grading/report" --sanitize "$TMP/bytes")
if [ -n "$by_quiz" ] && [ "$by_quiz" = "$by_report" ] && ! printf '%s' "$by_report" | grep -q "$(printf '\302\233\|\342\200\250\|\342\200\256')"; then
    pass "quiz: an answer of escape codes, controls, a surrogate and an overlong form reads as report --sanitize has it (C1 controls, U+2028 and bidi controls as ?): $by_quiz"
else
    fail "quiz: the quiz's safe text '$by_quiz' differs from report --sanitize's '$by_report'"
fi

# ---- --for-credit: the verdicts, never an answer nor its working ---------------------------------
# Every question unanswered: practice explains each (the answer, then its working); for credit none
# of those lines may appear: in the text for every lesson, and for lesson 04 also in the Gradescope
# report (its per-question outputs are written apart from the text) and when asked in the terminal.
: >"$TMP/empty"
for L in $lessons; do
    n=$(wc -l <"$TMP/$L-alice.key")
    "$QUIZ" "$L" --student alice --answers "$TMP/empty" >"$TMP/practice" 2>&1
    # the answer lines and the working after each: what practice shows and credit must not
    grep -A1 '^    the answer: ' "$TMP/practice" | grep -v '^--$' | sed 's/^    //' >"$TMP/secret"
    "$QUIZ" "$L" --student alice --answers "$TMP/empty" --for-credit >"$TMP/credit" 2>&1
    rc=$?
    : >"$TMP/credit.json"
    : >"$TMP/credit-tty"
    where=" (text)"
    if [ "$L" = 04 ]; then
        where=" (text, Gradescope, asked)"
        grading/quiz "$L" --student alice --answers "$TMP/empty" --for-credit --format gradescope --out "$TMP/credit.json" >/dev/null 2>&1
        printf '0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n' | "$QUIZ" "$L" --student alice --for-credit >"$TMP/credit-tty" 2>&1
        { grep -q '"score":[[:space:]]*0,' "$TMP/credit.json" && [ "$(grep -c '^Score: ' "$TMP/credit-tty")" = 1 ]; } ||
            fail "quiz 04 --for-credit: no Gradescope report or asked quiz: $(head -c 200 "$TMP/credit.json") / $(tail -n 1 "$TMP/credit-tty")"
    fi
    leaked=$(cat "$TMP/credit" "$TMP/credit.json" "$TMP/credit-tty" | grep -cF -f "$TMP/secret")
    if [ "$(grep -c . "$TMP/secret")" = $((2 * n)) ] && [ $rc = 1 ] && [ "$leaked" = 0 ] &&
        [ "$(grep -c '^'"$L"' q[0-9]*: WRONG (no answer)$' "$TMP/credit")" = "$n" ] && [ "$(tail -n 1 "$TMP/credit")" = "Score: 0/$n" ]; then
        pass "quiz $L --for-credit: $n verdicts, none of the $((2 * n)) answer and working lines practice shows$where"
    else
        fail "quiz $L --for-credit (exit $rc): $leaked lines leaked of $(grep -c . "$TMP/secret"): $(grep -F -f "$TMP/secret" "$TMP/credit" "$TMP/credit.json" "$TMP/credit-tty" | head -n 3)"
    fi
done
truncate -s 1G "$TMP/huge" # sparse: no disk; read line by line it took 5 s (10 GiB: a minute)
expect_error "quiz: an answers file of 1 GiB is refused at once" "has 1073741824 bytes; an answers file is a few lines" \
    grading/quiz 04 --student alice --answers "$TMP/huge" --for-credit
expect_error "quiz: --for-credit with --answer-key" "--for-credit never shows an answer" grading/quiz 04 --student alice --answer-key --for-credit

# ---- bad input: one line, non-zero ---------------------------------------------------------------
printf '1: 4\nthree: 5\n' >"$TMP/malformed"
printf '1: 4\n42: 5\n' >"$TMP/beyond"
printf '1: 4\n1: 5\n' >"$TMP/twice"
expect_error "quiz: an unknown lesson" "there is no quiz for lesson '42'" grading/quiz 42 --student alice --questions
expect_error "quiz: a missing answers file" "cannot read the answers file $TMP/none" grading/quiz 04 --student alice --answers "$TMP/none"
expect_error "quiz: a malformed line" "line 2: expected 'QUESTION: ANSWER'" grading/quiz 04 --student alice --answers "$TMP/malformed"
expect_error "quiz: an answer to a question that does not exist" "there is no question 42" grading/quiz 04 --student alice --answers "$TMP/beyond"
expect_error "quiz: a question answered twice" "question 1 is answered twice" grading/quiz 04 --student alice --answers "$TMP/twice"
expect_error "quiz: --answers without --student" "--student ID is required" grading/quiz 04 --answers "$TMP/twice"
expect_error "quiz: an unknown option" "unknown option --bogus" grading/quiz 04 --bogus
expect_error "quiz: a bad --format" "--format must be text, json or gradescope" grading/quiz 04 --format xml
