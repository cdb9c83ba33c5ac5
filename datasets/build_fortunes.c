/* build_fortunes — turn the fortune-cookie files into a real-English character corpus (train and
 * validation) for the GPT.
 *
 *   build_fortunes [--dir /usr/share/games/fortunes] [--out-dir build/data] [--name fortunes]
 *
 * A fortune file is text records, each ended by a line holding only '%'. The builder reads every
 * plain file of DIR in name order (not the .dat/.u8 indexes fortune(6) uses, nor links or
 * subdirectories), cuts the records at the '%' lines, trims trailing blanks and blank lines, and
 * drops a record that is empty, holds a character outside the vocabulary (a few use backspace
 * overstrikes, escape codes or Latin-1), or repeats one already kept (some sayings are in two
 * files; kept, they would be in both sets). It shuffles the records with the project's
 * counter-based RNG, puts the first 90% in the training set and the rest in the validation set,
 * and writes each set as one stream of characters with a blank line after every record:
 *
 *   "Fortune one.\n\t\t-- Author\n\nFortune two.\n\n" ...
 *
 * Splitting by record, not by character offset, keeps any saying out of both sets.
 * The vocabulary is the characters English text in these files uses: newline (token 0), tab (1)
 * and printable ASCII ' '..'~' (2..96), V = 97. Same files + same seed ⇒ byte-identical output. */
#define _POSIX_C_SOURCE 200809L /* lstat */
#include "cli.h"
#include "data.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { V = 97 };

typedef struct {
    char **items;
    size_t n, cap;
} list_t;

static void list_push(list_t *l, char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        char **p = realloc(l->items, l->cap * sizeof *p);
        if (!p) dp_fatal("out of memory");
        l->items = p;
    }
    l->items[l->n++] = s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int token_of(unsigned char c) {
    return c == '\n' ? 0 : c == '\t' ? 1 : (c >= ' ' && c <= '~') ? c - ' ' + 2 : -1;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The plain files of dir, sorted by name: readdir's order differs between file systems. */
static list_t fortune_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        dp_fatal("fortune directory %s not found; on Debian/Ubuntu 'make deps' installs it (package fortunes), or "
                 "pass --dir DIR",
                 dir);
    list_t files = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || ends_with(e->d_name, ".dat") || ends_with(e->d_name, ".u8")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) list_push(&files, dp_strdup(path));
    }
    closedir(d);
    qsort(files.items, files.n, sizeof *files.items, cmp_str);
    return files;
}

/* Ends the record in buf[0..n): trailing blanks off each line, blank lines off both ends.
 * Returns 1 with the record in *out, 0 for an empty record, -1 for one with a character outside
 * the vocabulary. */
static int finish_record(char *buf, size_t n, char **out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n')
            while (k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\t')) k--;
        buf[k++] = buf[i];
    }
    while (k > 0 && (buf[k - 1] == '\n' || buf[k - 1] == ' ' || buf[k - 1] == '\t')) k--;
    size_t start = 0;
    while (start < k && buf[start] == '\n') start++;
    if (start == k) return 0;
    for (size_t i = start; i < k; i++)
        if (token_of((unsigned char)buf[i]) < 0) return -1;
    *out = dp_malloc(k - start + 2);
    memcpy(*out, buf + start, k - start);
    (*out)[k - start] = '\n'; /* the last line ends; the blank line between records comes on writing */
    (*out)[k - start + 1] = 0;
    return 1;
}

/* Appends the records of one file; counts those left out for a character outside the vocabulary. */
static void read_records(const char *path, list_t *records, size_t *dropped) {
    size_t len = 0;
    char *text = (char *)dp_read_file(path, &len);
    if (!text) dp_fatal("cannot read %s", path);
    char *buf = dp_malloc(len + 1);
    size_t n = 0;
    for (size_t line = 0; line <= len;) {
        const char *nl = memchr(text + line, '\n', len - line);
        size_t end = nl ? (size_t)(nl - text) : len, next = end + 1;
        int sep = end - line == 1 && text[line] == '%';
        if (!sep) { /* a line of the record, with its newline (the file's last may lack one) */
            memcpy(buf + n, text + line, end - line);
            n += end - line;
            if (nl) buf[n++] = '\n';
        }
        if (sep || !nl) {
            char *r = NULL;
            int kept = finish_record(buf, n, &r);
            if (kept > 0) list_push(records, r);
            if (kept < 0) ++*dropped;
            n = 0;
        }
        line = next;
    }
    free(buf);
    free(text);
}

int main(int argc, char **argv) {
    const char *dir = "/usr/share/games/fortunes", *out_dir = "build/data", *name = "fortunes";
    double val_fraction = 0.1;
    uint64_t seed = 1234;
    const cli_opt_t opts[] = {
        {"dir", CLI_STRING, &dir, "directory of fortune files ('%' lines between records)"},
        {"out-dir", CLI_STRING, &out_dir, "where to write NAME-train.tok and NAME-val.tok"},
        {"name", CLI_STRING, &name, "file name prefix"},
        {"val-fraction", CLI_FLOAT, &val_fraction, "share of fortunes for validation", .min = 0.01, .max = 0.9},
        {"seed", CLI_U64, &seed, "shuffle seed"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "build_fortunes [options]");

    list_t files = fortune_files(dir), all = {0};
    size_t dropped = 0;
    for (size_t i = 0; i < files.n; i++) read_records(files.items[i], &all, &dropped);
    /* Sorted, a repeat sits next to its first copy; the sort also makes the order independent of
     * which file a record came from before the shuffle. */
    qsort(all.items, all.n, sizeof *all.items, cmp_str);
    list_t recs = {0};
    for (size_t i = 0; i < all.n; i++)
        if (recs.n && strcmp(recs.items[recs.n - 1], all.items[i]) == 0)
            free(all.items[i]);
        else
            list_push(&recs, all.items[i]);
    size_t n = recs.n;
    if (n < 10) dp_fatal("%s has only %zu usable fortunes in %zu files; need at least 10", dir, n, files.n);
    printf("build_fortunes: %zu files, %zu fortunes (%zu repeats and %zu with other characters left out)\n", files.n, n,
           all.n - n, dropped);

    char vocab[V];
    for (int c = 0; c < 256; c++)
        if (token_of((unsigned char)c) >= 0) vocab[token_of((unsigned char)c)] = (char)c;
    dataset_write_split(recs.items, n, vocab, V, seed, val_fraction, out_dir, name, "fortunes");

    for (size_t i = 0; i < n; i++) free(recs.items[i]);
    for (size_t i = 0; i < files.n; i++) free(files.items[i]);
    free(recs.items);
    free(all.items);
    free(files.items);
    return 0;
}
