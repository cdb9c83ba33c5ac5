/* report — turn the grader's result table into JSON or a Gradescope results.json.
 *
 *   report --format json|gradescope [--out FILE] RESULTS.tsv
 *   report --validate FILE.json      check a Gradescope results.json (exit 0 when valid)
 *
 * RESULTS.tsv has one line per check, tab-separated:
 *   lesson  name  description  score  max_score  seconds  passed|failed  output_file
 * The output of failed checks (as captured by supervise) goes into the report, shortened. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUT 6000

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    char *buf = malloc(MAX_OUTPUT + 64);
    size_t n = fread(buf, 1, MAX_OUTPUT, f);
    buf[n] = 0;
    if (n == MAX_OUTPUT && fgetc(f) != EOF) strcat(buf, "\n[... shortened ...]\n");
    fclose(f);
    /* keep it valid UTF-8-ish for JSON consumers: replace control bytes */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') *p = '?';
    return buf;
}

/* The fields Gradescope reads (https://gradescope-autograders.readthedocs.io, "Output format"). */
static int validate(const char *path) {
    FILE *f = fopen(path, "rb");
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
    if (!root) why = "not valid JSON";
    else if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "score"))) why = "no numeric top-level \"score\"";
    else if (!cJSON_IsArray(tests) || cJSON_GetArraySize(tests) == 0) why = "no \"tests\" array";
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
    if (why) printf("%s: invalid Gradescope results: %s\n", path, why);
    else printf("%s: valid Gradescope results (%d tests, score %g)\n", path, cJSON_GetArraySize(tests), sum);
    cJSON_Delete(root);
    return why != NULL;
}

int main(int argc, char **argv) {
    const char *format = "json", *out = NULL, *in = NULL;
    if (argc == 3 && !strcmp(argv[1], "--validate")) return validate(argv[2]);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) format = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else in = argv[i];
    }
    int gradescope = !strcmp(format, "gradescope");
    if (!in || (!gradescope && strcmp(format, "json"))) {
        fprintf(stderr, "usage: report --format json|gradescope [--out FILE] RESULTS.tsv\n");
        return 2;
    }
    FILE *f = fopen(in, "r");
    if (!f) {
        fprintf(stderr, "report: cannot read %s\n", in);
        return 2;
    }
    cJSON *root = cJSON_CreateObject(), *tests = cJSON_CreateArray();
    double score = 0, max = 0, seconds = 0;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *field[8] = {0};
        int k = 0;
        for (char *tok = line, *tab; k < 8 && tok; tok = tab ? tab + 1 : NULL) {
            tab = strchr(tok, '\t');
            if (tab) *tab = 0;
            field[k++] = tok;
        }
        if (k < 8) continue;
        double s = atof(field[3]), m = atof(field[4]), t = atof(field[5]);
        int passed = !strcmp(field[6], "passed");
        score += s;
        max += m;
        seconds += t;
        cJSON *o = cJSON_CreateObject();
        char name[512];
        snprintf(name, sizeof name, "%s %s: %s", field[0], field[1], field[2]);
        cJSON_AddStringToObject(o, "name", name);
        if (!gradescope) {
            cJSON_AddStringToObject(o, "lesson", field[0]);
            cJSON_AddStringToObject(o, "check", field[1]);
        }
        cJSON_AddNumberToObject(o, "score", s);
        cJSON_AddNumberToObject(o, "max_score", m);
        cJSON_AddStringToObject(o, "status", passed ? "passed" : "failed");
        char *text = passed ? strdup("") : slurp(field[7]);
        cJSON_AddStringToObject(o, "output", text);
        free(text);
        if (gradescope) cJSON_AddStringToObject(o, "visibility", "visible");
        else cJSON_AddNumberToObject(o, "seconds", t);
        cJSON_AddItemToArray(tests, o);
    }
    fclose(f);
    cJSON_AddNumberToObject(root, "score", score);
    if (gradescope) {
        cJSON_AddNumberToObject(root, "execution_time", (int)(seconds + 0.5));
        char summary[128];
        snprintf(summary, sizeof summary, "Score: %g/%g", score, max);
        cJSON_AddStringToObject(root, "output", summary);
        cJSON_AddStringToObject(root, "visibility", "visible");
        cJSON_AddStringToObject(root, "stdout_visibility", "visible");
    } else {
        cJSON_AddNumberToObject(root, "max_score", max);
        cJSON_AddNumberToObject(root, "seconds", seconds);
    }
    cJSON_AddItemToObject(root, "tests", tests);
    char *s = cJSON_Print(root);
    FILE *o = out ? fopen(out, "w") : stdout;
    if (!o) {
        fprintf(stderr, "report: cannot write %s\n", out);
        return 2;
    }
    fprintf(o, "%s\n", s);
    if (out) fclose(o);
    free(s);
    cJSON_Delete(root);
    return 0;
}
