#!/bin/sh
# run.sh OUTDIR — the GPU checks of tests/gpu/check.sh from the prebuilt bundle (make gpu-bundle;
# this file is tests/gpu/bundle-run.sh in the course), on a GPU machine without the course's
# packages. Nothing is built: the bundle's sys/ holds the libraries and Open MPI, the machine gives
# the driver (libcuda), the CUDA runtime, cuBLAS and NCCL (a CUDA Toolkit, or the pip packages
# nvidia-* / torch under some Python's site-packages).
#
# Writes OUTDIR/summary.md (the table of tests/gpu/check.sh plus how the libraries were found) and at
# most 7 logs directly in OUTDIR, each cut to 16 MiB. Ends within DPC_BUNDLE_LIMIT_S (default 450 s).
# Exit status: check.sh's (0 every check passed, 1 otherwise), 77 when there is no GPU, 2 when the
# bundle cannot run here (a library missing, glibc too old).
# DPC_BUNDLE_COMPAT=1: preload the glibc compat shim even where glibc is new enough (the selftest's).
# DPC_BUNDLE_FAKE_CHECK=SCRIPT (the selftest's): skip the GPU and CUDA library search and run SCRIPT
# WORKDIR instead of check.sh, to test the packing of the logs.
set -u
OUTDIR=${1:?usage: run.sh OUTDIR (where summary.md and the logs go)}
B=$(cd "$(dirname "$0")" && pwd)
SYS=$B/sys
LIMIT=${DPC_BUNDLE_LIMIT_S:-450}
MAX_LOG=$((16 * 1048576))
start=$(date +%s)
mkdir -p "$OUTDIR" || { echo "run.sh: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR=$(cd "$OUTDIR" && pwd)
SUM=$OUTDIR/summary.md
LOG=$OUTDIR/run.log
: >"$LOG"
note() { printf '%s\n' "$*" >>"$LOG"; }
# stop STATUS LINE: the one line on stderr and in summary.md
stop() {
    printf '# GPU bundle run\n\n%s\n' "$2" >"$SUM"
    echo "$2" >&2
    exit "$1"
}

note "bundle: $(tr '\n' ';' <"$B/MANIFEST")"
note "machine: $(uname -srm), $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(nproc) cores"

# ---- a GPU? ------------------------------------------------------------------------------------
if [ -z "${DPC_BUNDLE_FAKE_CHECK:-}" ]; then
    if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1 && ! nvidia-smi -L >/dev/null 2>&1; then
        stop 77 "run.sh: no GPU here (no /dev/nvidia0, nvidia-smi lists none): nothing to check; run this bundle on the GPU machine"
    fi
fi

# ---- glibc: the bundle's programs and libraries were linked on Debian 12 --------------------------
need=$(sed -n 's/^glibc_needed: //p' "$B/MANIFEST")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2)
note "glibc: this machine $have, the bundle needs $need"
if [ -n "$need" ] && [ -n "$have" ] &&
    [ "$(printf '%s\n%s\n' "$need" "$have" | sort -t. -k1,1n -k2,2n | head -n 1)" != "$need" ]; then
    stop 2 "run.sh: this machine's glibc is $have, the bundle's programs need $need: build the bundle (make gpu-bundle) on a distribution with glibc <= $have"
fi

# below the glibc the libraries were linked with, the functions they would miss come from the shim
full=$(sed -n 's/^glibc_compat: \([0-9.]*\).*/\1/p' "$B/MANIFEST")
PRELOAD=""
# DPC_BUNDLE_COMPAT=1 preloads it on any glibc (the selftest's: the older glibc it is for is not here)
if [ "${DPC_BUNDLE_COMPAT:-0}" = 1 ]; then
    PRELOAD=$SYS/lib/compat/libdpc-glibc-compat.so
    note "DPC_BUNDLE_COMPAT=1: preloading $PRELOAD"
elif [ -n "$full" ] && [ -n "$have" ] &&
    [ "$(printf '%s\n%s\n' "$full" "$have" | sort -t. -k1,1n -k2,2n | head -n 1)" != "$full" ]; then
    PRELOAD=$SYS/lib/compat/libdpc-glibc-compat.so
    note "glibc $have < $full: preloading $PRELOAD"
fi

