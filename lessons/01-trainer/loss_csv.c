/* loss_csv.c — see loss_csv.h. */
#define _POSIX_C_SOURCE 200809L
#include "loss_csv.h"

#include "output.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char header[] = "step,loss,lr,val_loss";

static int extra_columns(const loss_csv_t *c) {
    if (!c->extra_header) return 0;
    int n = 1;
    for (const char *p = c->extra_header; *p; p++) n += *p == ',';
    return n;
}

static void write_header(const loss_csv_t *c, FILE *f) {
    fputs(header, f);
    if (c->extra_header) fprintf(f, ",%s", c->extra_header);
    fputc('\n', f);
}

static void check(loss_csv_t *c) {
    errno = 0;
    if (fflush(c->f) != 0 || ferror(c->f)) dp_fatal("cannot write %s: %s", c->path, strerror(errno ? errno : EIO));
}

/* The rows of an earlier run worth keeping when continuing at step `first`: each must have a step
 * greater than the row before it and at most `first`. Anything else (the header, rows past `first`
 * that the resumed run writes again, a line cut short by a kill) is dropped. */
static void write_kept(FILE *out, char *text, int64_t first, int columns) {
    int64_t last = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *end;
        errno = 0;
        long long s = strtoll(line, &end, 10);
        int commas = 0;
        for (char *p = end; *p; p++) commas += *p == ',';
        if (errno || end == line || *end != ',' || commas != columns - 1 || s <= last || s > first) continue;
        fprintf(out, "%s\n", line);
        last = s;
    }
}

void loss_csv_open(loss_csv_t *c, const char *path, int64_t first) {
    c->path = path;
    dp_mkdir_for(path);
    struct stat st;
    if (first > 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t len;
        char *text = (char *)dp_read_file(path, &len);
        if (!text) dp_fatal("cannot read %s to continue it: %s", path, strerror(errno));
        dp_out_t o;
        if (dp_out_open(&o, path) != 0) dp_fatal("cannot write %s: %s", path, strerror(errno));
        write_header(c, o.f);
        write_kept(o.f, text, first, 4 + extra_columns(c));
        free(text);
        if (dp_out_close(&o) != 0) dp_fatal("cannot write %s: %s", path, strerror(errno));
        c->f = fopen(path, "a");
        if (!c->f) dp_fatal("cannot write %s: %s", path, strerror(errno));
        return;
    }
    /* a new run, a missing or empty file, or a device: start with the header */
    c->f = fopen(path, first > 0 ? "a" : "w");
    if (!c->f) dp_fatal("cannot write %s: %s", path, strerror(errno));
    write_header(c, c->f);
    check(c);
}

void loss_csv_row(loss_csv_t *c, int64_t step, float loss, double lr, float val) {
    loss_csv_row_extra(c, step, loss, lr, val, "");
}

void loss_csv_row_extra(loss_csv_t *c, int64_t step, float loss, double lr, float val, const char *extra) {
    if (!c->f) return;
    fprintf(c->f, "%lld,%.6f,%.6e,", (long long)step, loss, lr);
    if (!isnan(val)) fprintf(c->f, "%.6f", val);
    if (c->extra_header) {
        if (*extra)
            fprintf(c->f, ",%s", extra);
        else
            for (int i = 0; i < extra_columns(c); i++) fputc(',', c->f);
    }
    fputc('\n', c->f);
    /* one write(2) per step (microseconds against a step's milliseconds): a killed run keeps its rows */
    check(c);
}

void loss_csv_close(loss_csv_t *c) {
    if (!c->f) return;
    check(c);
    if (fclose(c->f) != 0) dp_fatal("cannot write %s: %s", c->path, strerror(errno));
    c->f = NULL;
}
