/* equiv — is a training run equivalent to the reference run? Written once, used by every lesson.
 *
 *   equiv REF.safetensors SUB.safetensors [--batch B] [--world N] [--accum K]
 *         [--loss-rtol R] [--grad-rtol R] [--param-atol A] [--param-rtol R] [--exact] [--spread FILE]...
 *         [--lr LR] [--optimizer adamw|sgd] [--beta1 B] [--beta2 B] [--eps E]   (the runs' optimizer)
 *         [--ref-offset K]   (SUB resumed at step K of REF: compare with REF's losses from K on)
 *         [--clip C]         (the runs' clip threshold: a gradient clipped in the wrong place is named)
 *
 * Both files are trainer dumps (--dump): "loss" per step, "grad.<name>" after the first step and
 * "param.<name>" at the end. The reference is always lesson 01's reference trainer on one process
 * with the global batch. Checks, in order, stopping at nothing (every problem is reported):
 *
 *   loss[s]      |sub − ref| <= loss_rtol · |ref|              every step
 *   grad.<t>     max|sub − ref| <= grad_rtol · max|ref|         per tensor (normwise)
 *   param.<t>    |sub − ref| <= param_atol + param_rtol · |ref|  per element, but see AdamW below
 *
 * Why these tolerances: both runs compute the same sums in a different order (per-rank partial sums,
 * a ring's association order), and float32 rounds each addition to within ε = 2^-24 relative. A sum
 * of n terms so differs by about ε·√n (random walk) and at most ε·n; with the reductions of these
 * models (n ≤ a few thousand) that is 1e-6..1e-5 relative, so the defaults (2e-5 on losses, 1e-4
 * normwise on gradients) leave a margin of 10x over rounding while a wrong formula, a missing
 * factor or a skipped step misses them by orders of magnitude. The losses and the gradients are
 * linear enough in the rounding for this to hold everywhere.
 *
 * The parameters after AdamW are not. Its update is lr·m̂/(√v̂ + ε), and at an element's first
 * step (t = 1, or the first step its gradient is not zero) m̂/√v̂ is ±(a constant): at t = 1 the
 * update is lr·g/(|g| + ε), a sign. For |g| ≫ ε a rounding-level change of g changes nothing; for
 * |g| near ε (a gradient whose terms almost cancel) it moves the element by a good fraction of lr,
 * and the later steps carry that on. That is no error of the submission: two correct runs that sum
 * in a different order do it (the reference DDP did, 3.6x over the element tolerance, at 1 element
 * of 1024: its step-1 gradient there was 6.7e-9 in one run and 7.0e-9 in the other, and
 * lr·g/(|g| + ε) put them 1e-4 apart).
 * So the tolerance follows from the gradient check itself: it accepts any step-1 gradient within
 * δ = grad_rtol·max|g_ref| of the reference's, so it must accept what AdamW makes of one. An element
 * is "AdamW-sensitive" when its step-1 update can move by more than the element tolerance as g
 * ranges over [g_ref − δ, g_ref + δ], i.e. lr·|u(g+δ) − u(g−δ)| > tol with u(g) = g/(|g| + ε), or
 * when |g_ref| <= δ: the sign of its first step is undecided. (The second clause matters when the
 * element tolerance is lr-sized, as bf16's is: the first cannot exceed 2·lr.)
 * Such an element may end up anywhere AdamW can take it: each run moves it at most lr·A a step,
 * A = max(1, (1−β1)/√(1−β2)) (Kingma & Ba, §2.1), so two runs are at most 2·A·lr·steps apart. A
 * reordering disturbs a near-tie, which is rare; a bug touches a class of elements (a row, a shard,
 * the elements with zero gradient). So a tensor may have at most SENSITIVE_CAP such elements off,
 * and only when no other element of it is. With SGD (--optimizer sgd) the update is linear in g and
 * nothing is excused; with no --lr (or --exact, or --ref-offset: no step-1 gradients to judge by)
 * neither.
 *
 * Near-ties are not the only amplifier. Over 8 steps at lr 1e-2 the training itself can be unstable
 * in a direction: a hidden unit whose state drifts, so that its whole row of W (and its column of the
 * next layer) ends up several times the element tolerance apart in two correct runs, while everything
 * else agrees to 0.02 of it (seed 3, N=3, batch 4 on the word list, on an AVX-512 OpenBLAS: 9
 * elements of one row at up to 2.9x). No formula predicts which unit; the reference can show it.
 * --spread FILE (up to MAX_SPREAD of them) gives the reference run again in another correct
 * summation order (the graders use the reference with gradient accumulation, which sums the batch in
 * micro-batches); each element's tolerance grows by SPREAD_K times how far those runs are from the
 * reference there. Where the reference is stable the spread is rounding-sized and adds nothing; a bug
 * moves elements that the reference itself does not move.
 *
 * A gradient that is off is explained when possible: its norm ratio to the reference and the cosine
 * between them name a missing or extra factor (batch size, world size, micro-batches, 2, √N) or a
 * wrong direction, or, when both match, which elements differ. Exit status 0 when everything agrees. */
