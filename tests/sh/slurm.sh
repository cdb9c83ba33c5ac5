# Slurm launches the course's programs: a private single-node Slurm (its own munge key, config, ports,
# state and logs, all in a scratch directory; every daemon run as root in the foreground, killed on
# every way out) runs lesson 05's DDP trainer with `srun -n 2 --mpi=pmix` and as an `sbatch`
# job — the commands README.md's "Beyond one machine" prints — and each run must be equivalent to the
# reference trainer on one process with the global batch (grading/equiv, as the graders run it).
# Slurm not installed (Debian's slurm-wlm): one SKIP line. CI installs it (.ci/run). About 5 s.
. "$(dirname "$0")/lib.sh"
B=$BUILD/solutions
EQUIV=$BUILD/grading/equiv
for c in slurmctld slurmd srun sbatch munged munge; do
    if ! command -v "$c" >/dev/null 2>&1; then
        echo "SKIP slurm: no $c here (apt-get install slurm-wlm to run this test)"
        exit 0
    fi
done
if grep -q '^HAVE_MPI := 0' "$BUILD/config.mk" 2>/dev/null; then
    echo "SKIP slurm: built without MPI (make deps, then make)"
    exit 0
fi
for p in "$B/05-ddp/train_ddp" "$B/01-trainer/train" "$B/06-accum/train_accum" "$EQUIV"; do
    [ -x "$p" ] || { fail "slurm: $p is missing: run make first"; exit 0; }
done
if [ "$(id -u)" != 0 ]; then
    # slurmd starts jobs as their user, which takes root; a private cluster of one user is not Slurm
    echo "SKIP slurm: the private Slurm runs its daemons as root; this test runs as $(id -un)"
    exit 0
fi