# ---- the CUDA libraries of this machine --------------------------------------------------------
# Where a CUDA Toolkit, the driver or Python's pip packages put them; the pip wheels of CUDA 13 use
# site-packages/nvidia/cu13/lib, NCCL site-packages/nvidia/nccl/lib, older ones nvidia/<name>/lib.
candidates() {
    for d in "${CUDA_HOME:-/nonexistent}/lib64" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
        /usr/local/cuda-*/lib64 /usr/local/cuda-*/targets/x86_64-linux/lib; do
        [ -d "$d" ] && echo "$d"
    done
    for py in python3 python3.12 python; do
        command -v $py >/dev/null 2>&1 || continue
        $py -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null
    done | sort -u | while read -r sp; do
        [ -d "$sp/nvidia" ] || continue
        for d in "$sp"/nvidia/*/lib "$sp"/nvidia/*/lib64; do [ -d "$d" ] && echo "$d"; done
    done
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/wsl/lib /lib64; do
        [ -d "$d" ] && echo "$d"
    done
}
CUDA_DIRS=""
if [ -z "${DPC_BUNDLE_FAKE_CHECK:-}" ]; then
    dirs=$(candidates | awk '!seen[$0]++')
    missing=""
    for lib in libcuda.so.1 $(sed -n 's/^cuda_needed: //p' "$B/MANIFEST"); do
        found=""
        for d in $dirs; do
            [ -e "$d/$lib" ] && { found=$d; break; }
        done
        [ -z "$found" ] && found=$(ldconfig -p 2>/dev/null | awk -v n="$lib" '$1 == n { print $NF; exit }' | xargs -r dirname)
        if [ -z "$found" ]; then
            missing="$missing $lib"
        else
            note "found $lib in $found"
            case ":$CUDA_DIRS:" in *":$found:"*) ;; *) CUDA_DIRS=${CUDA_DIRS:+$CUDA_DIRS:}$found ;; esac
        fi
    done
    [ -z "$missing" ] || stop 2 "run.sh: not found on this machine:$missing (searched the CUDA Toolkit, Python's site-packages/nvidia/*/lib and the system's library paths; set CUDA_HOME or LD_LIBRARY_PATH to where they are)"
fi

# ---- the bundle's libraries and Open MPI where it is unpacked ----------------------------------
# Open MPI 4 (Debian's) keeps its components, help texts and settings under paths fixed at build
# time (ompi_info --path all); OPAL_* moves each, PMIX_* the same for PMIx (its settings file names
# its plugin directory outright), PRTE_PREFIX for Open MPI 5's launcher, HWLOC_PLUGINS_PATH hwloc's.
export LD_LIBRARY_PATH="$SYS/lib${CUDA_DIRS:+:$CUDA_DIRS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$SYS/bin:$PATH"
export OPAL_PREFIX="$SYS" OPAL_EXEC_PREFIX="$SYS" OPAL_BINDIR="$SYS/bin" OPAL_LIBDIR="$SYS/lib" \
    OPAL_PKGLIBDIR="$SYS/lib/openmpi" OPAL_DATAROOTDIR="$SYS/share" OPAL_DATADIR="$SYS/share" \
    OPAL_PKGDATADIR="$SYS/share/openmpi" OPAL_SYSCONFDIR="$SYS/etc/openmpi" \
    OMPI_MCA_mca_base_component_path="$SYS/lib/openmpi"
export PMIX_PREFIX="$SYS" PMIX_LIBDIR="$SYS/lib" PMIX_PKGLIBDIR="$SYS/lib/pmix" PMIX_PKGDATADIR="$SYS/share/pmix" \
    PMIX_MCA_mca_base_component_path="$SYS/lib/pmix" PRTE_PREFIX="$SYS" HWLOC_PLUGINS_PATH="$SYS/lib/hwloc"
# the grader's sandbox shows these directories and passes these variables (grading/sandbox)
export DPC_RUNTIME="$SYS${CUDA_DIRS:+:$CUDA_DIRS}"
export DPC_RUNTIME_ENV="LD_LIBRARY_PATH OPAL_PREFIX OPAL_EXEC_PREFIX OPAL_BINDIR OPAL_LIBDIR OPAL_PKGLIBDIR OPAL_DATAROOTDIR OPAL_DATADIR OPAL_PKGDATADIR OPAL_SYSCONFDIR OMPI_MCA_mca_base_component_path PMIX_PREFIX PMIX_LIBDIR PMIX_PKGLIBDIR PMIX_PKGDATADIR PMIX_MCA_mca_base_component_path PRTE_PREFIX HWLOC_PLUGINS_PATH"
export DPC_PREBUILT=1
if [ -n "$PRELOAD" ]; then
    export LD_PRELOAD="$PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
    DPC_RUNTIME_ENV="$DPC_RUNTIME_ENV LD_PRELOAD"
