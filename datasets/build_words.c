/* build_words — turn a word list into the course's token datasets (train and validation).
 *
 *   build_words [--words /usr/share/dict/words] [--out-dir build/data] [--name words]
 *
 * Keeps the words made only of the letters a-z (no capitals: they are mostly proper nouns; no
 * apostrophes), shuffles them with the project's counter-based RNG (so the result is the same on
 * every machine), puts the first 90% in the training set and the rest in the validation set, and
 * writes each as one stream of characters with '.' after every word:
 *
 *   "aardvark.abacus.abandon." ...  tokens: '.'=0, 'a'=1, ..., 'z'=26
 *
 * Same word list + same seed ⇒ byte-identical files. Lines starting with '#' are comments. */
#include "cli.h"
#include "data.h"
#include "rng.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char VOCAB[] = ".abcdefghijklmnopqrstuvwxyz";

static int keep(const char *w) {
    if (!*w) return 0;
    for (const char *p = w; *p; p++)
        if (*p < 'a' || *p > 'z') return 0;
    return 1;
}

static void write_split(const char *path, char **words, size_t from, size_t to) {
    size_t n = 0;
    for (size_t i = from; i < to; i++) n += strlen(words[i]) + 1;
    uint8_t *tok = dp_malloc(n ? n : 1);
    size_t k = 0;
    for (size_t i = from; i < to; i++) {
        for (const char *p = words[i]; *p; p++) tok[k++] = (uint8_t)(*p - 'a' + 1);
        tok[k++] = 0;
    }
    dp_mkdir_for(path);
    if (dataset_write(path, VOCAB, (uint32_t)strlen(VOCAB), tok, n) != 0) dp_fatal("cannot write %s", path);
    printf("build_words: wrote %s (%zu words, %zu tokens)\n", path, to - from, n);
    free(tok);
}

int main(int argc, char **argv) {
    const char *words_path = "/usr/share/dict/words", *out_dir = "build/data", *name = "words";
    double val_fraction = 0.1;
    uint64_t seed = 1234;
    const cli_opt_t opts[] = {
        {"words", CLI_STRING, &words_path, "word list, one word per line"},
        {"out-dir", CLI_STRING, &out_dir, "where to write NAME-train.tok and NAME-val.tok"},
        {"name", CLI_STRING, &name, "file name prefix"},
        {"val-fraction", CLI_FLOAT, &val_fraction, "share of words for validation", .min = 0.01, .max = 0.9},
        {"seed", CLI_U64, &seed, "shuffle seed"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "build_words [options]");

    FILE *f = fopen(words_path, "r");
    if (!f)
        dp_fatal("word list %s not found; on Debian/Ubuntu 'make deps' installs it (package "
                 "wamerican), or pass --words PATH",
                 words_path);
    size_t cap = 1024, n = 0;
    char **words = dp_malloc(cap * sizeof *words), line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || !keep(line)) continue;
        if (n == cap) {
            cap *= 2;
            char **w = realloc(words, cap * sizeof *w);
            if (!w) dp_fatal("out of memory");
            words = w;
        }
        words[n++] = dp_strdup(line);
    }
    fclose(f);
    if (n < 10) dp_fatal("%s has only %zu usable words (a-z only); need at least 10", words_path, n);

    rng_t r;
    rng_init(&r, seed);
    uint32_t *perm = dp_malloc(n * sizeof *perm);
    rng_permutation(&r, perm, (uint32_t)n);
    char **shuffled = dp_malloc(n * sizeof *shuffled);
    for (size_t i = 0; i < n; i++) shuffled[i] = words[perm[i]];

    size_t n_val = (size_t)((double)n * val_fraction);
    if (n_val < 1) n_val = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-train.tok", out_dir, name);
    write_split(path, shuffled, 0, n - n_val);
    snprintf(path, sizeof path, "%s/%s-val.tok", out_dir, name);
    write_split(path, shuffled, n - n_val, n);
    for (size_t i = 0; i < n; i++) free(words[i]);
    free(words);
    free(shuffled);
    free(perm);
    return 0;
}
