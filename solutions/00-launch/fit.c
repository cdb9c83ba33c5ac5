/* fit.c — a straight line through the measurements.
 *
 * The sizes span many orders of magnitude (8 B .. 16 MiB), and so do the times. A plain
 * least-squares fit would be decided by the largest messages alone (their errors are the largest
 * in absolute terms) and could even return a negative α. So fit the RELATIVE error instead: minimise
 *     Σ_i w_i (t_i − a − s·b_i)²   with   w_i = 1 / t_i²
 * whose solution is, with S_x = Σ w_i x_i,
 *     s = (S_1·S_bt − S_b·S_t) / (S_1·S_bb − S_b²)        a = (S_t − s·S_b) / S_1
 * Then α = a (seconds) and β = 1/s (bytes per second). Small messages now pin α, large ones β. */
#include "pingpong.h"

#include "util.h"

void fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha, double *beta) {
    // TODO(00 fit_alpha_beta): in: n points (bytes[i], seconds[i]), seconds > 0. out: alpha = a
    //   (seconds) and beta = 1/s (bytes per second) of the weighted least-squares line above, every
    //   point weighted 1/t².
    // BEGIN SOLUTION
    double s1 = 0, sb = 0, st = 0, sbb = 0, sbt = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (seconds[i] * seconds[i]);
        s1 += w;
        sb += w * bytes[i];
        st += w * seconds[i];
        sbb += w * bytes[i] * bytes[i];
        sbt += w * bytes[i] * seconds[i];
    }
    double slope = (s1 * sbt - sb * st) / (s1 * sbb - sb * sb);
    *alpha = (st - slope * sb) / s1;
    *beta = 1.0 / slope;
    // END SOLUTION
    // SKELETON: (void)bytes, (void)seconds, (void)n;
    // SKELETON: DP_TODO();
    // SKELETON: *alpha = 0.0;
    // SKELETON: *beta = 0.0;
}
