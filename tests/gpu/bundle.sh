#!/bin/sh
# tests/gpu/bundle.sh [OUT] — pack what tests/gpu/check.sh needs into OUT (default build/gpu-bundle/)
# and OUT.tar.gz, for a GPU machine that has the CUDA driver, nvcc, cuBLAS and NCCL but not the
# course's Debian packages, no package registry and no network (make gpu-bundle).
#
# The bundle is the course's tree (sources, grader scripts, fixtures), the prebuilt build/ of this
# machine (CUDA objects for sm_80 and sm_90 plus compute_90 PTX: nothing is compiled there), and
# sys/: the shared libraries the programs load that such a machine lacks (Open MPI with its MCA
# components, helper programs and help texts, PMIx and its plugins, hwloc's PCI plugin, libevent,
# OpenBLAS with libgfortran, cJSON, cmocka, nm for the graders' symbol checks, and what these load
# beyond glibc, libgcc_s and libstdc++), each Debian package's copyright file, and run.sh OUTDIR,
# which sets the library paths and Open MPI's relocation variables and runs the GPU checks
# (tests/gpu/bundle-run.sh). The CUDA libraries themselves (cudart, cuBLAS, NCCL, libcuda) are the
# GPU machine's: a few hundred MiB, and they must match its driver.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
OUT=${1:-build/gpu-bundle}
O=${O:-build}
MAX_MB=60 # compressed; the device tool carries at most 64 MiB

die() {
    echo "gpu-bundle: $*" >&2
    exit 1
}

grep -q '^HAVE_CUDA := 1' "$O/config.mk" 2>/dev/null ||
    die "$O was built without CUDA (no nvcc here): the bundle carries prebuilt CUDA code; build it where nvcc works (make gpu-bundle runs make first)"
grep -q '^HAVE_MPI := 1' "$O/config.mk" || die "$O was built without MPI: run 'make deps', then make gpu-bundle"
[ -x "$O/tests/test_gpu" ] || die "$O/tests/test_gpu is missing: make gpu-bundle builds it (make test-build)"
[ -f "$O/data/words-train.tok" ] || die "$O/data/words-train.tok is missing (the benchmarks' dataset): run 'make dataset'"
for tool in ldd dpkg-query tar gzip; do
    command -v $tool >/dev/null 2>&1 || die "$tool not found: the bundle is made on a Debian machine with the course's packages ('make deps')"
done

rm -rf "$OUT" "$OUT.tar.gz"
SYS=$OUT/sys
mkdir -p "$SYS/bin" "$SYS/lib/openmpi" "$SYS/lib/pmix" "$SYS/lib/hwloc" "$SYS/share" "$SYS/etc" "$SYS/licenses" || exit 1

# ---- the course: every file git knows (tracked or new), then the build without what only a
# compile needs (dependency files, compile commands, archives: nothing is linked there)
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z -co --exclude-standard
else
    find . -path ./build -prune -o -path './build-*' -prune -o -path ./out -prune -o -type f -print0
fi | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh | # deleted in the working tree: left out
    tar --null -T - -cf - | tar -xf - -C "$OUT" || die "copying the tree into $OUT failed"
mkdir -p "$OUT/build"
# (not the site and MkDocs' venv: 170 MB the GPU checks never read)
(cd "$O" && find . \( -path ./gpu-bundle -o -path ./mkdocs-venv -o -path ./mkdocs -o -path ./site -o -path ./site-mkdocs \) -prune -o -type f ! -name '*.d' ! -name '*.json' ! -name '*.a' ! -name '*.lock' ! -name 'gpu-bundle.tar.gz' -print0 | tar --null -T - -cf -) |
    tar -xf - -C "$OUT/build" || die "copying $O into $OUT/build failed"
# config.mk names this machine's compilers; the prebuilt tree is used as it is (DPC_PREBUILT=1)
cp tests/gpu/bundle-run.sh "$OUT/run.sh" && chmod 755 "$OUT/run.sh" || exit 1

