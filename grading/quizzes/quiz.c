/* quiz — a lesson's self-check quiz: asked in a terminal, or an answers file graded.
 *
 *   quiz NN [--student ID]                          ask one question at a time (stdin)
 *   quiz NN --student ID --questions                print the student's questions (to fill a file)
 *   quiz NN --student ID --answers FILE [--results-tsv FILE --outputs DIR]
 *                                                   grade FILE; text: a line per question, the
 *                                                   working after a wrong one, "Score: x/y" last
 *   quiz NN --student ID --answer-key               the answers (for tests and instructors)
 *
 * The answers file: one line per question, "3: 4096" (a number), "3: b" (a choice), "3: 4 7 1"
 * (a list); blank lines and lines starting with # are ignored. The numbers of a quiz are drawn from
 * the student id and the lesson (a hash of both seeds common/rng.h's generator), so two students get
 * different numbers and the same student always the same. grading/quiz (the shell front) adds the
 * JSON and Gradescope reports. Exit status: 0 full marks, 1 below, 2 bad input; asked in a terminal,
 * 0 once the quiz ran (its score is printed; stdin may end early), 2 for bad input. */
#define _POSIX_C_SOURCE 200809L
#include "quiz.h"
#include "quiz_lessons.h"
#include "regular.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUIZ_LESSON(nn) void quiz_##nn(quiz_t *qz, rng_t *r);
QUIZ_LESSONS
#undef QUIZ_LESSON

typedef struct {
    const char *lesson;
    quiz_lesson_fn fn;
} quiz_entry_t;

static const quiz_entry_t quiz_table[] = {
#define QUIZ_LESSON(nn) {#nn, quiz_##nn},
    QUIZ_LESSONS
#undef QUIZ_LESSON
};
#define QUIZ_NLESSONS ((int)(sizeof quiz_table / sizeof quiz_table[0]))

static int fail(const char *msg, const char *detail) {
    fprintf(stderr, "quiz: %s%s\n", msg, detail ? detail : "");
    return 2;
}

/* FNV-1a over "lesson NUL student": the student's stream for this lesson. */
static uint64_t quiz_seed(const char *lesson, const char *student) {
    uint64_t h = 1469598103934665603ull;
    const char *parts[2] = {lesson, student};
    for (int p = 0; p < 2; p++) {
        for (const unsigned char *s = (const unsigned char *)parts[p]; *s; s++) h = (h ^ *s) * 1099511628211ull;
        h = (h ^ 0) * 1099511628211ull;
    }
    return h;
}

static void print_answer(FILE *f, const quiz_q_t *q) {
    if (q->kind == QUIZ_NUMBER) {
        fprintf(f, "%.10g", q->answer);
    } else if (q->kind == QUIZ_CHOICE) {
        fprintf(f, "%c", 'a' + (int)q->answer);
    } else {
        for (int i = 0; i < q->nlist; i++) fprintf(f, "%s%lld", i ? " " : "", q->list[i]);
    }
}

static void print_question(FILE *f, int i, const quiz_q_t *q) {
    fprintf(f, "%d. %s\n", i + 1, q->text);
    for (int c = 0; c < q->nchoices; c++) fprintf(f, "   %c) %s\n", 'a' + c, q->choices[c]);
    if (q->kind == QUIZ_NUMBER && q->rtol > 0)
        fprintf(f, "   (a number; within %g%% counts)\n", q->rtol * 100);
    else if (q->kind == QUIZ_NUMBER)
        fprintf(f, "   (a whole number, exact)\n");
    else if (q->kind == QUIZ_LIST)
        fprintf(f, "   (whole numbers separated by spaces)\n");
    else
        fprintf(f, "   (a letter)\n");
}

/* Parse `s` as an answer to q: 0 and *right set, or -1 with what is wrong in err. */
static int judge(const quiz_q_t *q, const char *s, int *right, char *err, size_t errlen) {
    while (isspace((unsigned char)*s)) s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1])) len--;
    char buf[512];
    if (len == 0 || len >= sizeof buf) {
        snprintf(err, errlen, len ? "the answer is too long" : "the answer is empty");
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = 0;
    if (q->kind == QUIZ_CHOICE) {
        int c = tolower((unsigned char)buf[0]) - 'a';
        if (len != 1 || c < 0 || c >= q->nchoices) {
            snprintf(err, errlen, "'%.40s' is not one of the letters a-%c", buf, 'a' + q->nchoices - 1);
            return -1;
        }
        *right = c == (int)q->answer;
        return 0;
    }
    if (q->kind == QUIZ_LIST) {
        long long v[QUIZ_MAX_LIST];
        int n = 0;
        char *p = buf;
        for (;;) {
            while (*p == ' ' || *p == ',' || *p == '\t') p++;
            if (!*p) break;
            char *end;
            errno = 0;
            long long x = strtoll(p, &end, 10);
            if (end == p || errno || (*end && *end != ' ' && *end != ',' && *end != '\t')) {
                snprintf(err, errlen, "'%.40s' is not a list of whole numbers separated by spaces", buf);
                return -1;
            }
            if (n < QUIZ_MAX_LIST) v[n] = x;
            n++;
            p = end;
        }
        *right = n == q->nlist;
        for (int i = 0; *right && i < n; i++) *right = v[i] == q->list[i];
        return 0;
    }
    char num[512];
    size_t k = 0;
    for (size_t i = 0; i < len; i++) /* thousands separators: 4,096 and 4_096 read as 4096 */
        if (buf[i] != ',' && buf[i] != '_') num[k++] = buf[i];
    num[k] = 0;
    char *end;
    double x = strtod(num, &end);
    if (end == num || *end || !isfinite(x)) {
        snprintf(err, errlen, "'%.40s' is not a number", buf);
        return -1;
    }
    double tol = q->rtol > 0 ? q->rtol * fabs(q->answer) : 1e-9 * fmax(1.0, fabs(q->answer));
    *right = fabs(x - q->answer) <= tol;
    return 0;
}

