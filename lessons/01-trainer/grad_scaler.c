/* grad_scaler.c — see grad_scaler.h. */
#include "grad_scaler.h"

#include <math.h>

void grad_scaler_init(grad_scaler_t *s) {
    *s = (grad_scaler_t){.scale = 65536.0, .growth_factor = 2.0, .backoff_factor = 0.5, .growth_interval = 2000};
    s->last_scale = s->scale;
}

bool grad_scaler_found_inf(const float *g, size_t n) {
    /* no early exit: a branch per element costs more than it saves on the common all-finite path */
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= !isfinite(g[i]);
    return bad != 0;
}

bool grad_scaler_update(grad_scaler_t *s, bool found_inf) {
    s->last_scale = s->scale;
    s->skipped = found_inf;
    if (found_inf) {
        s->scale *= s->backoff_factor;
        s->growth_tracker = 0;
        s->skipped_steps++;
    } else if (++s->growth_tracker == s->growth_interval) {
        s->scale *= s->growth_factor;
        s->growth_tracker = 0;
    }
    return found_inf;
}
