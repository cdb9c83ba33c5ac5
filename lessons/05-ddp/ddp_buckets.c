/* ddp_buckets.c — which gradients travel together.
 *
 * Parameters are visited in REVERSE registration order — the order backward makes their gradients
 * ready — and packed greedily into buckets by gradient bytes:
 *
 *   registration   0:wte  1:h.0.w  2:h.0.b  3:h.1.w  4:h.1.b  5:head.w  6:head.b
 *   visit order    6, 5, 4, 3, 2, 1, 0
 *   buckets        [6 5 4 3] [2 1] [0]        (say: the first closes once >= first_bucket_bytes_cap,
 *                                              every later one once >= bucket_bytes_cap)
 *
 * A bucket closes as soon as its size REACHES its cap (>=: the parameter that crosses the cap stays
 * in it, so a bucket may be larger than the cap) — in every bucket, not just the first. The first
 * bucket closed uses first_bucket_bytes_cap, every later one bucket_bytes_cap: PyTorch's two
 * "bucket size limits" of compute_bucket_assignment_by_size. Which values they get is the caller's
 * business (ddp_setup: a small 1 MiB first bucket only when --bucket-cap-mb is left unset).
 * Whatever is left open at the end is the last bucket.
 *
 * Because the visit order is the reverse of the memory order, bucket b holds parameters
 * last_param, last_param−1, …, first_param, and its gradients are the contiguous slice starting at
 * the offset of first_param. */
#include "ddp.h"

#include "util.h"

#include <stdlib.h>

void ddp_assign_buckets(ddp_t *d, const flat_layout_t *layout, size_t bucket_bytes_cap, size_t first_bucket_bytes_cap) {
    int P = layout->count;
    d->buckets = dp_calloc((size_t)(P ? P : 1), sizeof(ddp_bucket_t)); /* at most one per parameter */
    d->bucket_of = dp_calloc((size_t)(P ? P : 1), sizeof(int));
    d->nbuckets = 0;
    // TODO(05 ddp_assign_buckets): split parameters 0..P−1 into buckets by the rule in the README
    //   ("Buckets", steps 1–3; the caps arrive as arguments). On return: d->nbuckets buckets in launch
    //   order (bucket 0 holds parameter P−1), each parameter in exactly one; every d->buckets[b] has
    //   first_param <= last_param and its slice of the flat gradient (offset, count: elements, from
    //   layout->views); d->bucket_of[i] names the bucket of parameter i. Leave pending to ddp_reset.
    (void)layout, (void)bucket_bytes_cap, (void)first_bucket_bytes_cap, (void)P;
    DP_TODO();
}
