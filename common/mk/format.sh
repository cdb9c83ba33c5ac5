#!/bin/sh
# format.sh — the course's one C style (.clang-format), checked or applied.
#
#   common/mk/format.sh --check    (make format-check) write nothing; list the files that differ from
#                                  clang-format's output; exit 1 if there is one
#   common/mk/format.sh            (make format) reformat in place, in this order: the seeded-bug
#                                  patches (tests/bugs/reformat-patches.sh: they are diffs against the
#                                  unformatted reference), every file, then the skeletons (make skeletons)
#   common/mk/format.sh --list     the files the two above cover
#   common/mk/format.sh [--check] FILE...   only these files (no patches, no skeletons)
#
# The files: every C, CUDA and header file git knows of (tracked, or new and not ignored; without git,
# those under the source folders), except the student files in lessons/ that grading/mkskel generates
# from solutions/: solutions/ is formatted and they are regenerated from it (the skeletons test checks
# they match). ReflowComments is off in .clang-format, so the mkskel marker comments (a solution's
# begin and end lines, the skeleton lines, the TODOs) are never rewrapped.
#
# The version is the one .clang-format names (Debian 12's; make deps installs it there): the check
# says which one it ran. CLANG_FORMAT=path picks the binary (default: clang-format-14 if there is one,
# else clang-format). Exit 2: no clang-format, or it failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
STYLE_VERSION=14

mode=format
case ${1:-} in
--check) mode=check; shift ;;
--list) mode=list; shift ;;
-*) echo "format: unknown option $1: use --check, --list or none (see common/mk/format.sh)" >&2; exit 2 ;;
esac

# the generated student files: lessons/NN-name/FILE of LNN_STUDENT where solutions/NN-name/FILE exists
generated() {
    for mk in lessons/*/lesson.mk; do
        [ -f "$mk" ] || continue
        d=$(dirname "$mk")
        for f in $(sed -n 's/^L[0-9]*_STUDENT[ \t]*:=[ \t]*//p' "$mk"); do
            [ -f "solutions/${d#lessons/}/$f" ] && echo "$d/$f"
        done
    done
}

all_files() {
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ]; then
        git ls-files --cached --others --exclude-standard -- '*.c' '*.h' '*.cu'
    else
        find common datasets grading lessons solutions tests -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) 2>/dev/null
    fi | sort -u >"$tmp/all"
    generated >"$tmp/generated"
    grep -vxF -f "$tmp/generated" "$tmp/all" | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpc-format.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
    printf '%s\n' "$@" >"$tmp/files"
    whole=0
else
    all_files >"$tmp/files"
    whole=1
fi
if [ "$mode" = list ]; then
    cat "$tmp/files"
    exit 0
fi
n=$(grep -c . "$tmp/files")

CF=${CLANG_FORMAT:-}
if [ -z "$CF" ]; then
    CF=clang-format
    command -v clang-format-$STYLE_VERSION >/dev/null 2>&1 && CF=clang-format-$STYLE_VERSION
fi
if ! command -v "$CF" >/dev/null 2>&1; then
    echo "format: clang-format not found ($CF): run make deps (it installs the Debian package clang-format)" >&2
    exit 2
fi
version=$("$CF" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9]*\).*/\1/p' | head -n 1)
note=""
if [ "$version" != "$STYLE_VERSION" ]; then
    note=" (this is clang-format ${version:-of unknown version}; the tree is formatted with $STYLE_VERSION, and other versions place some lines differently: install clang-format-$STYLE_VERSION or set CLANG_FORMAT)"
fi
export CLANG_FORMAT="$CF"

# differing FILES -> stdout (one per line); exit 2 when clang-format itself fails
differing() {
    tr '\n' '\0' <"$tmp/files" |
        xargs -0 "$CF" --style="file:$ROOT/.clang-format" --dry-run -Werror --ferror-limit=1 >/dev/null 2>"$tmp/err"
    rc=$?
    sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' "$tmp/err" | sort -u >"$tmp/bad"
    if [ $rc != 0 ] && [ ! -s "$tmp/bad" ]; then
        echo "format: $CF failed: $(grep -v '^ ' "$tmp/err" | head -n 3 | tr '\n' ' ')" >&2
        return 2
    fi
    cat "$tmp/bad"
}

differing >"$tmp/diff" || exit 2
nbad=$(grep -c . "$tmp/diff")

if [ "$mode" = check ]; then
    if [ "$nbad" = 0 ]; then
        echo "format: all $n files match .clang-format (clang-format $version)"
        exit 0
    fi
    echo "format: $nbad of $n files differ from .clang-format$note; make format rewrites them," \
        "clang-format FILE | diff FILE - shows how:"
    sed 's/^/    /' "$tmp/diff"
    exit 1
fi

# format: the patches first, while solutions/ is still what they were written against
[ -n "$note" ] && echo "format: warning$note" >&2
if [ "$whole" = 1 ] && [ -d tests/bugs ] && [ -d solutions ]; then
    sh tests/bugs/reformat-patches.sh || { echo "format: nothing was reformatted (fix the patch above first)" >&2; exit 1; }
fi
if [ "$nbad" != 0 ]; then
    before=$(mktemp "$tmp/before.XXXXXX")
    tr '\n' '\0' <"$tmp/diff" | xargs -0 cat >"$before"
    tr '\n' '\0' <"$tmp/diff" | xargs -0 "$CF" --style="file:$ROOT/.clang-format" -i || {
        echo "format: $CF -i failed" >&2
        exit 2
    }
    lines=$(tr '\n' '\0' <"$tmp/diff" | xargs -0 cat | diff "$before" - | grep -c '^[<>]')
    echo "format: reformatted $nbad of $n files (clang-format $version): $lines lines removed or added"
else
    echo "format: all $n files already match .clang-format (clang-format $version)"
fi
if [ "$whole" = 1 ] && [ -d solutions ]; then
    sh grading/mkskel solutions lessons || exit 1
fi