fi
note "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
note "mpirun: $(command -v mpirun): $(mpirun --version 2>&1 | head -n 1)"
if ! command -v ldd >/dev/null 2>&1; then
    note "no ldd here: the programs' libraries are not checked before the run"
elif ! ldd "$B/build/solutions/05-ddp/train_ddp" >"$OUTDIR/.ldd" 2>&1 || grep -q 'not found' "$OUTDIR/.ldd"; then
    cat "$OUTDIR/.ldd" >>"$LOG"
    # "libX => not found", or ld.so's own error when a file of that name is there but unusable
    missing=$(sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p; s/.*error while loading shared libraries: \([^:]*\):.*/\1/p' \
        "$OUTDIR/.ldd" | sed 's|.*/||' | sort -u | tr '\n' ' ')
    rm -f "$OUTDIR/.ldd"
    stop 2 "run.sh: the programs cannot load: ${missing:-see ldd's output in run.log}(a library missing from the bundle: make gpu-bundle again)"
fi
[ -f "$OUTDIR/.ldd" ] && cat "$OUTDIR/.ldd" >>"$LOG"
rm -f "$OUTDIR/.ldd"

# ---- the checks, then their logs packed into at most 7 files -----------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpc-bundle-run.XXXXXX") || stop 2 "run.sh: cannot create a scratch directory"
trap 'rm -rf "$WORK"' EXIT
left=$((LIMIT - ($(date +%s) - start) - 15)) # 15 s for the packing
export DPC_GPU_DEADLINE=$(($(date +%s) + left))
if [ -n "${DPC_BUNDLE_FAKE_CHECK:-}" ]; then
    timeout -k 5 "$left" sh "$DPC_BUNDLE_FAKE_CHECK" "$WORK/out" >"$WORK/console.log" 2>&1
else
    timeout -k 5 "$left" sh "$B/tests/gpu/check.sh" "$WORK/out" >"$WORK/console.log" 2>&1
fi
status=$?
[ $status = 124 ] || [ $status = 137 ] && note "check.sh was stopped at the bundle's time limit ($LIMIT s)"

# pack GROUP FILE...: the files, each under a header, into OUTDIR/GROUP.log, cut to 16 MiB (its
# first and last 8 MiB) so that a flood of output cannot make the run's results too large to return
pack() {
    group=$1
    shift
    dest=$OUTDIR/$group.log
    for f in "$@"; do
        [ -f "$f" ] || continue
        printf '===== %s =====\n' "$(basename "$f")"
        cat "$f"
        rm -f "$f"
    done >"$dest.tmp"
    if [ "$(wc -c <"$dest.tmp")" -gt "$MAX_LOG" ]; then
        { head -c $((MAX_LOG / 2 - 4096)) "$dest.tmp"; printf '\n===== [cut: %s bytes in all, the middle left out] =====\n' "$(wc -c <"$dest.tmp")"; tail -c $((MAX_LOG / 2 - 4096)) "$dest.tmp"; } >"$dest"
        rm -f "$dest.tmp"
    else
        mv "$dest.tmp" "$dest"
    fi
    [ -s "$dest" ] || rm -f "$dest"
}
W=$WORK/out
pack kernels "$W"/build.log "$W"/test_gpu.log
pack grade "$W"/grade*.log
pack nccl "$W"/nccl*.log
pack sanitizer "$W"/memcheck*.log "$W"/racecheck*.log
pack bench "$W"/bench*.log
pack other "$W"/*.log
cp "$W/summary.md" "$SUM" 2>/dev/null || printf '# GPU bundle run\n\ncheck.sh wrote no summary (exit %s); its console is in run.log\n' "$status" >"$SUM"
{
    echo
    echo "## Bundle"
    echo
    echo "exit status of check.sh: $status; run.sh took $(($(date +%s) - start)) s (limit $LIMIT s); logs: $(cd "$OUTDIR" && ls -- *.log | tr '\n' ' ')"
    sed 's/^/    /' "$LOG" | grep -E 'bundle:|machine:|glibc:|found |mpirun:|stopped' | cut -c1-300
} >>"$SUM"
{ echo "===== check.sh console ====="; cat "$WORK/console.log"; } >>"$LOG"
if [ "$(wc -c <"$LOG")" -gt "$MAX_LOG" ]; then tail -c "$MAX_LOG" "$LOG" >"$LOG.tmp" && mv "$LOG.tmp" "$LOG"; fi
cat "$SUM"
exit $status
