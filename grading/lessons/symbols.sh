#!/bin/sh
# symbols.sh OBJECT... — the student's algorithm objects must communicate, and only through the comm
# seam's point-to-point calls: no library collective, no transport called directly. Reads the
# undefined symbols (nm -u).
set -u
[ "${PHASE:-run}" = judge ] || exit 0 # reads the submission's objects: the judge's job
status=0
for o in "$@"; do
    if [ ! -f "$o" ]; then
        echo "FAIL: $o was not built"
        status=1
        continue
    fi
    bad=$(nm -u "$o" | awk '{print $NF}' | grep -E '^(comm_lib_|MPI_|PMPI_|nccl)' | sort -u | tr '\n' ' ')
    p2p=$(nm -u "$o" | awk '{print $NF}' | grep -cE '^comm_(send|recv|sendrecv)$')
    if [ -n "$bad" ]; then
        echo "FAIL: $(basename "$o" .o).c calls $bad— the algorithm must be built from comm_send/comm_recv/comm_sendrecv"
        status=1
    elif [ "$p2p" = 0 ]; then
        echo "FAIL: $(basename "$o" .o).c never calls comm_send, comm_recv or comm_sendrecv: where does it communicate?"
        status=1
    else
        echo "$(basename "$o" .o).c uses no library collective and no transport directly"
    fi
done
exit $status
