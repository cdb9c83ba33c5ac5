/* topology.c — see topology.h. */
#include "topology.h"

#include "util.h"

#include <string.h>

#define TOPO_MAX 4096 /* far beyond any job the course runs; keeps M·K inside an int */

static bool parse_part(const char *s, const char *end, int *out) {
    if (s == end || end - s > 6) return false;
    int v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (*p - '0');
    }
    if (v < 1 || v > TOPO_MAX) return false;
    *out = v;
    return true;
}

bool topology_parse(const char *s, topo_placement_t placement, topology_t *out, char *err, size_t n) {
    *out = (topology_t){0, 0, placement};
    if (!s || !strcmp(s, "flat")) return true;
    const char *x = strchr(s, 'x');
    int m = 0, k = 0;
    if (!x || !parse_part(s, x, &m) || !parse_part(x + 1, x + strlen(x), &k)) {
        dp_error(err, n, "--topology expects MxK (M nodes of K ranks each, both 1..%d, e.g. 2x4) or flat, got '%s'",
                 TOPO_MAX, s);
        return false;
    }
    out->nodes = m;
    out->per_node = k;
    return true;
}

int topology_node_of(const topology_t *t, int r) {
    if (topology_flat(t)) return 0;
    return t->placement == TOPO_SPREAD ? r % t->nodes : r / t->per_node;
}

int topology_local_of(const topology_t *t, int r) {
    if (topology_flat(t)) return r;
    return t->placement == TOPO_SPREAD ? r / t->nodes : r % t->per_node;
}

link_class_t topology_class(const topology_t *t, int a, int b) {
    return topology_node_of(t, a) == topology_node_of(t, b) ? LINK_INTRA : LINK_INTER;
}

const char *link_class_name(link_class_t cls) { return cls == LINK_INTRA ? "intra" : "inter"; }
