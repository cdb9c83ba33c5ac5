/* similarity — which submissions of a lesson share code, whatever the names and the layout.
 *
 *   similarity [--k K] [--w W] [--threshold PCT] [--min N] [--all] [--report FILE] [--title TEXT] MANIFEST
 *
 * MANIFEST lists the files of one lesson, one per line, tab-separated:
 *   G <tab> - <tab> PATH        the given code (the lesson's skeleton files): subtracted from all
 *   R <tab> ID <tab> PATH       the reference solution's files
 *   S <tab> ID <tab> PATH       a student's files (ID: any word without tabs; one line per file)
 *   N <tab> ID <tab> NAME       the name the report shows for ID (the ID itself otherwise)
 *
 * Winnowing (Schleimer, Wilkerson, Aiken, "Winnowing: local algorithms for document fingerprinting",
 * SIGMOD 2003, the algorithm of MOSS). Each file becomes tokens: comments and whitespace are gone,
 * every identifier that is not a keyword is one token class (renaming changes nothing), numbers stay
 * as written, string and character literals are one class each (their text is cheap to reword).
 * Every K consecutive tokens (a k-gram) are hashed; of every W consecutive hashes the smallest is
 * kept (the rightmost of equals), so a shared run of at least K+W-1 tokens always yields a shared
 * fingerprint and runs shorter than K never do. A submission is the union of its files'
 * fingerprints, less every fingerprint of the given code: two students who kept the skeleton's
 * lines share nothing for it. The similarity of two submissions is the number of fingerprints they
 * share over the number of the smaller one's (containment, not Jaccard: a student who copied half
 * of a classmate's lesson and wrote nothing else scores 100%, as they should); a submission with
 * fewer than --min fingerprints of its own (a skeleton, a stub) is compared with nobody.
 *
 * stdout: one line per pair at or above --threshold (with --all, every pair), tab-separated,
 * highest first: ID_A ID_B PERCENT SHARED SMALLER. --report FILE appends, for the same pairs, the
 * names, the score and the matching regions (file:lines on both sides). Exit 0, or 2 with one line
 * on stderr when the manifest or an option is wrong. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regular.h"

#define MAX_FILE    (4u << 20) /* the grader copies student files of at most 1 MiB */
#define MAX_REGIONS 8          /* per pair in the report: the largest */

typedef struct {
    uint64_t h;
    int line;
} tok_t;

typedef struct {
    uint64_t h;
    int pos, line0, line1; /* the first token of the k-gram, and the lines the k-gram spans */
} fp_t;

typedef struct {
    char *path;
    int unit;
    fp_t *fp;
    size_t nfp;
} file_t;

typedef struct {
    char *id, *name;
    uint64_t *set; /* its fingerprints' hashes, sorted, unique, the given code's removed */
    size_t nset;
} unit_t;

static file_t *files;
static size_t nfiles;
static unit_t *units;
static size_t nunits;
static uint64_t *given;
static size_t ngiven;

static void die(const char *what, const char *arg) {
    fprintf(stderr, "similarity: %s%s\n", what, arg ? arg : "");
    exit(2);
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) die("out of memory", NULL);
    return p;
}

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The words that are not names: C11's keywords, and CUDA's qualifiers and built-in variables, which
 * no renaming can change either. */
static int keyword(const char *s, size_t n) {
    static const char *const kw[] = {
        "auto",          "break",      "case",           "char",
        "const",         "continue",   "default",        "do",
        "double",        "else",       "enum",           "extern",
        "float",         "for",        "goto",           "if",
        "inline",        "int",        "long",           "register",
        "restrict",      "return",     "short",          "signed",
        "sizeof",        "static",     "struct",         "switch",
        "typedef",       "union",      "unsigned",       "void",
        "volatile",      "while",      "_Alignas",       "_Alignof",
        "_Atomic",       "_Bool",      "_Complex",       "_Generic",
        "_Imaginary",    "_Noreturn",  "_Static_assert", "_Thread_local",
        "__global__",    "__device__", "__host__",       "__shared__",
        "threadIdx",     "blockIdx",   "blockDim",       "gridDim",
        "__syncthreads", "include",    "define",         "ifdef",
        "ifndef",        "endif",      "pragma",
    };
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0) return 1;
    return 0;
}

/* The punctuators of more than one character, longest first. */
static size_t punct_len(const char *p) {
    static const char *const ops[] = {"<<=", ">>=", "...", "<<<", ">>>", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
                                      "!=",  "&&",  "||",  "*=",  "/=",  "%=", "+=", "-=", "&=", "^=", "|=", "##"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp(p, ops[i], strlen(ops[i])) == 0) return strlen(ops[i]);
    return 1;
}

