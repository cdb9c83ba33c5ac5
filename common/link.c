/* link.c — see link.h. */
#include "link.h"

#include <math.h>
#include <string.h>

/* Real per-GPU figures (one direction), from vendor data sheets, rounded:
 *   NVLink 4 (H100 SXM): 900 GB/s bidirectional → 450 GB/s each way, a few µs per message;
 *   PCIe 4.0 x16: ~32 GB/s each way; InfiniBand HDR: 200 Gb/s = 25 GB/s; 100 Gb Ethernet: 12.5 GB/s. */
static const link_preset_t presets[] = {
    {"nvlink", 3e-6, 450e9, "GPUs in one node over NVLink"},
    {"pcie", 10e-6, 32e9, "GPUs in one node over PCIe 4.0 x16"},
    {"ib", 5e-6, 25e9, "nodes over InfiniBand HDR (200 Gb/s)"},
    {"ib-hdr", 5e-6, 25e9, "nodes over InfiniBand HDR (200 Gb/s); the same as ib, by the name --inter uses"},
    {"ethernet", 20e-6, 12.5e9, "nodes over 100 Gb Ethernet"},
    {0, 0, 0, 0},
};

const link_preset_t *link_presets(void) { return presets; }

bool link_from_preset(const char *name, double slowdown, link_t *out) {
    if (!strcmp(name, "off")) {
        *out = (link_t){"off", 0, 0};
        return true;
    }
    for (const link_preset_t *p = presets; p->name; p++) {
        if (strcmp(p->name, name)) continue;
        out->name = p->name;
        out->latency_s = p->real_latency_s * slowdown;
        out->bytes_per_s = p->real_bytes_per_s / slowdown;
        return true;
    }
    return false;
}

double link_cost_s(const link_t *link, size_t bytes) {
    double t = link->latency_s;
    if (link->bytes_per_s > 0) t += (double)bytes / link->bytes_per_s;
    return t;
}

double link_port_reserve(double *free_at, double now, double cost) {
    double start = fmax(now, *free_at);
    *free_at = start + cost;
    return *free_at;
}

link_t link_fair_share(link_t l, int sharers) {
    if (sharers > 1 && l.bytes_per_s > 0) l.bytes_per_s /= sharers;
    return l;
}
