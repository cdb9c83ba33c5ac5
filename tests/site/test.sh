#!/bin/sh
# tests/site/test.sh SITE — make test-site: the built site (make site) in a real browser (headless
# Chromium). Checks: (a) pages render: the start page listing every lesson; a lesson with its
# sidebar, pager and ASCII diagram in <pre>; a reference solution with highlighted C; TeX math as
# MathML that Chromium lays out (a fixture page rendered by the site's own pipeline: the lesson texts
# write their formulas as Unicode in code). (b) No broken internal link or #anchor anywhere
# (tests/site/links.sh). (c) Quizzes answered in the page give the same per-question verdicts, score
# and report as grading/quiz, for four lessons, with a correct and a partly wrong answers file. The
# math, link and quiz checks are also shown to fail (a page without MathML, a broken link and anchor
# in a copy, another student's page).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
SITE=$(cd "${1:-build/site}" && pwd) || { echo "test-site: no site at ${1:-build/site}; run make site" >&2; exit 2; }
BROWSER=$(command -v chromium-headless-shell || command -v chromium) ||
    { echo "test-site: no headless Chromium; make deps installs chromium-headless-shell" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpc-site-test.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
trap 'exit 2' INT TERM
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
dom() { # the DOM after the page's scripts ran
    timeout 60 "$BROWSER" --no-sandbox --disable-gpu --headless --virtual-time-budget=10000 --dump-dom "$1" 2>/dev/null
}
has() { grep -q -- "$2" "$1"; }
unescape() { sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&amp;/\&/g'; }

# (a) pages
dom "file://$SITE/lessons/04-ring-allreduce/README.html" >"$WORK/l04.html"
if has "$WORK/l04.html" 'id="sidebar"' && has "$WORK/l04.html" 'rel="next" href="../../lessons/05-ddp/README.html"' &&
    has "$WORK/l04.html" 'rel="prev" href="../../lessons/03-naive-allreduce/README.html"' &&
    has "$WORK/l04.html" '<pre><code>   count = 10, N = 4:' &&
    has "$WORK/l04.html" 'href="../../solutions/04-ring-allreduce/ring.c.html"'; then
    ok "lesson 04: sidebar, prev/next, the ASCII diagram in <pre>, a link to the reference ring.c"
else bad "lesson 04 page (see $WORK/l04.html)"; fi
dom "file://$SITE/index.html" >"$WORK/index.html"
lessons=$(ls -d lessons/[0-9][0-9]-*/ | wc -l)
linked=$(grep -o '<li><a href="lessons/[0-9][0-9]-[^"]*/README.html"' "$WORK/index.html" | sort -u | wc -l)
if [ "$lessons" -gt 0 ] && [ "$linked" = "$lessons" ] && has "$WORK/index.html" 'rel="next" href="lessons/00-'; then
    ok "index.html: the sidebar lists all $lessons lessons, and the pager leads to lesson 00"
else bad "index.html: $linked of $lessons lessons in the sidebar, or no pager (see $WORK/index.html)"; fi
dom "file://$SITE/solutions/05-ddp/ddp_buckets.c.html" >"$WORK/sol.html"
if has "$WORK/sol.html" 'class="sourceCode c"' && has "$WORK/sol.html" '<span class="kw">' && has "$WORK/sol.html" 'id="sidebar"'; then
    ok "solutions/05-ddp/ddp_buckets.c: highlighted C"
else bad "solutions/05-ddp/ddp_buckets.c page is not highlighted"; fi
cp -r "$SITE" "$WORK/site"
mkdir -p "$WORK/site/tests/site"
SITE_ORDER="" sh site/build.sh --page "$WORK/site" tests/site/math.md || bad "the math fixture did not render"
dom "file://$WORK/site/tests/site/math.html" >"$WORK/math.html"
if has "$WORK/math.html" '<math display="block"' && has "$WORK/math.html" '<mfrac>' && has "$WORK/math.html" 'data-mathml="rendered"'; then
    ok "TeX math: MathML that Chromium lays out (inline and display)"
else bad "TeX math is not rendered as MathML (see $WORK/math.html)"; fi
# every lesson's text has math of its own, rendered (pandoc's MathML in the built page)
nomath=""
for f in "$SITE"/lessons/[0-9][0-9]-*/README.html; do grep -q '<math' "$f" || nomath="$nomath ${f#"$SITE"/}"; done
if [ -z "$nomath" ] && [ -n "$(ls "$SITE"/lessons/[0-9][0-9]-*/README.html 2>/dev/null)" ]; then
    ok "every lesson page has its formulas as MathML"
else bad "lesson pages without MathML:$nomath"; fi
sed 's/\$//g' tests/site/math.md >"$WORK/site/nomath.md" # the same page, its TeX left as text
(cd "$WORK/site" && sh "$ROOT/site/build.sh" --page "$WORK/site" nomath.md)
dom "file://$WORK/site/nomath.html" | grep -q 'data-mathml="rendered"' && bad "the math check passes a page without MathML" ||
    ok "the math check fails on a page without MathML"

# (b) links, and the checker catches a broken link and a broken anchor
if sh tests/site/links.sh "$SITE" >"$WORK/links.txt"; then ok "links: $(tail -n 1 "$WORK/links.txt")"; else
    bad "broken links:"; sed 's/^/    /' "$WORK/links.txt" | head -n 20; fi
sed -i 's|href="../../solutions/04-ring-allreduce/ring.c.html"|href="../../solutions/04-ring-allreduce/rong.c.html"|' \
    "$WORK/site/lessons/04-ring-allreduce/README.html"
sed -i 's|href="grading/README.html"|href="grading/README.html#no-such-section"|' "$WORK/site/README.html"
sh tests/site/links.sh "$WORK/site" >"$WORK/broken.txt"
if grep -q 'broken link ../../solutions/04-ring-allreduce/rong.c.html' "$WORK/broken.txt" &&
    grep -q 'no #no-such-section in grading/README.html' "$WORK/broken.txt"; then
    ok "the link check catches a broken link and a broken anchor"
else bad "the link check missed a broken link or anchor: $(cat "$WORK/broken.txt")"; fi

# (c) quizzes in the page against grading/quiz
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

echo "test-site: $pass passed, $fail failed"
[ "$fail" = 0 ]
