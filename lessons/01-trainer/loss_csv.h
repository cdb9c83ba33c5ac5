/* loss_csv.h — the --loss-csv file: "step,loss,lr,val_loss", one row per step.
 *
 * Every row is flushed as it is written, so a run that is killed keeps the rows of the steps it
 * ran. A resumed run continues the file: it keeps the header and the rows up to the step it resumes
 * from, and drops the rows a killed run wrote past its last checkpoint (the resumed run writes those
 * steps again), so the steps in the file always increase strictly. The final evaluation goes into
 * the last step's row. A row that cannot be written is fatal: a full disk must not look like a
 * finished run. */
#ifndef DPC_LOSS_CSV_H
#define DPC_LOSS_CSV_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    const char *path;
    const char *extra_header; /* more columns after val_loss ("a,b"), set before loss_csv_open; NULL: none */
} loss_csv_t;

/* Open path for a run whose first step is `first` (0: a new file; more: continue the file). */
void loss_csv_open(loss_csv_t *c, const char *path, int64_t first);
/* The row of step `step` (1-based: after that many steps); NAN val leaves val_loss empty. */
void loss_csv_row(loss_csv_t *c, int64_t step, float loss, double lr, float val);
/* The same with the extra columns' values ("1.5,2"; empty: left empty). */
void loss_csv_row_extra(loss_csv_t *c, int64_t step, float loss, double lr, float val, const char *extra);
void loss_csv_close(loss_csv_t *c);

#endif
