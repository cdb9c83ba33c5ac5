#!/bin/sh
# tests/site/plot_list.sh — every plot the course's commands draw, as paths under out/, one a line,
# found in the scripts that draw them (not in the lessons' figures, which are what is checked):
#   - each script of common/mk/ and lessons/*/ that writes "$OUT/NAME.png", with OUT's default
#     (OUT=${1:-out/DIR} or ${VAR:-out/DIR}): out/DIR/NAME.png;
#   - the files make demo lists when it ends (common/mk/demo.sh's "for f in ...; do" list), under
#     out/demo/: the bench and scaling plots it has bench.sh and the lab draw into its own folder;
#   - every out/...png a Markdown text of the course names (lesson 05's out/ddp_timeline.png).
# A new plot in any of them is then expected on the site's plots page.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
{
    for s in common/mk/*.sh lessons/*/*.sh; do
        dir=$(sed -n 's|^OUT=\${[A-Za-z0-9_]*:-\(\$ROOT/\)\{0,1\}\(out/[A-Za-z0-9_-]*\)}.*|\2|p' "$s" | head -n 1)
        [ -n "$dir" ] || continue
        grep -o '\$OUT/[A-Za-z0-9_-]*\.png' "$s" | sed "s|^\\\$OUT|$dir|"
    done
    awk '/^for f in / { on = 1 } on { for (i = 1; i <= NF; i++) { w = $i; sub(/;$/, "", w); if (w ~ /\.png$/) print "out/demo/" w } } on && /; do$/ { exit }' \
        common/mk/demo.sh
    files=$(git ls-files '*.md' 2>/dev/null)
    [ -n "$files" ] || files=$(find . -name '*.md' ! -path './build*' ! -path './out/*' | sed 's|^\./||')
    # shellcheck disable=SC2086
    grep -ohE 'out/[A-Za-z0-9_/.-]*\.png' $files
} | sort -u