/* The tokens of src (NUL-terminated), each a hash of its class or text and its line. */
static tok_t *tokenize(const char *src, size_t *ntok) {
    tok_t *t = NULL;
    size_t n = 0, cap = 0;
    int line = 1;
    const uint64_t IDENT = fnv("<id>", 4), STR = fnv("<str>", 5), CHR = fnv("<chr>", 5);
    for (const char *p = src; *p;) {
        uint64_t h;
        int at = line;
        if (*p == '\n') {
            line++, p++;
            continue;
        }
        if (isspace((unsigned char)*p) || *p == '\\') {
            p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p == '\n') line++;
            if (*p) p += 2;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q && *p != '\n') p += (p[0] == '\\' && p[1]) ? 2 : 1;
            if (*p == q) p++;
            h = q == '"' ? STR : CHR;
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
                   ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
                p++;
            h = fnv(s, (size_t)(p - s));
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            h = keyword(s, (size_t)(p - s)) ? fnv(s, (size_t)(p - s)) : IDENT;
        } else {
            size_t len = punct_len(p);
            h = fnv(p, len);
            p += len;
        }
        if (n == cap) t = xrealloc(t, (cap = cap ? 2 * cap : 1024) * sizeof *t);
        t[n++] = (tok_t){h, at};
    }
    *ntok = n;
    return t;
}

/* Winnowing: the k-grams' hashes, and of every window of w of them the rightmost minimum, each
 * position recorded once. A file shorter than one window keeps its smallest k-gram. */
static fp_t *winnow(const tok_t *t, size_t n, int k, int w, size_t *nfp) {
    *nfp = 0;
    if (n < (size_t)k) return NULL;
    size_t ng = n - (size_t)k + 1;
    uint64_t *g = xrealloc(NULL, ng * sizeof *g);
    for (size_t i = 0; i < ng; i++) {
        uint64_t h = 1469598103934665603ull;
        for (int j = 0; j < k; j++) h = (h ^ t[i + (size_t)j].h) * 1099511628211ull;
        g[i] = h ^ (h >> 29);
    }
    fp_t *fp = xrealloc(NULL, ng * sizeof *fp);
    size_t last = (size_t)-1, win = ng < (size_t)w ? ng : (size_t)w;
    for (size_t s = 0; s + win <= ng; s++) {
        size_t m = s;
        for (size_t i = s; i < s + win; i++)
            if (g[i] <= g[m]) m = i;
        if (m != last) {
            fp[(*nfp)++] = (fp_t){g[m], (int)m, t[m].line, t[m + (size_t)k - 1].line};
            last = m;
        }
    }
    free(g);
    return fp;
}

static char *read_all(const char *path) {
    FILE *f = fopen_regular(path);
    if (!f) die("cannot read ", path);
    char *buf = xrealloc(NULL, MAX_FILE + 1);
    size_t n = fread(buf, 1, MAX_FILE, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0) buf[i] = ' '; /* a NUL byte must not end the file early */
    return buf;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1]) v[m++] = v[i];
    return m;
}

static int has(const uint64_t *v, size_t n, uint64_t h) { return n && bsearch(&h, v, n, sizeof h, cmp_u64) != NULL; }

static int unit_of(const char *id) {
    for (size_t i = 0; i < nunits; i++)
        if (strcmp(units[i].id, id) == 0) return (int)i;
    units = xrealloc(units, (nunits + 1) * sizeof *units);
    units[nunits] = (unit_t){strdup(id), NULL, NULL, 0};
    return (int)nunits++;
}

/* Safe to print: control characters become '?' (names come from folder names). */
static const char *shown(const char *s) {
    static char buf[4][256];
    static int k;
    char *b = buf[k++ % 4];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof buf[0]; i++) b[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    b[i] = 0;
    return b;
}

/* The last two parts of a path (NN-name/file.c): what the instructor recognises. */
static const char *short_path(const char *p) {
    const char *a = strrchr(p, '/');
    if (!a) return p;
    const char *b = a;
    while (b > p && b[-1] != '/') b--;
    return b;
}

typedef struct {
    int a0, a1, b0, b1, n;
    const file_t *fa, *fb;
} region_t;

static int cmp_region(const void *x, const void *y) {
    const region_t *a = x, *b = y;
    return b->n - a->n;
}

/* The regions of unit a's files that match unit b's: the shared fingerprints of each pair of files,
 * in a's order, merged while both sides move forward by less than a window's span. */
