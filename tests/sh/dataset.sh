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

# The fortune corpus, on a fixture of made-up fortunes (a repeat across files, a record with a
# non-ASCII character, an empty record, trailing blanks, an index .dat and a .u8 link to skip, a
# file without a final newline): the same build twice, no fortune in both sets, and the tokens of
# the two sets are those of the records an awk oracle keeps, plus a blank line after each.
F=$BUILD/datasets/build_fortunes FD=datasets/fixtures/fortunes
"$F" --dir $FD --out-dir "$TMP/fa" >/dev/null && "$F" --dir $FD --out-dir "$TMP/fb" >/dev/null
if cmp -s "$TMP/fa/fortunes-train.tok" "$TMP/fb/fortunes-train.tok" && cmp -s "$TMP/fa/fortunes-val.tok" "$TMP/fb/fortunes-val.tok"; then
    pass "fortune corpus builder is deterministic"
else
    fail "two builds of the same fortune files differ"
fi
# decode FILE: the records of a .tok file, one per line, newlines and tabs written \n and \t
decode() {
    od -An -v -tu1 "$1" | awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
        END { V = b[12] + 256 * b[13]; for (i = 32 + V; i < n; i++) printf "%c", b[32 + b[i]] }' |
        awk 'BEGIN { RS = "" } { gsub(/\t/, "\\t"); gsub(/\n/, "\\n"); print }' | sort
}
# What the builder should keep: records between '%' lines, trailing blanks off, ASCII only, once.
for f in "$FD"/*; do case $f in *.dat | *.u8) ;; *) cat "$f"; echo; echo %;; esac; done | LC_ALL=C awk '
    function flush() { sub(/^(\\n)+/, "", r); sub(/(\\n)+$/, "", r); if (r != "" && r !~ /[^\t -~]/) print r; r = "" }
    $0 == "%" { flush(); next } { sub(/[ \t]+$/, ""); gsub(/\t/, "\\t"); r = r $0 "\\n" }' | sort -u >"$TMP/oracle"
decode "$TMP/fa/fortunes-train.tok" >"$TMP/ftrain"
decode "$TMP/fa/fortunes-val.tok" >"$TMP/fval"
ntok() { od -An -j16 -N8 -tu8 "$1" | tr -d ' '; }
want=$(awk '{ gsub(/\\[nt]/, "x"); s += length($0) + 2 } END { print s }' "$TMP/oracle")
got=$(($(ntok "$TMP/fa/fortunes-train.tok") + $(ntok "$TMP/fa/fortunes-val.tok")))
nall=$(wc -l <"$TMP/oracle") nval=$(wc -l <"$TMP/fval")
if [ -n "$(comm -12 "$TMP/ftrain" "$TMP/fval")" ]; then
    fail "a fortune is in both the training and the validation set: $(comm -12 "$TMP/ftrain" "$TMP/fval" | head -n 1)"
elif ! sort "$TMP/ftrain" "$TMP/fval" | cmp -s - "$TMP/oracle"; then
    fail "the two sets are not the oracle's records: $(sort "$TMP/ftrain" "$TMP/fval" | diff - "$TMP/oracle" | head -n 3)"
elif [ "$got" != "$want" ] || [ "$nval" != $((nall / 10)) ]; then
    fail "token counts: train+val = $got (want $want), $nval of $nall fortunes in validation (want $((nall / 10)))"
else
    pass "fortune split: $nall fortunes ($nval for validation), disjoint, $got tokens in all"
fi
expect_error "missing fortune directory" "fortunes" "$F" --dir "$TMP/none" --out-dir "$TMP/fc"
if [ -f build/data/fortunes-train.tok ]; then # make dataset's corpus, where the package is installed
    if $TRAIN --model gpt-mini --data build/data/fortunes-train.tok --val build/data/fortunes-val.tok --steps 2 \
        --batch 4 --eval-batches 2 --log-every 1000 >"$TMP/log" 2>&1; then
        pass "the fortune corpus (build/data) loads and trains gpt-mini: $(head -n 1 "$TMP/log")"
    else
        fail "training gpt-mini on the fortune corpus: $(tail -n 2 "$TMP/log")"
    fi
fi
