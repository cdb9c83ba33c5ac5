# grade-all's plagiarism report (grading/similarity, grading/codesum): a class of lesson 03 where
# ann and ben wrote independent solutions (tests/similarity/naive-a.c, naive-b.c), cat handed in
# ann's with every local name changed and reformatted in another style, dan an exact copy of ben's,
# fay the reference with one variable renamed per file, gil a skeleton, and eve's lesson folder is
# a link to ann's. The renamed copies, the exact copy and the renamed reference must be flagged, in
# the CSV and in the report with the lines on both sides; the independent solutions, the skeleton
# and the reference against them must not; the link must be refused and nothing read through it.
# The code is not graded (DPC_TOTAL_TIMEOUT=0: every check "not run"): about 10 s.
. "$(dirname "$0")/lib.sh"
SIM=$BUILD/grading/similarity
N=03-naive-allreduce
C=$TMP/class
mkdir -p "$C/ann/$N" "$C/ben/lessons/$N" "$C/cat/$N" "$C/dan/$N" "$C/eve" "$C/fay/$N" "$C/gil"
cp tests/similarity/naive-a.c "$C/ann/$N/naive.c"
cp tests/similarity/naive-b.c "$C/ben/lessons/$N/naive.c"
# renamed: the helpers, their parameters and locals; reformatted: GNU style (other indents, braces
# and line breaks)
sed -e 's/\bincoming\b/recvd/g; s/\bpeer\b/other/g; s/\bacc\b/sum/g; s/\bworld\b/nranks/g' \
    -e 's/\bgather_sum\b/collect_all/g; s/\bhand_back\b/spread_out/g; s/\binv\b/scale/g' tests/similarity/naive-a.c |
    clang-format --style='{BasedOnStyle: GNU}' >"$C/cat/$N/naive.c"
cp tests/similarity/naive-b.c "$C/dan/$N/naive.c"
ln -s ../ann/$N "$C/eve/$N"
# one variable renamed in each file of the reference
sed 's/\bacc\b/total/g' solutions/$N/reduce.c >"$C/fay/$N/reduce.c"
sed 's/\bN\b/world/g' solutions/$N/naive.c >"$C/fay/$N/naive.c"
sed 's/\bblocks\b/nblk/g' solutions/$N/reduce_kernel.cu >"$C/fay/$N/reduce_kernel.cu"
cp -R lessons/$N "$C/gil/"
for f in reduce.c naive.c reduce_kernel.cu; do
    cmp -s "solutions/$N/$f" "$C/fay/$N/$f" && fail "the test's renaming left $f unchanged"
done
cmp -s tests/similarity/naive-a.c "$C/cat/$N/naive.c" && fail "the test's renaming left naive-a.c unchanged"

DPC_TOTAL_TIMEOUT=0 grading/grade-all "$C" --lessons 03 --out "$TMP/g.csv" >"$TMP/ga" 2>"$TMP/ga.err"
R=$TMP/g.similarity.txt
row() { grep "^\"$1\"," "$TMP/g.csv"; }
if head -n 1 "$TMP/g.csv" | grep -q '^student,total,max,inconclusive,L03,similar,note$' &&
    row cat | grep -q ',"ann [0-9]*% (L03)",' && row ann | grep -q ',"cat [0-9]*% (L03)",' &&
    row dan | grep -q ',"ben 100% (L03)",' && row ben | grep -q ',"dan 100% (L03)",' &&
    grep -q '^ *[0-9]*%  ann  ~  cat ' "$R" && grep -q '^ *100%  ben  ~  dan ' "$R" &&
    grep -q '^ *[0-9]*%  the reference  ~  fay ' "$R"; then
    pass "grade-all flags a renamed and reformatted copy ($(row cat | grep -o 'ann [0-9]*%')), an exact copy and the renamed reference, in the CSV and the report"
else
    fail "grade-all's similarity: $(cat "$TMP/g.csv") / $(cat "$R") / $(tail -n 3 "$TMP/ga")"
fi
# the matching regions: file:first-last on both sides, within the files
if sed -n '/ann  ~  cat/,/%  /p' "$R" | grep -Eq "^ +$N/naive.c:[0-9]+-[0-9]+  ~  $N/naive.c:[0-9]+-[0-9]+  \([0-9]+ fingerprints\)$"; then
    pass "the report shows the matching lines of both files: $(sed -n '/ann  ~  cat/{n;p;}' "$R" | sed 's/^ *//')"
