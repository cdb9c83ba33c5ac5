#!/bin/sh
# tests/bugs/san-frames.sh DIR — the sanitizer reports in a kept grading directory (grading/grade
# --keep) whose top frame is OUTSIDE the student's files: given code that a student's mistake made
# read or write out of bounds, overflow or crash, where it should have stopped with one line.
#
# One line per such report, on stdout:
#     <the report's first line> | top frame: <function> <file:line>
# and exit status 1; exit status 0 when there is none (reports inside the student's files are the
# student's own mistake, caught where it happens: not counted).
#
# The top frame is the first frame in the course's own C files (lessons/, common/, grading/,
# solutions/, the staged submission): the sanitizer's interceptors, libc and Open MPI are skipped, so
# a memcpy past a buffer is blamed on the course function that called it. A UBSan report names its
# location on its own first line. Student files are the staged submission (WORK/sub/) and the
# reference's student files of earlier lessons (solutions/): everything else is given code.
set -u
dir=$1
[ -d "$dir" ] || { echo "usage: sh tests/bugs/san-frames.sh KEPT-GRADING-DIR" >&2; exit 2; }
found=0
for f in $(grep -rlE 'ERROR: AddressSanitizer|runtime error:' "$dir" 2>/dev/null); do
    awk '
    function ours(p) { return p ~ /\/(lessons|common|grading|solutions|sub)\/[^ ]*\.(c|h|cu):[0-9]+/ }
    function student(p) { return p ~ /\/(sub|solutions)\/[0-9][0-9]-[^\/ ]*\/[^\/ ]*\.(c|h|cu):[0-9]+/ }
    function verdict() {
        if (head == "") return
        if (top == "") top = "(no frame in the course'"'"'s files)"
        if (!student(top)) { print head " | top frame: " top; bad = 1 }
        head = ""; top = ""
    }
    /ERROR: AddressSanitizer/ { verdict(); head = $0; sub(/^==[0-9]+==/, "", head); next }
    /runtime error:/ {
        verdict(); head = $0
        loc = $1; sub(/:$/, "", loc)
        if (ours(loc)) top = loc
        next
    }
    head != "" && top == "" && /^ *#[0-9]+ / {
        for (i = 1; i <= NF; i++) if (ours($i)) { top = $(i - 1) " " $i; break }
    }
    END { verdict(); exit bad }' "$f" || found=1
done
exit $found