#include "compare.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many AdamW-sensitive elements of one tensor may be off (see above): the sweep of the
 * reference DDP (ring, tree) and FSDP over 8 seeds x world sizes 1–5 x 3 batch sizes (336 runs)
 * excused 5 elements in all, never more than one in a tensor. */
enum { SENSITIVE_CAP = 3 };

/* --spread: at most this many other orders, and the factor on their distance from the reference. A
 * third correct order lands about as far from the reference as the second (the same unstable
 * direction amplifies any rounding): 4x leaves room for a draw several times farther. */
enum { MAX_SPREAD = 4 };
#define SPREAD_K 4.0

typedef struct {
    st_file_t files[MAX_SPREAD];
    int n;
} spread_t;

typedef struct {
    double value;
    const char *label; /* how to print the value: "3", "√3" */
    const char *what;
    int root; /* √N: a norm or a divisor of the wrong kind, not a forgotten division */
} factor_t;

typedef struct {
    double lr, beta1, beta2, eps; /* lr = 0: no AdamW allowance */
    size_t steps;
} adamw_t;

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
            printf("%s%s: tensor '%s' is not float32\n",
                   is_submission ? "FAIL: your dump is not one: " : "equiv: ", path, f->tensors[i].name);
            exit(is_submission ? 1 : 2);
        }
    return f;
}

static double max_abs(const float *x, size_t n) {
    double m = 0;
    for (size_t k = 0; k < n; k++) m = fmax(m, fabs(x[k]));
    return m;
}

/* Step 1's examples (trainer.c, --dump): PATH.examples.RANK holds the sum of hashes of the examples
 * that rank's forward passes took from its batch, and their count. Summed over the submission's
 * ranks they must be the reference's (one process). -1: a file is missing (nothing to say); 0: the
 * same examples; 1: other examples, with the FAIL line printed. */
static int read_examples(const char *path, int rank, unsigned long long *hash, long long *count) {
    char name[1100];
    snprintf(name, sizeof name, "%s.examples.%d", path, rank);
    FILE *f = fopen(name, "r");
    if (!f) return -1;
    unsigned long long h = 0;
    long long n = 0;
    int ok = fscanf(f, "%llu %lld", &h, &n) == 2;
    fclose(f);
    if (!ok) return -1;
    *hash += h, *count += n;
    return 0;
}

static int examples_differ(const char *ref_path, const char *sub_path, int world) {
    unsigned long long rh = 0, sh = 0;
    long long rn = 0, sn = 0;
    if (read_examples(ref_path, 0, &rh, &rn)) return -1;
    for (int r = 0; r < world; r++)
        if (read_examples(sub_path, r, &sh, &sn)) return -1;
    if (rh == sh && rn == sn) return 0;
    printf("FAIL: step 1 trained on other examples than the reference: the forward passes of the %d rank%s took %lld "
           "example%s from their batches, the reference %lld%s\n",
           world, world > 1 ? "s together" : "", sn, sn == 1 ? "" : "s", rn, sn == rn ? ", but not the same ones" : "");
    printf("  hint: the data order differs — which examples each rank takes (the sampler's list: its permutation, "
           "padding, striding) or which slice of the batch each micro-batch takes — not the arithmetic: every number "
           "below differs because of it, so their formula hints are left out\n");
    return 1;
}

/* With clipping active (--clip C, and the reference's step-1 gradient clipped to norm C): a wrong
 * gradient whose GLOBAL norm and direction show where the clipping went wrong — clipped, but not as
 * one vector after the all-reduce and the last micro-batch. Per-tensor hints (a scale factor, a
 * direction) would each blame the tensor. Prints the hint and returns 1 when it explains the
 * difference; 0 otherwise. */
