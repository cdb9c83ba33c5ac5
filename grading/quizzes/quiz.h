/* quiz.h — the self-check quizzes (grading/quiz NN): the question type every lesson file fills.
 *
 * A lesson's quiz is one function, quiz_NN (grading/quizzes/qNN.c), that draws its numbers from the
 * student's stream and asks the course's reference code (linked as the grader's judge links it) for
 * every answer: no answer is written by hand. The registry is generated from the qNN.c files present
 * (grading/grading.mk), so a new lesson's quiz is one new file. */
#ifndef DPC_QUIZ_H
#define DPC_QUIZ_H

#include "rng.h"

#include <stddef.h>

#define QUIZ_MAX_QUESTIONS 10
#define QUIZ_MAX_CHOICES   4
#define QUIZ_MAX_LIST      64
#define QUIZ_TEXT          1024

typedef enum {
    QUIZ_NUMBER, /* one number, right within rtol (relative; 0: exact) */
    QUIZ_LIST,   /* integers separated by spaces, all exact, in order */
    QUIZ_CHOICE  /* a letter a, b, c, ... */
} quiz_kind_t;

typedef struct {
    quiz_kind_t kind;
    char text[QUIZ_TEXT];
    int nchoices;
    char choices[QUIZ_MAX_CHOICES][QUIZ_TEXT / 2];
    double answer; /* QUIZ_NUMBER: the value; QUIZ_CHOICE: the index of the right choice */
    double rtol;
    int nlist;
    long long list[QUIZ_MAX_LIST];
    char why[QUIZ_TEXT]; /* the working, shown after a wrong answer in practice (never --for-credit) */
} quiz_q_t;

typedef struct {
    int n;
    quiz_q_t q[QUIZ_MAX_QUESTIONS];
} quiz_t;

typedef void (*quiz_lesson_fn)(quiz_t *qz, rng_t *r);

/* Append a question; returns it to fill (text set). The helpers below fill the answer and why. */
quiz_q_t *quiz_number(quiz_t *qz, double answer, double rtol, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
quiz_q_t *quiz_list(quiz_t *qz, const long long *values, int n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A multiple-choice question whose right answer is choices[right]; the choices are shown in an order
 * drawn from r, so that the letter differs between students too. */
quiz_q_t *quiz_choice(quiz_t *qz, rng_t *r, const char *const *choices, int nchoices, int right, const char *text);
void quiz_why(quiz_q_t *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value in [lo, hi] from the student's stream. */
int quiz_int(rng_t *r, int lo, int hi);
/* One of the n values. */
double quiz_pick(rng_t *r, const double *values, int n);

#endif
