/* report — turn the grader's result table into JSON or a Gradescope results.json.
 *
 *   report --format json|gradescope [--out FILE] [--state TEXT] RESULTS.tsv
 *   report --validate FILE.json      check a Gradescope results.json (exit 0 when valid)
 *   report --sanitize FILE [BYTES]   print FILE as safe text (what every report holds)
 *
 * RESULTS.tsv has one line per check, tab-separated:
 *   lesson  name  description  score  max_score  seconds  passed|failed|inconclusive  output_file  [visibility  note]
 * (inconclusive: a timing check too noisy to decide; 0 points, counted apart as inconclusive_points).
 * The output of failed checks (as captured by supervise) goes into the report, shortened and
 * sanitised: it is partly written by submitted code, so it may hold anything (terminal escapes,
 * invalid UTF-8, megabytes). --state says how far grading got ("complete", or what was running when
 * it stopped); the report is rewritten after every check, so a grader that is killed leaves one. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regular.h"

#define MAX_OUTPUT 6000

/* Length of the valid UTF-8 sequence at p (of at most n bytes), 0 when it is not one. Overlong
 * forms, surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *p, size_t n) {
    if (p[0] < 0x80) return 1;
    size_t len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : 0;
    if (len == 0 || len > n || p[0] > 0xF4) return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0;
    if (len == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
    return len;
}

/* A multi-byte character that is a control all the same: C1 controls (U+0080-U+009F: U+009B is
 * CSI and U+009D OSC to a terminal that takes 8-bit controls, U+0085 a line break), the line and
 * paragraph separators U+2028/U+2029 (a line break to many viewers) and the bidirectional controls
 * U+202A-U+202E, U+2066-U+2069 (they reorder what is shown). Same rule as safe_text.h. */
static int unsafe_char(const unsigned char *p, size_t len) {
    if (len == 2) return p[0] == 0xC2 && p[1] <= 0x9F;
    if (len == 3 && p[0] == 0xE2 && p[1] == 0x80) return p[2] >= 0xA8 && p[2] <= 0xAE;
    if (len == 3 && p[0] == 0xE2 && p[1] == 0x81) return p[2] >= 0xA6 && p[2] <= 0xA9;
    return 0;
}

/* Valid UTF-8 with no control characters but newline and tab: invalid bytes become U+FFFD,
 * controls (escape sequences, NUL, carriage returns, DEL, and those of unsafe_char) become '?'. */
static char *sanitize(const unsigned char *in, size_t n) {
    char *out = malloc(3 * n + 1), *o = out;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(in + i, n - i);
        if (len == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3), o += 3, i++;
        } else if (len == 1 && ((in[i] < 0x20 && in[i] != '\n' && in[i] != '\t') || in[i] == 0x7F)) {
            *o++ = '?', i++;
        } else if (unsafe_char(in + i, len)) {
            *o++ = '?', i += len;
        } else {
            memcpy(o, in + i, len), o += len, i += len;
        }
    }
    *o = 0;
    return out;
}

/* The first max bytes of a file, sanitised; a note when there was more. */
static char *slurp(const char *path, size_t max) {
    FILE *f = fopen_regular(path);
    if (!f) return strdup("");
    unsigned char *raw = malloc(max + 1);
    size_t n = fread(raw, 1, max, f);
    int more = n == max && fgetc(f) != EOF;
    fclose(f);
    while (more && n > 0 && (raw[n - 1] & 0xC0) == 0x80) n--; /* do not cut a character in two */
    if (more && n > 0 && raw[n - 1] >= 0xC0) n--;
    char *text = sanitize(raw, n);
    free(raw);
    if (more) {
        text = realloc(text, strlen(text) + 32);
        strcat(text, "\n[... shortened ...]\n");
    }
    return text;
}

static int utf8_valid(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(p + i, n - i);
        if (len == 0) return 0;
        i += len;
    }
    return 1;
}

