#!/bin/sh
# tests/site/test.sh SITE — make test-site: the course site (make site, MkDocs Material) opened from
# the disk in a real browser (headless Chromium), as a reader meets it. Checks:
#   (a) pages: the navigation lists every lesson, a lesson has previous/next links, its ASCII diagram
#       in <pre> and a link to the reference ring.c; a reference solution is highlighted C; every text
#       has a table of contents with every section in it, and an anchor on every heading; no text
#       shows Markdown or TeX left unrendered (a backtick or $...$ outside code and formulas).
#   (b) at 390 px, each text, the quiz and the plots page: nothing wider than the viewport outside a
#       block that scrolls (tests/site/width.js), every formula drawn by KaTeX, a copy button on
#       every code block.
#   (c) search from file://: "reduce-scatter" finds lesson 04 first.
#   (d) nothing is loaded from the network; no broken internal link or #anchor (tests/site/links.sh).
#   (e) every table whole, no code showing the \| escape (tests/site/html_tables.sh).
#   (f) figures: every plot the scripts draw (tests/site/plot_list.sh), made up as 1-pixel PNGs, is
#       in a lesson's captioned figure and on the plots page; with none drawn, each gives its
#       commands; with only make demo's, each figure that has one shows it.
#   (g) quizzes answered in the page give grading/quiz's verdicts, score and report; used as a reader
#       uses it (typed, clicked, Enter pressed), the page refuses a blank id beside the field, offers
#       a radio button per choice, checks the answers on Enter and shows under each question only its
#       verdict and working (tests/site/quiz_ui.sh).
# Each check is also shown to fail on a planted defect, in a copy of the site.
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
dom() { # URL [WIDTH]: the DOM after the page's scripts ran, in a window WIDTH (1280) px wide
    timeout 60 "$BROWSER" --no-sandbox --disable-gpu --headless --hide-scrollbars --window-size="${2:-1280},844" \
        --virtual-time-budget=10000 --dump-dom "$1" 2>/dev/null
}
has() { grep -q -- "$2" "$1"; }
unescape() { sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&amp;/\&/g'; }
cp -r "$SITE" "$WORK/site"
TEXTS=$(cd "$SITE" && ls index.html lessons/[0-9][0-9]-*/index.html lessons/pytorch-semantics.html grading/index.html \
    datasets/index.html common/index.html 2>/dev/null)

# (a) pages
L04=$SITE/lessons/04-ring-allreduce/index.html
lessons=$(ls -d lessons/[0-9][0-9]-*/ | wc -l)
if has "$L04" 'href="../03-naive-allreduce/index.html" class="md-footer__link md-footer__link--prev"' &&
    has "$L04" 'href="../05-ddp/index.html" class="md-footer__link md-footer__link--next"' &&
    grep -q '<pre><span></span><code>   count = 10, N = 4:' "$L04" && has "$L04" 'href="../../solutions/04-ring-allreduce/ring.c.html"'; then
    ok "lesson 04: previous/next, the ASCII diagram in <pre>, a link to the reference ring.c"
else bad "lesson 04 page: no previous/next, diagram or ring.c link"; fi
navlessons() { # PAGE ROOT: the lessons the primary navigation links to
    sed -n '/<div class="md-sidebar md-sidebar--primary"/,/<div class="md-sidebar md-sidebar--secondary"/p' "$1" |
        grep -o "href=\"$2lessons/[0-9][0-9]-[^\"/]*/index.html\"" | sort -u | wc -l
}
n=$(navlessons "$SITE/index.html" "")
[ "$lessons" -gt 0 ] && [ "$n" = "$lessons" ] && ok "index.html: the navigation lists all $lessons lessons" ||
    bad "index.html: the navigation lists $n of $lessons lessons"
S=$SITE/solutions/05-ddp/ddp_buckets.c.html
has "$S" 'class="language-c highlight"' && has "$S" '<span class="kt">' && [ "$(navlessons "$S" ../../)" = "$lessons" ] &&
    ok "solutions/05-ddp/ddp_buckets.c: highlighted C, with the navigation" || bad "solutions/05-ddp/ddp_buckets.c is not highlighted"
toc() { # PAGE -> the sections (h2, h3) missing from its table of contents or without an anchor, one a line
    awk '/<nav class="md-nav md-nav--secondary" aria-label="Table of contents">/ { intoc = 1 }
        intoc && /<\/nav>/ { depth-- } intoc && /<nav/ { depth++ } intoc && depth == 0 { intoc = 0 }
        intoc { while (match($0, /href="#[^"]*"/)) { t[substr($0, RSTART + 7, RLENGTH - 8)] = 1; $0 = substr($0, RSTART + RLENGTH) } next }
        { line = $0
          while (match(line, /<h[23] id="[^"]*"/)) { id = substr(line, RSTART + 8, RLENGTH - 9); h[++n] = id; rest = substr(line, RSTART)
            if (index(rest, "<a class=\"headerlink\" href=\"#" id "\"") == 0) print id ": no anchor link"
            line = substr(line, RSTART + RLENGTH) } }
        END { for (i = 1; i <= n; i++) if (!(h[i] in t)) print h[i] ": not in the table of contents" }' "$1"
    # a lesson has sections, and so a table of contents (common/README.md, one table, has none)
    case $1 in */lessons/[0-9][0-9]-*) grep -q '<h2 id=' "$1" || echo "no sections" ;; esac
}
: >"$WORK/toc.txt"
for p in $TEXTS; do toc "$SITE/$p" | sed "s|^|$p: |" >>"$WORK/toc.txt"; done
sections=$(for p in $TEXTS; do grep -o '<h[23] id=' "$SITE/$p"; done | wc -l)
[ ! -s "$WORK/toc.txt" ] && ok "every text ($(echo "$TEXTS" | wc -l)) has a table of contents with its $sections sections, each heading an anchor" ||
    bad "tables of contents: $(head -n 5 "$WORK/toc.txt" | tr '\n' ';')"
# planted: a table of contents gone, a heading's anchor gone
P=$WORK/site/lessons/10-limits/index.html
sed -i 's|<nav class="md-nav md-nav--secondary" aria-label="Table of contents">|<nav class="md-nav">|' "$P"
sed -i 's|<a class="headerlink" href="#the-ring" title="Permanent link">¶</a>||' "$WORK/site/lessons/04-ring-allreduce/index.html"
if toc "$P" | grep -q 'not in the table of contents' && toc "$WORK/site/lessons/04-ring-allreduce/index.html" | grep -qx 'the-ring: no anchor link'; then
    ok "the contents check catches a page without its table of contents and a heading without its anchor"
else bad "the contents check missed a planted defect"; fi
cp "$SITE/lessons/10-limits/index.html" "$P" && cp "$L04" "$WORK/site/lessons/04-ring-allreduce/index.html"
unrendered() { # PAGE -> text that shows Markdown or TeX left unrendered: a backtick, or $...$, outside
    # code and formulas (what a block the Markdown reader skipped, a hint's <details>, looks like)
    perl -0777 -ne 's{<pre.*?</pre>}{}gs; s{<code.*?</code>}{}gs; s{<script.*?</script>}{}gs;
        s{<(span|div) class="arithmatex">.*?</\1>}{}gs; s{<[^>]*>}{}gs;
        while (/([^\n]{0,30}(?:`|\$[^\s\$][^\$\n]*\$)[^\n]{0,30})/g) { print "$1\n" }' "$1"
}
: >"$WORK/raw.txt"
for p in $TEXTS quiz.html plots.html; do unrendered "$SITE/$p" | sed "s|^|$p: |" >>"$WORK/raw.txt"; done
[ ! -s "$WORK/raw.txt" ] && ok "no text shows Markdown or TeX unrendered (the hints' <details> included)" ||
    bad "unrendered Markdown or TeX: $(head -n 5 "$WORK/raw.txt" | tr '\n' ';')"
# planted: a hint whose Markdown was not read (its code spans and formulas left as typed)
P6=$WORK/site/lessons/06-accum/index.html
sed -i '0,/<code>/s|<code>\([^<]*\)</code>|`\1`|; 0,/<span class="arithmatex">/s|<span class="arithmatex">[^<]*</span>|$N$|' "$P6"
[ "$(unrendered "$P6" | wc -l)" -ge 2 ] && ok "the unrendered check catches a code span and a formula left as typed" ||
    bad "the unrendered check passes a page with Markdown left as typed: $(unrendered "$P6" | head -n 2)"
cp "$SITE/lessons/06-accum/index.html" "$P6"

# (b) 390 px wide: nothing sticks out of the viewport, every formula drawn
cp tests/site/width.js "$WORK/site/width.js"
measured() { # PAGE (in the copy) [WIDTH]: the page with width.js, its <body> attributes
    f=$WORK/site/$1
    root=$(printf '%s\n' "$1" | awk -F/ '{ s = ""; for (i = 1; i < NF; i++) s = s "../"; print s }')
    grep -q 'width.js' "$f" || sed -i "s|</body>|<script src=\"${root}width.js\"></script></body>|" "$f"
    dom "file://$f" "${2:-390}" >"$WORK/dom.html"
}
: >"$WORK/wide.txt"
: >"$WORK/math.txt"
formulas=0 blocks=0
: >"$WORK/copy.txt"
for p in $TEXTS quiz.html plots.html; do
    measured "$p"
    body=$(grep -o '<body[^>]*>' "$WORK/dom.html")
    case $body in *'data-overflow="0"'*) ;; *) echo "$p: $(printf '%s' "$body" | grep -o 'data-width="[^"]*"\|data-overflow-what="[^"]*"' | tr '\n' ' ')" >>"$WORK/wide.txt" ;; esac
    tex=$(grep -o 'class="arithmatex"' "$WORK/dom.html" | wc -l)
    drawn=$(grep -o 'class="arithmatex" data-katex="rendered"' "$WORK/dom.html" | wc -l)
    formulas=$((formulas + tex))
    [ "$tex" = "$drawn" ] || echo "$p: $drawn of $tex formulas drawn" >>"$WORK/math.txt"
    case $p in lessons/[0-9][0-9]-*) [ "$tex" -gt 0 ] || echo "$p: no formula" >>"$WORK/math.txt" ;; esac
    pres=$(grep -o '<pre id="__code_' "$WORK/dom.html" | wc -l)
    copies=$(grep -o 'data-md-type="copy"' "$WORK/dom.html" | wc -l)
    blocks=$((blocks + pres))
    [ "$pres" = "$copies" ] || echo "$p: $copies copy buttons for $pres code blocks" >>"$WORK/copy.txt"
done
[ ! -s "$WORK/copy.txt" ] && [ "$blocks" -gt 0 ] && ok "a copy button on each of the $blocks code blocks" ||
    bad "copy buttons: $(head -n 5 "$WORK/copy.txt" | tr '\n' ';')"
[ ! -s "$WORK/wide.txt" ] && ok "390 px: no page wider than the viewport outside a scrolling block ($(echo "$TEXTS" | wc -l) texts, quiz, plots)" ||
    bad "390 px: $(head -n 5 "$WORK/wide.txt" | tr '\n' ';')"
[ ! -s "$WORK/math.txt" ] && [ "$formulas" -gt 0 ] && ok "TeX: all $formulas formulas of the texts drawn by KaTeX, every lesson has some" ||
    bad "TeX: $(head -n 5 "$WORK/math.txt" | tr '\n' ';')"
# planted: a box 700 px wide in lesson 05's text; lesson 04 without KaTeX
sed -i 's|<h2 id="buckets">|<span style="display:inline-block;width:700px">wide</span>&|' "$WORK/site/lessons/05-ddp/index.html"
measured lessons/05-ddp/index.html
grep -q 'data-overflow="1"' "$WORK/dom.html" && ok "the width check catches a box wider than a phone" ||
    bad "the width check passes a box 700 px wide: $(grep -o '<body[^>]*>' "$WORK/dom.html")"
sed -i '/katex.min.js/d' "$WORK/site/lessons/04-ring-allreduce/index.html"
measured lessons/04-ring-allreduce/index.html
grep -q 'data-katex="rendered"' "$WORK/dom.html" && bad "the math check passes a page without KaTeX" ||
    ok "the math check fails on a page without KaTeX"
sed -i 's/"content.code.copy"/"content.code.nocopy"/' "$WORK/site/lessons/10-limits/index.html"
measured lessons/10-limits/index.html
grep -q 'data-md-type="copy"' "$WORK/dom.html" && bad "the copy-button check passes a page without them" ||
    ok "the copy-button check fails on a page without them"
for p in lessons/05-ddp/index.html lessons/04-ring-allreduce/index.html lessons/10-limits/index.html; do cp "$SITE/$p" "$WORK/site/$p"; done

# (c) search, from the disk: the first result for "reduce-scatter" is lesson 04
first_hit() { # SITE -> the first search result's page, relative to the site
    dom "file://$1/index.html?q=reduce-scatter" >"$WORK/search.html"
    grep -o '<a href="[^"]*" class="md-search-result__link"' "$WORK/search.html" | head -n 1 |
        sed "s|^<a href=\"file://$1/||; s|[?#\"].*||"
}
hit=$(first_hit "$SITE")
hits=$(sed -n 's/.*class="md-search-result__meta">\([0-9]*\) matching documents.*/\1/p' "$WORK/search.html")
[ "$hit" = lessons/04-ring-allreduce/index.html ] && ok "search from file://: \"reduce-scatter\" finds lesson 04 first (of ${hits:-?} pages)" ||
    bad "search from file://: the first result for \"reduce-scatter\" is '${hit}'"
# planted: without the worker stand-in (what Material's offline plugin would fetch from a CDN)
sed -i '/iframe-worker.js/d' "$WORK/site/index.html"
[ -z "$(first_hit "$WORK/site")" ] && ok "the search check fails when search cannot run (no worker on file://)" ||
    bad "the search check passes a page whose search cannot run"
cp "$SITE/index.html" "$WORK/site/index.html"

# (d) nothing from the network; links and anchors
net() { grep -l '<\(script\|link\|img\|iframe\)[^>]* \(src\|href\)="\(https\?:\)\?//' -r "$1" --include='*.html'; }
[ -z "$(net "$SITE")" ] && ok "no page loads a script, style, font or picture from the network" ||
    bad "pages that load from the network: $(net "$SITE" | head -n 3 | tr '\n' ' ')"
sed -i 's|</head>|<script src="https://unpkg.com/iframe-worker/shim"></script></head>|' "$WORK/site/quiz.html"
[ -n "$(net "$WORK/site")" ] && ok "the network check catches a script from a CDN" || bad "the network check misses a script from a CDN"
cp "$SITE/quiz.html" "$WORK/site/quiz.html"
rm -f "$WORK/site/width.js"
if sh tests/site/links.sh "$SITE" >"$WORK/links.txt"; then ok "links: $(tail -n 1 "$WORK/links.txt")"; else
    bad "broken links:"; sed 's/^/    /' "$WORK/links.txt" | head -n 20; fi
sed -i 's|href="../../solutions/04-ring-allreduce/ring.c.html"|href="../../solutions/04-ring-allreduce/rong.c.html"|' \
    "$WORK/site/lessons/04-ring-allreduce/index.html"
sed -i 's|href="grading/index.html"|href="grading/index.html#no-such-section"|' "$WORK/site/index.html"
sh tests/site/links.sh "$WORK/site" >"$WORK/broken.txt"
if grep -q 'broken link ../../solutions/04-ring-allreduce/rong.c.html' "$WORK/broken.txt" &&
    grep -q 'no #no-such-section in grading/index.html' "$WORK/broken.txt"; then
    ok "the link check catches a broken link and a broken anchor"
else bad "the link check missed a broken link or anchor: $(head -n 3 "$WORK/broken.txt")"; fi

# (e) tables; a table written for GitHub (\| in code) comes out with its |, and a cell that shows the
# escape or a stray backtick is caught
if sh tests/site/html_tables.sh "$SITE" >"$WORK/tables.txt"; then ok "tables: $(tail -n 1 "$WORK/tables.txt")"; else
    bad "broken tables (tests/site/md_tables.sh names the source lines):"; sed 's/^/    /' "$WORK/tables.txt" | head -n 20; fi
printf '# Cost\n\n| algorithm | bytes | time |\n|---|---|---|\n| ring | `\\|g\\|/N` | `2(N−1)/N·\\|g\\|/β` |\n' >"$WORK/cost.md"
sh site/mkdocs/build.sh --page "$WORK/one" "$WORK/cost.md" || bad "site/mkdocs/build.sh --page failed"
T=$WORK/one/cost.html
if sh tests/site/html_tables.sh "$T" >/dev/null && has "$T" '<code>|g|/N</code>'; then
    sed 's#<code>|g|/N</code>#<code>\\|g\\|/N</code>#' "$T" >"$WORK/one/escaped.html"
    sed 's#<td><code>|g|/N</code></td>#<td>`</td>#' "$T" >"$WORK/one/cut.html"
    sh tests/site/html_tables.sh "$WORK/one/escaped.html" | grep -q 'cell 2 shows \\| in code' &&
        sh tests/site/html_tables.sh "$WORK/one/cut.html" | grep -q 'cell 2 shows a stray backtick' &&
        ok "a table's \\| in code comes out as |; the table check catches the escape shown and a stray backtick" ||
        bad "the table check missed a planted defect"
else bad "a table with \\| in code is not rendered whole (see $T)"; fi

# (f) figures: every plot the scripts draw (made up as 1-pixel PNGs in a scratch out/) is in a lesson's
# captioned figure, which shows the first of its plots drawn or the commands that draw them; and on
# the plots page, a captioned figure each. The site built again from all, none and only the demo's.
. "$ROOT/tests/site/plots_lib.sh"
built() { # NAME FROM: the site built with the plots under FROM into $WORK/NAME
    sh site/mkdocs/build.sh --plots "$WORK/$1" "$2" >"$WORK/$1.log" 2>&1 || { bad "site/mkdocs/build.sh --plots $2 failed"; cat "$WORK/$1.log"; }
}
built drawn "$WORK/out"
SITE_DIR=$WORK/drawn # check_plots: the plots page's pictures under $SITE_DIR/plots/
check_lessons "$WORK/drawn" all >"$WORK/lessons.missing"
DRAWN=1 check_plots "$WORK/drawn/plots.html" >>"$WORK/lessons.missing"
nfig=$(grep -c . "$WORK/lfig.txt")
if [ "$nplots" -gt 0 ] && [ ! -s "$WORK/lessons.missing" ] && ! has "$WORK/drawn/plots.html" 'Not drawn yet'; then
    ok "figures: all $nplots plots the scripts draw are in the lessons' $nfig captioned figures, shown, and on the plots page"
else bad "figures: of $nplots plots the scripts draw (tests/site/plot_list.sh): $(head -n 8 "$WORK/lessons.missing" | tr '\n' ';')"; fi
# planted: a lesson figure without its caption, a plot in no lesson's figure, a plot gone from the plots page
sed -i '/id="figure-5-2"/,/<\/figure>/{/figcaption/d}' "$WORK/drawn/lessons/05-ddp/index.html"
sed -i 's| out/demo/bench/allreduce_busbw.png"|"|' "$WORK/drawn/lessons/04-ring-allreduce/index.html"
sed -i '/<img [^>]*src="plots\/demo\/bench\/ddp_buckets.png"/d' "$WORK/drawn/plots.html"
{ check_lessons "$WORK/drawn" all; DRAWN=1 check_plots "$WORK/drawn/plots.html"; } >"$WORK/planted.txt"
if grep -q '^lessons/05-ddp/index.html #figure-5-2: a figure without a caption' "$WORK/planted.txt" &&
    grep -q "^out/demo/bench/allreduce_busbw.png: in no lesson's figure" "$WORK/planted.txt" &&
    grep -q '^out/demo/bench/ddp_buckets.png: not shown' "$WORK/planted.txt"; then
    ok "the figures check catches a figure without a caption, a plot in no lesson and one missing from the plots page"
else bad "the figures check missed a planted defect: $(tr '\n' ';' <"$WORK/planted.txt")"; fi
mkdir -p "$WORK/empty" "$WORK/demo-only" && cp -r "$WORK/out/demo" "$WORK/demo-only/"
built none "$WORK/empty"
check_lessons "$WORK/none" none >"$WORK/lessons.missing"
DRAWN=0 check_plots "$WORK/none/plots.html" >>"$WORK/lessons.missing"
if [ ! -s "$WORK/lessons.missing" ] && ! grep -rq '<img[^>]*src="[./]*plots/' "$WORK/none" --include='*.html'; then
    ok "figures, none drawn: each of the $nfig figures and $nplots plots gives the commands that draw it"
else bad "figures, none drawn: $(head -n 8 "$WORK/lessons.missing" | tr '\n' ';')"; fi
built demo "$WORK/demo-only"
check_lessons "$WORK/demo" demo >"$WORK/lessons.missing"
[ ! -s "$WORK/lessons.missing" ] && ok "figures after make demo alone: each figure with a demo plot shows it" ||
    bad "figures after make demo alone: $(head -n 8 "$WORK/lessons.missing" | tr '\n' ';')"
rm -rf "$WORK/none" "$WORK/demo"

# (g) quizzes in the page against grading/quiz
. "$ROOT/tests/site/quiz_page.sh"
. "$ROOT/tests/site/quiz_ui.sh"

echo "test-site: $pass passed, $fail failed"
[ "$fail" = 0 ]
