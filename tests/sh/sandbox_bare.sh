#!/bin/sh
# sandbox_bare.sh — multi-rank runs in a container as bare as the GPU machine's was (tests/gpu/): no
# ssh or rsh (Open MPI 4's launcher refuses to start without its remote agent, even for one
# machine), and, in the sandbox's unshare mode, no ip or ifconfig to bring the loopback up (PMIx's
# listener fails without an interface). On an H200 both broke every multi-rank check of the graders.
# The bare PATH holds links to every program of this PATH but those tools.
. "$(dirname "$0")/lib.sh"

BARE=$TMP/bare
mkdir -p "$BARE" "$TMP/w"
chmod 755 "$TMP" "$BARE" # the sandbox's own uid runs the programs through these links
for d in $(echo "$PATH" | tr ':' ' '); do
    for p in "$d"/*; do
        t=${p##*/}
        case $t in ssh | rsh | ip | ifconfig) continue ;; esac
        [ -x "$p" ] && [ ! -e "$BARE/$t" ] && ln -s "$p" "$BARE/$t"
    done
done
if PATH=$BARE command -v ssh >/dev/null 2>&1 || PATH=$BARE command -v ip >/dev/null 2>&1; then
    fail "sandbox_bare: the bare PATH still finds ssh or ip"
    exit 0
fi

# grading/mpirun without a remote agent on PATH: one machine needs none
if PATH=$BARE env -u OMPI_MCA_plm_rsh_agent -u OMPI_MCA_plm "$MPIRUN" -np 2 hostname >"$TMP/m.log" 2>&1 &&
    [ "$(grep -c . "$TMP/m.log")" = 2 ]; then
    pass "sandbox_bare: grading/mpirun starts 2 ranks with no ssh or rsh on PATH"
else
    fail "sandbox_bare: grading/mpirun with no ssh or rsh on PATH: $(tail -n 3 "$TMP/m.log" | tr '\n' ' ')"
fi

# the unshare sandbox brings the loopback up without ip or ifconfig (perl), so that mpirun starts
if [ "$(id -u)" != 0 ] || ! unshare --net true 2>/dev/null; then
    echo "sandbox_bare: not root or no unshare here: the unshare mode is not tried"
elif cp "$MPIRUN" "$TMP/mpirun" && chmod 755 "$TMP/mpirun" && # the checkout may be closed to that uid
    PATH=$BARE DPC_SANDBOX=unshare "$ROOT/grading/sandbox" --rw "$TMP/w" --cwd "$TMP/w" -- \
    sh -c "cat /sys/class/net/lo/flags; $TMP/mpirun -np 2 hostname" >"$TMP/u.log" 2>&1 &&
    [ "$(grep -c . "$TMP/u.log")" = 3 ]; then
    pass "sandbox_bare: the unshare sandbox without ip or ifconfig brings lo up ($(head -n 1 "$TMP/u.log")) and mpirun starts 2 ranks"
else
    fail "sandbox_bare: the unshare sandbox without ip or ifconfig: $(tail -n 4 "$TMP/u.log" | tr '\n' ' ')"
fi
