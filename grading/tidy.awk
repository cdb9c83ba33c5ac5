# grading/tidy.awk — what a student reads of a check's output: each message once, no launcher noise.
#
#   awk -f grading/tidy.awk FILE
#
# The output of a multi-rank run (and of the judge's replay of it, one process per rank) holds every
# rank's copy of the same line, and Open MPI's banners about how the job ended. So:
#  - Open MPI's banner blocks (between two dashed lines) about the job's end are dropped: "Primary
#    job terminated normally", "mpirun detected that one or more processes exited", "mpirun has
#    exited due to process rank", "MPI_ABORT was invoked"; "mpirun noticed that process rank N ...
#    exited on signal S (Name)" becomes one line, "rank N ended on signal S (Name)" (the only one
#    that says something when a rank left no line of its own). Its "N more processes have sent help
#    message" and "Set MCA parameter" lines go too. Any other block (a launch that failed) stays.
#  - A line printed by several ranks is shown once, where it first appeared: lines that differ only
#    in the number after "rank " are one line about "ranks 0-2" (or "ranks 0, 2"); lines that are
#    the same are one line followed by "(3 ranks)". The grader's own framing ("[your run ended: ...]")
#    is never merged away.
#  - A crash line that grading/symbolize named ("... in f (file:line) <- g (...) <- main") is laid
#    out with one frame a line.
# The exit status and a rank's own words stay; nothing is added that the output did not say.

function is_rule(s) { return s ~ /^ *--------------------+ *$/ }
function is_noise(block) {
    return block ~ /Primary job +terminated normally/ || block ~ /mpirun detected that one or more processes exited/ ||
           block ~ /mpirun has exited due to process rank/ || block ~ /MPI_ABORT was invoked on rank/
}
# "0 1 2 4" -> "0-2, 4"
function ranges(list,    k, v, i, out, lo, hi) {
    k = split(list, v, " ")
    # insertion sort, numerically
    for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    out = ""
    for (i = 1; i <= k; i = hi + 1) {
        for (hi = i; hi < k && v[hi + 1] + 0 == v[hi] + 1; hi++) { }
        out = out (out == "" ? "" : ", ") v[i] (hi > i ? (hi == i + 1 ? ", " : "-") v[hi] : "")
    }
    return out
}
function emit_line(s) {
    n++; text[n] = s
}
# one kept line: its merge key, and what it says
function keep(s,    key, r, pre, post) {
    if (s ~ /^\[(your run|the run|the build) ended/ || s ~ /^[[:space:]]*$/ || s !~ /[A-Za-z]/) { emit_line(s); return }
    key = s; r = ""
    if (match(s, /(^|[^A-Za-z])rank [0-9]+/)) {
        pre = substr(s, 1, RSTART - 1); post = substr(s, RSTART, RLENGTH)
        if (post !~ /^rank/) { pre = pre substr(post, 1, 1); post = substr(post, 2) }
        r = substr(post, 6) + 0
        key = pre "rank #" substr(s, RSTART + RLENGTH)
    }
    if (key in first) {
        g = first[key]; count[g]++
        if (r != "" && !((g, r) in seen)) { seen[g, r] = 1; ranks[g] = ranks[g] " " r; nranks[g]++ }
        return
    }
    emit_line(s); first[key] = n; count[n] = 1; keyof[n] = key
    if (r != "") { seen[n, r] = 1; ranks[n] = r; nranks[n] = 1 }
}
{ sub(/\r$/, "") }
# Open MPI's "[host:pid] 2 more processes have sent help message ..." and its advice
/^\[[^]]*\] [0-9]+ more process(es)? ha(s|ve) sent help message/ { next }
/^\[[^]]*\] Set MCA parameter "orte_base_help_aggregate" to 0/ { next }
inblock {
    if (is_rule($0)) {
        inblock = 0
        if (is_noise(block)) next
        if (match(block, /mpirun noticed that process rank [0-9]+ with PID [0-9]+ on node [^ ]+ exited on signal [0-9]+( \([^)]*\))?/)) {
            m = substr(block, RSTART, RLENGTH)
            rk = m; sub(/^mpirun noticed that process rank /, "", rk); sub(/ .*/, "", rk)
            sg = m; sub(/.* exited on signal /, "", sg)
            keep("rank " rk " ended on signal " sg)
            next
        }
        keep(opener); nb = split(block, bl, "\n"); for (i = 2; i <= nb; i++) keep(bl[i]); keep($0)
        next
    }
    block = block "\n" $0
    next
}
is_rule($0) { inblock = 1; opener = $0; block = ""; next }
{ keep($0) }
END {
    if (inblock) { keep(opener); nb = split(block, bl, "\n"); for (i = 2; i <= nb; i++) keep(bl[i]) }
    for (i = 1; i <= n; i++) {
        s = text[i]
        if (i in count) {
            if (nranks[i] > 1) {
                k = keyof[i]; p = index(k, "rank #")
                s = substr(k, 1, p - 1) "ranks " ranges(ranks[i]) substr(k, p + 6)
            } else if (count[i] > 1) {
                # the same line from one rank twice (two launches) is not two ranks
                note = " (" count[i] (nranks[i] == 1 ? " times)" : " ranks)")
                q = index(s, " <- ")
                s = q ? substr(s, 1, q - 1) note substr(s, q) : s note
            }
        }
        # a named crash: one frame a line
        if (s ~ / crashed: signal [0-9]+ .* in .* <- /) {
            np = split(s, part, " <- ")
            print part[1]
            for (j = 2; j <= np; j++) print "    called from " part[j]
            continue
        }
        print s
    }
}
