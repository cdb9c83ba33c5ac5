/* cli.c — see cli.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "crash.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_launcher_rank(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}

int cli_launcher_size(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 1;
}

bool cli_launched(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "PMIX_NAMESPACE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return true;
    }
    return false;
}

void cli_usage_error(const char *fmt, ...) {
    if (cli_launcher_rank() == 0) {
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        fprintf(stderr, "%s: %s (see --help)\n", dp_progname(), line);
    }
    dp_exit(2);
}

static int opt_count(const cli_opt_t *o) {
    int n = 0;
    while (o[n].name) n++;
    return n;
}

cli_opt_t *cli_join(const cli_opt_t *a, const cli_opt_t *b) {
    int na = opt_count(a), nb = opt_count(b);
    cli_opt_t *out = dp_calloc((size_t)(na + nb + 1), sizeof *out);
    memcpy(out, a, (size_t)na * sizeof *out);
    memcpy(out + na, b, (size_t)nb * sizeof *out);
    return out;
}

/* Edit distance, for "did you mean". */
static int distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63) return 99;
    int d[64][64];
    for (int i = 0; i <= la; i++) d[i][0] = i;
    for (int j = 0; j <= lb; j++) d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

static bool in_range(const cli_opt_t *o, double v) {
    if (o->min == 0 && o->max == 0) return true;
    return v >= o->min && v <= o->max;
}

/* ": <why>" after a number out of range, where the table says why the range is what it is. */
static const char *why_tail(const cli_opt_t *o, bool parsed, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", parsed && o->why ? ": " : "", parsed && o->why ? o->why : "");
    return buf;
}

static void set_value(const cli_opt_t *o, const char *val, const char *source) {
    char *end = NULL, tail[512];
    errno = 0;
    switch (o->kind) {
    case CLI_INT: {
        long v = strtol(val, &end, 10);
        bool parsed = !errno && end != val && !*end && v >= INT32_MIN && v <= INT32_MAX;
        if (!parsed || !in_range(o, (double)v)) {
            if (o->min != 0 || o->max != 0)
                cli_usage_error("%s expects an integer in [%.0f, %.0f], got '%s'%s", source, o->min, o->max, val,
                                why_tail(o, parsed, tail, sizeof tail));
            cli_usage_error("%s expects an integer, got '%s'", source, val);
        }
        *(int *)o->dest = (int)v;
        break;
    }
    case CLI_U64: {
        /* anywhere, not only first: strtoull skips leading blanks and wraps " -1" to 2^64-1 */
        if (strchr(val, '-')) cli_usage_error("%s expects a non-negative integer, got '%s'", source, val);
        unsigned long long v = strtoull(val, &end, 0);
        if (errno || end == val || *end) cli_usage_error("%s expects a non-negative integer, got '%s'", source, val);
        *(uint64_t *)o->dest = (uint64_t)v;
        break;
    }
    case CLI_FLOAT: {
        double v = strtod(val, &end);
        bool parsed = !errno && end != val && !*end && isfinite(v);
        if (!parsed || !in_range(o, v)) {
            if (o->min != 0 || o->max != 0)
                cli_usage_error("%s expects a number in [%g, %g], got '%s'%s", source, o->min, o->max, val,
                                why_tail(o, parsed, tail, sizeof tail));
            cli_usage_error("%s expects a number, got '%s'", source, val);
        }
        *(double *)o->dest = v;
        break;
    }
    case CLI_STRING:
        if (!*val) cli_usage_error("%s expects a value, got an empty string", source);
        *(const char **)o->dest = val;
        break;
    case CLI_CHOICE: {
        size_t n = strlen(val);
        const char *c = o->choices;
        while (c && *c) {
            const char *bar = strchr(c, '|');
            size_t len = bar ? (size_t)(bar - c) : strlen(c);
            if (len == n && strncmp(c, val, n) == 0) {
                *(const char **)o->dest = val;
                return;
            }
            c = bar ? bar + 1 : NULL;
        }
        cli_usage_error("%s expects one of %s, got '%s'", source, o->choices, val);
    }
    case CLI_FLAG:
        if (!strcmp(val, "1") || !strcmp(val, "true") || !strcmp(val, "yes"))
            *(bool *)o->dest = true;
        else if (!strcmp(val, "0") || !strcmp(val, "false") || !strcmp(val, "no"))
            *(bool *)o->dest = false;
        else
            cli_usage_error("%s is a switch: give 1/0, true/false or yes/no, got '%s'", source, val);
        break;
    case CLI_END_KIND:
        break;
    }
}

