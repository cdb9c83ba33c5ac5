/* Command-line parsing: values, environment, and one-line errors with exit status 2 (also DP_TODO's). */
#include "testutil.h"

#include "cli.h"

static int n_int;
static double n_float;
static const char *s_choice;
static int flag_seen;
static uint64_t u_seed;
static double wait_s = 5;

static void parse(int argc, char **argv) {
    bool flag = false;
    const cli_opt_t opts[] = {
        {"batch", CLI_INT, &n_int, "batch", .min = 1, .max = 100},
        {"lr", CLI_FLOAT, &n_float, "lr", .min = 0, .max = 1, .env = "TEST_LR"},
        {"seed", CLI_U64, &u_seed, "seed"},
        {"wait", CLI_FLOAT, &wait_s, "wait", .min = 1, .max = 10, .why = "shorter waits look like hangs"},
        {"optimizer", CLI_CHOICE, &s_choice, "opt", .choices = "adamw|sgd"},
        {"verbose", CLI_FLAG, &flag, "flag"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "prog [options]");
    flag_seen = flag;
}

static void values(void **state) {
    (void)state;
    char *argv[] = {"prog", "--batch", "7", "--lr=0.5", "--optimizer", "sgd", "--verbose", NULL};
    s_choice = "adamw";
    parse(7, argv);
    assert_int_equal(n_int, 7);
    assert_true(n_float == 0.5);
    assert_string_equal(s_choice, "sgd");
    assert_true(flag_seen);
}

static void environment_then_command_line(void **state) {
    (void)state;
    setenv("TEST_LR", "0.25", 1);
    char *a1[] = {"prog", NULL};
    parse(1, a1);
    assert_true(n_float == 0.25);
    char *a2[] = {"prog", "--lr", "0.125", NULL};
    parse(3, a2);
    assert_true(n_float == 0.125);
    unsetenv("TEST_LR");
}

typedef struct {
    int argc;
    char **argv;
} args_t;

static void child(void *p) {
    args_t *a = p;
    parse(a->argc, a->argv);
}

static void expect_error(int argc, char **argv, const char *needle) {
    char err[1024];
    args_t a = {argc, argv};
    int rc = run_child(child, &a, err, sizeof err);
    assert_int_equal(rc, 2);
    if (!strstr(err, needle)) fail_msg("stderr '%s' lacks '%s'", err, needle);
    assert_int_equal(count_lines(err), 1); /* one line */
}

static void errors_are_one_line(void **state) {
    (void)state;
    expect_error(3, (char *[]){"prog", "--batch", "x", NULL}, "--batch expects an integer in [1, 100], got 'x'");
    expect_error(3, (char *[]){"prog", "--batch", "0", NULL}, "in [1, 100]");
    expect_error(3, (char *[]){"prog", "--lr", "2", NULL}, "--lr expects a number in [0, 1]");
    expect_error(3, (char *[]){"prog", "--optimizer", "adam", NULL}, "one of adamw|sgd");
    expect_error(3, (char *[]){"prog", "--bach", "4", NULL}, "did you mean --batch?");
    expect_error(2, (char *[]){"prog", "--batch", NULL}, "--batch needs a value");
    expect_error(2, (char *[]){"prog", "stray", NULL}, "unexpected argument 'stray'");
}

/* Values that parse but mean nothing sensible: never silently taken. */
static void no_nan_inf_or_wrapped_negatives(void **state) {
    (void)state;
    expect_error(3, (char *[]){"prog", "--lr", "nan", NULL}, "--lr expects a number in [0, 1], got 'nan'");
    expect_error(3, (char *[]){"prog", "--lr", "inf", NULL}, "got 'inf'");
    expect_error(3, (char *[]){"prog", "--lr", "-inf", NULL}, "got '-inf'");
    expect_error(3, (char *[]){"prog", "--seed", "-1", NULL}, "--seed expects a non-negative integer");
    /* strtoull skips the blank and wraps -1 to 2^64-1 */
    expect_error(3, (char *[]){"prog", "--seed", " -1", NULL}, "--seed expects a non-negative integer");
}

/* A range with a reason says it, after a number out of range only (not after one that is no number). */
static void out_of_range_says_why(void **state) {
    (void)state;
    expect_error(3, (char *[]){"prog", "--wait", "0.5", NULL},
                 "--wait expects a number in [1, 10], got '0.5': shorter waits look like hangs");
    char err[1024];
    args_t a = {3, (char *[]){"prog", "--wait", "soon", NULL}};
    assert_int_equal(run_child(child, &a, err, sizeof err), 2);
    if (strstr(err, "hangs")) fail_msg("a value that is no number got the range's reason: '%s'", err);
}

/* DP_TODO (util.h): one line naming the function, the file (an absolute path cut to NN-name/file.c)
 * and, when the file is in a lesson's directory, the grade command; exit status 2. */
static void todo_child(void *arg) {
    dp_set_progname("prog");
    dp_todo("step", arg);
}

static void expect_todo(const char *file, const char *line) {
    char err[1024];
    assert_int_equal(run_child(todo_child, (void *)file, err, sizeof err), 2);
    assert_string_equal(err, line);
}

static void todo_is_one_line(void **state) {
    (void)state;
    expect_todo("lessons/06-accum/accum_step.c", "prog: step() in lessons/06-accum/accum_step.c is not written yet: "
                                                 "write its TODO, then delete the DP_TODO() line (grading/grade 06 "
                                                 "checks it)\n");
    expect_todo("/tmp/dpc-grade.x/sub/06-accum/accum_step.c",
                "prog: step() in 06-accum/accum_step.c is not written yet: write its TODO, then delete the DP_TODO() "
                "line (grading/grade 06 checks it)\n");
    expect_todo("/home/me/course/tests/progs/probe.c", "prog: step() in progs/probe.c is not written yet: write its "
                                                       "TODO, then delete the DP_TODO() line\n");
    expect_todo("probe.c",
                "prog: step() in probe.c is not written yet: write its TODO, then delete the DP_TODO() line\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values),
        cmocka_unit_test(environment_then_command_line),
        cmocka_unit_test(no_nan_inf_or_wrapped_negatives),
        cmocka_unit_test(out_of_range_says_why),
        cmocka_unit_test(errors_are_one_line),
        cmocka_unit_test(todo_is_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
