/* pairwise.c — pairwise.h's tile of columns: the additions of pairwise1_t, column by column, with
 * the loops over the tile innermost so that the compiler makes them vector instructions. */
#include "pairwise.h"

#include "util.h"

#include <string.h>

void pairwise_init(pairwise_t *p, int width) {
    if (width < 1 || width > PAIRWISE_TILE) dp_fatal("pairwise_init: width %d is outside 1..%d", width, PAIRWISE_TILE);
    p->width = width;
    p->in_block = 0;
    p->blocks = 0;
}

static void push(pairwise_t *p) {
    int l = 0, w = p->width;
    for (; (p->blocks >> l) & 1; l++)
        for (int j = 0; j < w; j++) p->block[j] = p->level[l][j] + p->block[j];
    memcpy(p->level[l], p->block, (size_t)w * sizeof(float));
    p->blocks++;
}

void pairwise_add(pairwise_t *p, const float *row) {
    int w = p->width;
    if (p->in_block)
        for (int j = 0; j < w; j++) p->block[j] += row[j];
    else
        memcpy(p->block, row, (size_t)w * sizeof(float));
    if (++p->in_block == PAIRWISE_BLOCK) {
        push(p);
        p->in_block = 0;
    }
}

void pairwise_finish(pairwise_t *p, float *out) {
    if (p->in_block) push(p);
    if (!p->blocks) return;
    int w = p->width, first = 1;
    float *t = p->block; /* free now: the fold's running sum */
    for (int l = 0; l < PAIRWISE_LEVELS; l++)
        if ((p->blocks >> l) & 1) {
            if (first)
                memcpy(t, p->level[l], (size_t)w * sizeof(float));
            else
                for (int j = 0; j < w; j++) t[j] = p->level[l][j] + t[j];
            first = 0;
        }
    for (int j = 0; j < w; j++) out[j] += t[j];
}

void pairwise_colsum(const float *x, int rows, int ld, int c0, int c1, float *out) {
    pairwise_t p;
    for (int j0 = c0; j0 < c1; j0 += PAIRWISE_TILE) {
        int w = c1 - j0 < PAIRWISE_TILE ? c1 - j0 : PAIRWISE_TILE;
        pairwise_init(&p, w);
        for (int i = 0; i < rows; i++) pairwise_add(&p, x + (size_t)i * (size_t)ld + j0);
        pairwise_finish(&p, out + j0);
    }
}
