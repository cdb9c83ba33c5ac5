#!/bin/sh
# site/mkdocs/build.sh — make site: the course as a static website built with MkDocs and its
# Material theme (search, light/dark, contents per page, heading anchors, copy buttons, a phone menu,
# TeX drawn by KaTeX).
#
#   sh site/mkdocs/build.sh [OUT]             the whole site into OUT (default build/site);
#                                             prints its size and build time
#   sh site/mkdocs/build.sh --page OUT SRC.md  one Markdown page through the same configuration, as
#                                             OUT/NAME.html (tests/site/test.sh plants defects so)
#   sh site/mkdocs/build.sh --plots OUT FROM  the whole site, its figures from the plots under FROM
#                                             instead of out/ (tests/site/test.sh, with made-up plots)
#
# The pages come from the course's own files, generated into build/mkdocs/docs (gen.py): the texts as
# they are (the terminal's READMEs), every course file they name as a highlighted page, the quiz page
# (grading/quiz compiled to WebAssembly, site/quiz_wasm.sh); the lessons' figures and the plots page
# show the plots found under out/ (gen.py). Nothing here runs the labs or the demo. MkDocs comes from
# PyPI, pinned, into build/mkdocs-venv the first time (venv.sh); KaTeX from Debian (libjs-katex,
# make deps). The site opens from the disk, search included (Material's offline plugin and
# assets/iframe-worker.js); it loads nothing from the network.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
O=${O:-build}
case $O in /*) B=$O ;; *) B=$ROOT/$O ;; esac # the build folder: the venv and the generated Markdown
KATEX=${KATEX:-/usr/share/javascript/katex}
# Material announces its end of life on every build; the note of issue 28 says what that means here
export NO_MKDOCS_2_WARNING=1 DPC_ROOT="$ROOT"

python_env() { # the venv's python, installing it the first time
    [ -f "$KATEX/katex.min.js" ] || { echo "site: missing: libjs-katex; make deps installs it" >&2; return 2; }
    sh "$HERE/venv.sh" "$B/mkdocs-venv"
}
assets() { # DOCS: what every page loads (KaTeX from Debian, woff2 fonts only: what current browsers read)
    mkdir -p "$1/assets/katex/fonts" || return 2
    cp "$KATEX/katex.min.js" "$KATEX/katex.min.css" "$1/assets/katex/" &&
        cp "$KATEX"/fonts/*.woff2 "$1/assets/katex/fonts/" &&
        cp "$HERE/assets/katex-init.js" "$HERE/assets/iframe-worker.js" "$HERE/assets/course.css" "$1/assets/"
}
mkdocs_build() { # PY CONFIG OUT LOG: MkDocs, its warnings shown (a link that goes nowhere), the rest in LOG
    "$1" -m mkdocs build -f "$2" -d "$3" >"$4" 2>&1 || { cat "$4" >&2; echo "site: mkdocs build failed" >&2; return 2; }
    # (a page built alone links to texts that are not there: its warnings are no news)
    [ -n "${QUIET_LINKS:-}" ] || grep -E "^(WARNING|ERROR)" "$4" >&2
    find "$3" -name "*.map" -delete # the bundles' source maps serve Material's developers (1.3 MB)
    rm -f "$3/404.html"             # a web server's error page, its links absolute: no use from the disk
}
one_page() { # OUT DOCS-WITH-PAGES: a small site with the course's configuration, no navigation
    out=$(mkdir -p "$1" && cd "$1" && pwd) || return 2
    PY=$(python_env) || return 2
    assets "$2/docs" || return 2
    sed "s|^  - hooks.py.*|  - $HERE/hooks.py|" "$HERE/mkdocs.yml" >"$2/mkdocs.yml"
    QUIET_LINKS=1 mkdocs_build "$PY" "$2/mkdocs.yml" "$out" "$2/build.log"
}

case ${1:-} in
--page) # OUT SRC.md
    w=$(mktemp -d "${TMPDIR:-/tmp}/dpc-mkdocs.XXXXXX") || exit 2
    mkdir -p "$w/docs" && cp "$3" "$w/docs/" && one_page "$2" "$w"
    rc=$?
    rm -rf "$w"
    exit $rc
    ;;
--plots) # OUT FROM
    PLOTS=$(cd "$3" 2>/dev/null && pwd) || PLOTS=/nonexistent
    set -- "$2"
    ;;
esac

cd "$ROOT" || exit 2
PLOTS=${PLOTS:-$ROOT/out}
OUT=${1:-build/site}
T0=$(date +%s%N)
missing=""
for t in clang wasm-ld llvm-ar; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
[ -z "$missing" ] || { echo "site: missing:$missing; make deps installs them" >&2; exit 2; }
PY=$(python_env) || exit 2
T1=$(date +%s%N)

GEN=$B/mkdocs
rm -rf "$GEN" "$OUT"
mkdir -p "$GEN/docs" "$OUT" || exit 2
DOCS=$GEN/docs
# the quizzes: grading/quiz's program as WebAssembly, and the page that runs it
sh site/quiz_wasm.sh "$GEN/wasm" "$DOCS/quiz-wasm.js" || exit 2
cp site/wasi.js site/quiz.js "$DOCS/"
{
    cat site/quiz.md
    printf '\n<script src="quiz-wasm.js"></script>\n<script src="wasi.js"></script>\n<script src="quiz.js"></script>\n'
} >"$DOCS/quiz.md"
assets "$DOCS" || exit 2
# the texts and the highlighted course files, and the configuration with the navigation
"$PY" "$HERE/gen.py" "$ROOT" "$DOCS" "$GEN/mkdocs.yml" "$PLOTS" || exit 2
T2=$(date +%s%N)
mkdocs_build "$PY" "$GEN/mkdocs.yml" "$(cd "$OUT" && pwd)" "$GEN/build.log" || exit 2
T3=$(date +%s%N)
files=$(find "$OUT" -type f | wc -l)
kb=$(du -sk "$OUT" | cut -f1)
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
echo "site: $OUT/index.html — $files files, $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB, built in $(secs "$T0" "$T3") s (MkDocs' venv $(secs "$T0" "$T1") s, quiz, plots and Markdown $(secs "$T1" "$T2") s, mkdocs build $(secs "$T2" "$T3") s)"
