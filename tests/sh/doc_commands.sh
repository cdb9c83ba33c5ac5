# Every command printed in the course's texts runs, so that no text drifts from the code. The commands
# are EXTRACTED from every markdown file git tracks (README.md, lessons/*/README.md, grading/README.md,
# ...; no copy of them is kept here), then run from the repository root.
#
# What is a command:
#   - a fenced code block whose first line starts with a command word is a block of commands (run as
#     one shell script, so a `for` loop or a `\` continuation stays whole); any other block (a
#     diagram, a table, a program's output) is not. If lines of a block start with the prompt "$ ",
#     only those lines are commands (prompt removed), the rest are their output.
#   - an inline `code span` outside blocks that starts with `make`, or with a command word followed
#     by at least one argument (`grading/grade 01`, `grading/sandbox --probe`); a span holding a bare
#     path (`grading/sandbox`, `tests/hostile/*.c`) names a file: that file must exist (NN-name = a
#     lesson's directory, NN = two digits, an upper-case FILE or DIR = any name, build/ = the build
#     under test). A span starting with "-" names options (`--allreduce ring|tree`): each must be an
#     option of a course program (its --help) or script (its text), and a choice option's value one
#     of its choices.
#   Command words: make, sh, mpirun, srun, sbatch, for, $EDITOR, and paths under build/, grading/, tests/,
#   common/mk/ or a lessons/.../*.sh script, each possibly after NAME=value assignments ("LAB_MODEL=...
#   sh lessons/09-scaling/lab.sh"). A "# ..." comment is the shell's: it never counts.
#
# How each is checked (every command at least: its program, script or make target exists):
#   - run as printed, exit 0 required, with only these rewrites, the same for every command:
#       build/lessons/  ->  $BUILD/solutions/  a student's program is run as a FINISHED lesson: the
#                       reference build of the same given code and main (the skeleton would only
#                       stop at its first TODO); the path as printed (build/lessons/...) must exist.
#       build/          ->  $BUILD/ (O=build-asan etc. test that build)
#       out/            ->  a scratch directory (also "--out FILE" given a relative FILE)
#       submissions/    ->  a scratch class of one student (a copy of lessons/); DIR -> lessons (the
#                       student's own tree); OUTDIR -> a scratch directory
#       $EDITOR         ->  test -f (opening the file in an editor: the file must exist)
#   - shortened: long runs get an override appended right after the option the text gives (the CLI
#     takes the LAST value of an option, common/cli.c, after checking every value, so the printed
#     value must still parse):  --steps N -> --steps 3 (not on a line with --fail, --save-every or
#     --resume: a restart's steps must stay inside the run),  --preset large -> --preset small (23
#     million parameters take seconds a step on 2 cores; default is kept: its 2.9 million fill the
#     buckets lesson 05's overlap needs),  --end X (bench sizes) -> --end 4K,  --skip K
#     (grading/overlap's warm-up steps) -> --skip 1, LAB_STEPS=N (a lab's steps per run) ->
#     LAB_STEPS=8 (lesson 10's length lab took 54-99 s at its printed 60), LAB_END=X (the topology
#     lab's largest size) -> LAB_END=64K.  And, in the environment of every command,
#     variables the scripts already read: DPC_TOTAL_TIMEOUT=0 (a grade parses its flags, finds its
#     lessons and prints a score without building or running anything; exit 0 or 1 = graded, 2 =
#     the grader could not run: a bad flag, no such lesson), LAB_NS="1 2" LAB_LINKS=ib LAB_STEPS=4
#     LAB_BATCH=64 (the scaling lab: 1 and 2 ranks, one link, a small batch), LAB_SHAPES=2x2
#     LAB_END=64K (the topology lab: one shape, sizes to 64 kB; its 64 MiB calls take seconds each),
#     DP_TIMEOUT_S=60.
#     A command that exits 75 (grading/overlap's "too noisy to decide": a timing judgement on a busy
#     machine, the grader's INCONCLUSIVE) passes with a note: it ran, parsed its input, and judged nothing.
#   - make TARGET ...  ->  make -n TARGET ... in a scratch O (the target exists and its whole recipe
#     resolves; -n still remakes config.mk, and `make NO_CUDA=1` would re-probe the build under test).
#   - not run, checked: a template (a line with "..." for arguments, --hostfile of other machines,
#     a Slurm command (srun, sbatch: a cluster's; tests/sh/slurm.sh runs them on a private one), or
#     one that needs a GPU: tests/gpu/, --device cuda, --comm nccl): each path in it exists. A
#     usage synopsis (a line with "[-..." optional flags, and its indented "[" continuation lines):
#     the program exists and each flag it shows is an option its parser accepts.
# A command printed in several places (`make test`, `grading/grade 05`) runs once: every place gets
# that run's verdict.
# Costs about 35 s of CPU (user + sys); measured: 2 minutes of wall time on 2 cores at load 16.
#
# Release mode: DOC_RELEASE=DIR sh tests/sh/doc_commands.sh, DIR a student release (make
# student-release OUT=DIR) built there with a plain make (its build/; O is ignored). Every command of
# the release's own texts (every *.md it holds: there is no git) and every `make TARGET` that `make
# help` lists (its command column and the ones its descriptions name) runs from DIR, with DIR's build,
# as a student would run it: on the skeletons. So build/lessons/ is NOT rewritten: a student's program
# runs as printed, linking the compiled reference's earlier lessons. The other rewrites, shortenings
# and the make -n rule stay. A command passes if it exits 0, or if it stops (non-zero) and the last
# non-empty line it prints on stderr (make's "*** ... Error N" trailer aside) is one line of a known
# kind saying what the student must do first (RELEASE_KINDS below): an unwritten function's DP_TODO
# line (common/util.c; printed once) or one of the release's own one-line refusals (the Makefile,
# grading/). Stderr, not the output as a whole: a program's stdout to a file is flushed at exit,
# after its DP_TODO line, and mpirun forwards the two streams apart.
# In lessons/NN-name/README.md the DP_TODO must be one of lesson NN's files: another lesson's means
# that text's command runs that lesson's student code (an earlier one: the release linked the
# student's unfinished earlier lesson instead of the compiled reference). Anywhere else any lesson's
# is fine. Anything else that fails is a FAIL, with its last lines. A file span naming a part a
# release leaves out by design (solutions/, tests/, grading/mkskel, .ci/, what only tests/ builds:
# LEFT_OUT below) is noted, not failed; a command that needs one fails. The summary counts: ran and
# worked, stopped with one line (by kind), make -n, templates/synopses, failed.
# DOC_RELEASE_TEXTS="README.md lessons/03-*" (shell patterns of the texts' paths, default all) runs
# the commands of those texts only; make help is always checked.
# The run needs nothing of the repository once this script and lib.sh are read: tests/sh/
# student_release.sh copies both out of the repository, then runs them under bubblewrap with the
# repository covered (its solutions/ out of reach), as a student's machine is.
case ${DOC_RELEASE:-/} in /*) ;; *) DOC_RELEASE=$(pwd)/$DOC_RELEASE ;; esac # lib.sh changes directory
. "$(dirname "$0")/lib.sh"

REL_MODE=0
if [ -n "${DOC_RELEASE:-}" ]; then
    REL_MODE=1
    # the script's own repository, if it is run from one (a note: its solutions/ are reachable)
    HOME_REPO=$ROOT
    ROOT=$(cd "$DOC_RELEASE" 2>/dev/null && pwd) || { fail "doc_commands: DOC_RELEASE=$DOC_RELEASE: no such directory"; exit 0; }
    cd "$ROOT" || exit 2
    if [ -e solutions ] || [ ! -d grading/reference ] || [ ! -d lessons ]; then
        fail "doc_commands: DOC_RELEASE=$ROOT is not a student release (it has solutions/, or no grading/reference/ or lessons/)"
        exit 0
    fi
    # the release's build as a student makes it: nothing of a calling make or of a build under test
    unset O SANITIZE MAKEFLAGS MFLAGS MAKELEVEL
    BUILD=$ROOT/build
    if [ ! -f "$BUILD/config.mk" ] || [ ! -d "$BUILD/lessons" ]; then
        fail "doc_commands: the release at $ROOT is not built: run make there first"
        exit 0
    fi
    [ -d "$HOME_REPO/solutions" ] && [ "$HOME_REPO" != "$ROOT" ] &&
        echo "note: doc_commands: the course's solutions/ ($HOME_REPO/solutions) is reachable from this run (tests/sh/student_release.sh hides it)"
fi

U=$TMP/units
mkdir -p "$U" "$TMP/out" "$TMP/mk" "$TMP/submissions/student1"
cp "$BUILD/config.mk" "$TMP/mk.config" 2>/dev/null
cp -R "$ROOT/lessons/." "$TMP/submissions/student1/"

# only_texts "PATTERN...": the paths of $files that one of the shell patterns matches
only_texts() {
    set -f # the patterns match the texts' paths, not files here
    for f in $files; do
        # shellcheck disable=SC2254 # patterns on purpose
        for p in $1; do case $f in $p) echo "$f" && break ;; esac; done
    done
    set +f
}
if [ $REL_MODE = 1 ]; then
    files=$(find . -name '*.md' ! -path './build*' ! -path './out/*' | sed 's|^\./||' | sort)
    [ -n "${DOC_RELEASE_TEXTS:-}" ] && files=$(only_texts "$DOC_RELEASE_TEXTS")
else
    files=$(git ls-files '*.md' 2>/dev/null)
    [ -n "$files" ] || files=$(find . -name '*.md' ! -path './build*' ! -path './out/*' | sed 's|^\./||' | sort)
fi
# DOC_TEXTS="PATTERN..." (shell patterns): only the texts they match, to check one text while writing it
[ -n "${DOC_TEXTS:-}" ] && files=$(only_texts "$DOC_TEXTS")
nfiles=$(echo "$files" | wc -w)

# ---- extraction: one file per unit, $U/NNNN.txt, and a line "NNNN KIND FILE:LINE" in $U/list ------------
# KIND: run (a block's commands, or an inline command), template, synopsis, path.
# shellcheck disable=SC2086
awk -v U="$U" '
function strip_prompt(s) { sub(/^[ \t]*\$ /, "", s); return s }
function first_word(s,   w) {
    sub(/^[ \t]+/, "", s)
    while (match(s, /^[A-Za-z_][A-Za-z0-9_]*=[^ \t]*[ \t]+/)) s = substr(s, RLENGTH + 1)
    split(s, w, /[ \t]+/)
    return w[1]
}
function is_cmd_word(w) {
    return w == "make" || w == "sh" || w == "mpirun" || w == "for" || w == "$EDITOR" ||
        w == "srun" || w == "sbatch" || w ~ /^(build|grading|tests|common\/mk)\/[^ ]/ || w ~ /^lessons\/.*\.sh$/
}
function nargs(s,   w) {
    sub(/^[ \t]+/, "", s)
    while (match(s, /^[A-Za-z_][A-Za-z0-9_]*=[^ \t]*[ \t]+/)) s = substr(s, RLENGTH + 1)
    return split(s, w, /[ \t]+/) - 1
}
function emit(kind, where, text) {
    n++
    f = sprintf("%s/%04d.txt", U, n)
    printf "%s", text > f
    close(f)
    printf "%04d %s %s\n", n, kind, where >> (U "/list")
}
function is_template(s) {
    return s ~ /(^|[ \t])\.\.\.([ \t]|$)/ || s ~ /--hostfile|tests\/gpu\/|--device cuda|--comm nccl/ ||
        s ~ /^[ \t]*(srun|sbatch)([ \t]|$)/
}
function flush_block(   i, prompted, first, run, start, syn, line) {
    prompted = 0
    for (i = 1; i <= nb; i++) if (blk[i] ~ /^[ \t]*\$ /) prompted = 1
    first = ""
    for (i = 1; i <= nb; i++) if (blk[i] ~ /[^ \t]/) { first = strip_prompt(blk[i]); break }
    if (!is_cmd_word(first_word(first))) return
    run = ""; start = 0; syn = ""
    for (i = 1; i <= nb; i++) {
        line = blk[i]
        if (prompted) { if (line !~ /^[ \t]*\$ /) continue; line = strip_prompt(line) }
        if (syn != "" && line ~ /^[ \t]+\[/) { syn = syn "\n" line; continue }
        if (syn != "") { emit("synopsis", FILENAME ":" synline, syn); syn = "" }
        if (line ~ /\[-/) { syn = line; synline = bl + i; continue }
        if (is_template(line)) { emit("template", FILENAME ":" (bl + i), line); continue }
        if (line !~ /[^ \t]/) continue
        if (start == 0) start = bl + i
        run = run line "\n"
    }
    if (syn != "") emit("synopsis", FILENAME ":" synline, syn)
    if (run != "") emit("run", FILENAME ":" start, run)
}
FNR == 1 { inb = 0 }
/^[ \t]*```/ { if (inb) { flush_block(); inb = 0 } else { inb = 1; nb = 0; bl = FNR } ; next }
inb { blk[++nb] = $0; next }
{
    s = $0
    while (match(s, /`[^`]+`/)) {
        t = substr(s, RSTART + 1, RLENGTH - 2)
        s = substr(s, RSTART + RLENGTH)
        # in a table row a | is written \| even inside code (tests/site/md_tables.sh); the reader sees |
        if ($0 ~ /^[ \t]*\|/) gsub(/\\\|/, "|", t)
        w = first_word(t)
        if (w == "make" || (is_cmd_word(w) && nargs(t) > 0)) {
            emit(is_template(t) ? "template" : "run", FILENAME ":" FNR, t "\n")
        } else if (t !~ /[ \t]/ && t ~ /^(build|grading|tests|lessons|common|datasets|solutions)\//) {
            emit("path", FILENAME ":" FNR, t)
        } else if (t ~ /^--?[a-z]/) {
            emit("option", FILENAME ":" FNR, t)
        }
    }
}
' $files

[ -s "$U/list" ] || { fail "doc_commands: no command found in $nfiles markdown files"; exit 0; }

# Release mode: the make goals `make help` lists, one unit each ("make help:LINE"): the command column
# of its "  make ..." lines (a goal and NAME=value words; where the description follows after one
# space, the goal alone), and a `make GOAL-NAME` its descriptions name (make test-quiz, make
# format-check: a hyphenated goal; "the next make probes again" is prose).
if [ $REL_MODE = 1 ]; then
    if ! make help >"$TMP/help.out" 2>&1; then
        fail "doc_commands: make help failed in the release: $(tail -n 2 "$TMP/help.out" | tr '\n' ' ')"
    fi
    awk '
    function goal(w) { return w ~ /^[a-z][a-z0-9-]*$/ }
    function assign(w) { return w ~ /^[A-Z_]+=[^ ]*$/ }
    {
        line = $0; cmd = ""
        if (line ~ /^  make( |$)/) {
            seg = line; sub(/^  /, "", seg); sub(/   *.*/, "", seg) # up to the first run of 2+ spaces
            k = split(seg, w, / /); ok = 1
            for (i = 2; i <= k; i++) if (!goal(w[i]) && !assign(w[i])) ok = 0
            if (ok) cmd = seg
            else if (goal(w[2])) cmd = "make " w[2]
            if (cmd != "") print NR "\t" cmd
            rest = substr(line, length(seg) + 3)
        } else rest = line
        # a goal named in the prose: "make GOAL-NAME" (not make alone, nor make NAME=value)
        while (match(rest, /(^|[ (])make [a-z][a-z0-9]*-[a-z0-9-]+/)) {
            m = substr(rest, RSTART, RLENGTH); sub(/^[ (]/, "", m)
            rest = substr(rest, RSTART + RLENGTH)
            print NR "\t" m
        }
    }' "$TMP/help.out" >"$TMP/help.cmds"
    n=$(wc -l <"$U/list")
    while IFS="$(printf '\t')" read -r hl hc; do
        n=$((n + 1))
        id=$(printf '%04d' "$n")
        printf '%s\n' "$hc" >"$U/$id.txt"
        echo "$id run make help:$hl" >>"$U/list"
    done <"$TMP/help.cmds"
fi

# the rewrites above, as sed expressions (a command word is at the start of a line or after && ; | do)
CW='(^|&&|;|\||[ \t]do)([ \t]*)'
# shellcheck disable=SC2016 # the $VARIABLES are for the script that runs the commands
if [ $REL_MODE = 1 ]; then
    LESSONS_RULE='s#(^|[ \t=])build/lessons/#\1$DOC_BUILD/lessons/#g' # the student's program, as printed
else
    LESSONS_RULE='s#(^|[ \t=])build/lessons/#\1$DOC_BUILD/solutions/#g'
fi
# shellcheck disable=SC2016 # the $VARIABLES are for the script that runs the commands
rewrite() {
    sed -E \
        -e "s#${CW}make([ \t]|\$)#\1\2doc_make\3#g" \
        -e "s#${CW}(grading/grade(-all)?)([ \t]|\$)#\1\2doc_grade \3\5#g" \
        -e "$LESSONS_RULE" \
        -e 's#(^|[ \t=])build/#\1$DOC_BUILD/#g' \
        -e 's#(^|[ \t=])out/#\1$DOC_OUT/#g' \
        -e 's#--out ([^/$ \t][^ \t]*)#--out $DOC_OUT/\1#g' \
        -e 's#(^|[ \t])submissions/#\1$DOC_SUBS/#g' \
        -e 's#(^|[ \t])DIR([ \t]|$)#\1lessons\2#g' \
        -e 's#(^|[ \t])OUTDIR([ \t]|$)#\1$DOC_OUT/outdir\2#g'
}
shorten() {
    sed -E \
        -e '/--(fail|save-every|resume)[ \t]/!s#--steps[ \t]+[0-9]+#& --steps 3#g' \
        -e 's#--preset[ \t]+large#& --preset small#g' \
        -e 's#--end[ \t]+[0-9]+[KMG]?#& --end 4K#g' \
        -e 's#--skip[ \t]+[0-9]+#& --skip 1#g' \
        -e 's#(^|[ \t])LAB_STEPS=[0-9]+#\1LAB_STEPS=8#g' \
        -e 's#(^|[ \t])LAB_END=[0-9]+[KMG]?#\1LAB_END=64K#g'
}

# the paths a command names, to check as printed: build/... (in the build under test) and the sources
paths_of() {
    tr ' \t' '\n\n' <"$1" | sed -E 's/^[A-Za-z_][A-Za-z0-9_]*=//' |
        grep -E '^(build|grading|tests|lessons|common|datasets|solutions)/' | grep -v '[$]' | sed 's/[,.;:)]*$//'
}
exists() { # PATH (globs allowed; NN-name: a lesson's directory, NN: two digits, FILE: any name)
    q=$(printf '%s' "$1" | sed -E -e 's/NN-name/[0-9][0-9]-*/g' -e 's/NN/[0-9][0-9]/g' -e 's#(^|/)[A-Z]+(/|$)#\1*\2#g' -e "s#^build/#$BUILD/#")
    # shellcheck disable=SC2086
    for m in $q; do [ -e "$m" ] && return 0; done
    # what a make goal that make test does not build first writes (it may run after this test)
    case $1 in build/gpu-bundle | build/gpu-bundle/* | build/gpu-bundle.tar.gz) grep -q '^gpu-bundle:' tests/tests.mk 2>/dev/null && return 0 ;; esac
    # what grading/student-release adds to a release (the compiled reference), named by the grading guide
    case $1 in grading/reference | grading/reference/*) [ -f grading/student-release ] && return 0 ;; esac
    return 1
}

# The options the course's programs take: their --help (the C programs: the CLI's table itself, with
# the choices of each choice option) and the text of the course's scripts. Not the course's: docker's.
FOREIGN="--security-opt"
for p in "$BUILD"/solutions/*/* "$BUILD"/grading/*; do
    [ -f "$p" ] && [ -x "$p" ] || continue
    timeout 10 "$p" --help </dev/null 2>/dev/null | grep -E '^  -' >>"$TMP/help.txt"
done
cat grading/grade grading/grade-all grading/mpirun grading/sandbox tests/gpu/check.sh tests/load.sh >"$TMP/scripts.txt" 2>/dev/null
option_ok() { # NAME [VALUE]: an option of some program; a choice option's VALUE (a|b: each) among its choices
    case " $FOREIGN " in *" $1 "*) return 0 ;; esac
    if grep -qE -- "^  $1 " "$TMP/help.txt"; then
        case ${2:-} in '' | *[!a-z0-9\|-]*) return 0 ;; esac
        choices=$(grep -E -- "^  $1 " "$TMP/help.txt" | sed -n 's/.*(\([a-z0-9|-]*\))\( (env [A-Z_]*)\)\{0,1\}$/\1/p' | tr '|' '\n')
        [ -n "$choices" ] || return 0
        for v in $(echo "$2" | tr '|' ' '); do echo "$choices" | grep -qx -- "$v" || return 1; done
        return 0
    fi
    grep -qE -- "(^|[^a-z-])$1([^a-z-]|\$)" "$TMP/scripts.txt"
}

# functions the rewritten commands call
cat >"$TMP/prelude.sh" <<'EOF'
set -e
doc_make() { # make -n in a scratch O: the target exists and its recipe resolves
    cp "$DOC_MK.config" "$DOC_MK/config.mk" 2>/dev/null || true # the build's probe (not NO_CUDA=1's)
    if ! make -n O="$DOC_MK" "$@" >>"$DOC_LOG.make" 2>&1; then
        { echo "make -n $*: failed:"; tail -n 5 "$DOC_LOG.make"; } >&2
        echo "make $*" >>"$DOC_FAILED"
        return 1
    fi
}
doc_grade() { # a grade with DPC_TOTAL_TIMEOUT=0: exit 0/1 is a score, 2 the grader could not run
    rc=0
    "$@" || rc=$?
    if [ $rc -gt 1 ]; then echo "$*: exit $rc" >>"$DOC_FAILED"; return 1; fi
    return 0
}
EOF

# Release mode: the one-line instructions a command may stop with (the last non-empty line of its
# stderr), "KIND<TAB>a fixed string of the line". The first: an unwritten function (DP_TODO(),
# common/util.c); the others: the release's refusals (the Makefile and grading/ say them).
RELEASE_KINDS="todo	is not written yet: write its TODO, then delete the DP_TODO() line
no-tests	the student release has no tests
no-mkskel	the student release has no grading/mkskel
not-the-course	(is this already a student release?): make the release from the course's repository
no-cuda-objects	the release was made where nvcc was missing), and this machine builds CUDA: build with make NO_CUDA=1"
# What a release leaves out by design (grading/student-release: the parts that carry the reference's
# code, and what only they build): a file span naming one of them is noted, not failed (the texts
# are the course's, read in the repository too); a command that needs one fails. Noted too: the
# compiled reference's cuda/ variant in a release made without nvcc.
LEFT_OUT="solutions tests grading/mkskel .ci build/tests build/gpu-bundle build/gpu-bundle.tar.gz"
absent_why() { # PATH: why a file span's missing PATH is not the text's fault in a release (or nothing)
    for l in $LEFT_OUT; do case $1 in "$l" | "$l"/*) echo "the course repository's (a release leaves it out)" && return ;; esac; done
    # the CUDA variant of the compiled reference: only in a release made where nvcc was
    case $1 in grading/reference/cuda | grading/reference/cuda/*)
        [ -d grading/reference/cpu ] && echo "in a release made where nvcc is (this one was made without: cpu/ only)" ;;
    esac
}
# Release mode: a command or template of the course repository (tests/gpu/check.sh) in the README or
# the grading guide is noted, not run; in a lesson text, which every student runs, it fails.
# repo_only LABEL: 0 (and the PASS line) when the unit at hand is such a command.
repo_only() {
    [ $REL_MODE = 1 ] && [ -n "$missing" ] || return 1
    why=$(absent_why "${missing# }") && [ -n "$why" ] || return 1
    case $where in lessons/*) return 1 ;; esac
    nleft=$((nleft + 1))
    pass "doc_commands: $where: $1\`$show\` runs $why: noted"
}
nunits=0 nworked=0 nstopped=0 nmkn=0 nfailed=0 nleft=0 kinds_seen=""
fail() { nfailed=$((nfailed + 1)); echo "FAIL $1"; }
count_kind() { # KIND: one more command stopped with that kind of line (kinds_seen: "2 todo, 1 no-tests")
    kinds_seen=$(printf '%s\n' "$kinds_seen" | tr ',' '\n' | sed 's/^ *//' | grep . |
        awk -v k="$1" '$2 == k { $1++; found = 1 } { print } END { if (!found) print 1, k }' | paste -sd, - | sed 's/,/, /g')
}
last_line() { # FILE: its last non-empty line, make's "*** [...] Error N" trailer of a failed recipe aside
    grep -v '^[[:space:]]*$' "$1" | grep -vE '^make(\[[0-9]+\])?: \*\*\* \[.*\] Error [0-9]+$' | tail -n 1
}
release_verdict() { # the verdict of run unit $id in release mode (sets the counters)
    nunits=$((nunits + 1))
    last=$(last_line "$U/$id.err")
    if [ -n "$missing" ]; then
        fail "doc_commands: $where: \`$show\`: no such file in the release:$missing"
        return
    fi
    if [ "$rc" = 0 ] && [ ! -s "$U/$id.failed" ]; then
        if [ $nprog = 0 ]; then nmkn=$((nmkn + 1)); else nworked=$((nworked + 1)); fi
        pass "doc_commands: $where ($(($(date +%s) - t0)) s): $show"
        return
    fi
    if [ "$rc" = 75 ] && [ ! -s "$U/$id.failed" ]; then
        nworked=$((nworked + 1))
        pass "doc_commands: $where: $show: its timing judgement was inconclusive here (exit 75): $(printf '%s' "$last" | head -c 200)"
        return
    fi
    kind=$(printf '%s\n' "$RELEASE_KINDS" | while IFS="$(printf '\t')" read -r k needle; do
        case $last in *"$needle"*) echo "$k" && break ;; esac
    done)
    why=""
    if [ -z "$kind" ]; then
        why="it stops without saying what to do first"
    elif [ "$kind" = todo ]; then
        todo=$(printf '%s\n' "$last" | grep -oE '[0-9][0-9]-[a-z0-9-]+/[A-Za-z0-9_]+\.(c|cu)' | head -n 1)
        text_nn=$(printf '%s\n' "$where" | sed -n 's#^lessons/\([0-9][0-9]\)-[^/]*/.*#\1#p')
        if [ "$(grep -c 'is not written yet' "$U/$id.err")" != 1 ]; then
            why="more than one line says a function is not written yet"
        elif [ -z "$todo" ]; then
            why="its DP_TODO line names no lesson's file"
        elif [ -n "$text_nn" ] && [ "${todo%%-*}" != "$text_nn" ]; then
            if [ "${todo%%-*}" -lt "$text_nn" ]; then
                why="lesson $text_nn's text stops at lesson ${todo%%-*}'s TODO ($todo): it runs the student's unfinished earlier lesson, not the compiled reference"
            else
                why="lesson $text_nn's text stops at a later lesson's TODO ($todo)"
            fi
        fi
    fi
    if [ -z "$why" ]; then
        nstopped=$((nstopped + 1))
        count_kind "$kind"
        pass "doc_commands: $where ($(($(date +%s) - t0)) s): $show: stopped (exit $rc), says what to do first ($kind): $(printf '%s' "$last" | head -c 300)"
    else
        fail "doc_commands: $where: \`$show\` failed (exit $rc): $why: $(tr '\n' ' ' <"$U/$id.failed")$(cat "$U/$id.log" "$U/$id.err" | grep -v '^[[:space:]]*$' | tail -n 4 | tr '\n' ' ' | head -c 600)"
    fi
}