static void explain(FILE *f, const quiz_q_t *q, const char *indent) {
    fprintf(f, "%sthe answer: ", indent);
    print_answer(f, q);
    if (q->kind == QUIZ_CHOICE) fprintf(f, ") %s", q->choices[(int)q->answer]);
    fprintf(f, "\n%s%s\n", indent, q->why);
}

static int interactive(const quiz_t *qz, const char *lesson, const char *student) {
    printf("Lesson %s quiz for student '%s': %d questions. Numbers are yours: another id gets others.\n\n", lesson,
           student, qz->n);
    int score = 0;
    char line[512];
    for (int i = 0; i < qz->n; i++) {
        const quiz_q_t *q = &qz->q[i];
        print_question(stdout, i, q);
        for (;;) {
            printf("> ");
            fflush(stdout);
            if (!fgets(line, sizeof line, stdin)) {
                printf("\nScore: %d/%d (stopped at question %d)\n", score, qz->n, i + 1);
                return 0;
            }
            int right;
            char err[256];
            if (judge(q, line, &right, err, sizeof err) == 0) {
                score += right;
                if (right)
                    printf("Right.\n\n");
                else {
                    printf("Not quite:\n");
                    explain(stdout, q, "  ");
                    printf("\n");
                }
                break;
            }
            printf("%s; try again.\n", err);
        }
    }
    printf("Score: %d/%d\n", score, qz->n);
    return 0;
}

/* One TSV row per question in grade's results format (grading/report.c), its working in a file. */
static void tsv_row(FILE *tsv, const char *outputs, const char *lesson, int i, const quiz_q_t *q, int right,
                    const char *said) {
    char path[4096] = "";
    FILE *o = NULL;
    if (outputs) {
        snprintf(path, sizeof path, "%s/%s-q%d.txt", outputs, lesson, i + 1);
        o = fopen(path, "w");
    }
    if (o) {
        fprintf(o, "%s\nyour answer: %s\n", q->text, said);
        explain(o, q, "");
        fclose(o);
    }
    char desc[81];
    size_t k = 0;
    for (const char *s = q->text; *s && k < sizeof desc - 4; s++) desc[k++] = (*s == '\t' || *s == '\n') ? ' ' : *s;
    while (k > 0 && ((unsigned char)desc[k - 1] & 0xC0) == 0x80) k--; /* do not cut a character */
    if (k > 0 && (unsigned char)desc[k - 1] >= 0xC0) k--;
    desc[k] = 0;
    fprintf(tsv, "%s\tquiz_q%d\t%s\t%d\t1\t0\t%s\t%s\n", lesson, i + 1, desc, right, right ? "passed" : "failed",
            o ? path : "");
}