S=$TMP/slurm
DAEMONS=""
cleanup() {
    # the timeouts the daemons run under, and the daemons by their pid files (a daemon that outlived a
    # killed timeout); a daemon that ignores TERM for 5 s gets KILL
    pids="$DAEMONS $(cat "$S"/run/*.pid 2>/dev/null)"
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null
    i=0
    while [ $i -lt 50 ]; do
        alive=""
        for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
        [ -z "$alive" ] && break
        sleep 0.1
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    [ -n "$alive" ] && kill -9 $alive 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP

# munged wants its socket's directory reachable by everyone and its key readable by root alone
chmod 711 "$TMP"
mkdir -p "$S/run" "$S/state" "$S/spool" && chmod 755 "$S" "$S/run" && mkdir -m 700 "$S/munge"
dd if=/dev/urandom of="$S/munge/key" bs=1024 count=1 2>/dev/null && chmod 600 "$S/munge/key"
# every daemon under a timeout too: should this script be killed outright, they still end
timeout 120 munged -F --key-file="$S/munge/key" --socket="$S/run/munge.sock" --pid-file="$S/run/munged.pid" \
    --log-file="$S/munged.log" --seed-file="$S/munge/seed" >"$S/munged.out" 2>&1 &
DAEMONS=$!

# two free TCP ports, each checked against the listening sockets: concurrent runs must not collide
listening() { awk -v p="$(printf '%04X' "$1")" 'NR > 1 && $4 == "0A" { split($2, a, ":"); if (a[2] == p) f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null; }
port=$((20000 + ($$ * 7) % 20000))
while listening $port || listening $((port + 1)); do port=$((port + 2)); done

H=$(uname -n)
cat >"$S/slurm.conf" <<EOF
# a private single-node Slurm (tests/sh/slurm.sh): everything in $S
ClusterName=dpctest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/run/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
# no cgroups (a container may have none): processes tracked by parentage, tasks not pinned
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# a client or daemon never waits long on one that is not there (the default is 10 s a message)
MessageTimeout=5
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=dpctest Nodes=$H Default=YES MaxTime=5 State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$S/slurm.conf"

i=0
until [ -S "$S/run/munge.sock" ]; do
    i=$((i + 1))
    if [ $i -gt 50 ] || ! kill -0 "$DAEMONS" 2>/dev/null; then
        fail "slurm: munged did not start within 5 s: $(tail -n 2 "$S/munged.out" | tr '\n' ' ')"
        exit 0
    fi
    sleep 0.1
done
timeout 120 slurmctld -D -i >"$S/slurmctld.out" 2>&1 &
DAEMONS="$DAEMONS $!"
timeout 120 slurmd -D >"$S/slurmd.out" 2>&1 &
DAEMONS="$DAEMONS $!"
start=$(date +%s)
i=0
until timeout 5 sinfo -h -o %t 2>/dev/null | grep -qx idle; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        fail "slurm: the private Slurm's node did not become idle within 10 s: $(tail -n 2 "$S/slurmctld.out" "$S/slurmd.out" | tr '\n' ' ' | head -c 400)"
        exit 0
    fi
    sleep 0.1
done
pass "slurm: a private single-node Slurm is up in $(($(date +%s) - start)) s (ports $port, $((port + 1)); MPI plugins: $(srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]*\([a-z0-9_]*\)$/\1/p' | tr '\n' ' '| sed 's/ $//'))"

F="--preset tiny --data $FIX --val none --steps 8 --lr 1e-2 --log-every 1000 --seed 3"
# the oracle, as the graders run it (equiv_oracle in lib.sh)
# shellcheck disable=SC2086
why=$(equiv_oracle "$B" $F) || {
    fail "slurm: $why"
    exit 0
}

# srun: Slurm starts both ranks itself, and Open MPI takes its world from Slurm's PMIx server
# shellcheck disable=SC2086
timeout -k 5 60 srun -n 2 --mpi=pmix --time=2 "$B/05-ddp/train_ddp" $F --batch 8 --dump "$TMP/srun.st" >"$TMP/srun.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
    fail "slurm: srun -n 2 --mpi=pmix train_ddp failed (exit $rc): $(tail -n 3 "$TMP/srun.log" | tr '\n' ' ' | head -c 400)"
elif ! grep -q "2 ranks x batch 8" "$TMP/srun.log"; then
    fail "slurm: srun -n 2 --mpi=pmix started the trainer, but not as one job of 2 ranks: $(head -n 1 "$TMP/srun.log")"
else
    equiv_2x8 srun "slurm: srun -n 2 --mpi=pmix train_ddp"
fi

# sbatch: the batch script README.md prints, queued, then watched until it ends. (Not sbatch --wait:
# it polls the controller every 2 to 10 s, and most of this test's time would be that sleep.)
cat >"$TMP/ddp.sbatch" <<EOF
#!/bin/sh
#SBATCH --job-name=ddp
#SBATCH --ntasks=2
#SBATCH --time=2
#SBATCH --output=$TMP/sbatch.log
srun --mpi=pmix $B/05-ddp/train_ddp $F --batch 8 --dump $TMP/sbatch.st
EOF
if ! job=$(timeout 20 sbatch --parsable "$TMP/ddp.sbatch" 2>"$TMP/sbatch.err"); then
    fail "slurm: sbatch refused a 2-task DDP job: $(head -n 2 "$TMP/sbatch.err" | tr '\n' ' ')"
    exit 0
fi
state="" i=0
while [ $i -lt 600 ]; do # 60 s
    state=$(timeout 5 scontrol show job -o "$job" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
    case $state in PENDING | CONFIGURING | RUNNING | COMPLETING | "") ;; *) break ;; esac
    sleep 0.1
    i=$((i + 1))
done
code=$(timeout 5 scontrol show job -o "$job" 2>/dev/null | tr ' ' '\n' | sed -n 's/^ExitCode=//p')
if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
    fail "slurm: the sbatch job $job of 2 DDP tasks ended ${state:-in no known state} (exit code ${code:-unknown}; 60 s allowed): $(tail -n 3 "$TMP/sbatch.log" 2>/dev/null | tr '\n' ' ' | head -c 400)"
else
    equiv_2x8 sbatch "slurm: an sbatch job (--ntasks=2, srun --mpi=pmix inside)"
fi
