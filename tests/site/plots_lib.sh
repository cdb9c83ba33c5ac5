# tests/site/plots_lib.sh — sourced by tests/site/test.sh and tests/site/mkdocs.sh: the plots-page checks.
# figures PAGE lists its <figure>s; check_plots PAGE prints each plot of plot_list.sh the page lacks
# (DRAWN=1: shown from $SITE_DIR/plots/; 0: its command given); and a made-up $WORK/out/ holding
# every plot as a 1-pixel PNG of its own bytes. Uses the caller's WORK.
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
sh tests/site/plot_list.sh >"$WORK/plots.list"
nplots=$(grep -c . "$WORK/plots.list")
png=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==
while read -r p; do
    mkdir -p "$WORK/$(dirname "$p")"
    { echo "$png" | base64 -d; echo "$p"; } >"$WORK/$p" # each file its own bytes
done <"$WORK/plots.list"