static int explain_clip(const st_file_t *ref, const st_file_t *sub, double clip) {
    double rr = 0, ss = 0, rs = 0;
    for (int i = 0; i < ref->ntensors; i++) {
        const st_tensor_t *r = &ref->tensors[i], *t = st_find(sub, r->name);
        if (strncmp(r->name, "grad.", 5) || !t || t->numel != r->numel) continue;
        const float *a = t->data, *b = r->data;
        for (size_t k = 0; k < r->numel; k++)
            rr += (double)b[k] * b[k], ss += (double)a[k] * a[k], rs += (double)a[k] * b[k];
    }
    double rn = sqrt(rr), sn = sqrt(ss), cosine = rn > 0 && sn > 0 ? rs / (rn * sn) : 0;
    if (!(clip > 0) || fabs(rn - clip) > 1e-3 * clip || !isfinite(sn) || sn == 0) return 0; /* not clipped */
    if (fabs(sn - clip) <= 1e-3 * clip && cosine < 0.99999)
        printf("  hint: step 1's gradient has the clip threshold's global norm (%.4g), as the reference's, but another "
               "direction (cosine %.5f): it was clipped, but not as one vector — clip ONCE, the whole averaged and "
               "accumulated gradient, after the all-reduce and the last micro-batch (clipping a rank's or a "
               "micro-batch's share first changes the direction)\n",
               sn, cosine);
    else if (sn < clip * (1 - 1e-3) && cosine > 0.9)
        printf("  hint: step 1's gradient has a global norm of %.4g, below the clip threshold %.4g that the "
               "reference's was clipped to (cosine %.5f): it was clipped and then shrunk — averaged over the ranks "
               "or weighted after the clipping (clip after the all-reduce, once, after the last micro-batch)\n",
               sn, clip, cosine);
    else if (sn > clip * (1 + 1e-3) && cosine > 0.9)
        printf("  hint: step 1's gradient has a global norm of %.4g, above the clip threshold %.4g that the "
               "reference's was clipped to (cosine %.5f): it was not clipped before the step — or clipped before it "
               "was complete (before the all-reduce summed the ranks, or before the last micro-batch)\n",
               sn, clip, cosine);
    else
        return 0;
    printf("  (the per-tensor differences below follow from it)\n");
    return 1;
}

/* Name the factor a gradient is off by, if it is a clean one; when its norm and direction are the
 * reference's, say which elements differ instead (tol: the absolute tolerance they failed). */
static void explain(const char *name, const float *a, const float *b, size_t n, double tol, const factor_t *factors,
                    int nf) {
    double ratio = cmp_norm_ratio(a, b, n), cosine = cmp_cosine(a, b, n);
    if (!isfinite(ratio)) {
        printf("  hint: %s contains NaN or Inf (uninitialised memory, or a division by zero?)\n", name);
        return;
    }
    if (ratio == 0) {
        printf("  hint: %s is all zeros: zeroed after backward, or never written (zero_grad after backward? a gradient "
               "never computed or copied back?)\n",
               name);
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
        if (!(f > 1.005)) continue; /* 1 (one rank, one micro-batch) or unset: no factor to name */
        if (factors[i].root && (fabs(ratio / f - 1) < 0.01 || fabs(ratio * f - 1) < 0.01)) {
            int up = ratio > 1;
            if (up)
                printf("  hint: %s is %s = %.3fx the reference, N = %g the world size: a norm taken over 1/N of the "
                       "elements, which is about 1/√N of the whole (clipping by each rank's LOCAL norm?), or a "
                       "division by √N where the reference divides by N?\n",
                       name, factors[i].label, ratio, f * f);
            else
                printf("  hint: %s is 1/%s = %.3fx the reference, N = %g the world size: a norm about √N too large "
                       "(squared norms added over ranks that hold the same elements?), or a division by √N too many?\n",
                       name, factors[i].label, ratio, f * f);
            return;
        }
        if (fabs(ratio / f - 1) < 0.01) {
            int says_value = !strncmp(factors[i].what, factors[i].label, strlen(factors[i].label));
            printf("  hint: %s is %.1fx the reference: did you forget to divide by %s%s%s%s?\n", name, ratio,
                   factors[i].what, says_value ? "" : " (", says_value ? "" : factors[i].label, says_value ? "" : ")");
            return;
        }
        if (fabs(ratio * f - 1) < 0.01) {
            printf("  hint: %s is 1/%s of the reference: did you divide by %s twice (or where the reference does "
                   "not)?\n",
                   name, factors[i].label, factors[i].what);
            return;
        }
    }
    if (fabs(ratio - 1) >= 0.005) {
        printf("  hint: %s points the right way but is %.3fx the reference: a scale factor is wrong (or gradient "
               "clipping is not applied, or applied with another norm)\n",
               name, ratio);
        return;
    }
    /* the right norm and direction: the difference is in some elements, or small everywhere */
    size_t nbad = 0, first = n, last = 0;
    for (size_t k = 0; k < n; k++)
        if (!(fabs((double)a[k] - b[k]) <= tol)) {
            nbad++;
            if (first == n) first = k;
            last = k;
        }
    if (nbad * 10 < n)
        printf("  hint: %s has the reference's norm and direction (ratio %.4f, cosine %.5f) but %zu of its %zu "
               "elements differ, between indices %zu and %zu: a contribution to just these is missing, extra or "
               "misplaced (an example, a rank's shard or chunk, a bucket's slice?)\n",
               name, ratio, cosine, nbad, n, first, last);
    else
        printf("  hint: %s has nearly the reference's norm and direction (ratio %.4f, cosine %.5f) but differs a "
               "little at %zu of its %zu elements: a slightly different formula (a constant, a missed term, an "
               "average over a slightly different set of examples?)\n",
               name, ratio, cosine, nbad, n);
}

