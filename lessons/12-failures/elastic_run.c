/* elastic_run — the elastic launcher of lesson 12, torchrun's role (given code):
 *
 *   elastic_run --nproc N --max-restarts R --save PREFIX [--fsdp] -- PROGRAM ARGS...
 *   elastic_run --last-good PREFIX          which checkpoint a restart would take, and exit
 *
 * It starts PROGRAM on N ranks (grading/mpirun -np N PROGRAM ARGS --save PREFIX), and reads what the
 * job prints as it comes (passing it on). When a rank dies the job ends (mpirun takes the others
 * down); the launcher finds which rank from the job's own lines — the rank's "--fail" line, the
 * switch's "rank R ended without comm_finalize", or mpirun's "process rank R ... exited on signal"
 * — takes the newest good checkpoint (checkpoint_last_good: damaged or incomplete ones skipped),
 * and starts the job again on the survivors, N−1 ranks, with --resume; up to R times. An FSDP run
 * (--fsdp) leaves shard sets: they are consolidated first (lesson 08's fsdp_consolidate), and the
 * FSDP program re-shards the whole checkpoint onto the new N as it loads it.
 *
 * One line per restart: the dead rank, the step it died at, the checkpoint's step, the steps
 * redone, and the time lost — from the death to the restarted job being ready to train (its rank
 * 0's first line, printed once the checkpoint is loaded, just before its first step). A job that
 * fails without losing a rank (a bad option, a NaN) is not restarted: that would fail again.
 *
 * Everything is bounded: each launch by --attempt-timeout-s (its processes killed after), each
 * consolidation too. The restarts drop --fail (lesson 12's injected failure happens once).
 *
 * For lesson 12's lab (failures_lab.sh): --mtbf-steps M injects failures itself, a seeded random rank
 * at exponentially distributed times of mean M steps of training (drawn afresh at each launch: the
 * exponential has no memory, so the time already trained changes nothing), and --keep-world
 * restarts on N ranks again (a spare took the dead rank's place, as torchrun does when it has one).
 * The last line counts what the lab judges: steps run, steps redone and checkpoints written (from
 * the program's --steps and --save-every, and the steps each launch started and died at). */
#define _GNU_SOURCE
#include "cli.h"
#include "rng.h"
#include "trainer.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 512

typedef struct {
    int status;           /* waitpid's */
    bool timed_out;       /* killed by the launcher after --attempt-timeout-s */
    int dead_rank;        /* -1: no rank is known to have died */
    long long death_step; /* the --fail line's step (the step the rank never ran); 0: unknown */
    long long last_step;  /* the last "step N/M" line rank 0 printed (0: none) */
    double t_death;       /* when the launcher read the first line naming the death */
    double t_ready;       /* when the job's first line came (rank 0 ready to train); 0: never */
} attempt_t;

/* The restart being measured: its line is printed as soon as the restarted job is ready. */
static struct {
    bool pending;
    int restart, rank, world;
    long long death_step, ck_step, redone;
    bool death_known;
    double t_death, lost_all;
} last;

static void restart_ready(double now) {
    double lost = now - last.t_death;
    last.lost_all += lost;
    printf("elastic_run: restart %d: rank %d died at step %s%lld, checkpoint of step %lld, %s%lld steps redone, "
           "%.2f s from the death to training again on %d rank%s\n",
           last.restart, last.rank, last.death_known ? "" : "> ", last.death_step, last.ck_step,
           last.death_known ? "" : ">= ", last.redone, lost, last.world, last.world > 1 ? "s" : "");
    last.pending = false;
}

