/* link.h — the α-β link emulator.
 *
 * Sending a message of b bytes over a link with latency α (seconds) and bandwidth β (bytes/s) costs
 *
 *      T(b) = α + b / β
 *
 * On one laptop the real transport (shared memory) is far faster than any network, so communication
 * looks free and overlap looks pointless. With the emulator on, every message first waits T(b) —
 * sleeping, not spinning, so the CPU stays free for compute — and the link of the sending rank is
 * busy meanwhile: two sends from one rank queue behind each other (each rank has one outgoing port,
 * full duplex: receiving costs nothing extra).
 *
 *   rank r ──[ wait α + b/β ]──► real send ──► rank s
 *
 * Presets describe real interconnects played back in slow motion: the emulated cluster runs
 * `slowdown` times slower than real time (default 1000, roughly how much slower one CPU core is than
 * one GPU on this course's small GEMMs), so latency is multiplied and bandwidth divided by it. That
 * keeps the ratio of communication to computation close to what a GPU cluster would see.
 *
 * Two levels (--topology MxK, topology.h): a message between two ranks of one node takes the --intra
 * link, one between nodes the --inter link. Each rank has one outgoing port per class — NVLink and
 * the network card are separate hardware — each full duplex, so a rank may send inside its node and
 * across at the same time. --nic rank (the default) gives every rank a network card of its own, as
 * rail-optimised clusters do (a DGX has one per GPU). --nic node gives a node one card that its K
 * ranks share: emulated as a static fair share, each rank's inter link at β/K (link_fair_share).
 * That is exact when all K ranks of a node send across at once — what the hierarchical all-reduce
 * does, every rank sending its shard — and pessimistic for a rank that sends across alone, which a
 * real shared card would let use all of it. */
#ifndef DPC_LINK_H
#define DPC_LINK_H

#include <stdbool.h>
#include <stddef.h>

#define LINK_DEFAULT_SLOWDOWN 1000.0

typedef struct {
    const char *name;   /* "off", "custom" or a preset name */
    double latency_s;   /* α */
    double bytes_per_s; /* β; 0 = infinite */
} link_t;

typedef struct {
    const char *name;
    double real_latency_s;
    double real_bytes_per_s;
    const char *what;
} link_preset_t;

/* The presets: NULL-terminated. */
const link_preset_t *link_presets(void);

/* Build a link from a preset name (scaled by slowdown). Returns false for an unknown name. */
bool link_from_preset(const char *name, double slowdown, link_t *out);

/* Cost of one message of `bytes` bytes; 0 when the link is off. */
double link_cost_s(const link_t *link, size_t bytes);

/* The model clock of one rank's outgoing port (full duplex: receiving costs nothing). A message of
 * `cost` seconds handed to the port at `now` starts when the port is free — now, or when the
 * message before it is through — and has arrived `cost` later; the port is busy until then.
 * Updates *free_at and returns the arrival time. Pure: the emulator then sleeps until the arrival
 * (a busy machine may wake it later, never earlier), and this is what its tests check exactly. */
double link_port_reserve(double *free_at, double now, double cost);

/* The link one of `sharers` ranks gets of a link they share equally: β / sharers, α unchanged (a
 * message still pays the full latency). sharers <= 1 or an unlimited β: the link itself. */
link_t link_fair_share(link_t l, int sharers);

static inline bool link_enabled(const link_t *link) { return link->latency_s > 0 || link->bytes_per_s > 0; }

#endif
