/* quiz_q.c — building questions (see quiz.h). */
#include "quiz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static quiz_q_t *quiz_add(quiz_t *qz, quiz_kind_t kind) {
    if (qz->n >= QUIZ_MAX_QUESTIONS) {
        fprintf(stderr, "quiz: a lesson asks more than %d questions; raise QUIZ_MAX_QUESTIONS\n", QUIZ_MAX_QUESTIONS);
        exit(2);
    }
    quiz_q_t *q = &qz->q[qz->n++];
    memset(q, 0, sizeof *q);
    q->kind = kind;
    return q;
}

quiz_q_t *quiz_number(quiz_t *qz, double answer, double rtol, const char *fmt, ...) {
    quiz_q_t *q = quiz_add(qz, QUIZ_NUMBER);
    q->answer = answer;
    q->rtol = rtol;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->text, sizeof q->text, fmt, ap);
    va_end(ap);
    return q;
}

quiz_q_t *quiz_list(quiz_t *qz, const long long *values, int n, const char *fmt, ...) {
    quiz_q_t *q = quiz_add(qz, QUIZ_LIST);
    q->nlist = n < QUIZ_MAX_LIST ? n : QUIZ_MAX_LIST;
    memcpy(q->list, values, (size_t)q->nlist * sizeof *values);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->text, sizeof q->text, fmt, ap);
    va_end(ap);
    return q;
}

quiz_q_t *quiz_choice(quiz_t *qz, rng_t *r, const char *const *choices, int nchoices, int right, const char *text) {
    quiz_q_t *q = quiz_add(qz, QUIZ_CHOICE);
    snprintf(q->text, sizeof q->text, "%s", text);
    int order[QUIZ_MAX_CHOICES];
    q->nchoices = nchoices < QUIZ_MAX_CHOICES ? nchoices : QUIZ_MAX_CHOICES;
    for (int i = 0; i < q->nchoices; i++) order[i] = i;
    for (int i = q->nchoices - 1; i > 0; i--) { /* Fisher–Yates on the student's stream */
        int j = (int)rng_below(r, (uint32_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < q->nchoices; i++) {
        snprintf(q->choices[i], sizeof q->choices[i], "%s", choices[order[i]]);
        if (order[i] == right) q->answer = i;
    }
    return q;
}

void quiz_why(quiz_q_t *q, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->why, sizeof q->why, fmt, ap);
    va_end(ap);
}

int quiz_int(rng_t *r, int lo, int hi) { return lo + (int)rng_below(r, (uint32_t)(hi - lo + 1)); }

double quiz_pick(rng_t *r, const double *values, int n) { return values[rng_below(r, (uint32_t)n)]; }