/* The step-1 AdamW update of an element with gradient g, over lr: g/(|g| + ε), odd and increasing. */
static double adamw_first(double g, double eps) { return g / (fabs(g) + eps); }

/* How far AdamW's first step can move an element whose reference gradient is g when the gradient
 * may be anything in [g − δ, g + δ] (what the gradient check accepts). */
static double first_step_spread(double g, double delta, const adamw_t *o) {
    return o->lr * (adamw_first(g + delta, o->eps) - adamw_first(g - delta, o->eps));
}

/* --summary: one line for tables — final loss of each run, and how far the final parameters are
 * apart: max |Δθ| and ‖Δθ‖ / ‖θ_ref‖ over all tensors. */
static int print_summary(const char *ref_path, const char *sub_path) {
    st_file_t ref, sub;
    load(ref_path, &ref, 0);
    load(sub_path, &sub, 1);
    const st_tensor_t *lr_ = st_find(&ref, "loss"), *ls = st_find(&sub, "loss");
    double max_d = 0, d2 = 0, r2 = 0;
    for (int i = 0; i < ref.ntensors; i++) {
        const st_tensor_t *r = &ref.tensors[i];
        if (strncmp(r->name, "param.", 6)) continue;
        const st_tensor_t *s = st_find(&sub, r->name);
        if (!s || s->numel != r->numel) continue;
        const float *a = s->data, *b = r->data;
        for (size_t k = 0; k < r->numel; k++) {
            double d = (double)a[k] - b[k];
            max_d = fmax(max_d, fabs(d));
            d2 += d * d;
            r2 += (double)b[k] * b[k];
        }
    }
    printf("%.6f %.6f %.3g %.3g\n", lr_ && lr_->numel ? ((const float *)lr_->data)[lr_->numel - 1] : NAN,
           ls && ls->numel ? ((const float *)ls->data)[ls->numel - 1] : NAN, max_d, r2 > 0 ? sqrt(d2 / r2) : 0.0);
    st_close(&ref);
    st_close(&sub);
    return 0;
}

/* Do the step-1 gradients agree? 1 yes, 0 no, -1 there are none to compare. */
static int grads_agree(const st_file_t *ref, const st_file_t *sub, double grad_rtol) {
    int seen = 0;
    for (int i = 0; i < ref->ntensors; i++) {
        const st_tensor_t *r = &ref->tensors[i];
        if (strncmp(r->name, "grad.", 5)) continue;
        seen = 1;
        const st_tensor_t *s = st_find(sub, r->name);
        if (!s || s->numel != r->numel) return 0;
        if (cmp_f32(s->data, r->data, r->numel, grad_rtol * max_abs(r->data, r->numel), 0).n_bad) return 0;
    }
    return seen ? 1 : -1;
}

