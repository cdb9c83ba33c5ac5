# make bench's pairs (common/mk/pairs.sh) on made-up numbers and loads, in seconds: the median and the
# min-max of the per-pair ratios, the refusal when a load reading exceeds the cores (and the raw
# numbers still printed), BENCH_ANY_LOAD=1, one pair marked as no measurement, a missing number.
. "$(dirname "$0")/lib.sh"
. common/mk/load.sh
. common/mk/pairs.sh

# Each call hands out the next line of a file: pairs calls FN and load_now in subshells, so a
# counter has to live in a file.
next_of() {
    i=$(($(cat "$TMP/$1.i" 2>/dev/null || echo 0) + 1))
    echo "$i" >"$TMP/$1.i"
    sed -n "${i}p" "$TMP/$1"
}
load_cores() { echo 2; }
sleep() { :; }         # the wait for the load to settle, made instant
export BENCH_SETTLE_S=0 # no wait but where a check asks for one
load_now() { next_of loads; }
# course 30, 10, 50, 20, 40 against 10: ratios 3, 1, 5, 2, 4 (median 3 only once sorted)
fake_pair() { printf 'fake model\t%s\t10\n' "$(next_of course)"; }
printf '%s\n' 30 10 50 20 40 >"$TMP/course"

# run NAME LOADS... : pairs on fresh counters, the output in TMP/NAME
run() {
    name=$1
    shift
    printf '%s\n' "$@" >"$TMP/loads"
    rm -f "$TMP/loads.i" "$TMP/course.i"
    pairs "test" fake_pair "$TMP/$name.tsv" >"$TMP/$name" 2>&1
}

check() { # NAME WANT: the output has the line WANT
    if grep -qxF -- "$2" "$TMP/$1"; then pass "pairs, $1: $2"; else fail "pairs, $1: no line '$2' in: $(cat "$TMP/$1")"; fi
}

run quiet 0.10 0.50 0.50 0.40 0.30 0.20 0.20 0.60 0.60 1.90
check quiet "fake model: median 3.00x, spread (min-max) 1.00-5.00x over 5 pairs, load 0.10-1.90 on 2 cores"

run loaded 0.10 0.50 0.50 2.40 0.30 0.20 0.20 0.60 0.60 0.90
check loaded "fake model: no ratio: the load reached 2.40 during its pairs, over the 2 cores; rerun on a quiet machine: make bench (BENCH_ANY_LOAD=1 reports it anyway)"
if [ "$(grep -c ' fake model .*x$' "$TMP/loaded")" = 5 ] && ! grep -q 'median' "$TMP/loaded"; then
    pass "pairs, loaded: the 5 pairs' raw numbers printed, no median"
else
    fail "pairs, loaded: want 5 raw rows and no median: $(cat "$TMP/loaded")"
fi

BENCH_ANY_LOAD=1 run forced 0.10 0.50 0.50 2.40 0.30 0.20 0.20 0.60 0.60 0.90
check forced "fake model: median 3.00x, spread (min-max) 1.00-5.00x over 5 pairs, load 0.10-2.40 on 2 cores (over the cores: BENCH_ANY_LOAD=1)"

# the load over the cores before the first pair, then under them: a wait, then a ratio
BENCH_SETTLE_S=60 run settled 3.00 2.50 1.00 0.10 0.50 0.50 0.40 0.30 0.20 0.20 0.60 0.60 1.90
check settled "fake model: median 3.00x, spread (min-max) 1.00-5.00x over 5 pairs, load 0.10-1.90 on 2 cores"
check settled "waiting up to 60 s for the load (3.00) to fall to the 2 cores"

BENCH_PAIRS=1 run quick 0.10 0.20
check quick "fake model: 3.00x from 1 pair: not a measurement (too few pairs; make bench runs 5)"

printf '%s\n' 30 10 '' 20 40 >"$TMP/course"
if run missing 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1; then
    fail "pairs, missing: a pair without the course's number returned 0"
else
    check missing "fake model: 2.50x from 4 pairs: not a measurement (too few pairs; make bench runs 5)"
fi

if BENCH_PAIRS=five pairs "test" fake_pair "$TMP/bad.tsv" >"$TMP/bad" 2>&1; then
    fail "pairs, BENCH_PAIRS=five: returned 0"
else
    check bad "BENCH_PAIRS=five: give a number of pairs, 1 or more (5 or more for a measurement)"
fi
if BENCH_SETTLE_S=1m pairs "test" fake_pair "$TMP/bad.tsv" >"$TMP/bad2" 2>&1; then
    fail "pairs, BENCH_SETTLE_S=1m: returned 0"
else
    check bad2 "BENCH_SETTLE_S=1m: give the seconds to wait for the load, 0 or more"
fi