/* The fields Gradescope reads (https://gradescope-autograders.readthedocs.io, "Output format"). */
static int validate(const char *path) {
    FILE *f = fopen_regular(path);
    if (!f) {
        printf("cannot read %s\n", path);
        return 1;
    }
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *root = cJSON_Parse(buf);
    const char *why = NULL;
    cJSON *tests = root ? cJSON_GetObjectItemCaseSensitive(root, "tests") : NULL;
    double sum = 0;
    if (!utf8_valid((const unsigned char *)buf, n))
        why = "not valid UTF-8";
    else if (!root)
        why = "not valid JSON";
    else if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "score")))
        why = "no numeric top-level \"score\"";
    else if (!cJSON_IsArray(tests) || cJSON_GetArraySize(tests) == 0)
        why = "no \"tests\" array";
    else {
        cJSON *t;
        cJSON_ArrayForEach(t, tests) {
            cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "status");
            cJSON *vis = cJSON_GetObjectItemCaseSensitive(t, "visibility");
            if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "name")) ||
                !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "score")) ||
                !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "max_score")) ||
                !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "output")) || !cJSON_IsString(st) ||
                (strcmp(st->valuestring, "passed") && strcmp(st->valuestring, "failed")) || !cJSON_IsString(vis)) {
                why = "a test lacks name/score/max_score/status/output/visibility";
                break;
            }
            sum += cJSON_GetObjectItemCaseSensitive(t, "score")->valuedouble;
        }
        if (!why && sum != cJSON_GetObjectItemCaseSensitive(root, "score")->valuedouble)
            why = "the top-level score is not the sum of the tests' scores";
    }
    if (why)
        printf("%s: invalid Gradescope results: %s\n", path, why);
    else
        printf("%s: valid Gradescope results (%d tests, score %g)\n", path, cJSON_GetArraySize(tests), sum);
    cJSON_Delete(root);
    return why != NULL;
}