static void print_help(const cli_opt_t *opts, const char *usage) {
    printf("usage: %s\n\noptions:\n", usage);
    for (const cli_opt_t *o = opts; o->name; o++) {
        char def[128] = "";
        switch (o->kind) {
        case CLI_INT:
            snprintf(def, sizeof def, "%d", *(int *)o->dest);
            break;
        case CLI_U64:
            snprintf(def, sizeof def, "%" PRIu64, *(uint64_t *)o->dest);
            break;
        case CLI_FLOAT:
            snprintf(def, sizeof def, "%g", *(double *)o->dest);
            break;
        case CLI_STRING:
        case CLI_CHOICE: {
            const char *s = *(const char **)o->dest;
            snprintf(def, sizeof def, "%s", s ? s : "none");
            break;
        }
        case CLI_FLAG:
            snprintf(def, sizeof def, "%s", *(bool *)o->dest ? "on" : "off");
            break;
        case CLI_END_KIND:
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "--%s%s", o->name,
                 o->kind == CLI_FLAG     ? ""
                 : o->kind == CLI_CHOICE ? " WHICH"
                                         : " X");
        printf("  %-26s %s [%s]", name, o->help ? o->help : "", def);
        if (o->kind == CLI_CHOICE) printf(" (%s)", o->choices);
        if (o->env) printf(" (env %s)", o->env);
        printf("\n");
    }
}

void cli_parse_positional(int argc, char **argv, const cli_opt_t *opts, const char *usage, const char **positional,
                          int max_positional, int *npositional) {
    dp_set_progname(argc > 0 ? argv[0] : NULL);
    dp_crash_report_install(); /* a crash names its frames (crash.h): every lesson program starts here */
    if (npositional) *npositional = 0;
    /* Environment first, so that the command line overrides it. */
    for (const cli_opt_t *o = opts; o->name; o++) {
        const char *v = o->env ? getenv(o->env) : NULL;
        if (v && *v) {
            char source[96];
            snprintf(source, sizeof source, "environment variable %s", o->env);
            set_value(o, v, source);
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            if (cli_launcher_rank() == 0) print_help(opts, usage);
            exit(0);
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (positional && *npositional < max_positional) {
                positional[(*npositional)++] = arg;
                continue;
            }
            cli_usage_error("unexpected argument '%s'", arg);
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const cli_opt_t *match = NULL;
        for (const cli_opt_t *o = opts; o->name; o++)
            if (strlen(o->name) == nlen && !strncmp(o->name, name, nlen)) match = o;
        if (!match) {
            char given[64];
            snprintf(given, sizeof given, "%.*s", (int)(nlen < 60 ? nlen : 60), name);
            const cli_opt_t *best = NULL;
            int bestd = 3;
            for (const cli_opt_t *o = opts; o->name; o++) {
                int d = distance(given, o->name);
                if (d < bestd) bestd = d, best = o;
            }
            if (best) cli_usage_error("unknown option --%s (did you mean --%s?)", given, best->name);
            cli_usage_error("unknown option --%s", given);
        }
        char source[80];
        snprintf(source, sizeof source, "--%s", match->name);
        if (match->kind == CLI_FLAG && !eq) {
            *(bool *)match->dest = true;
            continue;
        }
        const char *val = eq ? eq + 1 : NULL;
        if (!val) {
            if (i + 1 >= argc) cli_usage_error("%s needs a value", source);
            val = argv[++i];
        }
        set_value(match, val, source);
    }
}

void cli_parse(int argc, char **argv, const cli_opt_t *opts, const char *usage) {
    cli_parse_positional(argc, argv, opts, usage, NULL, 0, NULL);
}

static size_t parse_size(const char *opt, const char *s, double max_bytes) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0) cli_usage_error("%s '%s' is not a size (examples: 8, 64K, 16M, 1G)", opt, s);
    const char *units = "kKmMgG";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (u) v *= pow(1024, (double)((u - units) / 2 + 1)), end++;
    if (*end) cli_usage_error("%s '%s' is not a size (examples: 8, 64K, 16M, 1G)", opt, s);
    if (v > max_bytes)
        cli_usage_error("%s %s is more than one call carries (%.0f bytes: 2^31-1 float32 values)", opt, s, max_bytes);
    return (size_t)v;
}

void cli_size_range(const char *begin_s, const char *end_s, double max_bytes, size_t *begin, size_t *end) {
    *begin = parse_size("--begin", begin_s, max_bytes);
    *end = parse_size("--end", end_s, max_bytes);
    if (*begin < 4 || *end < *begin) cli_usage_error("need 4 <= --begin <= --end (got %zu and %zu)", *begin, *end);
}
