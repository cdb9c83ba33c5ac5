/* log.h — training progress: a line every N steps (step, loss, ms/step, tokens/s), and a progress
 * bar redrawn in place between those lines when stdout is a terminal. Only rank 0 prints. */
#ifndef DPC_LOG_H
#define DPC_LOG_H

#include <stdbool.h>

typedef struct {
    int every; /* print a line every `every` steps (and at the first and last) */
    int total_steps;
    bool enabled; /* rank 0 */
    bool tty;
    bool bar_shown;
    double t_start;
} logger_t;

void logger_init(logger_t *l, int every, int total_steps, int rank);
/* tokens: examples processed in this step (all ranks together). */
void logger_step(logger_t *l, int step, double loss, double lr, double step_s, double tokens);
/* Print a line (clearing the bar first). */
void logger_line(logger_t *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void logger_done(logger_t *l);

#endif