static void regions(FILE *out, int a, int b, int k, int w) {
    region_t *r = NULL;
    size_t nr = 0;
    int gap = 2 * (k + w);
    for (size_t i = 0; i < nfiles; i++) {
        if (files[i].unit != a) continue;
        for (size_t j = 0; j < nfiles; j++) {
            if (files[j].unit != b) continue;
            const file_t *fa = &files[i], *fb = &files[j];
            region_t cur = {0};
            int lastA = 0, lastB = 0;
            for (size_t x = 0; x < fa->nfp; x++) {
                if (has(given, ngiven, fa->fp[x].h)) continue;
                const fp_t *m = NULL;
                for (size_t y = 0; y < fb->nfp; y++) {
                    if (fb->fp[y].h != fa->fp[x].h) continue;
                    if (!m) m = &fb->fp[y];
                    if (cur.n && fb->fp[y].pos > lastB && fb->fp[y].pos - lastB <= gap) {
                        m = &fb->fp[y];
                        break;
                    }
                }
                if (!m) continue;
                int cont = cur.n && fa->fp[x].pos - lastA <= gap && m->pos > lastB && m->pos - lastB <= gap;
                if (!cont) {
                    if (cur.n) r = xrealloc(r, (nr + 1) * sizeof *r), r[nr++] = cur;
                    cur = (region_t){fa->fp[x].line0, fa->fp[x].line1, m->line0, m->line1, 0, fa, fb};
                }
                if (fa->fp[x].line1 > cur.a1) cur.a1 = fa->fp[x].line1;
                if (m->line1 > cur.b1) cur.b1 = m->line1;
                if (m->line0 < cur.b0) cur.b0 = m->line0;
                cur.n++;
                lastA = fa->fp[x].pos, lastB = m->pos;
            }
            if (cur.n) r = xrealloc(r, (nr + 1) * sizeof *r), r[nr++] = cur;
        }
    }
    qsort(r, nr, sizeof *r, cmp_region);
    for (size_t i = 0; i < nr && i < MAX_REGIONS; i++)
        fprintf(out, "        %s:%d-%d  ~  %s:%d-%d  (%d fingerprint%s)\n", shown(short_path(r[i].fa->path)), r[i].a0,
                r[i].a1, shown(short_path(r[i].fb->path)), r[i].b0, r[i].b1, r[i].n, r[i].n == 1 ? "" : "s");
    if (nr > MAX_REGIONS) fprintf(out, "        ... and %zu smaller region(s)\n", nr - MAX_REGIONS);
    free(r);
}

typedef struct {
    int a, b;
    size_t shared, smaller;
    int pct;
} pair_t;

static int cmp_pair(const void *x, const void *y) {
    const pair_t *a = x, *b = y;
    if (a->pct != b->pct) return b->pct - a->pct;
    return a->a != b->a ? a->a - b->a : a->b - b->b;
}

