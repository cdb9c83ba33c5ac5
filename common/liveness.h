/* liveness.h — which ranks of this job have died, as far as this host can see (lesson 12).
 *
 * MPI has no way to ask whether a peer is alive, so a rank blocked on a dead one only knows that it
 * waits. When every rank of the job runs on this host (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE ==
 * OMPI_COMM_WORLD_SIZE), the processes of the job are those under /proc whose environment has this
 * job's PMIX_NAMESPACE: a rank none of them has is gone. The comm watchdog asks, only once it has
 * timed out, so that its line names the dead rank rather than the neighbour it waited on. */
#ifndef DPC_LIVENESS_H
#define DPC_LIVENESS_H

/* The ranks (the launcher's numbering) of this job with no live process on this host, at most max
 * of them into gone. Returns how many there are, or -1 when this host cannot tell (not launched by
 * Open MPI, ranks on other hosts, no /proc). */
int liveness_gone_ranks(int *gone, int max);

#endif
