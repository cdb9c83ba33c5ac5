/* equiv — is a training run equivalent to the reference run? Written once, used by every lesson.
 *
 *   equiv REF.safetensors SUB.safetensors [--batch B] [--world N] [--accum K]
 *         [--loss-rtol R] [--grad-rtol R] [--param-atol A] [--param-rtol R] [--exact]
 *         [--ref-offset K]   (SUB resumed at step K of REF: compare with REF's losses from K on)
 *
 * Both files are trainer dumps (--dump): "loss" per step, "grad.<name>" after the first step and
 * "param.<name>" at the end. The reference is always lesson 01's reference trainer on one process
 * with the global batch. Checks, in order, stopping at nothing (every problem is reported):
 *
 *   loss[s]      |sub − ref| <= loss_rtol · |ref|              every step
 *   grad.<t>     max|sub − ref| <= grad_rtol · max|ref|         per tensor (normwise)
 *   param.<t>    |sub − ref| <= param_atol + param_rtol · |ref|  per element
 *
 * Why these tolerances: both runs compute the same sums in a different order (per-rank partial sums,
 * a ring's association order), and float32 rounds each addition to within ε = 2^-24 relative. A sum
 * of n terms so differs by about ε·√n (random walk) and at most ε·n; with the reductions of these
 * models (n ≤ a few thousand) that is 1e-6..1e-5 relative, so the defaults (2e-5 on losses, 1e-4
 * normwise on gradients) leave a margin of 10x over rounding while a wrong formula, a missing
 * factor or a skipped step misses them by orders of magnitude. AdamW then turns gradient noise into
 * parameter noise of at most ~lr·(relative gradient error) per step: param_atol covers that.
 *
 * A gradient that is off is explained when possible: its norm ratio to the reference and the cosine
 * between them name a missing or extra factor (batch size, world size, micro-batches, 2) or a wrong
 * direction. Exit status 0 when everything agrees. */
#include "compare.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double value;
    const char *what;
} factor_t;

static int failures = 0;

/* A dump holds float32 tensors only; anything else is refused before a value is read. The
 * submission's dump is the run's output (so a bad one fails the check: exit 1); a bad reference
 * dump is the grader's problem (exit 2). */
static const st_file_t *load(const char *path, st_file_t *f, int is_submission) {
    char err[512];
    if (st_load(path, f, err, sizeof err) != 0) {
        printf("%s%s\n", is_submission ? "FAIL: your dump cannot be read: " : "equiv: ", err);
        exit(is_submission ? 1 : 2);
    }
    for (int i = 0; i < f->ntensors; i++)
        if (f->tensors[i].dt != DT_F32) {
            printf("%s%s: tensor '%s' is not float32\n", is_submission ? "FAIL: your dump is not one: " : "equiv: ",
                   path, f->tensors[i].name);
            exit(is_submission ? 1 : 2);
        }
    return f;
}

/* Name the factor a gradient is off by, if it is a clean one. */
static void explain(const char *name, double ratio, double cosine, const factor_t *factors, int nf) {
    if (!isfinite(ratio)) {
        printf("  hint: %s contains NaN or Inf (uninitialised memory, or a division by zero?)\n", name);
        return;
    }
    if (ratio == 0) {
        printf("  hint: %s is all zeros: this gradient is never written\n", name);
        return;
    }
    if (cosine < -0.99) {
        printf("  hint: %s points the opposite way (cosine %.3f): a sign error\n", name, cosine);
        return;
    }
    if (cosine < 0.99) {
        printf("  hint: %s has the wrong direction (cosine %.3f with the reference, norm ratio %.3f): a wrong formula, "
               "a transposed product or mixed-up indices?\n",
               name, cosine, ratio);
        return;
    }
    for (int i = 0; i < nf; i++) {
        double f = factors[i].value;
        if (f <= 1) continue;
        if (fabs(ratio / f - 1) < 0.01) {
            printf("  hint: %s is %.1fx the reference: did you forget to divide by %s (%g)?\n", name, ratio,
                   factors[i].what, f);
            return;
        }
        if (fabs(ratio * f - 1) < 0.01) {
            printf("  hint: %s is 1/%g of the reference: did you divide by %s twice (or where the reference does "
                   "not)?\n",
                   name, f, factors[i].what);
            return;
        }
    }
    printf("  hint: %s points the right way but is %.3fx the reference: a scale factor is wrong (or gradient "
           "clipping is not applied)\n",
           name, ratio);
}