int main(int argc, char **argv) {
    const char *format = "json", *out = NULL, *in = NULL, *state = "complete";
    if (argc == 3 && !strcmp(argv[1], "--validate")) return validate(argv[2]);
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--sanitize")) {
        char *text = slurp(argv[2], argc == 4 ? (size_t)strtoull(argv[3], NULL, 10) : MAX_OUTPUT);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc)
            format = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--state") && i + 1 < argc)
            state = argv[++i];
        else
            in = argv[i];
    }
    int gradescope = !strcmp(format, "gradescope");
    if (!in || (!gradescope && strcmp(format, "json"))) {
        fprintf(stderr, "usage: report --format json|gradescope [--out FILE] RESULTS.tsv\n");
        return 2;
    }
    FILE *f = fopen_regular(in);
    if (!f) {
        fprintf(stderr, "report: cannot read %s\n", in);
        return 2;
    }
    cJSON *root = cJSON_CreateObject(), *tests = cJSON_CreateArray();
    double score = 0, max = 0, seconds = 0, undecided = 0;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *field[10] = {0};
        int k = 0;
        for (char *tok = line, *tab; k < 10 && tok; tok = tab ? tab + 1 : NULL) {
            tab = strchr(tok, '\t');
            if (tab) *tab = 0;
            field[k++] = tok;
        }
        if (k < 8) continue;
        double s = atof(field[3]), m = atof(field[4]), t = atof(field[5]);
        int passed = !strcmp(field[6], "passed"), inconclusive = !strcmp(field[6], "inconclusive");
        const char *visibility = k > 8 && field[8][0] ? field[8] : "visible";
        /* the note and the names may quote a submission (grading/grade sanitises them too) */
        char *note = sanitize((const unsigned char *)(k > 9 ? field[9] : ""), strlen(k > 9 ? field[9] : ""));
        score += s;
        max += m;
        if (inconclusive) undecided += m;
        seconds += t;
        cJSON *o = cJSON_CreateObject();
        char name[512];
        snprintf(name, sizeof name, "%s%s %s: %s", inconclusive ? "[INCONCLUSIVE] " : "", field[0], field[1], field[2]);
        char *safe_name = sanitize((const unsigned char *)name, strlen(name));
        cJSON_AddStringToObject(o, "name", safe_name);
        free(safe_name);
        if (!gradescope) {
            cJSON_AddStringToObject(o, "lesson", field[0]);
            cJSON_AddStringToObject(o, "check", field[1]);
        }
        cJSON_AddNumberToObject(o, "score", s);
        cJSON_AddNumberToObject(o, "max_score", m);
        /* Gradescope knows only passed and failed: an inconclusive check is "failed" there, named and
         * explained as INCONCLUSIVE */
        cJSON_AddStringToObject(o, "status",
                                passed                        ? "passed"
                                : inconclusive && !gradescope ? "inconclusive"
                                                              : "failed");
        char *text = passed ? strdup("") : slurp(field[7], MAX_OUTPUT);
        if (inconclusive) {
            const char *why =
                "INCONCLUSIVE: the machine was too busy to measure this check; it says nothing about your "
                "code. It scores 0 until it is graded again on a quieter machine.\n";
            char *with = malloc(strlen(text) + strlen(why) + 1);
            sprintf(with, "%s%s", why, text);
            free(text);
            text = with;
        }
        if (note[0]) { /* the note goes first: it says what the score does not */
            char *with = malloc(strlen(text) + strlen(note) + 8);
            sprintf(with, "NOTE: %s\n%s", note, text);
            free(text);
            text = with;
        }
        cJSON_AddStringToObject(o, "output", text);
        free(text);
        if (gradescope)
            cJSON_AddStringToObject(o, "visibility", strcmp(visibility, "hidden") ? "visible" : "after_published");
        else {
            cJSON_AddNumberToObject(o, "seconds", t);
            cJSON_AddStringToObject(o, "visibility", visibility);
            cJSON_AddStringToObject(o, "note", note);
        }
        free(note);
        cJSON_AddItemToArray(tests, o);
    }
    fclose(f);
    cJSON_AddNumberToObject(root, "score", score);
    if (gradescope) {
        cJSON_AddNumberToObject(root, "execution_time", (int)(seconds + 0.5));
        char summary[1024];
        char extra[160] = "";
        if (undecided > 0)
            snprintf(extra, sizeof extra, " (%g points INCONCLUSIVE: too noisy to measure; they will be graded again)",
                     undecided);
        if (strcmp(state, "complete"))
            snprintf(summary, sizeof summary, "Score: %g/%g%s. Grading did not finish: %s", score, max, extra, state);
        else
            snprintf(summary, sizeof summary, "Score: %g/%g%s", score, max, extra);
        cJSON_AddStringToObject(root, "output", summary);
        cJSON_AddStringToObject(root, "visibility", "visible");
        cJSON_AddStringToObject(root, "stdout_visibility", "visible");
    } else {
        cJSON_AddNumberToObject(root, "max_score", max);
        cJSON_AddNumberToObject(root, "inconclusive_points", undecided);
        cJSON_AddNumberToObject(root, "seconds", seconds);
        cJSON_AddStringToObject(root, "state", state);
    }
    cJSON_AddItemToObject(root, "tests", tests);
    char *s = cJSON_Print(root);
    /* written to FILE.tmp.PID and renamed: a reader (or a grader killed mid-write) never sees half a
     * file, and two reports written at once never share a temporary */
    char tmp[4096];
    if (out) snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    FILE *o = out ? fopen(tmp, "w") : stdout;
    if (!o) {
        fprintf(stderr, "report: cannot write %s\n", out);
        return 2;
    }
    fprintf(o, "%s\n", s);
    if (out && (fclose(o) != 0 || rename(tmp, out) != 0)) {
        fprintf(stderr, "report: cannot write %s\n", out);
        return 2;
    }
    free(s);
    cJSON_Delete(root);
    return 0;
}