# ---- the libraries: what ldd resolves, but not glibc, the GCC runtime (every Linux with a C++
# program has them) nor the CUDA libraries (the GPU machine's own, matched to its driver)
SYSTEM='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libutil\.so|libresolv\.so|libgcc_s\.so|libstdc\+\+\.so|libcuda\.so|libcudart\.so|libcublas\.so|libcublasLt\.so|libnccl\.so|libnvidia-)'
# Open MPI components for fabrics a single GPU machine does not use (UCX, libfabric, PSM,
# InfiniBand verbs) or for OpenSHMEM: their libraries would double the bundle, and Open MPI runs
# without any component it does not find
SKIP_COMPONENT='libuc[pstm]\.|libfabric|libpsm|libibverbs|librdmacm|libefa|libinfinipath|liboshmem|libmca_common_(ucx|ofi|verbs)'
deps() { # FILE...: the absolute paths of the libraries they load, one per line
    ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1 " " $3 }' | sort -u
}
LIST=$OUT/.libs
: >"$LIST"
add_deps() { # FILE...
    deps "$@" | while read -r name path; do
        printf '%s\n' "$name" | grep -Eq "$SYSTEM" && continue
        printf '%s %s\n' "$name" "$path"
    done >>"$LIST"
}

ELFS=$(find "$O" -type f -perm -u+x ! -name '*.sh' -exec sh -c 'head -c 4 "$1" | grep -q ELF && echo "$1"' sh {} \;)
[ -n "$ELFS" ] || die "no programs under $O"
# shellcheck disable=SC2086
add_deps $ELFS

MPI_LIBDIR=$(ompi_info --path libdir --parsable 2>/dev/null | sed -n 's/^path:libdir://p')
MPI_PKGLIBDIR=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
MPI_PKGDATADIR=$(ompi_info --path pkgdatadir --parsable 2>/dev/null | sed -n 's/^path:pkgdatadir://p')
MPI_SYSCONFDIR=$(ompi_info --path sysconfdir --parsable 2>/dev/null | sed -n 's/^path:sysconfdir://p')
[ -d "$MPI_PKGLIBDIR" ] || die "ompi_info names no component directory (Open MPI missing? run 'make deps')"
orterun=$(readlink -f "$(command -v mpirun)")
case $(basename "$orterun") in
orterun | prterun | mpirun*) ;;
*) die "mpirun is $orterun, not Open MPI's launcher: the bundle carries Open MPI ('make deps')" ;;
esac
# the launcher under its own name and as mpirun; its daemon and helpers as this version has them
# (orted in Open MPI 4; prted, prte and pterm in Open MPI 5)
bindir=$(dirname "$orterun")
for b in "$orterun" "$bindir/orted" "$bindir/prted" "$bindir/prte" "$bindir/pterm" "$bindir/ompi_info"; do
    [ -x "$b" ] || continue
    cp -L "$b" "$SYS/bin/" && add_deps "$b" || exit 1
done
ln -sf "$(basename "$orterun")" "$SYS/bin/mpirun"
ln -sf "$(basename "$orterun")" "$SYS/bin/mpiexec"
nm=$(command -v nm) || die "nm (binutils) not found: 'make deps' installs build-essential"
cp -L "$nm" "$SYS/bin/nm" && add_deps "$nm" || exit 1
# bubblewrap, so that the grader's sandbox isolates files there too (without it: unshare only).
# Its libraries (libselinux, libcap) are not carried: every Debian and Ubuntu has them, and the
# selftest would hide this machine's copies from coreutils too; where they are missing, the
# sandbox's trial run of bwrap fails and it uses unshare.
if bwrap=$(command -v bwrap); then cp -L "$bwrap" "$SYS/bin/bwrap" || exit 1; fi

