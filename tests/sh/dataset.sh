# The dataset builder is deterministic, the committed fixture is what it builds, errors are clear.
. "$(dirname "$0")/lib.sh"
B=$BUILD/datasets/build_words
$B --words datasets/fixtures/micro-words.txt --out-dir "$TMP/a" --name micro >/dev/null &&
$B --words datasets/fixtures/words.txt --out-dir "$TMP/a" --name tiny >/dev/null && \
$B --words datasets/fixtures/words.txt --out-dir "$TMP/b" --name tiny >/dev/null
if cmp -s "$TMP/a/tiny-train.tok" "$TMP/b/tiny-train.tok" && cmp -s "$TMP/a/tiny-val.tok" "$TMP/b/tiny-val.tok"; then
    pass "builder is deterministic"
else
    fail "two builds of the same word list differ"
fi
if cmp -s "$TMP/a/tiny-train.tok" datasets/fixtures/tiny-train.tok && cmp -s "$TMP/a/tiny-val.tok" datasets/fixtures/tiny-val.tok &&
    cmp -s "$TMP/a/micro-train.tok" datasets/fixtures/micro-train.tok; then
    pass "committed fixtures = build_words(datasets/fixtures/words.txt, micro-words.txt)"
else
    fail "the committed fixture is stale: run 'make fixture' and commit it"
fi
expect_error "missing word list" "wamerican" $B --words "$TMP/none.txt" --out-dir "$TMP/c"
if [ -f build/data/words-train.tok ]; then # the programs' default path, whatever build O is tested
    if $TRAIN --preset tiny --steps 2 --batch 8 --log-every 1000 >"$TMP/log" 2>&1; then
        pass "the default dataset (build/data) loads and trains: $(head -n 1 "$TMP/log")"
    else
        fail "training on the default dataset: $(tail -n 2 "$TMP/log")"
    fi
fi
