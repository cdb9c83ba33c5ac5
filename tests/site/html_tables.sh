#!/bin/sh
# tests/site/html_tables.sh DIR|FILE.html... — every table of the built site is whole: each row (<tr>)
# has as many cells as the table's first row (colspan counted), and no cell shows a backtick outside
# <code>. The second is what a table cut by a | inside a code span looks like once rendered (GitHub
# and Python-Markdown pad or truncate a row to the header's width, so the first rarely fires; it
# guards any other renderer), nor code that shows \| (the escape GitHub undoes in a table cell and
# Python-Markdown does not, unless site/mkdocs/hooks.py undoes it). tests/site/md_tables.sh finds the cause in the source.
#
# Prints PAGE: table T, row R: what is wrong, one line per broken row, and a last line with the count
# of tables checked; exits 1 if any row is broken.
set -u
[ $# -gt 0 ] || { echo "usage: tests/site/html_tables.sh SITE_DIR | PAGE.html..." >&2; exit 2; }
if [ $# = 1 ] && [ -d "$1" ]; then
    cd "$1" || exit 2
    # shellcheck disable=SC2046
    set -- $(find . -name '*.html' | sed 's|^\./||' | sort)
fi
for f; do [ -r "$f" ] || { echo "html_tables: cannot read $f" >&2; exit 2; }; done
# One record per tag: $0 is "name attributes>text up to the next tag".
LC_ALL=C awk 'BEGIN { RS = "<" }
FNR == 1 { t = 0; intable = 0; incode = 0 }
{
    tag = $0; sub(/[ \t\n>].*/, "", tag); tag = tolower(tag)
    text = $0; if (!sub(/^[^>]*>/, "", text)) text = ""
    if (tag == "table") { t++; tables++; intable = 1; r = 0 }
    else if (tag == "/table") intable = 0
    else if (intable && tag == "tr") { r++; cells = 0; shown = ""; escaped = "" }
    else if (intable && (tag == "td" || tag == "th")) {
        span = 1
        if (match($0, /colspan="[0-9]+"/)) span = substr($0, RSTART + 9, RLENGTH - 10) + 0
        cells += span; incell = 1; content = ""
    } else if (intable && (tag == "/td" || tag == "/th")) {
        if (index(content, "`") && shown == "") {
            gsub(/[ \t\n]+/, " ", content)
            shown = sprintf("%s: table %d, row %d: cell %d shows a stray backtick (a code span cut by a |): %s",
                FILENAME, t, r, cells, substr(content, 1, 60))
        }
        incell = 0
    } else if (intable && tag == "/tr") {
        if (r == 1) width = cells
        else if (cells != width) { printf "%s: table %d, row %d: %d cells, the first row has %d\n", FILENAME, t, r, cells, width; bad++; next }
        if (shown != "") { print shown; bad++ }
        else if (escaped != "") { print escaped; bad++ }
    }
    if (tag == "code") incode++
    else if (tag == "/code" && incode > 0) incode--
    if (incell && !incode) content = content text
    if (incell && incode && index(text, "\\|") && escaped == "") {
        gsub(/[ \t\n]+/, " ", text)
        escaped = sprintf("%s: table %d, row %d: cell %d shows \\| in code (GitHub'"'"'s escape, not undone): %s",
            FILENAME, t, r, cells, substr(text, 1, 60))
    }
}
END {
    printf "%d tables in %d pages, %d broken rows\n", tables, ARGC - 1, bad
    exit bad ? 1 : 0
}' "$@"
