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

    dataset_write_split(words, n, VOCAB, (uint32_t)strlen(VOCAB), seed, val_fraction, out_dir, name, "words");
    for (size_t i = 0; i < n; i++) free(words[i]);
    free(words);
    return 0;
}
