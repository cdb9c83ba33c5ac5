# tests/site/plots_lib.sh — sourced by tests/site/test.sh: the checks of the figures.
# figures PAGE lists its <figure>s; check_plots PAGE prints each plot of plot_list.sh the plots page
# lacks (DRAWN=1: shown from $SITE_DIR/plots/; 0: its command given); check_lessons SITE WHICH prints
# what the lessons' figures get wrong; and a made-up $WORK/out/ holds every plot as a 1-pixel PNG of
# its own bytes. Uses the caller's WORK.
figures() { # PAGE -> one line per <figure>: id, img src (or -), caption 0/1, "not drawn" text 0/1
    awk 'BEGIN { RS = "<" }
        /^figure[ >]/ { id = "-"; if (match($0, /id="[^"]*"/)) id = substr($0, RSTART + 4, RLENGTH - 5); src = "-"; cap = 0; nd = 0; on = 1 }
        on && /^img[ >]/ && match($0, /src="[^"]*"/) { src = substr($0, RSTART + 5, RLENGTH - 6) }
        on && /^figcaption[ >]/ { cap = 1 }
        on && /Not drawn yet:/ { nd = 1 }
        /^\/figure>/ && on { print id, src, cap, nd; on = 0 }' "$1"
}
check_plots() { # PAGE (DRAWN, SITE_DIR set) -> the plots the page lacks, one a line
    figures "$1" >"$WORK/figures.txt"
    while read -r p; do
        id=plot-$(printf '%s' "$p" | sed 's/[^A-Za-z0-9-]/-/g') rel=${p#out/}
        line=$(awk -v id="$id" '$1 == id' "$WORK/figures.txt")
        if [ -z "$line" ]; then echo "$p: no figure #$id"; continue; fi
        set -- $line
        [ "$3" = 1 ] || echo "$p: a figure without a caption"
        if [ "$DRAWN" = 1 ]; then
            [ "$2" = "plots/$rel" ] && cmp -s "$SITE_DIR/plots/$rel" "$WORK/out/$rel" || echo "$p: not shown (img ${2})"
        else
            [ "$4" = 1 ] || echo "$p: not drawn, and no command given"
        fi
    done <"$WORK/plots.list"
    awk '$3 == 0 { print "figure #" $1 ": no caption" }' "$WORK/figures.txt"
}
lesson_figures() { # SITE -> per figure of a lesson page: page id caption(0/1) img(or -) not-drawn(0/1) plots...
    # (a picture outside a figure is listed as a figure without a caption)
    for p in "$1"/lessons/[0-9][0-9]-*/index.html; do
        awk -v page="${p#"$1"/}" 'BEGIN { RS = "<" }
            /^figure[ >]/ { id = "-"; if (match($0, /id="[^"]*"/)) id = substr($0, RSTART + 4, RLENGTH - 5)
                pl = ""; if (match($0, /data-plots="[^"]*"/)) pl = substr($0, RSTART + 12, RLENGTH - 13)
                src = "-"; cap = 0; nd = 0; on = 1 }
            /^img[ >]/ && match($0, /src="[^"]*"/) { s = substr($0, RSTART + 5, RLENGTH - 6); if (on) src = s; else print page, "img", 0, s, 0 }
            on && /^figcaption[ >]/ { cap = 1 }
            on && /Not drawn yet:/ { nd = 1 }
            /^\/figure>/ && on { print page, id, cap, src, nd, pl; on = 0 }' "$p"
    done
}
check_lessons() { # SITE WHICH -> what is wrong with the lessons' figures, one a line. WHICH: the plots
    # drawn (under $WORK/out or none): all (each figure shows its first plot), none (each gives its
    # commands), demo (only out/demo/: a figure with one of them shows it)
    lesson_figures "$1" >"$WORK/lfig.txt"
    [ -s "$WORK/lfig.txt" ] || echo "no lesson has a figure"
    while read -r page id cap src nd plots; do
        [ "$cap" = 1 ] || echo "$page #$id: a figure without a caption ($src)"
        [ "$id" = img ] && continue
        first=${plots%% *}
        demo=$(printf '%s\n' $plots | grep -m1 '^out/demo/')
        case $2 in
        all) want=$first ;; demo) want=$demo ;; *) want="" ;;
        esac
        if [ -n "$want" ]; then
            [ "$src" != - ] && [ "${src#../../plots/}" = "${want#out/}" ] && cmp -s "$1/$(dirname "$page")/$src" "$WORK/$want" 2>/dev/null ||
                echo "$page #$id: $want drawn but not shown (img $src)"
        else
            [ "$src" = - ] && [ "$nd" = 1 ] || echo "$page #$id: none of $plots drawn, and no command given"
        fi
    done <"$WORK/lfig.txt"
    while read -r p; do
        grep -q " $p\( \|\$\)" "$WORK/lfig.txt" || echo "$p: in no lesson's figure"
    done <"$WORK/plots.list"
}
sh tests/site/plot_list.sh >"$WORK/plots.list"
nplots=$(grep -c . "$WORK/plots.list")
png=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==
while read -r p; do
    mkdir -p "$WORK/$(dirname "$p")"
    { echo "$png" | base64 -d; echo "$p"; } >"$WORK/$p" # each file its own bytes
done <"$WORK/plots.list"
