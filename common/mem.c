/* mem.c — see mem.h. */
#include "mem.h"

#include "util.h"

#include <string.h>

const char *mem_cat_name(mem_cat_t c) {
    static const char *names[MEM_NCATS] = {"params", "grads", "optim",  "gathered", "activations",
                                           "comm",   "other", "master", "emulation"};
    return (unsigned)c < MEM_NCATS ? names[c] : "?";
}

void mem_init(mem_t *m) { memset(m, 0, sizeof *m); }

static int is_model(mem_cat_t c) {
    return c == MEM_PARAMS || c == MEM_GRADS || c == MEM_OPTIM || c == MEM_GATHERED || c == MEM_MASTER;
}

void mem_add(mem_t *m, mem_cat_t c, size_t bytes) {
    m->cur[c] += bytes;
    if (m->cur[c] > m->peak[c]) m->peak[c] = m->cur[c];
    m->cur_total += bytes;
    if (m->cur_total > m->peak_total) m->peak_total = m->cur_total;
    if (is_model(c)) {
        m->cur_model += bytes;
        if (m->cur_model > m->peak_model) m->peak_model = m->cur_model;
    }
}

void mem_sub(mem_t *m, mem_cat_t c, size_t bytes) {
    if (bytes > m->cur[c])
        dp_fatal("memory accounting: releasing %zu bytes of %s but only %zu are held", bytes, mem_cat_name(c),
                 m->cur[c]);
    m->cur[c] -= bytes;
    m->cur_total -= bytes;
    if (is_model(c)) m->cur_model -= bytes;
}
