#!/bin/sh
# site/build.sh — make site: the course as a static HTML book, built offline (pandoc, clang for WebAssembly).
#
#   sh site/build.sh [OUT]        the whole site into OUT (default build/site); prints its size and time
#   sh site/build.sh --page OUT SRC.md      one Markdown page (also used by tests/site/test.sh)
#   sh site/build.sh --source OUT FILE      one course file as a highlighted page (OUT/FILE.html)
#
# Pages: the top README (also index.html), every lesson's README, lessons/pytorch-semantics.md,
# grading/README.md, datasets/README.md and any other .md they link to; every course file a page links
# to (or names in inline code) and every reference solution as a highlighted page; plots.html (the PNGs
# of make demo and the labs that exist); quiz.html (the quizzes, run in the page by build/site's
# quiz.wasm, the same C program as grading/quiz compiled by site/quiz_wasm.sh). Links between pages are
# rewritten by site/links.lua. Nothing here runs the demo or needs a network.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SITE=$ROOT/site

# ---- the page list, the sidebar and the pager (shared by every mode) ----------------------------
lesson_readmes() { for d in lessons/[0-9][0-9]-*/; do [ -f "$d/README.md" ] && echo "${d}README.md"; done; }
main_pages() {
    echo README.md
    lesson_readmes
    for f in lessons/pytorch-semantics.md grading/README.md datasets/README.md; do [ -f "$f" ] && echo "$f"; done
}
title_of() { # the first heading of a Markdown file
    sed -n 's/^# *//p' "$1" | head -n 1 | sed 's/`//g; s/&/\&amp;/g; s/</\&lt;/g'
}
html_of() { printf '%s\n' "$1" | sed 's/\.md$/.html/'; }
# root: the relative way up from the page to the site root
root_of() { printf '%s\n' "$1" | awk -F/ '{ s = ""; for (i = 1; i < NF; i++) s = s "../"; print s }'; }
ordered() ( # every page of the pager, in reading order: path<TAB>title (cached in $SITE_ORDER)
    if [ -n "${SITE_ORDER:-}" ] && [ -s "$SITE_ORDER" ]; then cat "$SITE_ORDER"; return; fi
    cd "$ROOT" || return
    main_pages | while read -r p; do printf '%s\t%s\n' "$(html_of "$p")" "$(title_of "$p")"; done
    printf 'quiz.html\tQuizzes\n'
    printf 'plots.html\tPlots\n'
)
sidebar() { # $1 root, $2 the page's own path (marked current)
    ordered | awk -F'\t' -v root="$1" -v self="$2" '
        BEGIN { print "<h2>Course</h2><ul>" }
        $1 ~ /^lessons\/[0-9]/ && !inl { print "</ul><h2>Lessons</h2><ul>"; inl = 1 }
        $1 !~ /^lessons\/[0-9]/ && inl { print "</ul><h2>More</h2><ul>"; inl = 0 }
        { t = $2; if ($1 == "README.html") t = "Start"
          printf "<li><a href=\"%s%s\"%s>%s</a></li>\n", root, $1, ($1 == self ? " class=\"current\"" : ""), t }
        END { print "</ul>" }'
}
pager() { # $1 root, $2 page
    ordered | awk -F'\t' -v root="$1" -v self="$2" '
        { p[NR] = $1; t[NR] = $2; if ($1 == self) at = NR }
        END { if (!at) exit
              printf "<span>%s</span>", (at > 1) ? "<a rel=\"prev\" href=\"" root p[at-1] "\">← " t[at-1] "</a>" : ""
              printf "<span>%s</span>", (at < NR) ? "<a rel=\"next\" href=\"" root p[at+1] "\">" t[at+1] " →</a>" : "" }'
}

PANDOC_FLAGS="-f gfm+tex_math_dollars --mathml --standalone --template $SITE/template.html --highlight-style=pygments"

# ---- one Markdown page ------------------------------------------------------------------------------
page() { # $1 OUT, $2 src.md [$3 extra.md appended]
    out=$1 src=$2 extra=${3:-}
    html=$(html_of "$src")
    root=$(root_of "$src")
    mkdir -p "$out/$(dirname "$html")"
    SITE_ROOT_REL=$root SITE_LINKED=${SITE_LINKED:-/dev/null} pandoc $PANDOC_FLAGS --lua-filter "$SITE/links.lua" \
        -M pagetitle="$(title_of "$src")" -V root="$root" -V sidebar="$(sidebar "$root" "$html")" \
        -V pager="$(pager "$root" "$html")" ${SCRIPTS:-} -o "$out/$html" "$src" $extra
}

