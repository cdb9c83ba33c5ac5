/* topology.h — an emulated two-level cluster: M nodes of K ranks each.
 *
 * A real job's network has two levels: inside a node the GPUs talk over NVLink (hundreds of GB/s),
 * between nodes over InfiniBand (about 25 GB/s per link). The link emulator (link.h) gives each
 * message the link of its two ends' class, and these pure functions say what that class is.
 *
 *   --topology 2x4 --placement block        --topology 2x4 --placement spread
 *     node 0: ranks 0 1 2 3                   node 0: ranks 0 2 4 6
 *     node 1: ranks 4 5 6 7                   node 1: ranks 1 3 5 7
 *
 * block fills one node before the next (node = r / K, what launchers do by default and what "fill
 * entire nodes before spreading to more" asks for); spread deals ranks round-robin (node = r % M),
 * so that every neighbour in a ring sits on another node. */
#ifndef DPC_TOPOLOGY_H
#define DPC_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { TOPO_BLOCK, TOPO_SPREAD } topo_placement_t;

/* The link class of a pair of ranks: the same node, or two. */
typedef enum { LINK_INTRA = 0, LINK_INTER = 1 } link_class_t;
#define LINK_NCLASSES 2

typedef struct {
    int nodes, per_node; /* M, K; 0, 0: flat (no emulated topology) */
    topo_placement_t placement;
} topology_t;

/* Parse "MxK" (M, K in 1..4096) or "flat" (nodes = per_node = 0). Returns false, with why in
 * err[0..n), for anything else. */
bool topology_parse(const char *s, topo_placement_t placement, topology_t *out, char *err, size_t n);

static inline bool topology_flat(const topology_t *t) { return t->nodes == 0; }
static inline int topology_size(const topology_t *t) { return t->nodes * t->per_node; }

/* The node of world rank r (0 <= r < M·K), and its rank among the K ranks of that node (in the
 * order of their world ranks). */
int topology_node_of(const topology_t *t, int r);
int topology_local_of(const topology_t *t, int r);

/* The class of the link between world ranks a and b. */
link_class_t topology_class(const topology_t *t, int a, int b);

const char *link_class_name(link_class_t cls); /* "intra", "inter" */

#endif