static int grade_file(const quiz_t *qz, const char *lesson, const char *path, const char *tsv_path,
                      const char *outputs) {
    FILE *f = fopen_regular(path); /* never a FIFO or a directory: a grader must not hang on one */
    if (!f) {
        fprintf(stderr,
                "quiz: cannot read the answers file %s (missing, or not a regular file); write it with "
                "--questions first\n",
                path);
        return 2;
    }
    char given[QUIZ_MAX_QUESTIONS][512];
    int have[QUIZ_MAX_QUESTIONS] = {0};
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#') continue;
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || *end != ':') {
            fprintf(stderr, "quiz: %s line %d: expected 'QUESTION: ANSWER' (e.g. '3: 4096'), got '%.40s'\n", path,
                    lineno, strtok(s, "\n"));
            fclose(f);
            return 2;
        }
        if (n < 1 || n > qz->n) {
            fprintf(stderr, "quiz: %s line %d: there is no question %ld (lesson %s has questions 1-%d)\n", path, lineno,
                    n, lesson, qz->n);
            fclose(f);
            return 2;
        }
        if (have[n - 1]) {
            fprintf(stderr, "quiz: %s line %d: question %ld is answered twice; keep one line\n", path, lineno, n);
            fclose(f);
            return 2;
        }
        char *a = end + 1;
        while (*a == ' ' || *a == '\t') a++;
        a[strcspn(a, "\r\n")] = 0;
        snprintf(given[n - 1], sizeof given[n - 1], "%s", a);
        have[n - 1] = 1;
    }
    fclose(f);
    FILE *tsv = NULL;
    if (tsv_path && !(tsv = fopen(tsv_path, "w"))) return fail("cannot write ", tsv_path);
    int score = 0;
    for (int i = 0; i < qz->n; i++) {
        const quiz_q_t *q = &qz->q[i];
        int right = 0;
        char err[256] = "no answer";
        const char *said = have[i] ? given[i] : "(none)";
        if (have[i] && judge(q, given[i], &right, err, sizeof err) == 0) err[0] = 0;
        score += right;
        if (right) {
            printf("%s q%d: OK\n", lesson, i + 1);
        } else {
            printf("%s q%d: WRONG%s%s%s\n", lesson, i + 1, err[0] ? " (" : "", err, err[0] ? ")" : "");
            printf("    %s\n    your answer: %s\n", q->text, said);
            explain(stdout, q, "    ");
        }
        if (tsv) tsv_row(tsv, outputs, lesson, i, q, right, said);
    }
    if (tsv) fclose(tsv);
    printf("Score: %d/%d\n", score, qz->n);
    return score == qz->n ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *lesson = NULL, *student = NULL, *answers = NULL, *tsv = NULL, *outputs = NULL;
    int questions = 0, key = 0, list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--student") && more)
            student = argv[++i];
        else if (!strcmp(a, "--answers") && more)
            answers = argv[++i];
        else if (!strcmp(a, "--results-tsv") && more)
            tsv = argv[++i];
        else if (!strcmp(a, "--outputs") && more)
            outputs = argv[++i];
        else if (!strcmp(a, "--questions") || !strcmp(a, "--print"))
            questions = 1;
        else if (!strcmp(a, "--answer-key"))
            key = 1;
        else if (!strcmp(a, "--list"))
            list = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: quiz NN [--student ID] [--questions | --answers FILE]   (grading/quiz adds --format, "
                   "--out)\n"
                   "  --student ID       the numbers are drawn from it (default: $USER when asked in a terminal)\n"
                   "  --questions        print the questions as an answers file to fill (also --print)\n"
                   "  --answers FILE     grade FILE: lines 'N: ANSWER'; 'Score: x/y' last\n"
                   "  --answer-key       the computed answers (tests, instructors)\n"
                   "  --results-tsv FILE with --answers: grade's result table (grading/report.c)\n"
                   "  --outputs DIR      with --results-tsv: each question's working, one file each\n"
                   "  --list             the lessons that have a quiz\n");
            return 0;
        } else if (a[0] == '-')
            return fail("unknown option or missing value: ", a);
        else if (lesson)
            return fail("one lesson at a time; got a second: ", a);
        else
            lesson = a;
    }
    if (list) {
        for (int l = 0; l < QUIZ_NLESSONS; l++) printf("%s\n", quiz_table[l].lesson);
        return 0;
    }
    if (!lesson) return fail("which lesson? grading/quiz NN (e.g. grading/quiz 04)", NULL);
    const quiz_entry_t *e = NULL;
    for (int l = 0; l < QUIZ_NLESSONS; l++)
        if (!strcmp(quiz_table[l].lesson, lesson)) e = &quiz_table[l];
    if (!e) {
        char have[256] = "";
        for (int l = 0; l < QUIZ_NLESSONS; l++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", l ? " " : "", quiz_table[l].lesson);
        fprintf(stderr, "quiz: there is no quiz for lesson '%s'; the quizzes are: %s\n", lesson, have);
        return 2;
    }
    if ((answers || questions || key) && (!student || !student[0]))
        return fail("--student ID is required with --answers, --questions and --answer-key (the numbers are drawn "
                    "from it)",
                    NULL);
    if (!student || !student[0]) student = getenv("USER") && getenv("USER")[0] ? getenv("USER") : "student";
    quiz_t qz = {0};
    rng_t r;
    rng_init(&r, quiz_seed(lesson, student));
    e->fn(&qz, &r);
    if (key) {
        for (int i = 0; i < qz.n; i++) {
            printf("%d: ", i + 1);
            print_answer(stdout, &qz.q[i]);
            printf("\n");
        }
        return 0;
    }
    if (questions) {
        printf("# lesson %s quiz for student '%s': answer each as 'N: ANSWER' on a line of its own, then\n"
               "#   grading/quiz %s --student '%s' --answers THIS_FILE\n",
               lesson, student, lesson, student);
        for (int i = 0; i < qz.n; i++) {
            printf("#\n");
            char buf[4 * QUIZ_TEXT];
            FILE *m = fmemopen(buf, sizeof buf, "w");
            print_question(m, i, &qz.q[i]);
            fclose(m);
            for (char *s = strtok(buf, "\n"); s; s = strtok(NULL, "\n")) printf("# %s\n", s);
            printf("%d: \n", i + 1);
        }
        return 0;
    }
    if (answers) return grade_file(&qz, lesson, answers, tsv, outputs);
    return interactive(&qz, lesson, student);
}
