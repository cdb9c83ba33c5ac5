# Every Markdown table of the course is whole (tests/site/md_tables.sh): each row as many cells as its
# header, no stray backtick. A `|` inside a code span in a table cell (`(N−1)·|g|`, `nvlink|pcie`) splits
# the cell on GitHub and on the site alike, so this is checked on the sources every `make test`; and
# the check is shown to catch such a table, and to pass the same table written with \|.
. "$(dirname "$0")/lib.sh"
CHECK="sh tests/site/md_tables.sh"

if $CHECK >"$TMP/all.out" 2>&1; then
    pass "every Markdown table of the course is whole: $(tail -n 1 "$TMP/all.out")"
else
    fail "broken Markdown tables (write a | inside a table cell as \\|, also inside code): $(head -n 20 "$TMP/all.out")"
fi

# The planted defect: lesson 04's cost-model table as it was, a | inside code; and a row whose cell
# count is right but whose code span lost its closing backtick. Inside a fence nothing is a table.
cat >"$TMP/broken.md" <<'EOF'
# A table

| algorithm | messages | bytes per message | time |
|---|---|---|---|
| naive | `2(N−1)` at rank 0 | `|g|` | `2(N−1)·(α + |g|/β)` |
| ring | `2(N−1)` | `g/N | `2(N−1)·α` |

```
| not | a table |
|---|---|
| `|` | x | y |
```
EOF
$CHECK "$TMP/broken.md" >"$TMP/broken.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qF "$TMP/broken.md:5: 8 cells, its header has 4 (a | inside a code span ends the cell: write it \\|)" "$TMP/broken.out" &&
    grep -qF "$TMP/broken.md:6: cell 3 holds a stray backtick (an unclosed code span): \`g/N" "$TMP/broken.out" &&
    [ "$(grep -c "$TMP/broken.md" "$TMP/broken.out")" = 2 ]; then
    pass "the check catches a | inside code and an unclosed code span in a table, and nothing in a fence"
else
    fail "the check on a broken table: exit $rc (want 1), output: $(cat "$TMP/broken.out")"
fi
sed '5s/|g|/\\|g\\|/g; 6s/`g\/N/`g\/N`/' "$TMP/broken.md" >"$TMP/fixed.md"
if $CHECK "$TMP/fixed.md" >"$TMP/fixed.out" 2>&1 && grep -qx '1 tables in 1 files, 0 defects' "$TMP/fixed.out"; then
    pass "the same table written with \\| passes"
else
    fail "the fixed table: $(cat "$TMP/fixed.out")"
fi

# A file that cannot be read: one line, exit 2
expect_error "an unreadable file" "md_tables: cannot read $TMP/none.md" $CHECK "$TMP/none.md"