/* --summary: one line for tables — final loss of each run, and how far the final parameters are
 * apart: max |Δθ| and ‖Δθ‖ / ‖θ_ref‖ over all tensors. */
static int print_summary(const char *ref_path, const char *sub_path) {
    st_file_t ref, sub;
    load(ref_path, &ref, 0);
    load(sub_path, &sub, 1);
    const st_tensor_t *lr_ = st_find(&ref, "loss"), *ls = st_find(&sub, "loss");
    double max_abs = 0, d2 = 0, r2 = 0;
    for (int i = 0; i < ref.ntensors; i++) {
        const st_tensor_t *r = &ref.tensors[i];
        if (strncmp(r->name, "param.", 6)) continue;
        const st_tensor_t *s = st_find(&sub, r->name);
        if (!s || s->numel != r->numel) continue;
        const float *a = s->data, *b = r->data;
        for (size_t k = 0; k < r->numel; k++) {
            double d = (double)a[k] - b[k];
            max_abs = fmax(max_abs, fabs(d));
            d2 += d * d;
            r2 += (double)b[k] * b[k];
        }
    }
    printf("%.6f %.6f %.3g %.3g\n", lr_ && lr_->numel ? ((const float *)lr_->data)[lr_->numel - 1] : NAN,
           ls && ls->numel ? ((const float *)ls->data)[ls->numel - 1] : NAN, max_abs, r2 > 0 ? sqrt(d2 / r2) : 0.0);
    st_close(&ref);
    st_close(&sub);
    return 0;
}