n_comp=0
for c in "$MPI_PKGLIBDIR"/*.so; do
    deps "$c" | awk '{ print $1 }' | grep -Eq "$SKIP_COMPONENT" && continue
    cp -L "$c" "$SYS/lib/openmpi/" && add_deps "$c" || exit 1
    n_comp=$((n_comp + 1))
done
cp -R "$MPI_PKGDATADIR/." "$SYS/share/openmpi/" || exit 1
mkdir -p "$SYS/etc/openmpi"
cp "$MPI_SYSCONFDIR"/openmpi-mca-params.conf "$MPI_SYSCONFDIR"/openmpi-default-hostfile "$SYS/etc/openmpi/" 2>/dev/null

# PMIx (Open MPI's process management: its plugins and help texts) and hwloc's PCI plugin (the others
# pull in X11, OpenCL and ICU)
pmix=$(deps "$MPI_PKGLIBDIR"/mca_pmix_*.so "$orterun" "$MPI_LIBDIR/libopen-rte.so" 2>/dev/null | awk '$1 ~ /^libpmix/ { print $2 }' | head -n 1)
if [ -n "$pmix" ]; then
    pmix_lib=$(dirname "$(readlink -f "$pmix")")
    for d in "$pmix_lib/pmix" "$(dirname "$(readlink -f "$pmix")")"/../lib/pmix "$(dirname "$pmix")/pmix2/lib/pmix"; do
        [ -d "$d" ] || continue
        cp -L "$d"/*.so "$SYS/lib/pmix/" && add_deps "$d"/*.so && break
    done
    for d in "$(dirname "$pmix")/pmix2/share" "$pmix_lib/../share"; do
        [ -d "$d/pmix" ] && { cp -R "$d/pmix" "$SYS/share/pmix" && break; }
    done
fi
hwloc=$(deps "$MPI_LIBDIR/libopen-pal.so" | awk '$1 ~ /^libhwloc/ { print $2 }')
[ -n "$hwloc" ] && [ -f "$(dirname "$hwloc")/hwloc/hwloc_pci.so" ] &&
    cp -L "$(dirname "$hwloc")/hwloc/hwloc_pci.so" "$SYS/lib/hwloc/" && add_deps "$SYS/lib/hwloc/hwloc_pci.so"

# every library once, under the name the programs ask for (their soname), with its package's
# copyright file; the packages are listed for the selftest, which hides them
sort -u "$LIST" | while read -r name path; do
    [ -f "$SYS/lib/$name" ] || cp -L "$path" "$SYS/lib/$name" || exit 1
done || die "copying the libraries failed"
# the package of each: asked once for all, under every name a file has (merged /usr: /lib is /usr/lib)
{
    awk '{ print $2 }' "$LIST" | sort -u
    echo "$orterun"
    echo "$nm"
    echo "$MPI_PKGLIBDIR/mca_pml_ob1.so"
    [ -n "$pmix" ] && echo "$pmix"
    echo "$MPI_PKGDATADIR/help-mpi-api.txt"
    [ -f "$SYS/lib/hwloc/hwloc_pci.so" ] && echo "$(dirname "$hwloc")/hwloc/hwloc_pci.so"
} | while read -r f; do
    real=$(readlink -f "$f")
    printf '%s\n%s\n/usr%s\n%s\n' "$f" "$real" "$real" "${real#/usr}"
done | sort -u | xargs dpkg-query -S 2>/dev/null | cut -d: -f1 | tr ',' '\n' | tr -d ' ' | sort -u >"$SYS/packages.txt"
rm -f "$LIST"
while read -r pkg; do
    [ -f "/usr/share/doc/$pkg/copyright" ] && cp "/usr/share/doc/$pkg/copyright" "$SYS/licenses/$pkg.copyright"
done <"$SYS/packages.txt"

# glibc: the bundle's programs need what this machine's glibc gave them when they were linked (2.34
# on Debian 12: __libc_start_main moved there), and the GPU machine must have at least that. The
# Debian libraries may need newer (libevent's arc4random: 2.36, which Ubuntu 22.04 lacks): those
# requirements are made weak (build/tests/progs/elf_glibc) and the functions behind them come from
# a shim run.sh preloads on an older glibc (tests/gpu/glibc-compat.c). Any other function would
# need a shim too: then the bundle is refused here, not on the GPU machine.
ELF_GLIBC=$O/tests/progs/elf_glibc
[ -x "$ELF_GLIBC" ] || die "$ELF_GLIBC is missing: make gpu-bundle builds it (make test-build)"
COMPAT_SYMS="arc4random arc4random_buf arc4random_uniform"
elf_files() { find "$@" -type f ! -name '*.sh' -exec sh -c 'for f; do head -c 4 "$f" | grep -q ELF && echo "$f"; done' sh {} +; }
# shellcheck disable=SC2046
glibc_floor=$("$ELF_GLIBC" needs $(elf_files "$OUT/build")) || die "reading the programs' glibc versions failed"
mkdir -p "$SYS/lib/compat"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$SYS/lib/compat/libdpc-glibc-compat.so" tests/gpu/glibc-compat.c ||
    die "compiling the glibc compat shim (tests/gpu/glibc-compat.c) failed"
# shellcheck disable=SC2046
glibc_full=$("$ELF_GLIBC" needs $(elf_files "$SYS")) || die "reading the libraries' glibc versions failed"
# shellcheck disable=SC2046
"$ELF_GLIBC" weaken "$glibc_floor" $(elf_files "$SYS/lib" "$SYS/bin") >"$OUT/.weak" || die "weakening the glibc versions failed"
unshimmed=$(awk '{ print $2 }' "$OUT/.weak" | sort -u | grep -vxF "$(printf '%s\n' $COMPAT_SYMS)" | tr '\n' ' ')
[ -z "$unshimmed" ] || die "the bundled libraries call glibc > $glibc_floor functions the compat shim lacks: $unshimmed— add them to tests/gpu/glibc-compat.c and COMPAT_SYMS"
weak_libs=$(awk '{ print $1 }' "$OUT/.weak" | sort -u | xargs -r -n 1 basename | tr '\n' ' ')
weak_syms=$(awk '{ print $2 }' "$OUT/.weak" | sort -u | tr '\n' ' ')
rm -f "$OUT/.weak"
# shellcheck disable=SC2046
glibc_need=$("$ELF_GLIBC" needs $(elf_files "$OUT/build" "$SYS")) || exit 1
{
    echo "made: $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD 2>/dev/null || echo ' (plus uncommitted changes)')"
    echo "glibc_needed: $glibc_need"
    echo "glibc_compat: $glibc_full (below it run.sh preloads sys/lib/compat/libdpc-glibc-compat.so for: ${weak_syms:-nothing}; weak requirements in: ${weak_libs:-none})"
    echo "nvcc: $(grep '^NVCC' "$O/config.mk" | cut -d= -f2-) $(nvcc --version 2>/dev/null | tail -n 1)"
    echo "cuda_arch: sm_80 sm_90 compute_90 (PTX)"
    # shellcheck disable=SC2086
    echo "cuda_needed: $(deps $ELFS | awk '{ print $1 }' | grep -E '^lib(cudart|cublas|cublasLt|nccl)\.so' | sort -u | tr '\n' ' ')"
    echo "mpi: $(mpirun --version 2>/dev/null | head -n 1), $n_comp components"
    echo "packages: $(tr '\n' ' ' <"$SYS/packages.txt")"
} >"$OUT/MANIFEST"

tar -C "$(dirname "$OUT")" -czf "$OUT.tar.gz" "$(basename "$OUT")" || die "tar failed"
kb=$(du -sk "$OUT.tar.gz" | cut -f1)
ukb=$(du -sk "$OUT" | cut -f1)
[ "$kb" -le $((MAX_MB * 1024)) ] || die "$OUT.tar.gz is $((kb / 1024)) MiB, over the $MAX_MB MiB limit: look at the largest files (du -a $OUT | sort -n | tail)"
echo "gpu-bundle: $OUT.tar.gz, $((kb / 1024)).$((kb % 1024 * 10 / 1024)) MiB ($((ukb / 1024)) MiB unpacked, $(find "$SYS/lib" -name '*.so*' | wc -l) libraries, needs glibc >= $glibc_need, $glibc_full without the shim)"
echo "gpu-bundle: on the GPU machine: tar xzf gpu-bundle.tar.gz -C /tmp && sh /tmp/gpu-bundle/run.sh OUTDIR"
