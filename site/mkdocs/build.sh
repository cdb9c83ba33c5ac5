#!/bin/sh
# site/mkdocs/build.sh [OUT] — make site-mkdocs: the course as a static website built with MkDocs and
# its Material theme (search, light/dark, contents per page, heading anchors, copy buttons, a phone
# menu, TeX drawn by KaTeX), into OUT (default build/site-mkdocs); prints its size and build time.
#
# The pages come from the course's own files, generated into build/mkdocs/docs (gen.py): the texts as
# they are (the terminal's READMEs), every course file they name as a highlighted page, the quiz page
# (grading/quiz compiled to WebAssembly, site/quiz_wasm.sh, as on the pandoc site) and the plots page
# (site/build.sh --plots-md, from out/). Nothing here runs the labs or the demo. MkDocs comes from
# PyPI, pinned, into build/mkdocs-venv the first time (venv.sh); KaTeX from Debian (libjs-katex,
# make deps). The site opens from the disk, search included (Material's offline plugin).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT" || exit 2
OUT=${1:-build/site-mkdocs}
O=${O:-build}
KATEX=${KATEX:-/usr/share/javascript/katex}
T0=$(date +%s%N)

missing=""
for t in clang wasm-ld llvm-ar; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
[ -f "$KATEX/katex.min.js" ] || missing="$missing libjs-katex"
[ -z "$missing" ] || { echo "site: missing:$missing; make deps installs them" >&2; exit 2; }
PY=$(sh "$HERE/venv.sh" "$ROOT/$O/mkdocs-venv") || exit 2
T1=$(date +%s%N)

GEN=$ROOT/$O/mkdocs
rm -rf "$GEN" "$OUT"
mkdir -p "$GEN/docs/assets/katex/fonts" "$OUT" || exit 2
DOCS=$GEN/docs
# the quizzes: grading/quiz's program as WebAssembly, and the page that runs it
sh site/quiz_wasm.sh "$GEN/wasm" "$DOCS/quiz-wasm.js" || exit 2
cp site/wasi.js site/quiz.js "$DOCS/"
{
    cat site/quiz.md
    printf '\n<script src="quiz-wasm.js"></script>\n<script src="wasi.js"></script>\n<script src="quiz.js"></script>\n'
} >"$DOCS/quiz.md"
# the plots page: site/build.sh's figures; their captions are Markdown inside the HTML (md_in_html)
sh site/build.sh --plots-md "$DOCS" out || exit 2
sed -i 's/^<figure id=/<figure markdown="block" id=/; s/^<figcaption>$/<figcaption markdown="block">/' "$DOCS/plots.md"
# KaTeX from Debian's libjs-katex (woff2 fonts only: every browser that runs the quiz reads them)
cp "$KATEX/katex.min.js" "$KATEX/katex.min.css" "$DOCS/assets/katex/"
cp "$KATEX"/fonts/*.woff2 "$DOCS/assets/katex/fonts/"
cp "$HERE/assets/katex-init.js" "$HERE/assets/iframe-worker.js" "$HERE/assets/course.css" "$DOCS/assets/"
# the texts and the highlighted course files, and the configuration with the navigation
DPC_ROOT=$ROOT "$PY" "$HERE/gen.py" "$ROOT" "$DOCS" "$GEN/mkdocs.yml" || exit 2
T2=$(date +%s%N)
# MkDocs' log: its warnings (a link that goes nowhere) are shown; its INFO lines are kept in build.log
NO_MKDOCS_2_WARNING=1 DPC_ROOT=$ROOT "$PY" -m mkdocs build -f "$GEN/mkdocs.yml" -d "$(cd "$OUT" && pwd)" >"$GEN/build.log" 2>&1 ||
    { cat "$GEN/build.log" >&2; echo "site: mkdocs build failed" >&2; exit 2; }
grep -E "^(WARNING|ERROR)" "$GEN/build.log" >&2
find "$OUT" -name "*.map" -delete # the bundles' source maps serve Material's developers (1.3 MB)
rm -f "$OUT/404.html"               # a web server's error page, its links absolute: no use from the disk
T3=$(date +%s%N)
files=$(find "$OUT" -type f | wc -l)
kb=$(du -sk "$OUT" | cut -f1)
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
echo "site: $OUT/index.html — $files files, $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB, built in $(secs "$T0" "$T3") s (venv $(secs "$T0" "$T1") s, pages $(secs "$T1" "$T2") s, mkdocs $(secs "$T2" "$T3") s)"
