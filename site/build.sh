#!/bin/sh
# site/build.sh — make site: the course as a static HTML book, built offline (pandoc, clang for WebAssembly).
#
#   sh site/build.sh [OUT]        the whole site into OUT (default build/site); prints its size and time
#   sh site/build.sh --page OUT SRC.md      one Markdown page (also used by tests/site/test.sh)
#   sh site/build.sh --source OUT FILE      one course file as a highlighted page (OUT/FILE.html)
#   sh site/build.sh --plots OUT [FROM]     only OUT/plots.html, from the plots under FROM (default out)
#   sh site/build.sh --plots-md OUT [FROM]  the same as OUT/plots.md, not rendered (site/mkdocs/build.sh)
#
# Pages: the top README (also index.html), every lesson's README, lessons/pytorch-semantics.md,
# grading/README.md, datasets/README.md and any other .md they link to; every course file a page links
# to (or names in inline code) and every reference solution as a highlighted page; plots.html (every plot
# make demo, make bench and the labs draw, by lesson, captioned; the command for one not drawn yet); quiz.html (the quizzes, run in the page by build/site's
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

# ---- the plots page ---------------------------------------------------------------------------------
# Every plot the course's commands draw, grouped by lesson, each a numbered figure whose caption says
# what it shows and which command draws it; a plot not drawn yet is a figure with that command instead
# of the picture (the site never runs them). tests/site/test.sh finds the list of plots from the
# scripts themselves and checks that each is here.
plot_id() { printf 'plot-%s\n' "$1" | sed 's/[^A-Za-z0-9-]/-/g'; } # the figure's id; site/links.lua says the same
plots_page() { # $1 the site (absolute), $2 the out/ folder read, $3 scratch folder
    site=$1 from=$2 work=$3
    nfig=0 ndrawn=0 group=""
    fig() { # LESSON PATH COMMAND ALT CAPTION: PATH relative to out/
        nfig=$((nfig + 1))
        if [ "$1" != "$group" ]; then
            group=$1
            printf '## %s\n\n' "$(title_of "lessons/$1/README.md")"
            printf 'From [the lesson'"'"'s text](lessons/%s/README.html).\n\n' "$1" # a site path: the page is rendered outside the tree
        fi
        if [ -f "$from/$2" ]; then
            ndrawn=$((ndrawn + 1))
            mkdir -p "$site/plots/$(dirname "$2")"
            cp "$from/$2" "$site/plots/$2"
            printf '<figure id="%s">\n<img src="plots/%s" alt="%s">\n' "$(plot_id "out/$2")" "$2" "$4"
            drawn="Drawn by \`$3\` into \`out/$2\`."
        else # the command instead of the picture (Markdown between the tags: a blank line ends raw HTML)
            printf '<figure id="%s" class="not-drawn">\n\nNot drawn yet: `%s` draws it into `out/%s`; then `make site` again.\n\n' \
                "$(plot_id "out/$2")" "$3" "$2"
            drawn=""
        fi
        printf '<figcaption>\n\n**Figure %d.** %s %s\n\n</figcaption>\n</figure>\n\n' "$nfig" "$5" "$drawn"
    }
    {
        fig 01-trainer demo/loss.png "make demo" "Training and validation loss of the MLP on the word list, per step" \
            "The MLP character model learning the word list: the training cross-entropy of every step (light) and the validation loss (points)."
        fig 01-trainer demo/gpt_loss.png "make demo" "Training and validation loss of gpt-mini on the fortune corpus, per step" \
            "gpt-mini learning the fortune corpus: training and validation loss per step against the unigram baseline (dashed), what a model blind to the context reaches. The demo fails unless the validation loss ends well below it."
        fig 04-ring-allreduce demo/bench/allreduce_busbw.png "make demo" "All-reduce bus bandwidth against message size, per algorithm" \
            "All-reduce bus bandwidth against the message size on 4 ranks in shared memory (naive, ring, tree, pipelined ring and the library's), measured in one run; and the time per call over an emulated slow link (α 200 µs, β 1 GB/s), the latency-bound regime where the tree beats the ring."
        fig 04-ring-allreduce bench/allreduce_busbw.png "make bench" "All-reduce bus bandwidth on 2, 3 and 4 ranks and over an emulated link" \
            "The same benchmark in full: one panel each for 2, 3 and 4 ranks up to 64 MiB, and the emulated link."
        fig 05-ddp demo/ddp_timeline.png "make demo" "Timeline of two DDP steps on 2 ranks: compute and communication rows" \
            "Two steps of DDP on 2 ranks over an emulated link (100 µs, 4 Gbit/s): per rank a compute row (forward blue, backward green per layer, optimizer purple, waiting red) and a communication row (all-reduces orange). An orange bar that starts before the green ones end is a bucket travelling while backward still computes."
        fig 05-ddp ddp_timeline.png "sh common/mk/timeline.sh out/ddp.json.tsv out/ddp_timeline.png" "Timeline of your own DDP run from lesson 05's commands" \
            "The same timeline from your own run of the lesson's commands (train_ddp with --trace out/ddp.json first)."
        fig 05-ddp demo/bench/ddp_buckets.png "make demo" "DDP step time against bucket_cap_mb, overlap on and off" \
            "DDP's step time against bucket_cap_mb on 2 ranks over the emulated nvlink preset, with the buckets all-reduced while backward runs (overlap on) and all after backward (off)."
        fig 05-ddp bench/ddp_buckets.png "make bench" "DDP step time against bucket_cap_mb, overlap on and off, more caps" \
            "The same over five bucket caps, 0.05 to 25 MB."
        fig 08-fsdp demo/loss_overlaid.png "make demo" "Loss curves of one process, DDP on 4 ranks and FSDP on 4 ranks, overlaid" \
            "The same global batches trained three ways, one process, DDP on 4 ranks (lesson 05) and FSDP on 4 ranks: the three loss curves lie on one another (the demo's agreement table gives the differences)."
        fig 09-scaling demo/scaling/scaling.png "make demo" "Speed-up and efficiency of DDP against the number of ranks, model and measurement" \
            "Strong scaling of DDP at a fixed global batch on 1, 2, 4 and 8 ranks over two emulated links: speed-up and efficiency from the lesson's cost model (lines) against measurement (points), with the machine's load average and cores in the title (the lesson's text says where model and measurement part, and why)."
        fig 09-scaling demo/scaling/linear_scaling.png "make demo" "Training loss against examples seen, for batch 32 and batch 128 with and without the scaled learning rate" \
            "The linear scaling rule: training loss against examples seen for batch b = 32 at learning rate 0.02, and 4b = 128 with the learning rate scaled 4× (with and without warmup) and not scaled."
        fig 09-scaling scaling/scaling.png "make scaling" "Speed-up and efficiency of DDP on 1 to 8 ranks, model and measurement" \
            "The scaling lab in full: every N from 1 to 8 ranks."
        fig 09-scaling scaling/linear_scaling.png "make scaling" "The linear scaling rule, from the scaling lab" \
            "The linear scaling rule, as in the demo."
        fig 10-limits stragglers/stragglers.png "make stragglers" "DDP step time under seeded jitter against the number of ranks, model and measurement" \
            "DDP's step time on 1, 2, 4 and 8 ranks under seeded exponential delays (--jitter exp:20): the model, the base step plus E[max of N delays], against the step measured with and without the jitter."
        fig 10-limits critical-batch/critical_batch.png "make critical-batch" "Steps to a target loss against the global batch, with the fit and the noise-scale estimates" \
            "Steps to a target training loss against the global batch B (log-log; SGD, learning rate scaled with B), the fit S_min(1 + B_crit/B), and the gradient noise scale B_simple measured inside DDP at B = 32 and 256."
        # lesson 10's variable-length lab draws no plot: say what it leaves
        printf 'The variable-length lab, `make lengths`, draws no plot: it prints a table (step time, compute per rank, mean length, imbalance, waiting, words per second) for batches cut to their longest word, padded to the context and grouped by length, and leaves a trace of each run in `out/lengths/` (cut.json, pad.json, group.json; they open in ui.perfetto.dev). '
        if [ -f "$from/lengths/cut.json" ]; then printf 'It has run here: `out/lengths/` holds its traces.\n\n'; else printf 'It has not run here yet.\n\n'; fi
    } >"$work/plots.body"
    {
        printf '# Plots\n\nThe %d plots the course'"'"'s commands draw, by lesson: %d drawn here, copied from `out/` when the site was built. The site never runs the commands: a plot not drawn yet shows the command that draws it; run it, then `make site` again.\n\n' "$nfig" "$ndrawn"
        cat "$work/plots.body"
    } >"$work/plots.md"
    if [ -n "${PLOTS_MD_ONLY:-}" ]; then cp "$work/plots.md" "$site/plots.md"; else (cd "$work" && page "$site" plots.md); fi
}

# --page and --source work from the caller's folder (the whole build from the repository root)
case ${1:-} in
--page) page "$2" "$3" "${4:-}"; exit $? ;;
--source) source_page "$2" "$3"; exit $? ;;
--plots | --plots-md) # SITE [OUT_FOLDER]: only plots.html (tests/site/test.sh, with a made-up out/);
    # --plots-md: SITE/plots.md, the Markdown before pandoc (site/mkdocs/build.sh renders it)
    [ "$1" = --plots-md ] && export PLOTS_MD_ONLY=1
    site=$(cd "$2" && pwd) || exit 2
    from=$(cd "${3:-$ROOT/out}" 2>/dev/null && pwd) || from=/nonexistent # none drawn
    w=$(mktemp -d "${TMPDIR:-/tmp}/dpc-site.XXXXXX") || exit 2
    cd "$ROOT" || exit 2
    plots_page "$site" "$from" "$w"
    rc=$?
    rm -rf "$w"
    exit $rc
    ;;
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

# The plots page (plots_page above), from out/
plots_page "$OUT" out "$WORK" || exit 2

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
