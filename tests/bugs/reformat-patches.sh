#!/bin/sh
# tests/bugs/reformat-patches.sh [--check] — carry the seeded-bug patches over a reformat of solutions/.
#
# Each tests/bugs/NN/<bug>.patch is a diff against solutions/NN-name/FILE; reformatting FILE breaks its
# context. For each patch: apply it to a copy of the CURRENT solutions/NN-name/, format the file before
# and after with clang-format (.clang-format), and write the patch again as the diff between the two
# (its "# ..." header lines kept). Run it BEFORE solutions/ is reformatted (make format does it first);
# on an already formatted tree it changes nothing, so running it twice is harmless. The new patch is
# checked to give the formatted buggy file from the formatted reference, and to still change something.
# Nothing is written unless every patch went through. --check: write nothing; exit 1 if a patch
# would change. CLANG_FORMAT=path picks the binary (common/mk/format.sh sets it).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CF=${CLANG_FORMAT:-clang-format}
check=0
[ "${1:-}" = "--check" ] && check=1
command -v "$CF" >/dev/null 2>&1 || { echo "reformat-patches: clang-format not found ($CF): run make deps" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpc-repatch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fmt() { "$CF" --style="file:$ROOT/.clang-format" --assume-filename="$2" <"$1"; } # fmt FILE NAME -> stdout

total=0
changed=0
status=0
for p in "$ROOT"/tests/bugs/[0-9]*/*.patch; do
    [ -f "$p" ] || continue
    total=$((total + 1))
    L=$(basename "$(dirname "$p")")
    name="$L/$(basename "$p")"
    dir=$(cd "$ROOT/solutions" && ls -d "$L"-* 2>/dev/null | head -n 1)
    if [ -z "$dir" ]; then
        echo "reformat-patches: $name: there is no solutions/$L-*/" >&2
        status=1
        continue
    fi
    w="$tmp/work"
    rm -rf "$w"
    mkdir -p "$w/bug" "$w/ref" "$w/check"
    cp -R "$ROOT/solutions/$dir/." "$w/bug/"
    if ! patch -s -p1 --no-backup-if-mismatch -d "$w/bug" <"$p" >"$w/log" 2>&1; then
        echo "reformat-patches: $name no longer applies to solutions/$dir: $(head -n 2 "$w/log" | tr '\n' ' ')" >&2
        status=1
        continue
    fi
    out="$tmp/out/$name"
    mkdir -p "$(dirname "$out")"
    sed '/^--- /,$d' "$p" >"$out" # the header lines
    files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
    ok=1
    for f in $files; do
        src="$ROOT/solutions/$dir/$f"
        mkdir -p "$(dirname "$w/ref/$f")" "$(dirname "$w/check/$f")"
        if ! fmt "$src" "$src" >"$w/ref/$f" || ! fmt "$w/bug/$f" "$src" >"$w/bug/$f.fmt"; then
            echo "reformat-patches: $name: $CF failed on $f" >&2
            ok=0
            break
        fi
        diff -u --label "a/$f" --label "b/$f" "$w/ref/$f" "$w/bug/$f.fmt" >>"$out"
        rc=$?
        if [ $rc = 0 ]; then
            echo "reformat-patches: $name: formatted, the bug no longer changes $f" >&2
            ok=0
        elif [ $rc != 1 ]; then
            echo "reformat-patches: $name: diff failed on $f" >&2
            ok=0
        fi
        cp "$w/ref/$f" "$w/check/$f"
    done
    # the new patch on the formatted reference gives the formatted buggy files
    if [ $ok = 1 ]; then
        if ! patch -s -p1 --no-backup-if-mismatch -d "$w/check" <"$out" >"$w/log" 2>&1; then
            echo "reformat-patches: $name: the rewritten patch does not apply: $(head -n 2 "$w/log" | tr '\n' ' ')" >&2
            ok=0
        fi
        for f in $files; do
            [ $ok = 1 ] && ! cmp -s "$w/check/$f" "$w/bug/$f.fmt" && {
                echo "reformat-patches: $name: the rewritten patch does not give the formatted buggy $f" >&2
                ok=0
            }
        done
    fi
    [ $ok = 1 ] || { status=1; continue; }
    cmp -s "$out" "$p" || changed=$((changed + 1))
done

if [ $status != 0 ]; then
    echo "reformat-patches: no patch was rewritten (fix the ones above first)" >&2
    exit 1
fi
if [ $check = 1 ]; then
    echo "reformat-patches: $changed of $total patches would change"
    [ $changed = 0 ]
    exit $?
fi
for p in "$ROOT"/tests/bugs/[0-9]*/*.patch; do
    [ -f "$p" ] || continue
    new="$tmp/out/$(basename "$(dirname "$p")")/$(basename "$p")"
    cmp -s "$new" "$p" || cp "$new" "$p"
done
echo "reformat-patches: rewrote $changed of $total patches"
