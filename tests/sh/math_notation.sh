# One math notation (tests/site/math_notation.py): no formula of the course's texts written in Unicode
# inside a code span, where the site would draw it as code and not as mathematics; shown to catch one,
# and to pass the same text in TeX and a diagram in a fenced block.
. "$(dirname "$0")/lib.sh"
CHECK="python3 tests/site/math_notation.py"
if $CHECK >"$TMP/all.out" 2>&1; then
    pass "math notation: $(tail -n 1 "$TMP/all.out")"
else
    fail "formulas in Unicode inside code (write them as TeX, \$...\$): $(head -n 10 "$TMP/all.out" | tr '\n' ';')"
fi
printf '# Cost\n\nThe ring sends `2(N−1)/N·|g|` bytes per rank.\n' >"$TMP/unicode.md"
printf '# Cost\n\nThe ring sends $2(N-1)/N \\cdot |g|$ bytes per rank; `--link nvlink` emulates it.\n\n```\n  rank r ──► r+1   2(N−1)·α\n```\n' >"$TMP/tex.md"
if ! $CHECK "$TMP/unicode.md" >"$TMP/u.out" 2>&1 && grep -q 'unicode.md:3: `2(N−1)/N·|g|`' "$TMP/u.out" &&
    $CHECK "$TMP/tex.md" >"$TMP/t.out" 2>&1; then
    pass "math notation: catches a formula in Unicode code and names its line; passes TeX and a diagram"
else
    fail "math notation check: $(cat "$TMP/u.out" "$TMP/t.out" | head -n 4 | tr '\n' ';')"
fi
