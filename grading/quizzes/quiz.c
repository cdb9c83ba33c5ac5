/* quiz — a lesson's self-check quiz: asked in a terminal, or an answers file graded.
 *
 *   quiz NN [--student ID]                          ask one question at a time (stdin)
 *   quiz NN --student ID --questions                print the student's questions (to fill a file)
 *   quiz NN --student ID --answers FILE [--results-tsv FILE --outputs DIR]
 *                                                   grade FILE; text: a line per question, the
 *                                                   working after a wrong one, "Score: x/y" last
 *   quiz NN --student ID --answer-key               the answers (for tests and instructors)
 *   --for-credit (with --answers, or asked)         verdicts only: never an answer or its working
 *
 * The answers file: one line per question, "3: 4096" (a number), "3: b" (a choice), "3: 4 7 1"
 * (a list); blank lines and lines starting with # are ignored, but for the header --questions writes
 * ("# lesson 04 quiz for student 'ann': ..."): a file written for another student or lesson is bad
 * input, said in one line, not a silent score of about 0. The numbers of a quiz are drawn from the
 * normalised student id and the lesson (a hash of both seeds common/rng.h's generator), so two
 * students get different numbers and the same student always the same. Everything the student wrote
 * is printed made safe (safe_text.h). grading/quiz (the shell front) adds the JSON and Gradescope
 * reports. Exit status: 0 full marks, 1 below, 2 bad input; asked in a terminal, 0 once the quiz ran
 * (its score is printed; stdin may end early), 2 for bad input. */
#define _POSIX_C_SOURCE 200809L
#include "quiz.h"
#include "quiz_lessons.h"
#include "regular.h"
#include "safe_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A student id as the quiz uses it: surrounding whitespace dropped, every run of whitespace inside
 * one space, ASCII letters in lower case ("  Ann  Lee " is "ann lee"), so that the id an instructor
 * types, a folder's name and the header of an answers file agree however they were typed. Valid: 1 to
 * QUIZ_ID_MAX bytes of UTF-8 with no control character (quotes, commas and accents are fine; letters
 * beyond ASCII keep their case). 0 and out set, or -1 with why (the id shown made safe). */
