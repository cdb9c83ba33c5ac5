#!/bin/sh
# 11-symbols.sh OBJECT — hier.c must be built on lesson 04's ring (linked, not copied): it calls
# reduce_scatter and all_gather, and neither a library collective, the transport, nor the comm seam's
# point-to-point calls itself. Reads the undefined symbols (nm -u).
set -u
[ "${PHASE:-run}" = judge ] || exit 0 # reads the submission's objects: the judge's job
o=$1
[ -f "$o" ] || { echo "FAIL: $o was not built"; exit 1; }
u=$(nm -u "$o" | awk '{print $NF}')
bad=$(echo "$u" | grep -E '^(comm_lib_|MPI_|PMPI_|nccl)' | sort -u | tr '\n' ' ')
p2p=$(echo "$u" | grep -E '^comm_(send|recv|sendrecv)$' | sort -u | tr '\n' ' ')
if [ -n "$bad" ]; then
    echo "FAIL: hier.c calls $bad— build the all-reduce from lesson 04's reduce_scatter and all_gather"
    exit 1
fi
if [ -n "$p2p" ]; then
    echo "FAIL: hier.c calls $p2p— its rings are lesson 04's: call reduce_scatter and all_gather on h->intra and h->inter instead of sending yourself"
    exit 1
fi
for f in reduce_scatter all_gather; do
    echo "$u" | grep -qx "$f" || { echo "FAIL: hier.c never calls lesson 04's $f: the hierarchical all-reduce is built from its two halves, on each sub-communicator"; exit 1; }
done
echo "hier.c calls lesson 04's reduce_scatter and all_gather, and no collective or transport of its own"