/* The final parameters, tensor by tensor; returns the number of tensors that differ. */
static int check_params(const st_file_t *ref, const st_file_t *sub, double atol, double rtol, double grad_rtol,
                        const adamw_t *o, const spread_t *sp) {
    int seen = 0, bad_tensors = 0;
    size_t excused_total = 0, sensitive_total = 0, widened = 0, rescued = 0;
    double worst_rescued = 0;
    /* worst |diff| / tolerance (how close to failing) of the ordinary and of the sensitive elements */
    double worst_rel = 0, worst_used = 0, worst_sensitive = 0, worst_excused = 0;
    unsigned long long worst_ulp = 0;
    /* the most two AdamW runs can move an element apart (see the top of the file) */
    double A = fmax(1.0, (1 - o->beta1) / sqrt(1 - o->beta2));
    double reach = 2 * A * o->lr * (double)o->steps;
    for (int i = 0; i < ref->ntensors; i++) {
        const st_tensor_t *r = &ref->tensors[i];
        if (strncmp(r->name, "param.", 6)) continue;
        seen++;
        const st_tensor_t *s = st_find(sub, r->name);
        if (!s || s->numel != r->numel) {
            failures++;
            printf("FAIL: %s is missing from the submission's dump or has the wrong size\n", r->name);
            continue;
        }
        char gname[300];
        snprintf(gname, sizeof gname, "grad.%s", r->name + 6);
        const st_tensor_t *gt = o->lr > 0 ? st_find(ref, gname) : NULL;
        if (gt && gt->numel != r->numel) gt = NULL;
        const float *a = s->data, *b = r->data, *g = gt ? gt->data : NULL;
        double delta = g ? grad_rtol * max_abs(g, r->numel) : 0;
        const float *other[MAX_SPREAD];
        int nother = 0;
        for (int j = 0; j < sp->n; j++) {
            const st_tensor_t *t = st_find(&sp->files[j], r->name);
            if (t && t->numel == r->numel) other[nother++] = t->data;
        }
        cmp_result_t c = cmp_f32(a, b, r->numel, atol, rtol);
        size_t excused = 0, nbad = 0, first = r->numel;
        float first_a = 0, first_b = 0;
        double max_d = 0, excused_d = 0, excused_used = 0;
        for (size_t k = 0; k < r->numel; k++) {
            double d = fabs((double)a[k] - b[k]), base = atol + rtol * fabs(b[k]), far = 0;
            for (int j = 0; j < nother; j++) far = fmax(far, fabs((double)other[j][k] - b[k]));
            double tol = base + (isfinite(far) ? SPREAD_K * far : 0);
            widened += tol > 2 * base;
            if (!isfinite(d) && a[k] != b[k]) d = INFINITY;
            if (d > base && d <= tol) {
                rescued++;
                worst_rescued = fmax(worst_rescued, d / tol);
            }
            int sensitive = g && (fabs(g[k]) <= delta || first_step_spread(g[k], delta, o) > tol);
            sensitive_total += sensitive;
            double used = a[k] == b[k] ? 0 : tol > 0 ? d / tol : INFINITY;
            if (used <= 1) {
                if (sensitive)
                    worst_sensitive = fmax(worst_sensitive, used);
                else
                    worst_used = fmax(worst_used, used);
                continue;
            }
            if (sensitive && d <= tol + reach) {
                excused++;
                excused_d = fmax(excused_d, d);
                excused_used = fmax(excused_used, used);
                continue;
            }
            worst_used = fmax(worst_used, used);
            if (nbad++ == 0) {
                first = k;
                first_a = a[k];
                first_b = b[k];
            }
            max_d = fmax(max_d, d);
        }
        if (c.max_rel > worst_rel && isfinite(c.max_rel)) worst_rel = c.max_rel;
        if (c.max_ulp > worst_ulp) worst_ulp = c.max_ulp;
        /* the allowance is for a tensor whose only differences are a few such elements: next to
         * others, or too many, they count */
        if (excused > 0 && (nbad > 0 || excused > SENSITIVE_CAP)) {
            if (nbad == 0)
                printf("FAIL: %s: %zu elements with a near-zero first gradient differ — AdamW amplifies rounding "
                       "there, but a different summation order moves a few (at most %d), not a class of elements\n",
                       r->name, excused, SENSITIVE_CAP);
            nbad += excused;
            excused = 0;
            max_d = fmax(max_d, excused_d);
            worst_used = fmax(worst_used, excused_used);
        } else {
            worst_excused = fmax(worst_excused, excused_d);
        }
        excused_total += excused;
        if (nbad == 0) continue;
        bad_tensors++;
        failures++;
        if (bad_tensors > 4) continue; /* the first few tell the story */
        if (first < r->numel)
            printf("FAIL: %s differs at %zu of %zu elements; first at index %zu: %.7g, reference %.7g (max-abs %.3g)\n",
                   r->name, nbad, r->numel, first, first_a, first_b, max_d);
        else
            printf("FAIL: %s differs at %zu of %zu elements (max-abs %.3g)\n", r->name, nbad, r->numel, max_d);
    }
    if (bad_tensors > 4) printf("  ... and %d more tensors\n", bad_tensors - 4);
    if (seen) {
        printf("params  %d tensors: %d differ; max-rel %.3g  max-ULP %llu  (worst %.2g of the tolerance)\n", seen,
               bad_tensors, worst_rel, worst_ulp, worst_used);
        if (excused_total)
            printf("        AdamW-sensitive elements (near-zero first gradient): %zu, %zu of them excused for "
                   "differing by up to %.3g (AdamW can take them %.3g apart; at most %d a tensor)\n",
                   sensitive_total, excused_total, worst_excused, reach, SENSITIVE_CAP);
        else if (sensitive_total)
            printf("        AdamW-sensitive elements (near-zero first gradient): %zu, all within the tolerance (worst "
                   "%.2g of it)\n",
                   sensitive_total, worst_sensitive);
        if (sp->n)
            printf("        spread of %d other summation order(s) of the reference: %zu elements where it moves more "
                   "than rounding; %zu within the tolerance only thanks to it (worst %.2g of it)\n",
                   sp->n, widened, rescued, worst_rescued);
    }
    return bad_tensors;
}

