/* grad_scaler.h — dynamic loss scaling for fp16 training, as torch.cuda.amp.GradScaler.
 *
 * fp16 has 5 exponent bits: a gradient below 2^-24 flushes to 0 and many real gradients sit down
 * there. So the loss's gradient is multiplied by a scale S (a power of two, so that scaling and
 * unscaling are exact) before backward, the fp16 gradients are S times too large, and they are
 * divided by S again before clipping and the optimizer step. Too large an S overflows a gradient to
 * inf (fp16's largest is 65504): then the step is skipped (the parameters and the optimizer state
 * are left alone) and S halves; after growth_interval good steps in a row S doubles, to climb back
 * to the largest scale that does not overflow.
 *
 * The check is on the REDUCED gradient (what the optimizer would use): an inf or NaN on any rank
 * reaches every rank through the all-reduce's sum, so every rank finds it and skips alike, with
 * no extra communication. */
#ifndef DPC_GRAD_SCALER_H
#define DPC_GRAD_SCALER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct grad_scaler {
    double scale;          /* S: torch's init_scale 2^16 */
    double growth_factor;  /* 2 */
    double backoff_factor; /* 0.5 */
    int growth_interval;   /* 2000 */
    int growth_tracker;    /* good steps since the last change of S */
    bool skipped;          /* the last update skipped its step */
    int64_t skipped_steps; /* in all */
    double last_scale;     /* S before the last update (what the skipped step ran with) */
} grad_scaler_t;

void grad_scaler_init(grad_scaler_t *s);
/* Any inf or NaN among g[0..n)? */
bool grad_scaler_found_inf(const float *g, size_t n);
/* After a step's gradients are reduced: record whether they held an inf or NaN, and move S
 * (halve on one, double after growth_interval good steps in a row). Returns found_inf: skip. */
bool grad_scaler_update(grad_scaler_t *s, bool found_inf);

#endif
