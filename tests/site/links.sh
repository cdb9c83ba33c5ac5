#!/bin/sh
# tests/site/links.sh DIR — every internal link of a built site resolves: each href/src to a local file
# names a file that exists, and each #anchor an id in that file. Prints one line per broken link and
# exits 1 if there is any; 0 and a count otherwise. External links (http:, mailto:, ...) are not followed.
set -u
DIR=${1:?usage: tests/site/links.sh SITE_DIR}
cd "$DIR" || exit 2
files=$(find . -type f | sed 's|^\./||')
html=$(printf '%s\n' "$files" | grep '\.html$')
{
    printf '%s\n' "$files" | sed 's/^/F\t/'
    # shellcheck disable=SC2086
    grep -oH ' id="[^"]*"' $html | sed 's/: id="\(.*\)"$/\t\1/; s/^/I\t/'
    # shellcheck disable=SC2086
    grep -oH '\(href\|src\)="[^"]*"' $html | sed 's/:\(href\|src\)="\(.*\)"$/\t\2/; s/^/L\t/'
} | awk -F'\t' '
function resolve(base, rel,   n, parts, out, m, i) {
    if (rel == "") return base
    n = split(base, parts, "/"); m = 0
    for (i = 1; i < n; i++) out[++m] = parts[i]
    n = split(rel, parts, "/")
    for (i = 1; i <= n; i++) {
        if (parts[i] == "..") { if (m == 0) return ""; m-- }
        else if (parts[i] != "." && parts[i] != "") out[++m] = parts[i]
    }
    s = ""; for (i = 1; i <= m; i++) s = s (i > 1 ? "/" : "") out[i]
    return s
}
function unpct(s,   r, i, c) { # %XX, for anchors and names
    r = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "%" && i + 2 <= length(s)) { r = r sprintf("%c", hex(substr(s, i + 1, 2))); i += 2 } else r = r c
    }
    return r
}
function hex(h,   v, i) { v = 0; for (i = 1; i <= 2; i++) v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1; return v }
$1 == "F" { exists[$2] = 1; next }
$1 == "I" { ids[$2 SUBSEP $3] = 1; next }
$1 == "L" { links[++nl] = $2 "\t" $3 }
END {
    bad = 0
    for (k = 1; k <= nl; k++) {
        split(links[k], a, "\t"); from = a[1]; t = a[2]
        gsub(/&amp;/, "\\&", t)
        if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || t ~ /^\/\//) continue
        anchor = ""; if ((p = index(t, "#")) > 0) { anchor = unpct(substr(t, p + 1)); t = substr(t, 1, p - 1) }
        if ((p = index(t, "?")) > 0) t = substr(t, 1, p - 1)
        if (t ~ /^\//) { print from ": absolute link " a[2] " (the site must work from any folder)"; bad++; continue }
        target = resolve(from, unpct(t))
        if (target == "" || !(target in exists)) { print from ": broken link " a[2]; bad++; continue }
        if (anchor != "" && target ~ /\.html$/ && !((target SUBSEP anchor) in ids)) { print from ": no #" anchor " in " target; bad++ }
    }
    if (bad) { print bad " broken link(s)"; exit 1 }
    print nl " links checked, all resolve"
}'
