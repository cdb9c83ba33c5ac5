/* hsdp.c — hybrid sharding (HSDP, PyTorch's HYBRID_SHARD): `train_fsdp --hybrid K`.
 *
 * FSDP over all N ranks sends every all-gather and reduce-scatter around a ring that, on a real
 * cluster, crosses the slow links between nodes. HSDP shards the model over the K ranks of a node
 * only, and keeps M = N/K replicas of that sharded model, one per node:
 *
 *   --topology 2x2 --hybrid 2          node 0: ranks 0 1      node 1: ranks 2 3
 *                                       shards   A  B                    A  B
 *   inside a node (shard_comm):  FSDP as before, K ranks: all-gather, reduce-scatter (×1/K)
 *   across nodes (replica_comm): after backward, each rank all-reduces its gradient shard with the
 *                                ranks holding the same shard (0 with 2, 1 with 3), averaged (×1/M)
 *
 * 1/K inside and 1/M across make the 1/N of one process's mean over the global batch. The student's
 * fsdp_shard.c runs unchanged: it sees f->world_size = K and f->rank = the rank's place in its node.
 * Only the all-reduce of the shard, S = Σ c_u floats, crosses nodes: 2(M−1)/M · S per rank, against
 * FSDP's 3(N−1)/N · P of which most would cross. Memory per rank is FSDP's with K for N. */
#include "fsdp.h"

#include "cli.h"
#include "ring.h"
#include "util.h"

#include <stdio.h>

/* One line for a --hybrid that cannot describe this job (the caller's cli_usage_error ends it). */
static void check_hybrid(const trainer_t *t, int K, int zero_stage) {
    int N = t->world_size;
    char err[256];
    topology_t topo;
    if (!topology_parse(t->cfg.comm.topology, TOPO_BLOCK, &topo, err, sizeof err)) cli_usage_error("%s", err);
    if (zero_stage != 3)
        cli_usage_error("--hybrid %d shards the parameters inside a node and replicates them across nodes: it runs "
                        "with --zero-stage 3 (FSDP) only",
                        K);
    if (!topology_flat(&topo) && topo.per_node != K)
        cli_usage_error("--hybrid %d shards over the ranks of a node, and --topology %dx%d's nodes have %d: give "
                        "--hybrid %d (or no --topology for groups of %d consecutive ranks)",
                        K, topo.nodes, topo.per_node, topo.per_node, topo.per_node, K);
    if (N % K != 0)
        cli_usage_error("--hybrid %d: %d ranks do not split into groups of %d: give a K that divides %d (the ranks "
                        "per node)",
                        K, N, K, N);
}

void hsdp_setup(fsdp_t *f, trainer_t *t, int K, int zero_stage) {
    if (K == 0) return;
    check_hybrid(t, K, zero_stage);
    if (K == t->world_size) return; /* one node: plain FSDP, without splits */
    topology_t topo;
    char err[256];
    topology_parse(t->cfg.comm.topology, TOPO_BLOCK, &topo, err, sizeof err);
    int group, place;
    if (topology_flat(&topo)) {
        /* no emulated nodes: K consecutive ranks make one (what a launcher's block placement gives) */
        group = t->rank / K;
        place = t->rank % K;
        f->shard_comm = comm_split(t->comm, group, t->rank, "hsdp-shard");
        f->replica_comm = comm_split(t->comm, place, t->rank, "hsdp-replica");
    } else {
        /* --topology's nodes, wherever --placement put their ranks */
        group = comm_node_of(t->comm, t->rank);
        f->shard_comm = comm_split_node(t->comm);
        f->replica_comm = comm_split_local(t->comm);
    }
    /* the same ranks in the same order on the bookkeeping communicator: assembling the full model for a
     * dump is not part of the step, and the emulator does not charge it */
    f->shard_infra = comm_split(t->infra, group, t->rank, "hsdp-infra");
    comm_set_emulated(f->shard_infra, false);
    f->world_size = comm_world_size(f->shard_comm);
    f->rank = comm_rank(f->shard_comm);
    f->replicas = comm_world_size(f->replica_comm);
    f->shard_group = group;
    coll_init(&f->replica_coll, f->replica_comm, t->ops);
    /* --stats: what t->comm's counters miss, the traffic on the two splits by link class */
    t->stats_comms[0].name = "hsdp_shard";
    t->stats_comms[0].comm = f->shard_comm;
    t->stats_comms[1].name = "hsdp_replica";
    t->stats_comms[1].comm = f->replica_comm;
    t->nstats_comms = 2;
}

void hsdp_reduce_replicas(fsdp_t *f) {
    if (!f->replica_comm) return;
    double t0 = dp_now();
    /* every replica of this shard ends with the same bits (the ring's all-gather copies them), so the
     * clip's norm and the optimizer's step agree across nodes and the replicas stay identical */
    ring_allreduce(&f->replica_coll, f->shard_grads, f->shard_numel, REDOP_AVG);
    trace_span(f->t->trace, "comm", "all_reduce replicas", t0, dp_now());
}

void hsdp_free(fsdp_t *f) {
    if (!f->replica_comm) return;
    coll_free(&f->replica_coll);
    comm_free(f->replica_comm);
    comm_free(f->shard_comm);
    comm_free(f->shard_infra);
    f->t->nstats_comms = 0;
    f->replica_comm = f->shard_comm = f->shard_infra = NULL;
}