# ---- one course file, highlighted -------------------------------------------------------------------
source_page() { # $1 OUT, $2 file
    out=$1 f=$2
    case $f in
    *.c | *.h) lang=c ;; *.cu) lang=cpp ;; *.sh | */grade | */quiz | */mpirun) lang=bash ;;
    *.mk | */Makefile | Makefile) lang=makefile ;; *.py) lang=python ;; *.json) lang=json ;; *) lang="" ;;
    esac
    root=$(root_of "$f")
    dir=$(dirname "$f")
    tmp=$(mktemp "${TMPDIR:-/tmp}/dpc-site.XXXXXX") || return 1
    {
        printf '# %s\n\n' "$f"
        [ -f "$dir/README.md" ] && echo "$dir/README.md" >>"${SITE_LINKED:-/dev/null}"
        if [ -f "$dir/README.md" ]; then printf 'In [%s](%sREADME.html).\n\n' "$(title_of "$dir/README.md")" ""; fi
        case $f in solutions/[0-9][0-9]-*/*)
            l=lessons/$(basename "$dir")
            [ -f "$l/README.md" ] && printf 'The reference solution, for [%s](../../%s/README.html).\n\n' "$(title_of "$l/README.md")" "$l"
            ;;
        esac
        printf '~~~~~~~~~~~~~~~~~~~~ %s\n' "$lang"
        cat "$f"
        printf '\n~~~~~~~~~~~~~~~~~~~~\n'
    } >"$tmp"
    mkdir -p "$out/$dir"
    pandoc $PANDOC_FLAGS -M pagetitle="$f" -V root="$root" -V sidebar="$(sidebar "$root" "")" \
        -o "$out/$f.html" "$tmp"
    rc=$?
    rm -f "$tmp"
    return $rc
}

# --page and --source work from the caller's folder (the whole build from the repository root)
case ${1:-} in
--page) page "$2" "$3" "${4:-}"; exit $? ;;
--source) source_page "$2" "$3"; exit $? ;;
esac
cd "$ROOT" || exit 2

OUT=${1:-build/site}
T0=$(date +%s%N)
missing=""
for t in pandoc clang wasm-ld llvm-ar; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
[ -z "$missing" ] || { echo "site: missing:$missing; make deps installs them (pandoc, clang, lld, llvm, wasi-libc, libclang-rt-14-dev-wasm32)" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT" || exit 2
OUT_SHOWN=$OUT
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpc-site.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
trap 'exit 2' INT TERM
export SITE_LINKED="$WORK/linked"
export SITE_ORDER="$WORK/order"
ordered >"$SITE_ORDER"
: >"$SITE_LINKED"

# The quizzes first: the WebAssembly program and the page that runs it
sh "$SITE/quiz_wasm.sh" "$WORK/wasm" "$OUT/quiz-wasm.js" || exit 2
cp "$SITE/style.css" "$SITE/wasi.js" "$SITE/quiz.js" "$OUT/"
cp "$SITE/quiz.md" "$WORK/quiz.md"
(cd "$WORK" && SCRIPTS="-V script=quiz-wasm.js -V script=wasi.js -V script=quiz.js" page "$OUT" quiz.md) || exit 2

# The plots page: the PNGs that exist, and the command for the missing ones
{
    printf '# Plots\n\nThe plots the course'"'"'s runs drew, copied from `out/` when the site was built. The site never runs them.\n\n'
    for spec in "demo:make demo:the main demo (training, DDP against one process, the timeline)" \
        "scaling:make scaling:lesson 09's scaling lab" "stragglers:make stragglers:lesson 10's straggler lab" \
        "critical-batch:make critical-batch:lesson 10's critical batch size"; do
        d=${spec%%:*} rest=${spec#*:} cmd=${rest%%:*} what=${rest#*:}
        printf '## out/%s\n\n' "$d"
        n=0
        for png in out/"$d"/*.png; do
            [ -f "$png" ] || continue
            n=$((n + 1))
            mkdir -p "$OUT/plots/$d"
            cp "$png" "$OUT/plots/$d/"
            printf '![%s](plots/%s/%s)\n\n' "$(basename "$png")" "$d" "$(basename "$png")"
        done
        [ $n -gt 0 ] || printf 'Not drawn yet: `%s` draws %s into `out/%s/`; then `make site` again.\n\n' "$cmd" "$what" "$d"
    done
} >"$WORK/plots.md"
(cd "$WORK" && page "$OUT" plots.md) || exit 2

# The Markdown pages; a lesson's page also lists its reference solutions and its quiz
for src in $(main_pages); do
    extra=""
    case $src in
    lessons/[0-9][0-9]-*/README.md)
        d=$(dirname "$src") name=$(basename "$d") nn=$(printf '%s' "$name" | cut -c1-2)
        extra="$WORK/extra-$name.md"
        {
            printf '\n## On this site\n\n'
            for s in solutions/"$name"/*.c solutions/"$name"/*.cu; do
                [ -f "$s" ] && printf -- '- Reference solution: [%s](../../%s)\n' "$(basename "$s")" "$s"
            done
            [ -f "grading/quizzes/q$nn.c" ] && printf -- '- [The self-check quiz of lesson %s](../../quiz.html?lesson=%s)\n' "$nn" "$nn"
        } >"$extra"
        ;;
    esac
    page "$OUT" "$src" "$extra" || exit 2
done
cp "$OUT/README.html" "$OUT/index.html"

# Whatever the pages linked: other Markdown pages (and what they link), course files, pictures
for solution in solutions/*/*.c; do [ -f "$solution" ] && echo "$solution"; done >>"$SITE_LINKED"
done_list="$WORK/done"
main_pages >"$done_list"
while :; do
    todo=$(sort -u "$SITE_LINKED" | grep -vxF -f "$done_list")
    [ -n "$todo" ] || break
    printf '%s\n' "$todo" >>"$done_list"
    printf '%s\n' "$todo" | while read -r f; do
        case $f in
        copy:*) f=${f#copy:}; mkdir -p "$OUT/$(dirname "$f")"; cp "$f" "$OUT/$f" ;;
        *.md) page "$OUT" "$f" || exit 2 ;;
        *) printf '%s\n' "$f" >>"$WORK/sources" ;;
        esac
    done || exit 2
    if [ -s "$WORK/sources" ]; then
        xargs -P 2 -n 8 sh -c 'b=$0 o=$1; shift; for f; do sh "$b" --source "$o" "$f" || exit 255; done' "$SITE/build.sh" "$OUT" \
            <"$WORK/sources" || exit 2
        : >"$WORK/sources"
    fi
done

T1=$(date +%s%N)
files=$(find "$OUT" -type f | wc -l)
kb=$(du -sk "$OUT" | cut -f1)
echo "site: $OUT_SHOWN/index.html — $files files, $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB, built in $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }') s"