int main(int argc, char **argv) {
    const char *ref_path = NULL, *sub_path = NULL;
    double batch = 0, world = 1, accum = 1, ref_offset = 0;
    int exact = 0, summary = 0;
    double loss_rtol = 2e-5, grad_rtol = 1e-4, param_atol = 1e-5, param_rtol = 1e-4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double *dst = !strcmp(a, "--batch") ? &batch
                      : !strcmp(a, "--world") ? &world
                      : !strcmp(a, "--accum") ? &accum
                      : !strcmp(a, "--loss-rtol") ? &loss_rtol
                      : !strcmp(a, "--grad-rtol") ? &grad_rtol
                      : !strcmp(a, "--param-atol") ? &param_atol
                      : !strcmp(a, "--param-rtol") ? &param_rtol
                      : !strcmp(a, "--ref-offset") ? &ref_offset
                                                   : NULL;
        if (!strcmp(a, "--exact")) exact = 1;
        else if (!strcmp(a, "--summary")) summary = 1;
        else if (dst && i + 1 < argc) *dst = atof(argv[++i]);
        else if (!ref_path) ref_path = a;
        else if (!sub_path) sub_path = a;
        else {
            fprintf(stderr, "equiv: unexpected argument %s\n", a);
            return 2;
        }
    }
    if (!ref_path || !sub_path) {
        fprintf(stderr, "usage: equiv REF.safetensors SUB.safetensors [--batch B] [--world N] [--accum K] "
                        "[--loss-rtol R] [--grad-rtol R] [--param-atol A] [--param-rtol R]\n");
        return 2;
    }
    if (exact) loss_rtol = grad_rtol = param_atol = param_rtol = 0;
    if (summary) return print_summary(ref_path, sub_path);
    st_file_t ref, sub;
    load(ref_path, &ref, 0);
    load(sub_path, &sub, 1);
    factor_t factors[] = {{batch, "the batch size"},
                          {world, "the world size (average over the ranks)"},
                          {accum, "the number of micro-batches"},
                          {batch * world, "the global batch size"},
                          {2, "2 (counted twice: gradients not zeroed, or reduced twice?)"}};
    int nf = (int)(sizeof factors / sizeof factors[0]);

    /* losses */
    const st_tensor_t *lr_ = st_find(&ref, "loss"), *ls = st_find(&sub, "loss");
    if (!lr_ || !ls) {
        printf("FAIL: a dump has no 'loss' tensor\n");
        return 1;
    }
    size_t off = (size_t)ref_offset, ref_steps = lr_->numel > off ? lr_->numel - off : 0;
    if (ref_steps != ls->numel) {
        printf("FAIL: the submission ran %zu steps, the reference %zu\n", ls->numel, ref_steps);
        failures++;
    }
    size_t steps = ref_steps < ls->numel ? ref_steps : ls->numel;
    const float *ref_loss = (const float *)lr_->data + off;
    cmp_result_t cl = cmp_f32(ls->data, ref_loss, steps, 0, loss_rtol);
    printf("loss    %zu steps: max-abs %.3g  max-rel %.3g  max-ULP %llu  (worst %.2g of the tolerance)\n", steps,
           cl.max_abs, cl.max_rel, (unsigned long long)cl.max_ulp, loss_rtol > 0 ? cl.max_rel / loss_rtol : 0.0);
    if (cl.n_bad) {
        failures++;
        printf("FAIL: first divergence at step %zu: loss %.7g, reference %.7g (%zu of %zu steps differ by more than "
               "rtol %.1g)\n",
               cl.first_bad + 1 + off, cl.first_a, cl.first_b, cl.n_bad, steps, loss_rtol);
        int all_zero = 1;
        for (size_t k = 0; k < steps; k++) all_zero &= ((const float *)ls->data)[k] == 0.0f;
        if (all_zero)
            printf("  hint: every loss is exactly 0: does the step return the loss that forward computed?\n");
        else if (cl.first_bad > 0)
            printf("  hint: step 1 agrees, so the first update went wrong: check the optimizer step, clipping, and "
                   "that gradients are zeroed every step\n");
    }

    /* gradients after the first step, then the final parameters */
    for (int pass = 0; pass < 2; pass++) {
        const char *prefix = pass == 0 ? "grad." : "param.";
        if (pass == 0 && off > 0) continue; /* the gradients are of different steps */
        int seen = 0, bad_tensors = 0;
        double worst_rel = 0, worst_used = 0; /* worst |diff| / tolerance: how close to failing */
        unsigned long long worst_ulp = 0;
        for (int i = 0; i < ref.ntensors; i++) {
            const st_tensor_t *r = &ref.tensors[i];
            if (strncmp(r->name, prefix, strlen(prefix))) continue;
            seen++;
            const st_tensor_t *s = st_find(&sub, r->name);
            if (!s || s->numel != r->numel) {
                failures++;
                printf("FAIL: %s is missing from the submission's dump or has the wrong size\n", r->name);
                continue;
            }
            const float *a = s->data, *b = r->data;
            cmp_result_t c;
            if (pass == 0) {
                double refmax = 0;
                for (size_t k = 0; k < r->numel; k++) refmax = fmax(refmax, fabs(b[k]));
                c = cmp_f32(a, b, r->numel, grad_rtol * refmax, 0);
                if (refmax > 0) worst_used = fmax(worst_used, c.max_abs / (grad_rtol * refmax));
            } else {
                c = cmp_f32(a, b, r->numel, param_atol, param_rtol);
                for (size_t k = 0; k < r->numel; k++) {
                    double tol = param_atol + param_rtol * fabs(b[k]);
                    if (tol > 0) worst_used = fmax(worst_used, fabs((double)a[k] - b[k]) / tol);
                }
            }
            if (c.max_rel > worst_rel && isfinite(c.max_rel)) worst_rel = c.max_rel;
            if (c.max_ulp > worst_ulp) worst_ulp = c.max_ulp;
            if (c.n_bad == 0) continue;
            bad_tensors++;
            failures++;
            if (bad_tensors > 4) continue; /* the first few tell the story */
            printf("FAIL: %s differs at %zu of %zu elements; first at index %zu: %.7g, reference %.7g (max-abs %.3g)\n",
                   r->name, c.n_bad, c.n, c.first_bad, c.first_a, c.first_b, c.max_abs);
            if (pass == 0) explain(r->name, cmp_norm_ratio(a, b, r->numel), cmp_cosine(a, b, r->numel), factors, nf);
        }
        if (bad_tensors > 4) printf("  ... and %d more tensors\n", bad_tensors - 4);
        if (seen)
            printf("%-7s %d tensors: %d differ; max-rel %.3g  max-ULP %llu  (worst %.2g of the tolerance)\n",
                   pass == 0 ? "grads" : "params", seen, bad_tensors, worst_rel, worst_ulp, worst_used);
    }
    st_close(&ref);
    st_close(&sub);
    if (failures) {
        printf("NOT EQUIVALENT to the reference (%d problem%s)\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    printf("equivalent to the reference\n");
    return 0;
}