/* What one line of the job says about a death, its progress or its readiness. */
static void read_line(const char *line, attempt_t *a, const char *prog) {
    const char *p;
    int r;
    long long s, total;
    double now = dp_now();
    if (a->dead_rank < 0 && (p = strstr(line, ": rank ")) &&
        sscanf(p, ": rank %d: --fail %*s dying at the start of step %lld", &r, &s) == 2) {
        a->dead_rank = r, a->death_step = s, a->t_death = now;
    } else if (a->dead_rank < 0 && (p = strstr(line, "ended without comm_finalize")) && (p = strstr(line, ": rank ")) &&
               sscanf(p, ": rank %*d: rank %d ended", &r) == 1) {
        a->dead_rank = r, a->t_death = now;
    } else if ((p = strstr(line, "noticed that process rank ")) && sscanf(p, "noticed that process rank %d", &r) == 1) {
        if (a->dead_rank < 0) a->dead_rank = r, a->t_death = now;
    } else if (sscanf(line, "step %lld/%lld |", &s, &total) == 2) {
        a->last_step = s;
    }
    /* rank 0's first line: "PROGRAM: N parameters (...)", printed at the end of trainer_init */
    size_t n = strlen(prog);
    if (!a->t_ready && !strncmp(line, prog, n) && !strncmp(line + n, ": ", 2) && strstr(line, " parameters (")) {
        a->t_ready = now;
        if (last.pending) restart_ready(now);
    }
}

/* The job runs in a process group of its own (so that a timeout can end all of it): a Ctrl-C or a
 * kill of the launcher reaches only the launcher, which passes it on to the job and stops. */
static volatile sig_atomic_t job_pgid, stop_signal;

static void on_stop(int sig) {
    stop_signal = sig;
    if (job_pgid > 0) kill(-(pid_t)job_pgid, SIGTERM);
}

static void kill_group(pid_t pid) {
    kill(-pid, SIGTERM);
    for (int i = 0; i < 50 && waitpid(pid, NULL, WNOHANG) == 0; i++) usleep(100 * 1000);
    kill(-pid, SIGKILL);
}

/* One of the job's two output streams, passed on line by line to the launcher's own stream of the
 * same kind (a program's one-line error stays the last line of stderr) and read for the death. */
typedef struct {
    int fd;
    FILE *to;
    char buf[8192];
    size_t have;
} stream_t;

static void pass_line(stream_t *st, char *line, attempt_t *a, const char *prog) {
    fprintf(st->to, "%s\n", line);
    read_line(line, a, prog);
}

/* Read what came on st; false once it is closed (the rest passed on). */
static bool pump(stream_t *st, attempt_t *a, const char *prog) {
    ssize_t got = read(st->fd, st->buf + st->have, sizeof st->buf - 1 - st->have);
    if (got <= 0) {
        if (st->have) {
            st->buf[st->have] = 0;
            pass_line(st, st->buf, a, prog);
            st->have = 0;
        }
        return false;
    }
    st->have += (size_t)got;
    /* pass on and read every whole line; a line longer than the buffer goes as it is */
    char *start = st->buf, *nl;
    while ((nl = memchr(start, '\n', st->have - (size_t)(start - st->buf)))) {
        *nl = 0;
        pass_line(st, start, a, prog);
        start = nl + 1;
    }
    st->have -= (size_t)(start - st->buf);
    memmove(st->buf, start, st->have);
    if (st->have == sizeof st->buf - 1) {
        st->buf[st->have] = 0;
        pass_line(st, st->buf, a, prog);
        st->have = 0;
    }
    fflush(st->to);
    return true;
}

/* Run argv in its own process group, its output passed on line by line and read; at most timeout
 * seconds. */
