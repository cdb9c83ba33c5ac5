# pairs.sh — sourced by common/mk/bench.sh after load.sh: one comparison that noise cannot decide.
# On shared cores two runs of the same program can differ by more than the course and its baseline
# do, and the load moves during a run. So the two sides run back to back, alternately, several times;
# the result is the median of the per-pair ratios with their spread, and no ratio at all when the
# machine was busier than its cores during the pairs.
#
#   pairs TITLE FN TSV   FN, a shell function, runs ONE pair: the course, then its baseline(s), and
#                        prints a line per comparison: LABEL<TAB>course<TAB>baseline, two throughputs
#                        (higher is faster; empty where a run gave none). FN's lines name the same
#                        LABELs in every pair. pairs calls FN BENCH_PAIRS times (default 5), reads
#                        the load average before and after each call, writes every pair's numbers to
#                        TSV and prints them, then one line per LABEL:
#   LABEL: median 1.04x, spread (min-max) 0.97-1.10x over 5 pairs, load 0.31-1.62 on 2 cores
#       the median of the pairs' course/baseline ratios, and the smallest and largest of them;
#   LABEL: no ratio: the load reached 2.71 during its pairs, over the 2 cores; rerun on a quiet ...
#       when a load reading during its pairs exceeded the cores (BENCH_ANY_LOAD=1 reports it anyway);
#   LABEL: 1.02x from 1 pair: not a measurement (too few pairs; make bench runs 5)
#       under 5 pairs (BENCH_QUICK=1 runs 1), a ratio that one slow run can decide.
# Before the first pair, while the load is over the cores, it waits (BENCH_SETTLE_S seconds at most).
# Returns 1 when FN failed or a number is missing.
pairs() {
    p_n=${BENCH_PAIRS:-5} p_i=0 p_rc=0
    case $p_n in '' | *[!0-9]* | 0)
        echo "BENCH_PAIRS=$p_n: give a number of pairs, 1 or more (5 or more for a measurement)"
        return 1 ;;
    esac
    case ${BENCH_SETTLE_S:-60} in *[!0-9]*)
        echo "BENCH_SETTLE_S=$BENCH_SETTLE_S: give the seconds to wait for the load, 0 or more"
        return 1 ;;
    esac
    echo "== $1: $p_n pair(s), each the course then its baseline =="
    # The 1-minute load average remembers the bench's own heavier parts (4 ranks on 2 cores) for tens
    # of seconds after they end: wait for it to fall to the cores (up to BENCH_SETTLE_S, 60) rather
    # than refuse a ratio over load that no longer runs.
    p_w=0
    while [ "$p_w" -lt "${BENCH_SETTLE_S:-60}" ] && p_l=$(load_now) &&
        awk -v l="$p_l" -v c="$(load_cores)" 'BEGIN { exit !(l != "?" && c != "?" && l + 0 > c + 0) }'; do
        [ "$p_w" = 0 ] && echo "waiting up to ${BENCH_SETTLE_S:-60} s for the load ($p_l) to fall to the $(load_cores) cores"
        sleep 5
        p_w=$((p_w + 5))
    done
    printf '# pair\tload_before\tload_after\tcomparison\tcourse\tbaseline\tcourse/baseline\n' >"$3"
    while [ "$p_i" -lt "$p_n" ]; do
        p_i=$((p_i + 1))
        p_l0=$(load_now)
        p_out=$($2) || p_rc=1
        p_l1=$(load_now)
        echo "$p_out" | awk -F '\t' -v OFS='\t' -v i="$p_i" -v a="$p_l0" -v b="$p_l1" \
            'NF { print i, a, b, $1, $2, $3, ($2 > 0 && $3 > 0) ? sprintf("%.4f", $2 / $3) : "" }' >>"$3"
    done
    awk -F '\t' -v cores="$(load_cores)" -v any="${BENCH_ANY_LOAD:-0}" -v n="$p_n" '
        /^#/ { next }
        !($4 in k) { k[$4] = ++nl; label[nl] = $4; if (length($4) > w) w = length($4) }
        { rows[++nr] = $0; j = k[$4]
          if ($7 == "") bad = 1; else r[j, ++c[j]] = $7 + 0
          for (f = 2; f <= 3; f++) { if ($f == "?") unk[j] = 1
              if (!(j in lo) || $f + 0 < lo[j]) lo[j] = $f + 0; if ($f + 0 > hi[j]) hi[j] = $f + 0 } }
        END {
            printf "%5s  %-13s %-*s %12s %12s %7s\n", "pair", "load", w, "comparison", "course", "baseline", "ratio"
            for (i = 1; i <= nr; i++) { split(rows[i], g, "\t")
                printf "%5s  %-13s %-*s %12s %12s %7s\n", g[1], g[2] "→" g[3], w, g[4], g[5] == "" ? "-" : g[5],
                    g[6] == "" ? "-" : g[6], g[7] == "" ? "-" : sprintf("%.2fx", g[7]) }
            for (j = 1; j <= nl; j++) {
                m = c[j]
                for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (r[j, b] < r[j, a]) { t = r[j, a]; r[j, a] = r[j, b]; r[j, b] = t }
                med = m % 2 ? r[j, (m + 1) / 2] : (r[j, m / 2] + r[j, m / 2 + 1]) / 2
                ld = unk[j] ? "load unknown" : sprintf("load %.2f-%.2f on %s cores", lo[j], hi[j], cores)
                over = !unk[j] && cores != "?" && hi[j] > cores + 0
                if (m == 0) printf "%s: no ratio: no pair gave both numbers\n", label[j]
                else if (m < 5) printf "%s: %.2fx from %d pair%s: not a measurement (too few pairs; make bench runs 5)\n",
                    label[j], med, m, m == 1 ? "" : "s"
                else if (over && any != 1)
                    printf "%s: no ratio: the load reached %.2f during its pairs, over the %s cores; rerun on a quiet machine: make bench (BENCH_ANY_LOAD=1 reports it anyway)\n",
                        label[j], hi[j], cores
                else printf "%s: median %.2fx, spread (min-max) %.2f-%.2fx over %d pairs, %s%s\n", label[j], med,
                    r[j, 1], r[j, m], m, ld, (over ? " (over the cores: BENCH_ANY_LOAD=1)" : "")
            }
            exit bad }' "$3" || p_rc=1
    return $p_rc
}
