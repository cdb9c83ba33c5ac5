# load.sh — sourced (`. common/mk/load.sh`) by the scripts that time something: the machine's load
# around a measurement, for the plots and tables that show one. On shared cores the load, not the
# code, can decide a timing, so a reader needs it beside the number to judge the number.
#
#   l0=$(load_now)            before the measurement: the 1-minute load average
#   ...measure...
#   note=$(load_note "$l0")   after it: "load 1.9→2.3 on 2 cores"
#
# The 1-minute average, not the 5- or 15-minute one: it is the one that moves within a measurement
# of a few seconds to minutes, and the two readings bracket it. "?" where /proc/loadavg is missing
# (not Linux), so that the scripts still run there.
load_now() {
    l=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null) && [ -n "$l" ] && echo "$l" || echo '?'
}
load_cores() {
    getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?'
}
load_note() { # START: the load_now read before the measurement
    echo "load $1→$(load_now) on $(load_cores) cores"
}
