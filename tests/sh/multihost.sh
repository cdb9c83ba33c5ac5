# The multi-host path: lesson 05's DDP and lesson 08's FSDP trainers on two emulated hosts, one rank
# each, launched the way a cluster launches them (mpirun with a hostfile and a remote agent) and
# talking over TCP only, as two machines do.
#
# The two hosts: two network namespaces, each with its own hostname (a UTS namespace too: Open MPI
# tells hosts apart by hostname, and two "hosts" sharing one hang or share memory), joined by a veth
# pair 10.77.0.1/24 <-> 10.77.0.2/24. mpirun runs in host A; the hostfile names both hosts, one slot
# each; the remote agent Open MPI would call ssh is a script that enters host B's namespaces. Open
# MPI is held to TCP over the veth (btl tcp,self, pml ob1, both interface filters), so every byte
# between the ranks crosses the veth, whose counters the kernel keeps.
# Where namespaces cannot be made (no CAP_SYS_ADMIN, e.g. an unprivileged CI container), one line
# says so and the same checks run on the fallback: two hosts 127.0.0.2 and 127.0.0.3 on loopback
# (the agent runs the command in place), TCP over lo. DPC_MULTIHOST=loopback forces the fallback.
#
# Checks, each a PASS/FAIL line: the ranks ran one per host (each records its host); each run is
# equivalent to the reference trainer on one process with the global batch (grading/equiv, as the
# graders run it); every rank moved exactly the algorithm's bytes to and from its peer (the stats'
# per-peer counters, grading/statcheck); the interface carried at least those bytes. About 5 s.
# KEEP=DIR keeps the scratch files (logs, stats, where each rank ran) in DIR.
. "$(dirname "$0")/lib.sh"
B=$BUILD/solutions
EQUIV=$BUILD/grading/equiv
STATCHECK=$BUILD/grading/statcheck
if grep -q '^HAVE_MPI := 0' "$BUILD/config.mk" 2>/dev/null; then
    echo "SKIP multihost: built without MPI (make deps, then make)"
    exit 0
fi
for p in "$B/05-ddp/train_ddp" "$B/08-fsdp/train_fsdp" "$B/01-trainer/train" "$B/06-accum/train_accum" "$EQUIV" "$STATCHECK"; do
    [ -x "$p" ] || { fail "multihost: $p is missing: run make first"; exit 0; }
done

