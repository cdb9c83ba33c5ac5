# grading/directives.awk SOURCE — the name of every preprocessing directive of a C or CUDA source,
# one a line ("include", "define", "line", "5" for a line marker, "ident"...), read as the compiler
# reads it: trigraphs (C11 has them) and line splices first, then comments, with string and
# character literals skipped; "#" and its digraph "%:" both start a directive. grading/grade vets
# every student file with it: a line marker makes the preprocessed text of a student file claim
# to come from another file, so the directives are checked on the source as written.
{ buf = buf $0 "\n" }
END {
    gsub(/\?\?=/, "#", buf); gsub(/\?\?\//, "\\", buf)
    gsub(/\\[ \t]*\n/, "", buf)
    n = length(buf); out = ""; i = 1; bol = 1; st = 0
    while (i <= n) {
        c = substr(buf, i, 1); d = substr(buf, i, 2)
        if (d == "/*") { e = index(substr(buf, i + 2), "*/"); if (e == 0) break; seg = substr(buf, i + 2, e - 1); gsub(/[^\n]/, "", seg); out = out " " seg; i += e + 3; continue }
        if (d == "//") { e = index(substr(buf, i), "\n"); if (e == 0) break; i += e - 1; continue }
        if (c == "\"" || c == "'") {
            j = i + 1
            while (j <= n) { x = substr(buf, j, 1); if (x == "\\") { j += 2; continue } if (x == c || x == "\n") break; j++ }
            out = out c "_" c; i = j + 1; continue
        }
        out = out c; i++
    }
    m = split(out, lines, "\n")
    for (k = 1; k <= m; k++) {
        l = lines[k]
        if (match(l, /^[ \t]*(#|%:)[ \t]*/)) {
            rest = substr(l, RLENGTH + 1)
            if (match(rest, /^[A-Za-z_0-9]+/)) print substr(rest, 1, RLENGTH); else if (rest != "") print "?" substr(rest, 1, 1)
        }
    }
}
