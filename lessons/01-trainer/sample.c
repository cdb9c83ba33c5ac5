/* sample.c — let the model write: start from a context of word separators, draw each next
 * character from the softmax, slide the context, repeat. A GPT predicts at every position of the
 * window: the next character's distribution is its last position's. */
#include "trainer.h"

#include "gpt.h"
#include "rng.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void sample_text(model_t *m, const dataset_t *vocab, int n, uint64_t seed, char *out) {
    int T = m->cfg.context, V = m->cfg.vocab;
    int32_t *ctx = dp_calloc((size_t)T, sizeof(int32_t)), target = 0;
    float *probs = dp_malloc((size_t)V * sizeof(float));
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < n; i++) {
        model_forward(m, ctx, &target, 1);
        const float *p = m->gpt ? m->gpt->probs + (size_t)(T - 1) * V : m->probs;
        ops_to_host(m->ops, probs, p, (size_t)V);
        float u = rng_uniform(&r), acc = 0;
        int next = V - 1;
        for (int v = 0; v < V; v++) {
            acc += probs[v];
            if (u < acc) {
                next = v;
                break;
            }
        }
        out[i] = vocab->vocab[next];
        memmove(ctx, ctx + 1, (size_t)(T - 1) * sizeof(int32_t));
        ctx[T - 1] = next;
    }
    out[n] = 0;
    free(ctx);
    free(probs);
}