else
    fail "the report's regions: $(cat "$R")"
fi
if row fay | grep -q '"copied: the same code as the reference solution' &&
    row fay | grep -q "$N/reduce.c" && row fay | grep -q "$N/naive.c" && row fay | grep -q "$N/reduce_kernel.cu"; then
    pass "the reference with one variable renamed per file is noted as copied (grading/codesum ignores names)"
else
    fail "the renamed reference is not noted as copied: $(row fay)"
fi
if row ann | grep -q ',"cat [0-9]*% (L03)",""$' && row ben | grep -q ',"dan 100% (L03)",""$' &&
    row gil | grep -q ',"",""$' && ! grep -q '^ *[0-9]*%  ann  ~  ben \|^ *[0-9]*%  the reference  ~  \(ann\|ben\|gil\) ' "$R"; then
    pass "independent solutions are not flagged, with each other nor with the reference, nor is the skeleton"
else
    fail "a false flag: $(cat "$TMP/g.csv") / $(cat "$R")"
fi
if grep -qx "grade-all: eve: $N is a link, not a file or folder of the submission: refused, nothing read through it" "$TMP/ga.err" &&
    row eve | grep -q ",\"\",\".*links, not files, left out: $N\"$" && ! grep -q 'eve  ~\|~  eve' "$R"; then
    pass "a lesson folder linked to a classmate's is refused in one line, and nothing of it graded or compared"
else
    fail "the linked folder: $(row eve) / $(cat "$TMP/ga.err")"
fi

# The scores themselves, from the tool: a renamed copy against independent solutions (the numbers
# the default threshold of 50% was chosen from).
G=lessons/$N
{
    for f in reduce.c naive.c reduce_kernel.cu; do printf 'G\t-\t%s\n' "$G/$f"; done
    for f in reduce.c naive.c reduce_kernel.cu; do printf 'S\tref\t%s\n' "solutions/$N/$f"; done
    printf 'S\tann\t%s\nS\tben\t%s\nS\tcat\t%s\nS\tfay\t%s\n' tests/similarity/naive-a.c tests/similarity/naive-b.c \
        "$C/cat/$N/naive.c" "$C/fay/$N/naive.c"
} >"$TMP/m.tsv"
"$SIM" --all "$TMP/m.tsv" >"$TMP/all" 2>&1
score() { awk -v a="$1" -v b="$2" '($1 == a && $2 == b) || ($1 == b && $2 == a) { print $3 }' "$TMP/all"; }
copy=$(score ann cat) ref=$(score ref fay) indep=$(score ann ben) ra=$(score ref ann) rb=$(score ref ben)
if [ "${copy:-0}" -ge 90 ] && [ "${ref:-0}" -ge 90 ] && [ "${indep:-100}" -lt 25 ] && [ "${ra:-100}" -lt 25 ] && [ "${rb:-100}" -lt 25 ]; then
    pass "similarity: renamed copies $copy% (a classmate's) and $ref% (the reference's), independent solutions $indep% (each other), $ra% and $rb% (the reference)"
else
    fail "similarity scores: renamed copy $copy%, renamed reference $ref%, independent $indep%, $ra%, $rb% (want >= 90 and < 25): $(cat "$TMP/all")"
fi
expect_error "similarity: a malformed manifest" "line 1: expected" sh -c "printf 'X\tfoo\n' >'$TMP/bad.tsv'; '$SIM' '$TMP/bad.tsv'"
expect_error "similarity: a bad threshold" "--threshold wants a whole number from 0 to 100" "$SIM" --threshold 150 "$TMP/m.tsv"
grading/grade-all "$C" --out "$TMP/x.csv" --similarity-threshold 5% >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q "similarity-threshold wants a whole percentage from 0 to 100, not '5%'" "$TMP/err" && [ ! -e "$TMP/x.csv" ]; then
    pass "grade-all: a bad --similarity-threshold is refused before grading (exit 2)"
else
    fail "grade-all --similarity-threshold 5%: exit $rc, $(cat "$TMP/err")"
fi