# ---- the two hosts ------------------------------------------------------------------------------
# Each host is a sleeping process holding its namespaces; entering them (nsenter -t PID) is being on
# that host. The sleep is a backstop: should this script be killed outright, they end by themselves.
HOLDERS=""
cleanup() {
    self=$(readlink /proc/self/ns/net)
    for h in $HOLDERS; do
        # whatever still runs on the host (an orted outliving a killed mpirun) goes with it; never
        # this machine's own namespace (a holder that has not entered its own yet)
        ns=$(readlink "/proc/$h/ns/net" 2>/dev/null)
        if [ -z "$ns" ] || [ "$ns" = "$self" ]; then
            kill "$h" 2>/dev/null
            continue
        fi
        for p in /proc/[0-9]*; do
            [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && kill -9 "${p#/proc/}" 2>/dev/null
        done
    done
    # KEEP=DIR: keep the scratch files (logs, stats, where each rank ran) for a look after a failure
    [ -n "${KEEP:-}" ] && cp -r "$TMP" "$KEEP"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP

mkdir -p "$TMP/hosts" "$TMP/where"
make_hosts() { # namespaces A and B, a veth between them; on failure the reason in $why
    unshare --net --uts sleep 120 2>"$TMP/unshare.err" &
    HA=$!
    unshare --net --uts sleep 120 2>>"$TMP/unshare.err" &
    HB=$!
    HOLDERS="$HA $HB"
    # unshare execs sleep in the new namespaces: wait until both have (their namespace link changes)
    self=$(readlink /proc/self/ns/net)
    i=0
    while [ "$(readlink /proc/"$HA"/ns/net 2>/dev/null)" = "$self" ] || [ "$(readlink /proc/"$HB"/ns/net 2>/dev/null)" = "$self" ]; do
        i=$((i + 1))
        if [ $i -gt 50 ] || ! kill -0 "$HA" 2>/dev/null || ! kill -0 "$HB" 2>/dev/null; then
            why="unshare --net --uts failed: $(head -n 1 "$TMP/unshare.err")"
            return 1
        fi
        sleep 0.1
    done
    # the veth is made inside A with its peer end put straight into B: no name ever exists in this
    # machine's own namespace, so concurrent runs of this test cannot collide
    if ! err=$({ nsenter -t "$HA" --uts hostname hostA && nsenter -t "$HB" --uts hostname hostB &&
        nsenter -t "$HA" --net ip link add mh0 type veth peer name mh1 netns "$HB" &&
        nsenter -t "$HA" --net sh -c 'ip addr add 10.77.0.1/24 dev mh0 && ip link set mh0 up && ip link set lo up' &&
        nsenter -t "$HB" --net sh -c 'ip addr add 10.77.0.2/24 dev mh1 && ip link set mh1 up && ip link set lo up'; } 2>&1); then
        why="setting up the veth pair failed: $(echo "$err" | head -n 1)"
        return 1
    fi
}

mode=netns why=""
if [ "${DPC_MULTIHOST:-}" = loopback ]; then
    mode=loopback why="DPC_MULTIHOST=loopback"
elif ! command -v ip >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
    mode=loopback why="no ip, unshare or nsenter command (packages iproute2, util-linux)"
elif ! make_hosts; then
    mode=loopback
fi

# The remote agent Open MPI calls as it would call ssh: `agent [OPTIONS] HOST COMMAND...`. It also
# marks the host in the environment (DPC_EMULATED_HOST), which the ranks inherit through the orted.
cat >"$TMP/agent" <<'EOF'
#!/bin/sh
dir=$(dirname "$0")/hosts
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
host=$1
shift
[ -f "$dir/$host" ] && [ -n "$host" ] || { echo "agent: $host is not an emulated host (see $dir)" >&2; exit 255; }
export DPC_EMULATED_HOST="$host"
# a /tmp of its own, as a machine has: Open MPI's session directory is named after the hostname, and
# two daemons sharing both (the loopback fallback's hosts) race to create it
export OMPI_MCA_orte_tmpdir_base="$dir/$host.tmp"
mkdir -p "$OMPI_MCA_orte_tmpdir_base"
pid=$(cat "$dir/$host")
[ "$pid" = local ] && exec sh -c "$*"
exec nsenter -t "$pid" --net --uts sh -c "$*"
EOF
# where DIR PROGRAM ARGS...: each rank notes where it runs in DIR/rankR, then becomes PROGRAM
cat >"$TMP/where.sh" <<'EOF'
#!/bin/sh
echo "${DPC_EMULATED_HOST:-none} $(uname -n) $(readlink /proc/self/ns/net) ${OMPI_COMM_WORLD_LOCAL_SIZE:-?}" >"$1/rank${OMPI_COMM_WORLD_RANK:-none}"
shift
exec "$@"
EOF
chmod +x "$TMP/agent" "$TMP/where.sh"

if [ $mode = netns ]; then
    H1=10.77.0.1 H2=10.77.0.2 IF=mh0 NET=10.77.0.0/24
    echo "$HB" >"$TMP/hosts/$H2" # hostA is mpirun's own: Open MPI starts its rank without the agent
    IN_A="nsenter -t $HA --net --uts"
    WANT0="$H1 hostA $(readlink "/proc/$HA/ns/net") 1"
    WANT1="$H2 hostB $(readlink "/proc/$HB/ns/net") 1"
    echo "multihost: two hosts in network namespaces: hostA $H1 (mpirun) and hostB $H2, joined by a veth pair"
else
    H1=127.0.0.2 H2=127.0.0.3 IF=lo NET=127.0.0.0/8
    echo "multihost: no network namespaces here ($why): falling back to two hosts $H1 and $H2 on loopback"
    echo local >"$TMP/hosts/$H1"
    echo local >"$TMP/hosts/$H2"
    IN_A=""
    self=$(uname -n) ns=$(readlink /proc/self/ns/net)
    WANT0="$H1 $self $ns 1" WANT1="$H2 $self $ns 1"
fi
printf '%s slots=1\n%s slots=1\n' "$H1" "$H2" >"$TMP/hostfile"
# What a cluster's mpirun line adds (README.md, "Beyond one machine"): the hosts, one rank per host,
# the launcher, and TCP alone on the one network (no shared memory, no other transport or network).
# The network by address, not by interface name: the name may differ from host to host (mh0, mh1).
MCA="--hostfile $TMP/hostfile --map-by node --mca plm rsh --mca plm_rsh_agent $TMP/agent --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include $NET --mca oob_tcp_if_include $NET"

# bytes host A's interface sent and received; /proc/net/dev shows the reader's own namespace
ifbytes() { $IN_A cat /proc/net/dev | awk -v i="$IF" '{ sub(/:/, " ") } $1 == i { print $10, $2 }'; }

F="--preset tiny --data $FIX --val none --steps 8 --lr 1e-2 --log-every 1000 --seed 3"
K=8

# mh NAME PROGRAM ARGS...: PROGRAM on the two hosts, a rank each; NAME.log, where/NAME/rankR, and the
# interface's bytes during the run in NAME.tx and NAME.rx
mh() {
    name=$1
    shift
    mkdir -p "$TMP/where/$name"
    # shellcheck disable=SC2046
    set -- $(ifbytes) "$@"
    tx0=$1 rx0=$2
    shift 2
    # shellcheck disable=SC2086
    DPC_EMULATED_HOST=$H1 timeout -k 5 60 $IN_A "$MPIRUN" -np 2 $MCA "$TMP/where.sh" "$TMP/where/$name" "$@" >"$TMP/$name.log" 2>&1
    rc=$?
    # shellcheck disable=SC2046
    set -- $(ifbytes)
    echo $(($1 - tx0)) >"$TMP/$name.tx"
    echo $(($2 - rx0)) >"$TMP/$name.rx"
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        fail "multihost $name: the run over two hosts did not end within 60 s (killed): $(tail -n 2 "$TMP/$name.log" | tr '\n' ' ')"
        return 1
    elif [ $rc != 0 ]; then
        fail "multihost $name: the run over two hosts failed (exit $rc): $(tail -n 3 "$TMP/$name.log" | tr '\n' ' ' | head -c 400)"
        return 1
    fi
    got0=$(cat "$TMP/where/$name/rank0" 2>/dev/null) got1=$(cat "$TMP/where/$name/rank1" 2>/dev/null)
    if [ "$got0" = "$WANT0" ] && [ "$got1" = "$WANT1" ]; then
        pass "multihost $name: one rank per host: rank 0 on $got0, rank 1 on $got1 (host, hostname, network namespace, ranks on the host)"
    else
        fail "multihost $name: ranks misplaced: rank 0 on '$got0' (want '$WANT0'), rank 1 on '$got1' (want '$WANT1')"
    fi
}

# the oracle, as the graders run it (equiv_oracle in lib.sh)
# shellcheck disable=SC2086
why=$(equiv_oracle "$B" $F) || {
    fail "multihost: $why"
    exit 0
}
traffic() { # NAME SENT0 SENT1 WHY EXPECTATIONS...: statcheck, then the interface against the payload
    name=$1 s0=$2 s1=$3 why=$4
    shift 4
    if "$STATCHECK" "$TMP/$name.json" --ranks 2 "$@" >"$TMP/$name.sc" 2>&1; then
        pass "multihost $name: per-peer traffic exact: rank 0 sent $s0 bytes to rank 1, rank 1 sent $s1 to rank 0 ($why)"
    else
        fail "multihost $name: per-peer traffic: $(grep -E '^FAIL|statcheck' "$TMP/$name.sc" | tr '\n' ' ' | head -c 500)"
    fi
    tx=$(cat "$TMP/$name.tx") rx=$(cat "$TMP/$name.rx")
    if [ $mode = netns ]; then
        # hostA's end: what it sent carries rank 0's payload, what it received rank 1's (plus TCP/IP
        # headers and Open MPI's own wire-up and control messages)
        if [ "$tx" -ge "$s0" ] && [ "$rx" -ge "$s1" ]; then
            pass "multihost $name: the veth carried it: hostA sent $tx bytes (payload $s0), received $rx (payload $s1)"
        else
            fail "multihost $name: the veth carried less than the payload: hostA sent $tx bytes (payload $s0), received $rx (payload $s1): the ranks did not talk over it"
        fi
    elif [ "$tx" -ge $((s0 + s1)) ]; then
        # lo counts every loopback byte once, both ways together, this test's and anyone else's
        pass "multihost $name: loopback carried at least the payload: $tx bytes (payload $((s0 + s1)))"
    else
        fail "multihost $name: loopback carried $tx bytes, less than the payload $((s0 + s1)): the ranks did not talk over TCP"
    fi
}

# ---- the exact traffic ----------------------------------------------------------------------------
# The tiny preset has P = 4243 parameters (checked against the stats' own count below), in FSDP's
# four units of 216, 2080, 1056 and 891; a gradient or parameter copy is G = 4P = 16972 bytes (F32).
P=4243
G=$((4 * P))
check_params() { # NAME: the model the numbers below are for
    got=$(sed -n 's/^[[:space:]]*"params":[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/$1.json" | head -n 1)
    [ "$got" = "$P" ] || {
        fail "multihost $1: the tiny model has ${got:-no} parameters, this test's byte counts are for $P: update P and the units"
        return 1
    }
}

# DDP (lesson 05), N = 2. Construction: rank 0 sends its parameters to rank 1, once (G bytes, one
# message). Each step: one ring all-reduce per bucket; for N = 2 each rank sends 2(N-1)/N of the
# bucket = all of it: its reduce-scatter chunk and its all-gather chunk, one message each. The
# default cap puts the whole 17 KB gradient in the 1 MiB first bucket: one bucket, 2 messages a step.
# So rank 0 -> 1: (K+1)G = 152748 bytes in 2K+1 = 17 messages; rank 1 -> 0: KG = 135776 in 16.
# shellcheck disable=SC2086
if mh ddp "$B/05-ddp/train_ddp" $F --batch 8 --init-seed-per-rank --stats "$TMP/ddp.json" --dump "$TMP/ddp.st"; then
    equiv_2x8 ddp "multihost ddp"
    check_params ddp &&
        traffic ddp $(((K + 1) * G)) $((K * G)) "(K+1)·4P and K·4P: the parameter broadcast, then the whole gradient each way a step" \
            rank0.peer1.msgs_sent=$((2 * K + 1)) rank0.peer1.bytes_sent=$(((K + 1) * G)) \
            rank0.peer1.msgs_recv=$((2 * K)) rank0.peer1.bytes_recv=$((K * G)) \
            rank1.peer0.msgs_sent=$((2 * K)) rank1.peer0.bytes_sent=$((K * G)) \
            rank1.peer0.msgs_recv=$((2 * K + 1)) rank1.peer0.bytes_recv=$(((K + 1) * G)) \
            all.peer+0.msgs_sent=0 all.peer+0.msgs_recv=0
fi
# Without --topology the nodes are the real machines (MPI's shared-memory split): on two hosts every
# byte the ranks send each other crossed between nodes, and the stats' per-class counters say so.
# (Namespaces only: on the loopback fallback both "hosts" are one machine.)
if [ $mode = netns ] && [ -f "$TMP/ddp.json" ]; then
    if "$STATCHECK" "$TMP/ddp.json" --ranks 2 rank0.inter_bytes_sent=$(((K + 1) * G)) rank1.inter_bytes_sent=$((K * G)) \
        all.intra_bytes_sent=0 all.intra_msgs_sent=0 >"$TMP/ddp-class.sc" 2>&1; then
        pass "multihost ddp: the stats count every byte as inter-node (two machines, no --topology)"
    else
        fail "multihost ddp: per-class counters: $(grep -E '^FAIL|statcheck' "$TMP/ddp-class.sc" | tr '\n' ' ' | head -c 400)"
    fi
fi

# FSDP (lesson 08), N = 2: each rank holds a chunk of c = ceil(u/2) of a unit of u parameters (108,
# 1040, 528, 446: C = 2122 elements in all). Each step and unit: an all-gather for forward, another
# for backward, a reduce-scatter of the gradient: N-1 = 1 message of c elements each, 3·4C = 25464
# bytes. Then clipping's ring all-reduce of one F32 (the sum of squares): its chunks are 1 and 0
# elements and each rank sends one of each, 4 bytes in 2 messages. So 25468 bytes in 14 messages a
# step, the same both ways (no broadcast: every rank builds the same model from --seed): K·25468 =
# 203744 bytes in 112 messages. (The dump's assembly of the model uses the bookkeeping communicator.)
C=$(((216 + 1) / 2 + (2080 + 1) / 2 + (1056 + 1) / 2 + (891 + 1) / 2))
FB=$((K * (3 * 4 * C + 4)))
FM=$((K * (3 * 1 * 4 + 2)))
# shellcheck disable=SC2086
if mh fsdp "$B/08-fsdp/train_fsdp" $F --batch 8 --stats "$TMP/fsdp.json" --dump "$TMP/fsdp.st"; then
    equiv_2x8 fsdp "multihost fsdp"
    check_params fsdp &&
        traffic fsdp $FB $FB "K·(3·4·C + 4): per unit two all-gathers and a reduce-scatter of its chunk, and the norm's all-reduce" \
            all.peer+1.msgs_sent=$FM all.peer+1.bytes_sent=$FB all.peer+1.msgs_recv=$FM all.peer+1.bytes_recv=$FB \
            all.peer+0.msgs_sent=0 all.peer+0.msgs_recv=0
fi