int main(int argc, char **argv) {
    const char *ref_path = NULL, *sub_path = NULL, *optimizer = "adamw";
    double batch = 0, world = 1, accum = 1, ref_offset = 0, clip = 0;
    int exact = 0, summary = 0;
    const char *spread_paths[MAX_SPREAD];
    int nspread = 0;
    double loss_rtol = 2e-5, grad_rtol = 1e-4, param_atol = 1e-5, param_rtol = 1e-4;
    adamw_t o = {0, 0.9, 0.999, 1e-8, 0}; /* the trainers' defaults */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double *dst = !strcmp(a, "--batch")        ? &batch
                      : !strcmp(a, "--world")      ? &world
                      : !strcmp(a, "--accum")      ? &accum
                      : !strcmp(a, "--loss-rtol")  ? &loss_rtol
                      : !strcmp(a, "--grad-rtol")  ? &grad_rtol
                      : !strcmp(a, "--param-atol") ? &param_atol
                      : !strcmp(a, "--param-rtol") ? &param_rtol
                      : !strcmp(a, "--ref-offset") ? &ref_offset
                      : !strcmp(a, "--clip")       ? &clip
                      : !strcmp(a, "--lr")         ? &o.lr
                      : !strcmp(a, "--beta1")      ? &o.beta1
                      : !strcmp(a, "--beta2")      ? &o.beta2
                      : !strcmp(a, "--eps")        ? &o.eps
                                                   : NULL;
        if (!strcmp(a, "--exact"))
            exact = 1;
        else if (!strcmp(a, "--summary"))
            summary = 1;
        else if (!strcmp(a, "--optimizer") && i + 1 < argc)
            optimizer = argv[++i];
        else if (!strcmp(a, "--spread") && i + 1 < argc) {
            if (nspread == MAX_SPREAD) {
                fprintf(stderr, "equiv: at most %d --spread files\n", MAX_SPREAD);
                return 2;
            }
            spread_paths[nspread++] = argv[++i];
        } else if (dst && i + 1 < argc)
            *dst = atof(argv[++i]);
        else if (!ref_path)
            ref_path = a;
        else if (!sub_path)
            sub_path = a;
        else {
            fprintf(stderr, "equiv: unexpected argument %s\n", a);
            return 2;
        }
    }
    if (!ref_path || !sub_path) {
        fprintf(stderr, "usage: equiv REF.safetensors SUB.safetensors [--batch B] [--world N] [--accum K] "
                        "[--loss-rtol R] [--grad-rtol R] [--param-atol A] [--param-rtol R] [--exact] [--lr LR] "
                        "[--optimizer adamw|sgd] [--beta1 B] [--beta2 B] [--eps E] [--ref-offset K] [--clip C] "
                        "[--spread FILE]...\n");
        return 2;
    }
    if (strcmp(optimizer, "adamw") && strcmp(optimizer, "sgd")) {
        fprintf(stderr, "equiv: --optimizer %s: adamw or sgd\n", optimizer);
        return 2;
    }
    if (exact) loss_rtol = grad_rtol = param_atol = param_rtol = 0;
    /* SGD is linear in the gradient: nothing to excuse; nor with no step-1 gradients (a resumed run) */
    if (exact || ref_offset > 0 || strcmp(optimizer, "adamw") || !(o.lr > 0) || !(o.beta2 < 1) || !(o.eps > 0))
        o.lr = 0;
    if (summary) return print_summary(ref_path, sub_path);
    st_file_t ref, sub;
    load(ref_path, &ref, 0);
    load(sub_path, &sub, 1);
    /* the other orders are the grader's own runs, like the reference: exact or resumed runs use none */
    static spread_t spread;
    if (!exact && ref_offset == 0)
        for (int j = 0; j < nspread; j++) load(spread_paths[j], &spread.files[spread.n++], 0);
    char sqrt_label[32];
    snprintf(sqrt_label, sizeof sqrt_label, "√%g", world);
    factor_t factors[] = {{batch, NULL, "the batch size"},
                          {world, NULL, "the world size (average over the ranks)"},
                          {accum, NULL, "the number of micro-batches"},
                          {batch * world, NULL, "the global batch size"},
                          {2, "2", "2 (counted twice: gradients not zeroed, or reduced twice?)"},
                          {sqrt(world), sqrt_label, "√N", 1}};
    int nf = (int)(sizeof factors / sizeof factors[0]);
    char labels[4][32];
    for (int i = 0; i < 4; i++) {
        snprintf(labels[i], sizeof labels[i], "%g", factors[i].value);
        factors[i].label = labels[i];
    }
    /* √N only where it is no other factor (√4 = 2) */
    for (int i = 0; i < nf - 1; i++)
        if (fabs(factors[i].value / factors[nf - 1].value - 1) < 0.02) nf--;

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
    /* first: other examples explain every difference below better than any formula */
    int data_differ = off == 0 && examples_differ(ref_path, sub_path, (int)world) == 1;
    failures += data_differ;
    o.steps = steps;
    int grads_ok = off > 0 ? -1 : grads_agree(&ref, &sub, grad_rtol);
    const float *ref_loss = (const float *)lr_->data + off;
    cmp_result_t cl = cmp_f32(ls->data, ref_loss, steps, 0, loss_rtol);
    printf("loss    %zu steps: max-abs %.3g  max-rel %.3g  max-ULP %llu  (worst %.2g of the tolerance)\n", steps,
           cl.max_abs, cl.max_rel, (unsigned long long)cl.max_ulp, loss_rtol > 0 ? cl.max_rel / loss_rtol : 0.0);
    if (cl.n_bad) {
        failures++;
        size_t k = cl.first_bad + 1 + off; /* the first step that differs, counted from 1 */
        printf("FAIL: first divergence at step %zu: loss %.7g, reference %.7g (%zu of %zu steps differ by more than "
               "rtol %.1g)\n",
               k, cl.first_a, cl.first_b, cl.n_bad, steps, loss_rtol);
        int all_zero = 1;
        for (size_t j = 0; j < steps; j++) all_zero &= ((const float *)ls->data)[j] == 0.0f;
        /* The loss of step k is computed with the parameters after updates 1..k−1, on step k's
         * examples: what agrees before it says where the difference can enter. */
        if (data_differ)
            ; /* the examples' line above says why */
        else if (all_zero)
            printf("  hint: every loss is exactly 0: does the step return the loss that forward computed?\n");
        else if (off > 0 && cl.first_bad == 0)
            printf("  hint: the first step after resuming already differs: the restored parameters, optimizer state "
                   "or data position are not the ones saved, or the resumed step's arithmetic differs (its "
                   "micro-batches' weights, the loss it reports)\n");
        else if (off > 0)
            printf("  hint: steps %zu..%zu agree after resuming, so the difference enters in update %zu or in "
                   "step %zu's examples\n",
                   off + 1, k - 1, k - 1, k);
        else if (cl.first_bad == 0 && grads_ok == 1)
            /* the gradients come from the same forward pass: if they agree, the examples and the
             * forward pass do, and only the loss the step reports is combined wrongly */
            printf("  hint: step 1's loss differs but its gradients agree, so its examples and forward pass are right: "
                   "only the loss the step reports is off — how it is averaged over the ranks%s\n",
                   accum > 1 ? " or over the micro-batches (micro-batch i's loss weighs b_i/B, not 1/k)" : "");
        else if (cl.first_bad == 0)
            printf("  hint: step 1 is computed before any update: its examples, the forward pass, or how the loss is "
                   "averaged over the ranks%s differ\n",
                   accum > 1 ? " or weighted over the micro-batches (b_i/B, in the loss and in backward's grad_scale)"
                             : "");
        else if (grads_ok == 0)
            printf("  hint: step 1's loss agrees but its gradients differ (see below): every update uses them (AdamW's "
                   "first depends only on their sign, so a wrong scale reaches the losses at step 3 at the "
                   "earliest)\n");
        else if (clip > 0 && grads_ok == 1)
            /* the dump holds the gradient as it is after the step: clipped there, it agrees even when
             * the update used it unclipped (AdamW's sign-like first updates hide that for a few steps) */
            printf("  hint: steps 1..%zu agree and step 1's gradient (as it stands after the step) is the reference's "
                   "clipped one, yet an update differs: the optimizer step, or the clipping done AFTER it (optim_step "
                   "used the unclipped gradient) — clip between the all-reduce and the step\n",
                   k - 1);
        else if (k == 2)
            printf("  hint: step 1's loss%s agree%s, so update 1 went wrong — the optimizer step or clipping — or "
                   "step 2 did not run with the updated parameters (a rank that never received them?)\n",
                   grads_ok == 1 ? " and gradients" : "", grads_ok == 1 ? "" : "s");
        else
            printf("  hint: steps 1..%zu agree%s: update 1 was right, so the difference enters in step %zu's gradient "
                   "or update or in step %zu's input — gradients not zeroed every step (they add up from step 2 on), "
                   "examples that differ from step %zu on (a new epoch: set_epoch?), or parameters stale at step %zu "
                   "(AdamW's first update depends only on the gradient's sign: a gradient of the wrong scale shows "
                   "first in update 2, and only if the scale changes from step to step)\n",
                   k - 1, grads_ok == 1 ? ", and so do step 1's gradients" : "", k - 1, k, k, k);
    }

    /* gradients after the first step */
    if (off == 0) {
        int seen = 0, bad_tensors = 0;
        int clip_explained = data_differ || (grads_ok == 0 && explain_clip(&ref, &sub, clip));
        double worst_rel = 0, worst_used = 0; /* worst |diff| / tolerance: how close to failing */
        unsigned long long worst_ulp = 0;
        for (int i = 0; i < ref.ntensors; i++) {
            const st_tensor_t *r = &ref.tensors[i];
            if (strncmp(r->name, "grad.", 5)) continue;
            seen++;
            const st_tensor_t *s = st_find(&sub, r->name);
            if (!s || s->numel != r->numel) {
                failures++;
                printf("FAIL: %s is missing from the submission's dump or has the wrong size\n", r->name);
                continue;
            }
            const float *a = s->data, *b = r->data;
            double tol = grad_rtol * max_abs(b, r->numel);
            cmp_result_t c = cmp_f32(a, b, r->numel, tol, 0);
            if (tol > 0) worst_used = fmax(worst_used, c.max_abs / tol);
            if (c.max_rel > worst_rel && isfinite(c.max_rel)) worst_rel = c.max_rel;
            if (c.max_ulp > worst_ulp) worst_ulp = c.max_ulp;
            if (c.n_bad == 0) continue;
            bad_tensors++;
            failures++;
            if (bad_tensors > 4) continue; /* the first few tell the story */
            printf("FAIL: %s differs at %zu of %zu elements; first at index %zu: %.7g, reference %.7g (max-abs %.3g)\n",
                   r->name, c.n_bad, c.n, c.first_bad, c.first_a, c.first_b, c.max_abs);
            if (!clip_explained) explain(r->name, a, b, r->numel, tol, factors, nf);
        }
        if (bad_tensors > 4) printf("  ... and %d more tensors\n", bad_tensors - 4);
        if (seen)
            printf("grads   %d tensors: %d differ; max-rel %.3g  max-ULP %llu  (worst %.2g of the tolerance)\n", seen,
                   bad_tensors, worst_rel, worst_ulp, worst_used);
    }

    /* the final parameters */
    if (check_params(&ref, &sub, param_atol, param_rtol, grad_rtol, &o, &spread) && !cl.n_bad && grads_ok != 0)
        printf("  hint: the losses%s agree but the final parameters do not: the last update (no loss shows it), "
               "or parameters the loss does not depend on\n",
               grads_ok == 1 ? " and step 1's gradients" : "");
    st_close(&ref);
    st_close(&sub);
    if (failures) {
        printf("NOT EQUIVALENT to the reference (%d problem%s)\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    printf("equivalent to the reference\n");
    return 0;
}
