/* cli.h — command-line options from a table, with one-line errors.
 *
 *   int batch = 32;
 *   const cli_opt_t opts[] = {
 *       {"batch", CLI_INT, &batch, "examples per step", .min = 1, .max = 1 << 20},
 *       CLI_END};
 *   cli_parse(argc, argv, opts, "train [options]");
 *
 * Accepts --name value and --name=value. Bad input gets one line naming the option, what was wrong
 * and what to do (and "did you mean --x?" for a misspelt name), then exit status 2. --help prints
 * every option with its default. An option with .env set can also come from that environment
 * variable (the command line wins). */
#ifndef DPC_CLI_H
#define DPC_CLI_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { CLI_END_KIND, CLI_INT, CLI_FLOAT, CLI_STRING, CLI_FLAG, CLI_CHOICE, CLI_U64 } cli_kind_t;

typedef struct cli_opt {
    const char *name; /* without the leading "--" */
    cli_kind_t kind;
    void *dest; /* int*, double*, const char**, bool*, const char** (choice), uint64_t* */
    const char *help;
    double min, max;     /* numeric range, inclusive; ignored when min == max == 0 */
    const char *choices; /* CLI_CHOICE: "adamw|sgd" */
    const char *env;     /* optional environment variable */
    const char *why;     /* optional: why the range is what it is, told with an out-of-range error */
} cli_opt_t;

#define CLI_END                                                                                                        \
    { 0 }

/* Parse argv (argv[0] sets the program name used in error lines). Exits on --help or any error.
 * Positional arguments are refused unless `positional` is non-NULL, in which case they are stored
 * there (at most max_positional; the count goes to *npositional). */
void cli_parse(int argc, char **argv, const cli_opt_t *opts, const char *usage);
void cli_parse_positional(int argc, char **argv, const cli_opt_t *opts, const char *usage, const char **positional,
                          int max_positional, int *npositional);

/* Concatenate option tables (each ending with CLI_END) into one malloc'ed table. */
cli_opt_t *cli_join(const cli_opt_t *a, const cli_opt_t *b);

/* Rank of this process as told by the launcher's environment (mpirun, srun), 0 if none: lets errors
 * found before the comm seam is up be printed once, not once per rank. */
int cli_launcher_rank(void);
/* Ranks in the job as told by mpirun's (or a PMI launcher's) environment, 1 if none. */
int cli_launcher_size(void);
/* Whether a launcher (mpirun, srun with a PMI plugin, MPICH's hydra) started this process as a rank. */
bool cli_launched(void);

/* A benchmark's --begin/--end: sizes in bytes with an optional K, M or G suffix (powers of 1024), each
 * at most max_bytes (what one call carries), with 4 <= begin <= end; anything else is a usage error
 * naming the option. */
void cli_size_range(const char *begin_s, const char *end_s, double max_bytes, size_t *begin, size_t *end);

/* Print "<prog>: <msg> (see --help)" on launcher rank 0 only, then dp_exit(2). */
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

#endif
