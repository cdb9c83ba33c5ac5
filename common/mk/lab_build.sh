# lab_build.sh — which build a lab or a benchmark runs: your code, or the reference. Sourced (POSIX sh)
# by common/mk/bench.sh, common/mk/demo.sh, lessons/09-scaling/lab.sh and lr_lab.sh, and
# lessons/10-limits/straggler_lab.sh, length_lab.sh and critical_batch.sh, after they set ROOT (the
# repository's root).
#
# `make` builds every lesson's programs twice: $BUILD/solutions/NN-name/PROG, the reference (from
# solutions/ in the repository, from the compiled archives in a student release), and
# $BUILD/lessons/NN-name/PROG, your files of lesson NN linked with the reference's earlier lessons.
# BUILD is ${O:-build} (make O=dir ...), relative to the repository's root. A script runs each
# program from the build of the program's own lesson:
#   your code      when lesson NN is yours: none of its student files (LNN_STUDENT in
#                  lessons/NN-name/lesson.mk) has a line DP_TODO(); left outside a comment — the
#                  skeleton's marker of an unwritten function, which stops the program there
#   the reference  otherwise
# and says so on stderr, once per lesson per run, e.g.
#   bench: lesson 04 (04-ring-allreduce): your code (build/lessons/04-ring-allreduce/bench_allreduce)
#   bench: lesson 05 (05-ddp): the reference (build/solutions/05-ddp/train_ddp): your lessons/05-ddp/ddp_hooks.c still has DP_TODO()s
# and, where the program chosen was not built, one line saying to run make.
#
# LAB_STACK=own or LAB_STACK=reference (environment) forces one side for every lesson:
#   LAB_STACK=reference make bench     the reference's numbers, to set beside your own
#   LAB_STACK=own make scaling         your code even where a lesson still has DP_TODO()s
#
# Use, after `. "$ROOT/common/mk/lab_build.sh"`:
#   lab_use VAR NN-name PROG     VAR=the program's path; the line is said once per lesson in this
#                                shell (and in the scripts it starts: LAB_SAID is exported)
#   lab_prog NN-name PROG        the same path, printed; in $(...) the "once" is per call
#   $lab_dir                     the build's folder ($O or build), for its data: the trainers'
#                                default --data is build/data/words-train.tok whatever O is
# Paths are relative to the repository's root when the script runs there, absolute otherwise.

lab_who=$(basename "$0" .sh)
case ${LAB_STACK:-} in
'' | own | reference) ;;
*)
    echo "$lab_who: LAB_STACK=$LAB_STACK: give own (your lessons/) or reference (the reference's build)" >&2
    exit 2
    ;;
esac
case ${O:-build} in
/*) lab_dir=$O ;;
*) if [ "$(pwd -P)" = "$(cd "$ROOT" && pwd -P)" ]; then lab_dir=${O:-build}; else lab_dir=$ROOT/${O:-build}; fi ;;
esac
LAB_SAID=${LAB_SAID:-}
export LAB_SAID
lab_missing=

# lab_todo_files FILE...: those of the files that have a line whose first text outside comments is
# DP_TODO(); (one a line, as given)
lab_todo_files() {
    awk 'FNR == 1 { inc = 0; hit = 0 }
        hit { next }
        { line = $0; out = ""
          while (line != "") {
              if (inc) { i = index(line, "*/"); if (i == 0) { line = ""; break } line = substr(line, i + 2); inc = 0; continue }
              i = index(line, "/*"); j = index(line, "//")
              if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); break }
              if (i) { out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); inc = 1; continue }
              out = out line; line = ""
          }
          if (out ~ /^[ \t]*DP_TODO[ \t]*\([ \t]*\)[ \t]*;/) { print FILENAME; hit = 1 } }' "$@"
}

# lab_student_files NN-name: the names in LNN_STUDENT of lessons/NN-name/lesson.mk (blank-separated)
lab_student_files() {
    sed -n "s/^L${1%%-*}_STUDENT[[:space:]]*[:+]*=//p" "$ROOT/lessons/$1/lesson.mk"
}

# lab_mine NN-name: status 0 when the lesson is yours by the rule above (LAB_STACK aside); lab_why
# says why not
lab_mine() {
    lab_why=
    if [ ! -f "$ROOT/lessons/$1/lesson.mk" ]; then
        lab_why="there is no lessons/$1/lesson.mk"
        return 1
    fi
    lab_n=$1
    set --
    for lab_f in $(lab_student_files "$lab_n"); do
        [ -f "$ROOT/lessons/$lab_n/$lab_f" ] || { lab_why="lessons/$lab_n/$lab_f is missing"; return 1; }
        set -- "$@" "$ROOT/lessons/$lab_n/$lab_f"
    done
    [ $# -gt 0 ] || return 0
    lab_t=$(lab_todo_files "$@" | sed 's|.*/||' | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
    if [ -n "$lab_t" ]; then
        case $lab_t in
        *,*) lab_why="your lessons/$lab_n/{$lab_t} still have DP_TODO()s" ;;
        *) lab_why="your lessons/$lab_n/$lab_t still has DP_TODO()s" ;;
        esac
        return 1
    fi
    return 0
}

# lab_pick NN-name PROG: lab_path, and the lesson's line on stderr once
lab_pick() {
    lab_nn=${1%%-*}
    if [ "${LAB_STACK:-}" = reference ]; then
        lab_side=solutions lab_say="the reference" lab_note="LAB_STACK=reference"
    elif lab_mine "$1"; then
        lab_side=lessons lab_say="your code" lab_note=
    elif [ "${LAB_STACK:-}" = own ]; then
        lab_side=lessons lab_say="your code" lab_note="LAB_STACK=own, though $lab_why"
    else
        lab_side=solutions lab_say="the reference" lab_note=$lab_why
    fi
    lab_path=$lab_dir/$lab_side/$1/$2
    case " $LAB_SAID " in
    *" $lab_nn "*) ;;
    *)
        echo "$lab_who: lesson $lab_nn ($1): $lab_say ($lab_path)${lab_note:+: $lab_note}" >&2
        LAB_SAID="${LAB_SAID:+$LAB_SAID }$lab_nn"
        ;;
    esac
    if [ ! -x "$lab_path" ]; then
        case " $lab_missing " in
        *" $lab_path "*) ;;
        *)
            echo "$lab_who: $lab_path is not built: run make${O:+ O=$O} (it builds your lessons and the reference)" >&2
            lab_missing="$lab_missing $lab_path"
            ;;
        esac
    fi
}

lab_use() {
    lab_pick "$2" "$3"
    eval "$1=\$lab_path"
}

lab_prog() {
    lab_pick "$1" "$2"
    printf '%s\n' "$lab_path"
}