static void run_job(char **argv, double timeout, const char *prog, attempt_t *a) {
    *a = (attempt_t){.dead_rank = -1};
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) dp_fatal("cannot make a pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) dp_fatal("cannot fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        /* mpirun passes its stdin on to rank 0: from a terminal, a background group's read would
         * stop the job (SIGTTIN) */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "elastic_run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    job_pgid = pid;
    if (stop_signal) kill(-pid, SIGTERM); /* a stop that came while it was starting */
    close(out[1]);
    close(err[1]);
    static stream_t st[2];
    st[0] = (stream_t){.fd = out[0], .to = stdout};
    st[1] = (stream_t){.fd = err[0], .to = stderr};
    bool open_[2] = {true, true};
    double deadline = dp_now() + timeout;
    while (open_[0] || open_[1]) {
        double left = deadline - dp_now();
        if (left <= 0) {
            a->timed_out = true;
            kill_group(pid);
            break;
        }
        struct pollfd p[2] = {{open_[0] ? st[0].fd : -1, POLLIN, 0}, {open_[1] ? st[1].fd : -1, POLLIN, 0}};
        int r = poll(p, 2, left > 0.2 ? 200 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        for (int k = 0; k < 2; k++)
            if (open_[k] && (p[k].revents & (POLLIN | POLLHUP | POLLERR))) open_[k] = pump(&st[k], a, prog);
    }
    for (int k = 0; k < 2; k++) {
        if (st[k].have) {
            st[k].buf[st[k].have] = 0;
            pass_line(&st[k], st[k].buf, a, prog);
        }
        close(st[k].fd);
    }
    /* the pipe closed: mpirun is ending (its ranks are gone); a bounded wait for it all the same */
    double until = dp_now() + 30;
    while (waitpid(pid, &a->status, WNOHANG) == 0) {
        if (dp_now() > until) {
            kill_group(pid);
            waitpid(pid, &a->status, 0);
            a->timed_out = true;
            break;
        }
        usleep(20 * 1000);
    }
    kill(-pid, SIGKILL); /* nothing of the job outlives it */
    job_pgid = 0;
    fflush(stdout);
    if (stop_signal)
        dp_fatal("stopped by signal %d (%s); the job was ended with it", (int)stop_signal, strsignal(stop_signal));
}

static bool is_opt(const char *arg, const char *name) {
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && (arg[n] == 0 || arg[n] == '=');
}

/* The value of the program's option --NAME V or --NAME=V (the last one given), or NULL. */
static const char *arg_value(char **args, int n, const char *name) {
    const char *v = NULL;
    size_t len = strlen(name);
    for (int i = 0; i < n; i++) {
        if (strncmp(args[i], name, len)) continue;
        if (args[i][len] == '=')
            v = args[i] + len + 1;
        else if (!args[i][len] && i + 1 < n)
            v = args[++i];
    }
    return v;
}

static long long int_arg(char **args, int n, const char *name, long long fallback) {
    const char *v = arg_value(args, n, name);
    if (!v) return fallback;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || x < 0) cli_usage_error("the program's %s '%s' is not a whole number", name, v);
    return x;
}

/* Checkpoints a launch wrote from step `from` to step `to` (steps done): every K-th, not the last
 * step of the run (the trainer saves that one to SAVE itself, not as a step checkpoint). */
static long long saves_between(long long from, long long to, long long every, long long steps) {
    if (every <= 0) return 0;
    if (to >= steps) to = steps - 1;
    return to > from ? to / every - from / every : 0;
}

