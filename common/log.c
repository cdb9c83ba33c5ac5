/* log.c — see log.h. */
#define _POSIX_C_SOURCE 200809L
#include "log.h"

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void logger_init(logger_t *l, int every, int total_steps, int rank) {
    l->every = every > 0 ? every : 1;
    l->total_steps = total_steps;
    l->enabled = rank == 0;
    /* A launcher (mpirun) gives rank 0 a pseudo-terminal even when its own output goes to a file:
     * draw the bar only for a plain process on a real terminal, or when DP_PROGRESS=1. */
    const char *force = getenv("DP_PROGRESS");
    l->tty = l->enabled && (force ? atoi(force) != 0
                                  : (isatty(fileno(stdout)) && !getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") &&
                                     !getenv("SLURM_NTASKS")));
    l->bar_shown = false;
    l->t_start = dp_now();
}

static void clear_bar(logger_t *l) {
    if (l->bar_shown) {
        fputs("\r\033[K", stdout);
        l->bar_shown = false;
    }
}

void logger_line(logger_t *l, const char *fmt, ...) {
    if (!l->enabled) return;
    clear_bar(l);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

void logger_step(logger_t *l, int step, double loss, double lr, double step_s, double tokens) {
    if (!l->enabled) return;
    bool line = step == 0 || (step + 1) % l->every == 0 || step + 1 == l->total_steps;
    if (line) {
        logger_line(l, "step %6d/%d | loss %.4f | lr %.2e | %7.2f ms/step | %9.0f tok/s", step + 1, l->total_steps,
                    loss, lr, step_s * 1e3, step_s > 0 ? tokens / step_s : 0.0);
    } else if (l->tty) {
        int width = 30, done = l->total_steps ? (int)((long)width * (step + 1) / l->total_steps) : 0;
        char bar[64];
        for (int i = 0; i < width; i++) bar[i] = i < done ? '#' : '.';
        bar[width] = 0;
        printf("\r[%s] %3d%% step %d/%d loss %.4f", bar, l->total_steps ? 100 * (step + 1) / l->total_steps : 0,
               step + 1, l->total_steps, loss);
        fflush(stdout);
        l->bar_shown = true;
    }
}

void logger_done(logger_t *l) {
    if (!l->enabled) return;
    clear_bar(l);
    fflush(stdout);
}