#define QUIZ_ID_MAX   64
#define QUIZ_MAX_FILE (64 * 1024)
static int normalise_id(const char *raw, char *out, size_t outlen, char *why, size_t whylen) {
    char buf[4 * QUIZ_ID_MAX];
    size_t k = 0;
    int space = 0;
    for (const unsigned char *s = (const unsigned char *)raw; *s; s++) {
        if (isspace(*s)) {
            space = k > 0;
            continue;
        }
        if (k + 2 >= sizeof buf) { /* room for a pending space and this byte */
            k = sizeof buf;
            break;
        }
        if (space) buf[k++] = ' ';
        space = 0;
        buf[k++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
    }
    char shown[48];
    safe_text(shown, sizeof shown, raw);
    if (k == 0) {
        snprintf(why, whylen, "the student id is empty; give --student ID (your id, as your instructor has it)");
        return -1;
    }
    if (k > QUIZ_ID_MAX) {
        snprintf(why, whylen, "the student id '%s...' is longer than %d bytes; give a shorter one", shown, QUIZ_ID_MAX);
        return -1;
    }
    buf[k] = 0;
    if (!safe_text_is_clean(buf)) {
        snprintf(why, whylen,
                 "the student id '%s' has a control character or invalid UTF-8; give the id as your instructor has "
                 "it",
                 shown);
        return -1;
    }
    memcpy(out, buf, k + 1 <= outlen ? k + 1 : 0); /* out holds QUIZ_ID_MAX + 1 bytes */
    return 0;
}

/* s quoted for a POSIX shell: 'o'\''neil' */
static void print_shell_quoted(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
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
    char shown[44]; /* the answer quoted back, made safe: it is the student's text */
    safe_text(shown, 41, buf);
    if (q->kind == QUIZ_CHOICE) {
        int c = tolower((unsigned char)buf[0]) - 'a';
        if (len != 1 || c < 0 || c >= q->nchoices) {
            snprintf(err, errlen, "'%s' is not one of the letters a-%c", shown, 'a' + q->nchoices - 1);
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
                snprintf(err, errlen, "'%s' is not a list of whole numbers separated by spaces", shown);
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
        snprintf(err, errlen, "'%s' is not a number", shown);
        return -1;
    }
    double tol = q->rtol > 0 ? q->rtol * fabs(q->answer) : 1e-9 * fmax(1.0, fabs(q->answer));
    *right = fabs(x - q->answer) <= tol;
    return 0;
}

static void explain(FILE *f, const quiz_q_t *q, const char *indent, int for_credit) {
    if (for_credit) return; /* for credit: the verdict only, never the answer nor its working */
    fprintf(f, "%sthe answer: ", indent);
    print_answer(f, q);
    if (q->kind == QUIZ_CHOICE) fprintf(f, ") %s", q->choices[(int)q->answer]);
    fprintf(f, "\n%s%s\n", indent, q->why);
}

static int interactive(const quiz_t *qz, const char *lesson, const char *student, int for_credit) {
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
                else if (for_credit)
                    printf("Wrong.\n\n");
                else {
                    printf("Not quite:\n");
                    explain(stdout, q, "  ", 0);
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
                    const char *said, int for_credit) {
    char path[4096] = "";
    FILE *o = NULL;
    if (outputs) {
        snprintf(path, sizeof path, "%s/%s-q%d.txt", outputs, lesson, i + 1);
        o = fopen(path, "w");
    }
    if (o) {
        fprintf(o, "%s\nyour answer: %s\n", q->text, said);
        explain(o, q, "", for_credit);
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

/* The header --questions writes, "# lesson NN quiz for student 'ID': ...": 1 with its lesson and id
 * (raw, as the file has them; the id ends at the line's last "':"), 0 for any other line. */
static int header_of(const char *line, char *lesson, size_t llen, char *id, size_t idlen) {
    static const char head[] = "# lesson ", mid[] = " quiz for student '";
    if (strncmp(line, head, sizeof head - 1)) return 0;
    const char *l = line + sizeof head - 1, *m = strstr(l, mid);
    if (!m) return 0;
    const char *i = m + sizeof mid - 1, *e = NULL;
    for (const char *p = i; (p = strstr(p, "':")); p++) e = p;
    if (!e) return 0;
    snprintf(lesson, llen, "%.*s", (int)(m - l), l);
    snprintf(id, idlen, "%.*s", (int)(e - i), i);
    return 1;
}

/* A header for another lesson or student: one line saying so (2), else 0. Without the check, a
 * student who answered a classmate's numbers, or whose id was typed differently, scores about 0 and
 * is never told why. */
static int check_header(const char *path, int lineno, const char *line, const char *lesson, const char *student) {
    char hl[64], hid[512], norm[QUIZ_ID_MAX + 1], why[256], shown[80];
    if (!header_of(line, hl, sizeof hl, hid, sizeof hid)) return 0;
    if (strcmp(hl, lesson)) {
        fprintf(stderr,
                "quiz: %s line %d: these are the questions of lesson '%s', not lesson %s; write lesson %s's with "
                "grading/quiz %s --student ID --questions\n",
                path, lineno, safe_text(shown, sizeof shown, hl), lesson, lesson, lesson);
        return 2;
    }
    if (normalise_id(hid, norm, sizeof norm, why, sizeof why) == 0 && !strcmp(norm, student)) return 0;
    fprintf(stderr,
            "quiz: %s line %d: these are the questions of student '%s', not '%s' (ids compare without case or "
            "surrounding spaces); answer your own: grading/quiz %s --student ",
            path, lineno, safe_text(shown, sizeof shown, hid), student, lesson);
    print_shell_quoted(stderr, student);
    fprintf(stderr, " --questions\n");
    return 2;
}

static int grade_file(const quiz_t *qz, const char *lesson, const char *student, const char *path, const char *tsv_path,
                      const char *outputs, int for_credit) {
    FILE *f = fopen_regular(path); /* never a FIFO or a directory: a grader must not hang on one */
    if (!f) {
        fprintf(stderr,
                "quiz: cannot read the answers file %s (missing, or not a regular file); write it with "
                "--questions first\n",
                path);
        return 2;
    }
    /* An answers file is a few lines: a huge (or sparse) one would keep grade-all reading for minutes */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size > QUIZ_MAX_FILE) {
        fprintf(stderr, "quiz: the answers file %s has %lld bytes; an answers file is a few lines (at most %d)\n", path,
                (long long)st.st_size, QUIZ_MAX_FILE);
        fclose(f);
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
        s[strcspn(s, "\r\n")] = 0;
        if (check_header(path, lineno, s, lesson, student)) {
            fclose(f);
            return 2;
        }
        if (!*s || *s == '#') continue;
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || *end != ':') {
            char shown[44];
            fprintf(stderr, "quiz: %s line %d: expected 'QUESTION: ANSWER' (e.g. '3: 4096'), got '%s'\n", path, lineno,
                    safe_text(shown, 41, s));
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
        char said[sizeof given[i]]; /* the student's text, made safe for every report */
        safe_text(said, sizeof said, have[i] ? given[i] : "(none)");
        if (have[i] && judge(q, given[i], &right, err, sizeof err) == 0) err[0] = 0;
        score += right;
        if (right) {
            printf("%s q%d: OK\n", lesson, i + 1);
        } else {
            printf("%s q%d: WRONG%s%s%s\n", lesson, i + 1, err[0] ? " (" : "", err, err[0] ? ")" : "");
            printf("    %s\n    your answer: %s\n", q->text, said);
            explain(stdout, q, "    ", for_credit);
        }
        if (tsv) tsv_row(tsv, outputs, lesson, i, q, right, said, for_credit);
    }
    if (tsv) fclose(tsv);
    printf("Score: %d/%d\n", score, qz->n);
    return score == qz->n ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *lesson = NULL, *student = NULL, *answers = NULL, *tsv = NULL, *outputs = NULL;
    int questions = 0, key = 0, list = 0, for_credit = 0;
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
        else if (!strcmp(a, "--for-credit"))
            for_credit = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: quiz NN [--student ID] [--questions | --answers FILE]   (grading/quiz adds --format, "
                   "--out)\n"
                   "  --student ID       the numbers are drawn from it (default: $USER when asked in a terminal)\n"
                   "  --questions        print the questions as an answers file to fill (also --print)\n"
                   "  --answers FILE     grade FILE: lines 'N: ANSWER'; 'Score: x/y' last\n"
                   "  --answer-key       the computed answers (tests, instructors)\n"
                   "  --for-credit       verdicts only, never an answer or its working (grade-all --quiz)\n"
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
        char shown[44];
        fprintf(stderr, "quiz: there is no quiz for lesson '%s'; the quizzes are: %s\n",
                safe_text(shown, sizeof shown, lesson), have);
        return 2;
    }
    if ((answers || questions || key) && (!student || !student[0]))
        return fail("--student ID is required with --answers, --questions and --answer-key (the numbers are drawn "
                    "from it)",
                    NULL);
    if (key && for_credit)
        return fail("--for-credit never shows an answer, and --answer-key prints them all: give one of the two", NULL);
    char id[QUIZ_ID_MAX + 1], why[256];
    if (!student || !student[0]) { /* asked in a terminal: the login, or a placeholder the header shows */
        student = getenv("USER");
        if (!student || normalise_id(student, id, sizeof id, why, sizeof why)) student = "student";
    }
    if (normalise_id(student, id, sizeof id, why, sizeof why)) return fail(why, NULL);
    student = id;
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
               "#   grading/quiz %s --student ",
               lesson, student, lesson);
        print_shell_quoted(stdout, student);
        printf(" --answers THIS_FILE\n");
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
    if (answers) return grade_file(&qz, lesson, student, answers, tsv, outputs, for_credit);
    return interactive(&qz, lesson, student, for_credit);
}