static const char *basename_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv) {
    dp_set_progname(argv[0]);
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int nproc = 0, max_restarts = 3;
    double attempt_timeout = 3600;
    const char *save = NULL, *mpirun = "grading/mpirun", *consolidate = NULL, *last_good = NULL;
    bool fsdp = false, keep_world = false;
    double mtbf = 0;
    uint64_t fail_seed = 1;
    const cli_opt_t opts[] = {
        {"nproc", CLI_INT, &nproc, "ranks of the first launch", .min = 1, .max = 256},
        {"max-restarts", CLI_INT, &max_restarts, "restarts allowed before giving up", .min = 0, .max = 1000},
        {"save", CLI_STRING, &save, "the program's --save: its checkpoints (PREFIX.stepN...) are what a restart takes"},
        {"fsdp", CLI_FLAG, &fsdp, "the program saves FSDP shard sets: consolidate them before a restart"},
        {"consolidate", CLI_STRING, &consolidate,
         "--fsdp: the consolidation program (default: fsdp_consolidate beside lesson 08's programs)"},
        {"mpirun", CLI_STRING, &mpirun, "the launcher of one job", .env = "DP_MPIRUN"},
        {"attempt-timeout-s", CLI_FLOAT, &attempt_timeout, "the longest one launch may take before it is killed",
         .min = 1, .max = 1e7},
        {"last-good", CLI_STRING, &last_good, "print the checkpoint a restart from PREFIX would take, and exit"},
        {"keep-world", CLI_FLAG, &keep_world, "restart on as many ranks as before (a spare replaces the dead rank)"},
        {"mtbf-steps", CLI_FLOAT, &mtbf,
         "lesson 12's lab: inject failures, a random rank at exponential times of this mean, in steps (0: none)",
         .min = 0, .max = 1e9},
        {"fail-seed", CLI_U64, &fail_seed, "--mtbf-steps: the seed of the failure times and ranks"},
        CLI_END,
    };
    const char *usage = "elastic_run --nproc N --max-restarts R --save PREFIX [--fsdp] -- PROGRAM ARGS...";
    int sep = 1;
    while (sep < argc && strcmp(argv[sep], "--")) sep++;
    cli_parse(sep, argv, opts, usage);
    char err[1024];
    checkpoint_found_t ck;
    if (last_good) {
        int found = checkpoint_last_good(last_good, &ck, err, sizeof err);
        if (found < 0) dp_fatal("%s", err);
        if (!found)
            printf("none\n");
        else if (ck.shards)
            printf("step %lld %s shards %d\n", (long long)ck.step, ck.path, ck.shards);
        else
            printf("step %lld %s\n", (long long)ck.step, ck.path);
        return 0;
    }
    if (sep + 1 >= argc) cli_usage_error("no program: give it after '--' (%s)", usage);
    if (!nproc) cli_usage_error("--nproc is required: the ranks of the first launch");
    if (!save) cli_usage_error("--save is required: without checkpoints a restart would start from step 0");
    const char *prog = argv[sep + 1];
    for (int i = sep + 2; i < argc; i++)
        if (is_opt(argv[i], "--save") || is_opt(argv[i], "--resume"))
            cli_usage_error("%s: give --save to elastic_run, not to the program (the launcher passes --save and "
                            "--resume itself)",
                            argv[i]);
    char **args = argv + sep + 2;
    int nargs = argc - sep - 2;
    long long steps = int_arg(args, nargs, "--steps", 1000), every = int_arg(args, nargs, "--save-every", 0);
    if (mtbf > 0 && arg_value(args, nargs, "--fail"))
        cli_usage_error("--mtbf-steps injects the failures itself: leave --fail out of the program's options");
    if (access(mpirun, X_OK) != 0)
        cli_usage_error("cannot run %s (%s): give the job launcher with --mpirun PATH", mpirun, strerror(errno));
    char cons_path[4096];
    if (fsdp && !consolidate) {
        /* beside lesson 08's programs: BUILD/TREE/08-fsdp/fsdp_consolidate for a PROGRAM in BUILD/TREE/NN-x/ */
        const char *slash = strrchr(prog, '/');
        int dir = slash ? (int)(slash - prog) : 0;
        snprintf(cons_path, sizeof cons_path, "%.*s%s../08-fsdp/fsdp_consolidate", dir, prog, slash ? "/" : "");
        consolidate = cons_path;
    }
    if (fsdp && access(consolidate, X_OK) != 0)
        cli_usage_error("--fsdp: cannot run %s (%s): give it with --consolidate PATH", consolidate, strerror(errno));

    int world = nproc, restarts = 0;
    char resume[4400] = "", full[4300];
    long long redone_all = 0, run_all = 0, saves_all = 0, start = 0;
    char injected[64];
    for (;;) {
        char np[16];
        snprintf(np, sizeof np, "%d", world);
        char *job[MAX_ARGS];
        int n = 0;
        job[n++] = (char *)mpirun, job[n++] = "-np", job[n++] = np;
        for (int i = sep + 1; i < argc && n < MAX_ARGS - 6; i++) {
            if (restarts && is_opt(argv[i], "--fail")) { /* the injected failure happens once */
                if (!strchr(argv[i], '=')) i++;
                continue;
            }
            job[n++] = argv[i];
        }
        job[n++] = "--save", job[n++] = (char *)save;
        if (*resume) job[n++] = "--resume", job[n++] = resume;
        if (mtbf > 0) {
            /* this launch's failure: after an exponential time of mean mtbf steps (random access into
             * the seeded stream: values 2k and 2k+1 for launch k) */
            double u = (rng_u32_at(fail_seed, 2 * (uint64_t)restarts) + 0.5) / 4294967296.0;
            long long at = start + (long long)floor(-mtbf * log(u)) + 1;
            int rank = (int)(rng_u32_at(fail_seed, 2 * (uint64_t)restarts + 1) % (uint32_t)world);
            if (at <= steps) {
                snprintf(injected, sizeof injected, "%d:%lld", rank, at);
                job[n++] = "--fail", job[n++] = injected;
            }
        }
        job[n] = NULL;
        attempt_t a;
        run_job(job, attempt_timeout, basename_of(prog), &a);
        long long end = a.dead_rank < 0 ? steps : a.death_step > 0 ? a.death_step - 1 : a.last_step;
        run_all += end > start ? end - start : 0;
        saves_all += saves_between(start, end, every, steps);
        if (a.timed_out)
            dp_fatal("the job on %d rank%s ran past --attempt-timeout-s %g and was killed", world, world > 1 ? "s" : "",
                     attempt_timeout);
        if (WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0 && a.dead_rank < 0) break;
        /* exit status 2 is the course's "do this first" (a usage error, an unwritten function): the
         * job's own line, just above, says what; it stays the last line, and the status is passed on */
        if (a.dead_rank < 0 && WIFEXITED(a.status) && WEXITSTATUS(a.status) == 2) dp_exit(2);
        if (a.dead_rank < 0)
            dp_fatal(
                "%s failed on %d rank%s without losing a rank (%s %d; its own line is above): a restart would fail "
                "the same way",
                prog, world, world > 1 ? "s" : "", WIFEXITED(a.status) ? "exit status" : "signal",
                WIFEXITED(a.status) ? WEXITSTATUS(a.status) : WTERMSIG(a.status));
        if (restarts == max_restarts)
            dp_fatal("rank %d died and --max-restarts %d are used up; the last good checkpoint is left for --resume",
                     a.dead_rank, max_restarts);
        if (world == 1 && !keep_world) dp_fatal("the last rank died: no survivor to restart on");
        int found = checkpoint_last_good(save, &ck, err, sizeof err);
        if (found < 0) dp_fatal("%s", err);
        last.pending = true;
        last.restart = restarts + 1;
        last.world = keep_world ? world : world - 1;
        last.rank = a.dead_rank;
        last.t_death = a.t_death;
        last.death_known = a.death_step > 0;
        /* --fail's step is the one the rank never ran: the steps done before it are death_step − 1 */
        last.death_step = last.death_known ? a.death_step : a.last_step;
        last.ck_step = found ? ck.step : 0;
        long long done = last.death_known ? a.death_step - 1 : a.last_step;
        last.redone = done > last.ck_step ? done - last.ck_step : 0;
        redone_all += last.redone;
        start = last.ck_step;
        world = last.world, restarts++;
        if (!found) {
            *resume = 0;
            printf("elastic_run: rank %d died; no good checkpoint of %s: restarting from step 0 on %d rank%s\n",
                   a.dead_rank, save, world, world > 1 ? "s" : "");
        } else if (ck.shards) {
            if (!fsdp)
                dp_fatal("the last good checkpoint %s is a set of %d FSDP shards: run with --fsdp to consolidate it",
                         ck.path, ck.shards);
            snprintf(full, sizeof full, "%s.consolidated.safetensors", ck.path);
            char *cargv[] = {(char *)consolidate, "--shards", ck.path, "--out", full, NULL};
            attempt_t c;
            run_job(cargv, 600, basename_of(consolidate), &c);
            if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status))
                dp_fatal("consolidating %s failed (its line is above); cannot restart", ck.path);
            snprintf(resume, sizeof resume, "%s", full);
        } else {
            snprintf(resume, sizeof resume, "%s", ck.path);
        }
        fflush(stdout);
    }
    if (last.pending) restart_ready(dp_now()); /* a restart that printed no first line */
    printf("elastic_run: finished on %d rank%s after %d restart%s: %lld steps run for %lld, %lld steps redone, %lld "
           "checkpoints written, %.2f s lost to restarts\n",
           world, world > 1 ? "s" : "", restarts, restarts == 1 ? "" : "s", run_all, steps, redone_all, saves_all,
           last.lost_all);
    return 0;
}
