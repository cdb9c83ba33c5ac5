#!/bin/sh
# tests/site/test.sh SITE — make test-site: the built site (make site) in a real browser (headless
# Chromium). Checks: (a) pages render: the start page listing every lesson; a lesson with its
# sidebar, pager and ASCII diagram in <pre>; a reference solution with highlighted C; TeX math as
# MathML that Chromium lays out (a fixture page rendered by the site's own pipeline: the lesson texts
# write their formulas as Unicode in code). (b) No broken internal link or #anchor anywhere
# (tests/site/links.sh). (c) Every table whole: rows as wide as the table, no stray backtick
# (tests/site/html_tables.sh). (d) The plots page: every plot the scripts draw (tests/site/plot_list.sh),
# made up as 1-pixel PNGs in a scratch out/, is a captioned figure there; with none drawn, each figure
# gives its command. (e) Quizzes answered in the page give the same per-question verdicts, score and
# report as grading/quiz, for four lessons, with a correct and a partly wrong answers file. Each check
# is also shown to fail: a page without MathML, a broken link and anchor in a copy, a table cut by a |
# inside code, a plot removed from the plots page and a caption removed, another student's page.
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

# (c) tables: every row of every page as wide as its table, no stray backtick (a code span cut by a |);
# a page rendered by the site's pipeline from a table with a | inside code is caught
if sh tests/site/html_tables.sh "$SITE" >"$WORK/tables.txt"; then ok "tables: $(tail -n 1 "$WORK/tables.txt")"; else
    bad "broken tables (tests/site/md_tables.sh names the source lines):"; sed 's/^/    /' "$WORK/tables.txt" | head -n 20; fi
printf '# Cost\n\n| algorithm | bytes | time |\n|---|---|---|\n| ring | `|g|/N` | `2(N−1)/N·|g|/β` |\n' >"$WORK/site/brokentable.md"
(cd "$WORK/site" && sh "$ROOT/site/build.sh" --page "$WORK/site" brokentable.md)
if ! sh tests/site/html_tables.sh "$WORK/site/brokentable.html" >"$WORK/tables.txt" &&
    grep -q 'brokentable.html: table 1, row 2: cell 2 shows a stray backtick' "$WORK/tables.txt"; then
    ok "the table check catches a table cut by a | inside code"
else bad "the table check passes a table cut by a | inside code: $(cat "$WORK/tables.txt")"; fi

# (d) plots: with every plot the scripts draw present in a made-up out/ (tests/site/plot_list.sh finds
# them in the scripts, 1-pixel PNGs here), the plots page shows each as a captioned figure; with none,
# each figure gives the command that draws it instead
. "$ROOT/tests/site/plots_lib.sh"
SITE_DIR=$WORK/site
sh site/build.sh --plots "$WORK/site" "$WORK/out" || bad "site/build.sh --plots failed"
dom "file://$WORK/site/plots.html" >"$WORK/plots.html"
DRAWN=1 check_plots "$WORK/plots.html" >"$WORK/plots.missing"
if [ "$nplots" -gt 0 ] && [ ! -s "$WORK/plots.missing" ] && ! has "$WORK/plots.html" 'Not drawn yet'; then
    ok "plots: all $nplots plots the scripts draw are on the plots page, each a captioned figure"
else bad "plots: of $nplots plots the scripts draw (tests/site/plot_list.sh): $(head -n 8 "$WORK/plots.missing" | tr '\n' ';')"; fi
mkdir -p "$WORK/empty"
sh site/build.sh --plots "$WORK/site" "$WORK/empty" || bad "site/build.sh --plots failed"
dom "file://$WORK/site/plots.html" >"$WORK/plots.html"
DRAWN=0 check_plots "$WORK/plots.html" >"$WORK/plots.missing"
if [ "$nplots" -gt 0 ] && [ ! -s "$WORK/plots.missing" ] && ! has "$WORK/plots.html" '<img'; then
    ok "plots: none drawn, each of the $nplots figures gives the command that draws it"
else bad "plots, none drawn: $(head -n 8 "$WORK/plots.missing" | tr '\n' ';')"; fi
# planted: one plot gone from the page, one caption gone
sh site/build.sh --plots "$WORK/site" "$WORK/out" || bad "site/build.sh --plots failed"
sed -i '/<img src="plots\/demo\/bench\/ddp_buckets.png"/d; /id="plot-out-demo-loss-png"/,/<\/figure>/{/figcaption/d}' "$WORK/site/plots.html"
dom "file://$WORK/site/plots.html" >"$WORK/plots.html"
DRAWN=1 check_plots "$WORK/plots.html" >"$WORK/plots.missing"
if grep -q '^out/demo/bench/ddp_buckets.png: not shown' "$WORK/plots.missing" &&
    grep -q '^out/demo/loss.png: a figure without a caption' "$WORK/plots.missing"; then
    ok "the plots check catches a plot missing from the page and a figure without a caption"
else bad "the plots check missed a planted defect: $(tr '\n' ';' <"$WORK/plots.missing")"; fi

# (e) quizzes in the page against grading/quiz
. "$ROOT/tests/site/quiz_page.sh"

echo "test-site: $pass passed, $fail failed"
[ "$fail" = 0 ]