static long number(const char *opt, const char *v, long lo, long hi) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || end == v || x < lo || x > hi) {
        fprintf(stderr, "similarity: %s wants a whole number from %ld to %ld, not '%s'\n", opt, lo, hi, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv) {
    int k = 20, w = 8, threshold = 50, all = 0;
    long min = 10;
    const char *report = NULL, *manifest = NULL, *title = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf(
                "usage: similarity [options] MANIFEST (the manifest and the method: the top of grading/similarity.c)\n"
                "  --k K            tokens a k-gram; default 20\n"
                "  --w W            k-grams a winnowing window; default 8\n"
                "  --threshold PCT  the pairs at or above it; default 50\n"
                "  --min N          the fewest fingerprints of its own a side needs to be compared; default 10\n"
                "  --all            every pair, whatever its score\n"
                "  --report FILE    append the pairs and their matching lines to FILE\n"
                "  --title TEXT     the heading of this manifest's part of the report\n");
            return 0;
        }
        if (strcmp(a, "--all") == 0)
            all = 1;
        else if (strcmp(a, "--k") == 0 && more)
            k = (int)number(a, argv[++i], 2, 1000);
        else if (strcmp(a, "--w") == 0 && more)
            w = (int)number(a, argv[++i], 1, 1000);
        else if (strcmp(a, "--threshold") == 0 && more)
            threshold = (int)number(a, argv[++i], 0, 100);
        else if (strcmp(a, "--min") == 0 && more)
            min = number(a, argv[++i], 1, 1000000);
        else if (strcmp(a, "--report") == 0 && more)
            report = argv[++i];
        else if (strcmp(a, "--title") == 0 && more)
            title = argv[++i];
        else if (a[0] == '-' || manifest) {
            fprintf(stderr,
                    "similarity: unexpected '%s' (usage: similarity [--k K] [--w W] [--threshold PCT] [--min N] "
                    "[--all] [--report FILE] [--title TEXT] MANIFEST)\n",
                    a);
            return 2;
        } else
            manifest = a;
    }
    if (!manifest) die("which manifest? (similarity [options] MANIFEST; see the top of grading/similarity.c)", NULL);
    FILE *m = fopen_regular(manifest);
    if (!m) die("cannot read the manifest ", manifest);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    while ((len = getline(&line, &cap, m)) > 0) {
        lineno++;
        if (line[len - 1] == '\n') line[--len] = 0;
        if (len == 0) continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1 || !t2 || t1 != line + 1 || !strchr("GRSN", line[0]) || t2 == t1 + 1 || !t2[1]) {
            fprintf(stderr, "similarity: %s line %ld: expected 'G|R|S|N <tab> ID <tab> PATH-or-NAME'\n", manifest,
                    lineno);
            return 2;
        }
        *t1 = *t2 = 0;
        const char *id = t1 + 1, *rest = t2 + 1;
        if (line[0] == 'N') {
            int u = unit_of(id);
            free(units[u].name);
            units[u].name = strdup(rest);
            continue;
        }
        char *src = read_all(rest);
        size_t ntok, nfp;
        tok_t *t = tokenize(src, &ntok);
        fp_t *fp = winnow(t, ntok, k, w, &nfp);
        free(src), free(t);
        if (line[0] == 'G') {
            given = xrealloc(given, (ngiven + nfp) * sizeof *given);
            for (size_t i = 0; i < nfp; i++) given[ngiven++] = fp[i].h;
            free(fp);
            continue;
        }
        files = xrealloc(files, (nfiles + 1) * sizeof *files);
        files[nfiles++] = (file_t){strdup(rest), unit_of(id), fp, nfp};
    }
    free(line);
    fclose(m);
    ngiven = sort_unique(given, ngiven);
    for (size_t f = 0; f < nfiles; f++) {
        unit_t *u = &units[files[f].unit];
        u->set = xrealloc(u->set, (u->nset + files[f].nfp) * sizeof *u->set);
        for (size_t i = 0; i < files[f].nfp; i++)
            if (!has(given, ngiven, files[f].fp[i].h)) u->set[u->nset++] = files[f].fp[i].h;
    }
    for (size_t u = 0; u < nunits; u++) units[u].nset = sort_unique(units[u].set, units[u].nset);

    pair_t *p = NULL;
    size_t np = 0;
    for (size_t a = 0; a < nunits; a++)
        for (size_t b = a + 1; b < nunits; b++) {
            const unit_t *A = &units[a], *B = &units[b];
            size_t small = A->nset < B->nset ? A->nset : B->nset, shared = 0;
            if (!all && small < (size_t)min) continue;
            for (size_t i = 0; i < A->nset; i++) shared += has(B->set, B->nset, A->set[i]);
            int pct = small < (size_t)min ? 0 : (int)(100 * shared / small);
            if (!all && pct < threshold) continue;
            p = xrealloc(p, (np + 1) * sizeof *p);
            p[np++] = (pair_t){(int)a, (int)b, shared, small, pct};
        }
    qsort(p, np, sizeof *p, cmp_pair);
    for (size_t i = 0; i < np; i++)
        printf("%s\t%s\t%d\t%zu\t%zu\n", units[p[i].a].id, units[p[i].b].id, p[i].pct, p[i].shared, p[i].smaller);

    if (report) {
        FILE *out = fopen(report, "a");
        if (!out) die("cannot write the report ", report);
        size_t above = 0;
        for (size_t i = 0; i < np; i++) above += p[i].pct >= threshold;
        fprintf(out,
                "%s%s%zu pair(s) at or above %d%% (tokens with names as one class, k=%d, w=%d; shared "
                "fingerprints over the smaller side's; the given code subtracted; fewer than %ld fingerprints: "
                "not compared)\n",
                shown(title), *title ? ": " : "", above, threshold, k, w, min);
        for (size_t i = 0; i < np; i++) {
            if (p[i].pct < threshold) continue;
            const unit_t *A = &units[p[i].a], *B = &units[p[i].b];
            fprintf(out, "  %3d%%  %s  ~  %s  (%zu of %zu fingerprints)\n", p[i].pct, shown(A->name ? A->name : A->id),
                    shown(B->name ? B->name : B->id), p[i].shared, p[i].smaller);
            regions(out, p[i].a, p[i].b, k, w);
        }
        fclose(out);
    }
    return 0;
}
