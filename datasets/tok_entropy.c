/* tok_entropy — the unigram entropy of a token file: the cross-entropy a model that ignores the
 * context entirely can reach at best (it predicts each token's frequency in this very file).
 *
 *   tok_entropy FILE.tok   prints "tokens N vocab V entropy H" (H in nats per token)
 *
 * A language model's validation loss is worth reporting against this number: below it, the model
 * has learnt something from the context. */
#include "data.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    dp_set_progname(argv[0]);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: tok_entropy FILE.tok\n");
        return 2;
    }
    dataset_t ds;
    dataset_load(argv[1], &ds);
    if (ds.n_tokens == 0) dp_fatal("%s has no tokens: its entropy is undefined", argv[1]);
    size_t count[256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < ds.n_tokens; i++) count[ds.tokens[i]]++;
    double h = 0, n = (double)ds.n_tokens;
    for (int v = 0; v < 256; v++)
        if (count[v]) h -= (double)count[v] / n * log((double)count[v] / n);
    printf("tokens %zu vocab %u entropy %.4f\n", ds.n_tokens, ds.vocab_size, h);
    dataset_free(&ds);
    return 0;
}