export DOC_BUILD="$BUILD" DOC_OUT="$TMP/out" DOC_SUBS="$TMP/submissions" DOC_MK="$TMP/mk" EDITOR="test -f"
export DPC_TOTAL_TIMEOUT=0 LAB_NS="1 2" LAB_LINKS=ib LAB_STEPS=4 LAB_BATCH=64 LAB_SHAPES=2x2 LAB_END=64K DP_TIMEOUT_S=60
start=$(date +%s)
ncmd=0 nfull=0 nshort=0 nmake=0 nchecked=0 npath=0 nopt=0
while read -r id kind where; do
    f=$U/$id.txt
    nprog=0 # the unit's commands that are not make
    show=$(head -c 200 "$f" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
    missing=""
    for p in $(paths_of "$f"); do exists "$p" || missing="$missing $p"; done
    case $kind in
    option)
        nopt=$((nopt + 1))
        # shellcheck disable=SC2046
        set -- $(cat "$f")
        bad=""
        while [ $# -gt 0 ]; do
            case $1 in -*) ;; *) shift; continue ;; esac
            name=$1 value=""
            case ${2:-} in '' | -*) ;; *) value=$2 ;; esac
            option_ok "$name" "$value" || bad="$bad $name${value:+ $value}"
            shift
        done
        if [ -n "$bad" ]; then fail "doc_commands: $where: \`$show\`: no program of the course takes$bad"; fi
        continue
        ;;
    path)
        npath=$((npath + 1))
        if [ $REL_MODE = 1 ] && [ -n "$missing" ] && why=$(absent_why "${missing# }") && [ -n "$why" ]; then
            nleft=$((nleft + 1))
            pass "doc_commands: $where: \`$show\` is not here: $why: noted"
            continue
        fi
        if [ -n "$missing" ]; then fail "doc_commands: $where: \`$show\` names a file that does not exist"; fi
        continue
        ;;
    template)
        ncmd=$((ncmd + 1)) nchecked=$((nchecked + 1))
        repo_only "template " && continue
        if [ -n "$missing" ]; then fail "doc_commands: $where: \`$show\`: no such file:$missing"; else pass "doc_commands: $where: template, its paths exist: $show"; fi
        continue
        ;;
    synopsis)
        ncmd=$((ncmd + 1)) nchecked=$((nchecked + 1))
        prog=$(sed -n '1s/^[ \t]*\([^ \t]*\).*/\1/p' "$f")
        bad=""
        if [ ! -x "$prog" ]; then
            bad="$prog is not an executable script"
        else
            for flag in $(grep -oE '\[-[-a-z]+' "$f" | cut -c2- | sort -u); do
                grep -qE -- "(^|[ \t|(])$flag([ \t]*\||\)|=)" "$prog" || bad="$bad $flag"
            done
            [ -z "$bad" ] || bad="options $prog does not accept:$bad"
        fi
        if [ -n "$bad" ]; then fail "doc_commands: $where: synopsis: $bad"; else pass "doc_commands: $where: synopsis of $prog, every option accepted"; fi
        continue
        ;;
    esac
    # run: count each command (a "\" continuation joined to its line) by how it is checked
    for how in $(awk '/\\$/ { sub(/\\$/, ""); part = part $0; next } { print part $0; part = "" }' "$f" |
        sed -E 's/^[ \t]*//' | grep -vE '^(#|do$|done|for |$)' | while IFS= read -r line; do
        r=$(printf '%s\n' "$line" | rewrite)
        case $r in
        *doc_make*) echo make ;;
        *doc_grade* | *lab.sh*) echo short ;;
        *) if [ "$(printf '%s\n' "$r" | shorten)" != "$r" ]; then echo short; else echo full; fi ;;
        esac
    done); do
        ncmd=$((ncmd + 1))
        case $how in make) nmake=$((nmake + 1)) ;; short) nshort=$((nshort + 1)) nprog=$((nprog + 1)) ;; *) nfull=$((nfull + 1)) nprog=$((nprog + 1)) ;; esac
    done
    repo_only "" && continue
    { cat "$TMP/prelude.sh"; rewrite <"$f" | shorten; } >"$U/$id.sh"
    key=$(cksum <"$U/$id.sh" | tr -d ' ')
    t0=$(date +%s)
    if [ -f "$TMP/seen.$key" ]; then # the same command printed again: its first run's result
        first=$(cat "$TMP/seen.$key")
        cp "$U/$first.failed" "$U/$id.failed" && cp "$U/$first.log" "$U/$id.log"
        [ $REL_MODE = 0 ] || cp "$U/$first.err" "$U/$id.err"
        rc=$(cat "$U/$first.rc")
    else
        : >"$U/$id.failed"
        if [ $REL_MODE = 1 ]; then # stderr apart: its last line is what the command says (stdout may come later)
            DOC_LOG=$U/$id.log DOC_FAILED=$U/$id.failed timeout -k 10 240 sh "$U/$id.sh" </dev/null >"$U/$id.log" 2>"$U/$id.err"
        else
            DOC_LOG=$U/$id.log DOC_FAILED=$U/$id.failed timeout -k 10 240 sh "$U/$id.sh" </dev/null >"$U/$id.log" 2>&1
        fi
        rc=$?
        echo $rc >"$U/$id.rc"
        echo "$id" >"$TMP/seen.$key"
    fi
    if [ $REL_MODE = 1 ]; then
        release_verdict
        continue
    fi
    if [ -n "$missing" ]; then
        fail "doc_commands: $where: \`$show\`: no such file:$missing"
    elif [ $rc = 75 ] && [ ! -s "$U/$id.failed" ]; then
        # the course's "too noisy to decide" (a timing judgement on a busy machine), never a wrong result
        pass "doc_commands: $where: $show: its timing judgement was inconclusive here (exit 75): $(tail -n 1 "$U/$id.log" | head -c 200)"
    elif [ $rc != 0 ] || [ -s "$U/$id.failed" ]; then
        fail "doc_commands: $where: \`$show\` failed (exit $rc): $(tr '\n' ' ' <"$U/$id.failed")$(tail -n 4 "$U/$id.log" | tr '\n' ' ' | head -c 600)"
    else
        pass "doc_commands: $where ($(($(date +%s) - t0)) s): $show"
    fi
done <"$U/list"
if [ $REL_MODE = 1 ]; then
    echo "doc_commands: release $ROOT: $ncmd commands ($nunits runs) from $nfiles texts and make help: $nworked ran and worked, $nstopped stopped with one line saying what to do first (${kinds_seen:-none}), $nmkn make -n, $nchecked templates/synopses checked, $nfailed failed; $npath file names ($nleft not in a release by design: noted) and $nopt option spans checked; $(($(date +%s) - start)) s"
    exit 0
fi
echo "doc_commands: $ncmd commands from $nfiles texts: $nfull run as printed, $nshort shortened, $nmake make -n, $nchecked templates/synopses checked; $npath file names and $nopt option spans checked; $(($(date +%s) - start)) s"
