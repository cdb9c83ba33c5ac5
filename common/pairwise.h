/* pairwise.h — column sums with the error of a pairwise sum, and the same bits on every device and
 * for any number of threads.
 *
 * Adding n rows one after another into a float32 accumulator can lose about n·ε of the sum: the
 * accumulator grows and every new term is rounded against it. Adding them as a balanced tree loses
 * about log2(n)·ε. A bias gradient is such a sum over the batch (B·T rows for the GPT), which is why
 * PyTorch's reductions are blocked and pairwise too. The tree here is fixed by the row count alone:
 *
 *   rows:        r0 .. r7 | r8 .. r15 | r16 .. r23 | r24 .. r31 | r32 ..
 *   blocks:        s0     +    s1          s2      +     s3        s4        (each block in row order)
 *   level 1:           (s0+s1)        +        (s2+s3)
 *   level 2:                  ((s0+s1)+(s2+s3))                   ...
 *
 * Block sums merge like a binary counter: a new block sum waits at level 0; when one is already
 * there the two merge (older + newer) and the result moves up a level, and so on. At the end the
 * levels still holding a sum fold from the lowest up: t = lowest, then t = next + t. out += t.
 * A column with no rows is left as it is.
 *
 * Two layouts compute the same additions per column: pairwise1_t, one column (a GPU thread per
 * column), and pairwise_t, a tile of up to PAIRWISE_TILE columns side by side (the CPU, so that the
 * additions of neighbouring columns are one vector instruction). tests/unit/test_pairwise.c checks that
 * they agree bit for bit, and the GPU kernels use pairwise1_t. */
#ifndef DPC_PAIRWISE_H
#define DPC_PAIRWISE_H

#include <stdint.h>

#ifdef __CUDACC__
#define PAIRWISE_HD __host__ __device__
#else
#define PAIRWISE_HD
#endif

#define PAIRWISE_BLOCK  8  /* rows summed in order before the tree starts */
#define PAIRWISE_LEVELS 32 /* enough for 2^32 blocks */
#define PAIRWISE_TILE   64 /* columns at once on the CPU */

/* ---- one column ---- */
typedef struct {
    float level[PAIRWISE_LEVELS];
    float block;     /* the block being summed */
    int in_block;    /* rows in it so far */
    uint64_t blocks; /* blocks pushed: bit L set = level L holds a sum */
} pairwise1_t;

PAIRWISE_HD static inline void pairwise1_init(pairwise1_t *p) {
    p->in_block = 0;
    p->blocks = 0;
}

PAIRWISE_HD static inline void pairwise1_push(pairwise1_t *p, float s) {
    int l = 0;
    for (; (p->blocks >> l) & 1; l++) s = p->level[l] + s;
    p->level[l] = s;
    p->blocks++;
}

PAIRWISE_HD static inline void pairwise1_add(pairwise1_t *p, float v) {
    p->block = p->in_block ? p->block + v : v;
    if (++p->in_block == PAIRWISE_BLOCK) {
        pairwise1_push(p, p->block);
        p->in_block = 0;
    }
}

/* *out += the sum of the values added (nothing when none was). */
PAIRWISE_HD static inline void pairwise1_finish(pairwise1_t *p, float *out) {
    if (p->in_block) pairwise1_push(p, p->block);
    if (!p->blocks) return;
    float t = 0.0f;
    int first = 1;
    for (int l = 0; l < PAIRWISE_LEVELS; l++)
        if ((p->blocks >> l) & 1) {
            t = first ? p->level[l] : p->level[l] + t;
            first = 0;
        }
    *out += t;
}

/* ---- a tile of columns (CPU) ---- */
typedef struct {
    float level[PAIRWISE_LEVELS][PAIRWISE_TILE];
    float block[PAIRWISE_TILE];
    int width, in_block;
    uint64_t blocks;
} pairwise_t;

void pairwise_init(pairwise_t *p, int width);       /* 1 <= width <= PAIRWISE_TILE */
void pairwise_add(pairwise_t *p, const float *row); /* row[0 .. width) */
void pairwise_finish(pairwise_t *p, float *out);    /* out[0 .. width) += the sums */

/* out[j] += Σ_i x[i·ld + j] over rows i < rows, for the columns j in [c0, c1): the sum above. */
void pairwise_colsum(const float *x, int rows, int ld, int c0, int c1, float *out);

#endif
