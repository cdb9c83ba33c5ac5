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
# location on its own first line. Student files are the staged submission's (WORK/sub/NN-name/):
# everything else is given code, the reference's files of earlier lessons included (a lesson 06
# mistake that crashes lesson 01's xent_forward crashed code the submission did not write).
set -u
dir=$1
[ -d "$dir" ] || { echo "usage: sh tests/bugs/san-frames.sh KEPT-GRADING-DIR" >&2; exit 2; }
found=0
for f in $(grep -rlE 'ERROR: AddressSanitizer|runtime error:' "$dir" 2>/dev/null); do
    awk '
    function ours(p) { return p ~ /^(.*\/)?(lessons|common|grading|solutions|sub)\/[^ ]*\.(c|h|cu):[0-9]+/ }
    function student(p) { return p ~ /\/sub\/[0-9][0-9]-[^\/ ]*\/[^\/ ]*\.(c|h|cu):[0-9]+/ }
    function verdict() {
        if (head == "") return
        if (top == "") frameless = frameless head " | top frame: (none in the course'"'"'s files)\n"
        else { framed++; if (!student(top)) { print head " | top frame: " top; bad = 1 } }
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
        for (i = 2; i <= NF; i++) if (ours($i)) { top = $(i - 1) " " $i; break }
    }
    END {
        verdict()
        # ranks that crash together interleave their reports, and one killed first may print no
        # frames: such a report counts only when no report of the run could be placed
        if (!framed && frameless != "") { printf "%s", frameless; bad = 1 }
        exit bad
    }' "$f" || found=1
done
exit $found
