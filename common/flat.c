/* flat.c — see flat.h. */
#include "flat.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void flat_layout_init(flat_layout_t *l) { *l = (flat_layout_t){0}; }

void flat_layout_free(flat_layout_t *l) {
    free(l->views);
    *l = (flat_layout_t){0};
}

int flat_layout_add(flat_layout_t *l, const char *name, int ndim, const size_t *shape) {
    if (ndim < 1 || ndim > FLAT_MAX_DIMS)
        dp_fatal("tensor %s: %d dimensions (1..%d allowed)", name, ndim, FLAT_MAX_DIMS);
    if (strlen(name) >= FLAT_MAX_NAME) dp_fatal("tensor name '%s' longer than %d characters", name, FLAT_MAX_NAME - 1);
    if (flat_layout_find(l, name) >= 0) dp_fatal("tensor name '%s' registered twice", name);
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        flat_view_t *v = realloc(l->views, (size_t)l->cap * sizeof *v);
        if (!v) dp_fatal("out of memory growing a layout");
        l->views = v;
    }
    flat_view_t *v = &l->views[l->count];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->ndim = ndim;
    v->numel = 1;
    for (int d = 0; d < ndim; d++) {
        v->shape[d] = shape[d];
        v->numel *= shape[d];
    }
    v->offset = l->numel;
    l->numel += v->numel;
    return l->count++;
}

int flat_layout_find(const flat_layout_t *l, const char *name) {
    for (int i = 0; i < l->count; i++)
        if (!strcmp(l->views[i].name, name)) return i;
    return -1;
}
