/* flat.h — flat buffers: one allocation, a table of named views.
 *
 * A model's parameters are not a tree of separately allocated tensors but one float array plus a
 * layout that says where each named tensor lives in it (registration order, packed, no gaps):
 *
 *   offset 0                                                            numel
 *   │ wte [27,16] │ h.0.weight [256,128] │ h.0.bias [256] │ ... │ head.bias [27] │
 *
 * The gradients, Adam's m and v use the same layout over their own arrays. Everything data
 * parallelism does then becomes slicing: a DDP bucket is a contiguous run of views, an FSDP shard is
 * [r·c, (r+1)·c) of the flat array, a checkpoint is the table plus the bytes. */
#ifndef DPC_FLAT_H
#define DPC_FLAT_H

#include <stddef.h>

#define FLAT_MAX_NAME 48
#define FLAT_MAX_DIMS 4

typedef struct {
    char name[FLAT_MAX_NAME];
    int ndim;
    size_t shape[FLAT_MAX_DIMS];
    size_t offset; /* in elements, from the start of the flat array */
    size_t numel;
} flat_view_t;

typedef struct {
    int count;
    int cap;
    flat_view_t *views;
    size_t numel; /* total elements */
} flat_layout_t;

void flat_layout_init(flat_layout_t *l);
void flat_layout_free(flat_layout_t *l);
/* Append a tensor at the end; returns its index (registration order). */
int flat_layout_add(flat_layout_t *l, const char *name, int ndim, const size_t *shape);
/* Index of a view by name, -1 if absent. */
int flat_layout_find(const flat_layout_t *l, const char *name);

/* Pointer to view i inside a flat array that uses this layout. */
static inline float *flat_at(const flat_layout_t *l, float *base, int i) { return base + l->views[i].offset; }

#endif
