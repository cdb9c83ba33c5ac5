/* young_daly.c — how often to checkpoint: the interval that loses the least time, and the time a
 * failure costs at a given interval (the model and its terms: elastic.h). */
#include "elastic.h"

#include "util.h"

#include <math.h>

double young_daly_interval(double checkpoint_cost_s, double mtbf_s) {
    // TODO(12 young_daly_interval): the interval tau* that minimises expected_lost_work (elastic.h);
    //   NAN for an argument that is not finite and > 0.
    (void)checkpoint_cost_s, (void)mtbf_s;
    DP_TODO();
    return 0;
}

double expected_lost_work(double interval_s, double checkpoint_cost_s, double mtbf_s) {
    // TODO(12 expected_lost_work): seconds lost per failure at checkpoint interval interval_s: the
    //   work redone plus the checkpoints written between two failures (elastic.h's model); NAN for an
    //   argument that is not finite and > 0.
    (void)interval_s, (void)checkpoint_cost_s, (void)mtbf_s;
    DP_TODO();
    return 0;
}
