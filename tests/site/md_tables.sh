#!/bin/sh
# tests/site/md_tables.sh [FILE.md ...] — every Markdown table is whole, as GitHub and the site (Python-
# Markdown) parse it: each row has as many cells as its header, and no cell holds a stray backtick.
# Without arguments: every Markdown file of the repository (git's list, or find's outside git).
#
# Why: a table's rows are split into cells on every `|` before any inline parsing, so a `|` inside a
# code span (`|g|`, `nvlink|pcie`) ends the cell there unless written `\|`. GitHub then drops the
# row's extra cells and the site does too: content vanishes and a lone "`" is left where the code span
# was cut. The rendered HTML keeps the header's cell count, so the defect is caught here, in the source.
#
# Prints FILE:LINE: what is wrong, one line per broken row, and a last line with the count of tables
# checked; exits 1 if there is a defect, 0 otherwise, 2 when a file cannot be read.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# = 0 ]; then
    cd "$ROOT" || exit 2
    files=$(git ls-files '*.md' 2>/dev/null)
    [ -n "$files" ] || files=$(find . -name '*.md' ! -path './build*' ! -path './out/*' | sed 's|^\./||' | sort)
    # shellcheck disable=SC2086
    set -- $files
fi
for f; do [ -r "$f" ] || { echo "md_tables: cannot read $f" >&2; exit 2; }; done
LC_ALL=C awk '
# the cells of a table row, as GFM splits them: on every | not escaped by a backslash, a leading and
# a trailing | opening and closing the row; into cell[1..n], returns n
function split_row(s,   n, i, c, t, L, piped) {
    sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
    if (substr(s, 1, 1) == "|") s = substr(s, 2)
    n = 0; t = ""; L = length(s); piped = 0
    for (i = 1; i <= L; i++) {
        c = substr(s, i, 1)
        if (c == "\\" && i < L) { t = t c substr(s, i + 1, 1); i++; piped = 0; continue }
        if (c == "|") { cell[++n] = t; t = ""; piped = 1; continue }
        t = t c; piped = 0
    }
    if (!piped || n == 0) cell[++n] = t
    return n
}
# the length of the run of backticks at position i of s
function run_at(s, i,   j) { j = i; while (substr(s, j, 1) == "`") j++; return j - i }
# 1 when a backtick of s opens no code span (CommonMark: a run of n backticks is closed by the next
# run of exactly n; an unclosed run is literal text, the remains of a code span cut by a |)
function stray(s,   i, L, n, j, m) {
    L = length(s)
    for (i = 1; i <= L; i++) {
        if (substr(s, i, 1) == "\\") { i++; continue }
        if (substr(s, i, 1) != "`") continue
        n = run_at(s, i)
        for (j = i + n; j <= L; j += m) {
            m = run_at(s, j)
            if (m == n) break
            if (m == 0) m = 1
        }
        if (j > L) return 1
        i = j + n - 1
    }
    return 0
}
function is_delimiter(s) {
    return s ~ /\|/ && s ~ /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/
}
function check_row(s, where,   n, i, v) { # one line per broken row: the first thing wrong with it
    n = split_row(s)
    if (n != width) {
        printf "%s: %d cells, its header has %d", where, n, width
        if (s ~ /`[^`]*\|/) printf " (a | inside a code span ends the cell: write it \\|)"
        printf "\n"; bad++; return
    }
    for (i = 1; i <= n; i++)
        if (stray(cell[i])) {
            v = cell[i]; gsub(/^[ \t]+|[ \t]+$/, "", v)
            printf "%s: cell %d holds a stray backtick (an unclosed code span): %s\n", where, i, (length(v) > 60 ? substr(v, 1, 60) "..." : v)
            bad++; return
        }
}
FNR == 1 { fence = ""; intable = 0; prev = ""; prevline = 0 }
{
    line = $0
    sub(/^([ \t]*>)+/, "", line) # inside a block quote, the same rules
    if (fence != "") { # inside a fenced code block: no table
        t = line; sub(/^[ \t]+/, "", t)
        if (index(t, fence) == 1 && t ~ /^(`+|~+)[ \t]*$/) fence = ""
        next
    }
    if (line ~ /^[ \t]*(```|~~~)/) {
        t = line; sub(/^[ \t]+/, "", t); match(t, /^(`+|~+)/); fence = substr(t, 1, RLENGTH)
        intable = 0; prev = ""; next
    }
    if (intable) {
        # a table ends at a blank line or another block (a heading, a quote, a fence: handled above)
        if (line ~ /^[ \t]*$/ || line ~ /^[ \t]*#/) { intable = 0 }
        else { check_row(line, FILENAME ":" FNR); next }
    }
    if (is_delimiter(line) && prevline == FNR - 1 && prev !~ /^[ \t]*$/) {
        tables++
        width = split_row(line)
        h = split_row(prev)
        if (h != width) {
            printf "%s:%d: the header has %d cells, the delimiter row below it %d: not a table\n", FILENAME, FNR - 1, h, width
            bad++
        } else check_row(prev, FILENAME ":" (FNR - 1))
        intable = 1
        next
    }
    prev = line; prevline = FNR
}
END {
    printf "%d tables in %d files, %d defects\n", tables, ARGC - 1, bad
    exit bad ? 1 : 0
}' "$@"
