# lib.sh — what the grading scripts share (sourced). A grading script runs in the phases of
# grading/grade's check(): $PHASE is prep, unset in the run (in the sandbox: only produce data; read
# it as ${PHASE:-run}) or judge (trusted: decide, reading the run's files under $RUN_DIR).

# run phase: launch N LOG PROGRAM [ARGS...] — PROGRAM on N ranks (N = 1: directly), its output in
# LOG and its exit status in LOG.rc.
launch() {
    _n=$1 _log=$2
    shift 2
    if [ "$_n" = 1 ]; then "$@" >"$_log" 2>&1; else "$MPIRUN" -np "$_n" "$@" >"$_log" 2>&1; fi
    echo $? >"$_log.rc"
}

# judge phase: launched LOG WHAT — did the run's launch into LOG end with status 0? If not, say how
# it ended (crash signal, exit status, never finished) with its last lines, and return 1. The run
# wrote these files, so they can only make a check fail, never pass: a forged 0 changes nothing
# that the judge's own comparisons do not check.
launched() {
    _log=$RUN_DIR/$1
    _rc=$(head -c 16 "$_log.rc" 2>/dev/null | tr -d '\n')
    case $_rc in
    0) return 0 ;;
    "" | *[!0-9]*) echo "$2 did not finish (the run ended: $(echo "${RUN_STATUS:-?}" | cut -d' ' -f3-)); its last output:" ;;
    *)
        if [ "$_rc" -gt 128 ]; then
            echo "$2 crashed: signal $((_rc - 128)) ($(kill -l $((_rc - 128)) 2>/dev/null)); its last output:"
        else
            echo "$2 failed (exit status $_rc); its last output:"
        fi
        ;;
    esac
    tail -n 20 "$_log" 2>/dev/null | cut -c1-500
    return 1
}

# a number from a run's JSON file (the first "key": N), empty when there is none; leading zeros
# dropped (the shell's arithmetic would read 010 as octal)
json_int() { sed -n "s/.*\"$2\":[[:space:]]*\([0-9]*\).*/\1/p" "$1" 2>/dev/null | head -n 1 | sed 's/^0*\([0-9]\)/\1/'; }

# judge phase: switch_args N — statcheck's arguments to hold a trainer's --stats against the
# grader's switch's log of the run (grading/README.md, "Security model"): the log, and which of the
# run's launches of N ranks this is (the judge counts them in order, in a file beside the log, as
# the run made them). Nothing when no switch carried the run.
switch_args() {
    [ -n "${DPC_SWITCH_LOG:-}" ] || return 0
    _f=$DPC_SWITCH_LOG.n$1
    _k=$(head -c 20 "$_f" 2>/dev/null)
    case $_k in "" | *[!0-9]*) _k=0 ;; esac
    echo $((_k + 1)) >"$_f"
    echo "--switch $DPC_SWITCH_LOG --switch-nth $_k"
}
# restart_judge N1 STOP B N2 WHAT FLAGS...: lesson 12's judge of a restart. The REFERENCE trainer runs
# the whole run uninterrupted on one process, over the DistributedSampler order of N1 replicas with
# the global batch B (ref.st), and equiv compares the restarted run's dump (RUN_DIR/sub.st, from N2
# ranks) from step STOP on. WHAT says what ran, on the line before equiv's verdict.
restart_judge() {
    _n1=$1 _stop=$2 _b=$3 _n2=$4 _what=$5
    shift 5
    [ -f "$RUN_DIR/sub.st" ] || { echo "the restart ended well but wrote no dump (--dump sub.st)"; exit 1; }
    if ! "$REF_BUILD/01-trainer/train" "$@" --device cpu --order sampler --sampler-replicas "$_n1" --batch "$_b" --dump ref.st >ref.log 2>&1; then
        echo "grader error: the reference run failed:"
        cat ref.log
        exit 2
    fi
    echo "$_what against one uninterrupted process:"
    exec "$EQUIV" ref.st "$RUN_DIR/sub.st" --ref-offset "$_stop" --world "$_n2" --batch $(((_b + _n2 - 1) / _n2)) --lr 1e-2
}
