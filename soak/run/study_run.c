/* study_run: a study carried out, run by run (study_run.h). */
#include "study_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "cpus.h"
#include "db.h"
#include "dur.h"
#include "exitcode.h"
#include "redact.h"

#define OUT_MAX       65536 /* bytes of a start command's stdout kept */
#define KILL_GRACE_MS 3000  /* after SIGTERM to a command's group, SIGKILL */

/* What the study knows of one target while it runs. */
struct tstate {
	int up;             /* started by this process and not stopped since */
	int started;        /* 1 once this process started it (since_start counts from there) */
	int since_start;    /* runs since its last start */
	int warm;           /* warm-up runs done since its last start (or the beginning) */
	int steady;         /* warmup_steady: the last two warm-up runs agreed */
	double warm_fig;    /* warmup_steady: the last warm-up run's figure (NAN: none) */
	struct study_kv kv; /* its section's values, then its start's output */
};

/* The tags of the run being made, written by on_begin. */
struct tag {
	int slot;        /* 1-based, 0 for a warm-up */
	int round;       /* 1-based */
	int position;    /* 1-based, 0 for a warm-up */
	int target;      /* index */
	int warmup;      /* 1: not compared */
	int since_start; /* 1: first run after the start; 0: not started by the study */
};

struct ctx {
	const struct study *st;             /* the plan */
	const struct study_run_opts *o;     /* the command's options */
	sqlite3 *db;                        /* the study's own connection */
	int64_t study_id;                   /* studies.id */
	struct tstate t[STUDY_MAX_TARGETS]; /* per target */
	int seq;                            /* last study_runs.seq written */
	struct tag tag;                     /* the run being made */
	int64_t run_id;                     /* the last run made (tag_run) */
	struct mstudy ms;                   /* the study as /metrics shows it (run.metrics) */
	char err[1024];                     /* the failure to report */
	int64_t t0_ms;                      /* when the study (this process) began, mono */
	int max_looks;                      /* sequential: K, fixed after the second round */
	int looks;                          /* sequential: looks taken */
	char stop[16];                      /* sequential: why it stopped */
};

/* /metrics: the study as it stands now (when served). */
static void publish(struct ctx *c)
{
	if (c->o->run.metrics)
		metrics_publish_study(c->o->run.metrics, &c->ms);
}

static int signalled(const struct ctx *c)
{
	return *c->o->run.sigint_count > 0 || *c->o->run.sigterm;
}

/* --- commands --------------------------------------------------------------------------- */

/* Ends a command's process group: SIGTERM, then SIGKILL after a grace period. */
static void end_group(pid_t pid, int *status)
{
	int64_t until = clock_mono_ms() + KILL_GRACE_MS;

	kill(-pid, SIGTERM);
	while (waitpid(pid, status, WNOHANG) == 0) {
		if (clock_mono_ms() >= until) {
			kill(-pid, SIGKILL);
			waitpid(pid, status, 0);
			return;
		}
		clock_sleep_ms(20, NULL);
	}
}

/* SOAK_STUDY_DIR: the study file's folder, absolute, so that a command can name a script
 * kept beside the study (an installed example names the installed targets). */
static void study_dir(const struct study *st, char *dir, size_t len)
{
	const char *slash = strrchr(st->file, '/');
	char *abs;

	snprintf(dir, len, "%.*s", slash ? (int)(slash - st->file) + 1 : 1, slash ? st->file : ".");
	if ((abs = realpath(dir, NULL))) {
		snprintf(dir, len, "%s", abs);
		free(abs);
	}
}

/* The child's side of sh_run: a process group of its own, the signals a shell expects,
 * stdout on out_fd, the study's environment (round and dir made before the fork) and the
 * target's CPUs; then `/bin/sh -c cmd`.  Never returns. */
static void exec_command(const struct ctx *c, const char *cmd, int t, const char *round,
                         const char *dir, int out_fd)
{
	const struct study *st = c->st;
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	setenv("SOAK_STUDY", st->name, 1);
	setenv("SOAK_STUDY_DIR", dir, 1);
	setenv("SOAK_DB", c->o->db_path, 1);
	setenv("SOAK_ROUND", round, 1);
	if (t >= 0)
		setenv("SOAK_TARGET", st->targets[t].name, 1);
	/* Placement: what a target's commands start runs on its CPUs (inherited). */
	if (t >= 0 && st->targets[t].cpus) {
		cpu_set_t set;
		char e[128];
		if (cpus_parse(st->targets[t].cpus, &set, e, sizeof e) < 0 ||
		    sched_setaffinity(0, sizeof set, &set) < 0)
			_exit(126);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* Waits for the command (pid) to exit, reading its stdout from fd (-1: none) into buf
 * (*n bytes, OUT_MAX at most): 0 with its *status once it exited; -1 with c->err when a
 * signal (if interruptible) or the command_timeout came first and ended its group.  A
 * background process it left holding stdout is not waited for. */
static int wait_command(struct ctx *c, const char *what, const char *cmd, pid_t pid, int fd,
                        char *buf, size_t *n, int interruptible, int *status)
{
	int64_t deadline = clock_mono_ms() + c->st->command_timeout_ms;
	int exited = 0;

	while (!exited) {
		if (waitpid(pid, status, WNOHANG) == pid) {
			exited = 1;
		} else if (interruptible && signalled(c)) {
			end_group(pid, status);
			snprintf(c->err, sizeof c->err, "%s: interrupted", what);
			return -1;
		} else if (clock_mono_ms() >= deadline) {
			end_group(pid, status);
			snprintf(c->err, sizeof c->err,
			         "%s: no answer within %s (command_timeout): `%s`", what,
			         dur_format(c->st->command_timeout_ms, (char[32]){0}, 32), cmd);
			return -1;
		}
		if (fd >= 0) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, exited ? 0 : 50) > 0) {
				ssize_t k = read(fd, buf + *n, *n < OUT_MAX ? OUT_MAX - *n : 1);
				if (k > 0 && *n < OUT_MAX)
					*n += (size_t)k;
				else if (k == 0 && !exited)
					clock_sleep_ms(20, NULL); /* EOF: only the exit is left */
			}
		} else if (!exited) {
			clock_sleep_ms(20, NULL);
		}
	}
	/* What it wrote just before exiting. */
	while (fd >= 0 && *n < OUT_MAX) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t k;
		if (poll(&p, 1, 0) <= 0 || (k = read(fd, buf + *n, OUT_MAX - *n)) <= 0)
			break;
		*n += (size_t)k;
	}
	return 0;
}

/* Runs `cmd` for target t (or -1) in round `round`; with `out`, its stdout is read into a
 * malloc'd string (else it goes to stderr).  A signal ends it when `interruptible` (a stop
 * runs to its end: it is what a signal asks for).  0 when it exits 0; -1 with c->err. */
static int sh_run(struct ctx *c, const char *what, const char *cmd, int t, int round, char **out,
                  int interruptible)
{
	int pfd[2] = {-1, -1}, status = 0, rc = -1;
	size_t n = 0;
	char *buf = NULL, rnd[16], dir[PATH_MAX];
	pid_t pid;

	if (out) {
		*out = NULL;
		if (!(buf = malloc(OUT_MAX + 1)) || pipe2(pfd, O_CLOEXEC) < 0) {
			snprintf(c->err, sizeof c->err, "%s: %s", what,
			         buf ? strerror(errno) : "out of memory");
			free(buf);
			return -1;
		}
	}
	snprintf(rnd, sizeof rnd, "%d", round);
	study_dir(c->st, dir, sizeof dir);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(c->err, sizeof c->err, "%s: fork: %s", what, strerror(errno));
		goto done;
	}
	if (pid == 0)
		exec_command(c, cmd, t, rnd, dir, out ? pfd[1] : STDERR_FILENO);
	setpgid(pid, pid); /* also here: no window where a signal misses the group */
	if (out) {
		close(pfd[1]);
		pfd[1] = -1;
	}
	if (wait_command(c, what, cmd, pid, pfd[0], buf, &n, interruptible, &status) < 0)
		goto done;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status))
			snprintf(c->err, sizeof c->err, "%s: `%s` exited with status %d", what, cmd,
			         WEXITSTATUS(status));
		else
			snprintf(c->err, sizeof c->err, "%s: `%s` ended by signal %d", what, cmd,
			         WTERMSIG(status));
		goto done;
	}
	if (out) {
		buf[n] = '\0';
		*out = buf;
		buf = NULL;
	}
	rc = 0;
done:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(buf);
	return rc;
}

static int start_target(struct ctx *c, int t, int round)
{
	const struct study_target *tg = &c->st->targets[t];
	struct tstate *s = &c->t[t];
	char what[128], *out = NULL;

	snprintf(what, sizeof what, "starting target %s", tg->name);
	fprintf(stderr, "%s: %s\n", c->o->who, what);
	/* Marked up before it runs: a start that fails half-way is still stopped. */
	s->up = 1;
	if (sh_run(c, what, tg->start, t, round, &out, 1) < 0)
		return -1;
	study_kv_release(&s->kv);
	if (study_kv_copy(&s->kv, &tg->given) < 0 ||
	    study_kv_parse(&s->kv, out, c->err, sizeof c->err) < 0) {
		char e[sizeof c->err];
		snprintf(e, sizeof e, "%s", c->err);
		snprintf(c->err, sizeof c->err, "%s: its output: %.800s", what, e);
		free(out);
		return -1;
	}
	for (char *l = out; l && *l;) { /* what it said, for the log (redacted: url=) */
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char *shown = redact_text(NULL, l);
		fprintf(stderr, "  %s\n", shown ? shown : "");
		free(shown);
		l = nl ? nl + 1 : NULL;
	}
	free(out);
	if (!s->kv.url && !s->kv.address) {
		snprintf(c->err, sizeof c->err, "%s: it printed no url= (nor address=) line", what);
		return -1;
	}
	s->started = 1;
	s->since_start = 0;
	s->warm = 0;
	s->steady = 0;
	s->warm_fig = NAN;
	return 0;
}

/* Stops a target this process started; a failure is a warning (the study's data stands). */
static void stop_target(struct ctx *c, int t, int round)
{
	const struct study_target *tg = &c->st->targets[t];
	char what[128];

	if (!c->t[t].up)
		return;
	c->t[t].up = 0;
	if (!tg->stop)
		return;
	snprintf(what, sizeof what, "stopping target %s", tg->name);
	fprintf(stderr, "%s: %s\n", c->o->who, what);
	if (sh_run(c, what, tg->stop, t, round, NULL, 0) < 0)
		fprintf(stderr, "%s: warning: %s\n", c->o->who, c->err);
}

/* --- the database ----------------------------------------------------------------------- */

/* The runner calls this once the run's row exists: the run's tags, in its connection. */
static int tag_run(void *arg, sqlite3 *db, int64_t run_id, char *err, size_t errlen)
{
	struct ctx *c = arg;
	const struct tag *g = &c->tag;
	sqlite3_stmt *q = NULL;
	int rc;

	if (db_prepare(db, &q,
	               "INSERT INTO study_runs(run_id, study_id, seq, slot, round, position, "
	               "target, warmup, since_start, version) VALUES(?,?,?,?,?,?,?,?,?,?)",
	               err, errlen) < 0)
		return -1;
	c->run_id = run_id;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, c->study_id);
	sqlite3_bind_int(q, 3, ++c->seq);
	if (g->slot > 0)
		sqlite3_bind_int(q, 4, g->slot);
	sqlite3_bind_int(q, 5, g->round);
	sqlite3_bind_int(q, 6, g->position);
	sqlite3_bind_text(q, 7, c->st->targets[g->target].name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 8, g->warmup);
	sqlite3_bind_int(q, 9, g->since_start);
	if (c->t[g->target].kv.version)
		sqlite3_bind_text(q, 10, c->t[g->target].kv.version, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(db, "cannot tag the run with its study", err, errlen);
	return 0;
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &s, sizeof s) != (ssize_t)sizeof s)
		s = (uint64_t)clock_mono_ns() ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	return s >> 1; /* stored as a signed 64-bit integer */
}

double study_look_alpha(double alpha, int k, int K)
{
	if (K < 1 || k < 1 || k > K)
		return 0;
	double a = (double)k / K, b = (double)(k - 1) / K;
	return alpha * (a * a - b * b);
}

/* Writes the sequential columns of the studies row. */
static int record_look(struct ctx *c, double alpha)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (db_prepare(c->db, &q,
	               "UPDATE studies SET max_looks = ?, looks = ?, alpha = ?, stop = ? "
	               "WHERE id = ?",
	               c->err, sizeof c->err) < 0)
		return -1;
	sqlite3_bind_int(q, 1, c->max_looks);
	sqlite3_bind_int(q, 2, c->looks);
	sqlite3_bind_double(q, 3, alpha);
	if (c->stop[0])
		sqlite3_bind_text(q, 4, c->stop, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 5, c->study_id);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(c->db, "cannot record the study's look", c->err, sizeof c->err);
	return 0;
}

/* After round `round` of a sequential study: 1 to go on, 0 to stop (c->stop says why),
 * -1 with c->err. */
static int after_round(struct ctx *c, int round)
{
	const struct study *st = c->st;
	int64_t elapsed = clock_mono_ms() - c->t0_ms;
	double per_round = (double)elapsed / round;
	char why[512] = "", e[512];

	if (round >= 2) {
		if (c->max_looks == 0) {
			/* K from the budget, once: the rounds it allows, one look after each
			 * from the second. */
			int fit = (int)((double)st->budget_ms / per_round);
			c->max_looks = (fit < st->rounds ? fit : st->rounds) - 1;
			if (c->max_looks < 1)
				c->max_looks = 1;
		}
		if (c->looks < c->max_looks) {
			double alpha = study_look_alpha(0.05, ++c->looks, c->max_looks);
			if (record_look(c, alpha) < 0)
				return -1;
			int r = c->o->look(c->o->look_arg, c->o->db_path, c->study_id, st, why,
			                   sizeof why, e, sizeof e);
			if (r < 0) {
				snprintf(c->err, sizeof c->err, "look %d: %s", c->looks, e);
				return -1;
			}
			fprintf(stderr,
			        "%s: look %d of %d after round %d (error rate %.4f%%): %s\n",
			        c->o->who, c->looks, c->max_looks, round, 100 * alpha,
			        r ? "every figure resolved" : why);
			if (r) {
				snprintf(c->stop, sizeof c->stop, "precise");
				return 0;
			}
			if (c->looks == c->max_looks) {
				snprintf(c->stop, sizeof c->stop, "budget");
				return 0;
			}
		}
	}
	if (round >= st->rounds) {
		snprintf(c->stop, sizeof c->stop, "rounds");
		return 0;
	}
	if ((double)elapsed + per_round > (double)st->budget_ms) {
		snprintf(c->stop, sizeof c->stop, "budget");
		return 0;
	}
	return 1;
}

static int new_study(struct ctx *c, const char *text, uint64_t seed)
{
	const struct study *st = c->st;
	char targets[STUDY_MAX_TARGETS * STUDY_NAME_MAX] = "";
	sqlite3_stmt *q = NULL;
	size_t used = 0;
	int rc, managed = 0;

	for (int t = 0; t < st->ntargets; t++)
		managed += st->targets[t].start != NULL;
	for (int t = 0; t < st->ntargets; t++)
		used += (size_t)snprintf(targets + used, sizeof targets - used, "%s%s",
		                         t ? ", " : "", st->targets[t].name);
	if (db_prepare(
	        c->db, &q,
	        "INSERT INTO studies(uuid, name, file, text, order_kind, seed, rounds, "
	        "warmup_runs, keep_running, before_each, targets, managed, slots, status, "
	        "started_ms, until, budget_ms, warmup_steady, warmup_max) "
	        "VALUES(lower(hex(randomblob(16))),?,?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?,?,"
	        "?)",
	        c->err, sizeof c->err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, st->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, st->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, st->order == STUDY_RANDOM ? "random" : "interleaved", -1,
	                  SQLITE_STATIC);
	if (st->order == STUDY_RANDOM)
		sqlite3_bind_int64(q, 5, (int64_t)seed);
	sqlite3_bind_int(q, 6, st->rounds);
	sqlite3_bind_int(q, 7, st->warmup_runs);
	sqlite3_bind_int(q, 8, st->keep_running);
	char *before = st->before_each_shown ? redact_text(NULL, st->before_each_shown) : NULL;
	if (before)
		sqlite3_bind_text(q, 9, before, -1, SQLITE_TRANSIENT);
	free(before);
	sqlite3_bind_text(q, 10, targets, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 11, managed);
	sqlite3_bind_int(q, 12, study_nslots(st));
	sqlite3_bind_int64(q, 13, clock_wall_ms());
	if (st->nuntil > 0) {
		sqlite3_bind_text(q, 14, st->until_text, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 15, st->budget_ms);
	}
	if (st->warmup_steady > 0) {
		sqlite3_bind_double(q, 16, st->warmup_steady);
		sqlite3_bind_int(q, 17, st->warmup_max);
	}
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(c->db, "cannot record the study", c->err, sizeof c->err);
	c->study_id = sqlite3_last_insert_rowid(c->db);
	return 0;
}

/* Finds the study to resume: its id, seed and done slots.  Returns 0, 1 when it is already
 * done (nothing to do), or -1 with c->err and *usage set when the input is at fault. */
static int find_resume(struct ctx *c, const char *text, uint64_t *seed, char *done, int *usage)
{
	sqlite3_stmt *q = NULL;
	int rc = -1, step;

	*usage = 1;
	if (db_prepare(c->db, &q,
	               "SELECT id, text, IFNULL(seed, 0), status FROM studies WHERE name = ? "
	               "ORDER BY id DESC LIMIT 1",
	               c->err, sizeof c->err) < 0) {
		*usage = 0;
		return -1;
	}
	sqlite3_bind_text(q, 1, c->st->name, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(q)) != SQLITE_ROW) {
		snprintf(c->err, sizeof c->err, "no study named '%s' in %s to resume", c->st->name,
		         c->o->db_path);
		goto done;
	}
	c->study_id = sqlite3_column_int64(q, 0);
	if (strcmp((const char *)sqlite3_column_text(q, 1), text) != 0) {
		snprintf(
		    c->err, sizeof c->err,
		    "study %lld '%s' was begun with another file or other --set overrides: "
		    "a resumed study must run the same plan (start a new one without --resume)",
		    (long long)c->study_id, c->st->name);
		goto done;
	}
	*seed = (uint64_t)sqlite3_column_int64(q, 2);
	if (strcmp((const char *)sqlite3_column_text(q, 3), "done") == 0) {
		rc = 1;
		goto done;
	}
	sqlite3_finalize(q);
	q = NULL;
	*usage = 0;
	if (db_prepare(c->db, &q,
	               "SELECT sr.slot FROM study_runs sr JOIN runs r ON r.id = sr.run_id "
	               "WHERE sr.study_id = ? AND sr.slot IS NOT NULL AND r.status = 'done'",
	               c->err, sizeof c->err) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, c->study_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int s = sqlite3_column_int(q, 0);
		if (s >= 1 && s <= study_nslots(c->st))
			done[s - 1] = 1;
	}
	if (step != SQLITE_DONE) {
		db_fail(c->db, "cannot read the study's runs", c->err, sizeof c->err);
		goto done;
	}
	{
		long long seq = 0;
		char sql[96];
		snprintf(sql, sizeof sql,
		         "SELECT IFNULL(MAX(seq), 0) FROM study_runs WHERE study_id = %lld",
		         (long long)c->study_id);
		if (db_int(c->db, sql, 0, &seq, c->err, sizeof c->err) < 0)
			goto done;
		c->seq = (int)seq;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

static void set_status(struct ctx *c, const char *status)
{
	sqlite3_stmt *q = NULL;
	char err[256];

	if (db_prepare(c->db, &q, "UPDATE studies SET status = ?, ended_ms = ? WHERE id = ?", err,
	               sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", c->o->who, err);
		return;
	}
	sqlite3_bind_text(q, 1, status, -1, SQLITE_STATIC);
	if (strcmp(status, "running") != 0)
		sqlite3_bind_int64(q, 2, clock_wall_ms());
	sqlite3_bind_int64(q, 3, c->study_id);
	if (sqlite3_step(q) != SQLITE_DONE)
		fprintf(stderr, "%s: cannot record the study's status: %s\n", c->o->who,
		        sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
}

/* A cell of a calibration being summed: its key and its runs' figures. */
struct calib_group {
	char scenario[256], label[128], kind[16];
	int conc;
	int64_t planned;
	double x[3][STUDY_MAX_ROUNDS]; /* tps, mean, p99 of each run */
	int n;                         /* runs */
};

/* Stores a complete cell's spread per metric (tps, mean, p99) through ins: *stored counts
 * the rows.  0, or -1 with c->err. */
static int store_cell(struct ctx *c, sqlite3_stmt *ins, const char *host,
                      const struct calib_group *g, int *stored)
{
	static const char *const metric[3] = {"tps", "mean", "p99"};

	for (int m = 0; m < 3; m++) {
		double sum = 0, ss = 0, mean, sd;
		for (int i = 0; i < g->n; i++)
			sum += g->x[m][i];
		mean = sum / g->n;
		for (int i = 0; i < g->n; i++)
			ss += (g->x[m][i] - mean) * (g->x[m][i] - mean);
		sd = sqrt(ss / (g->n - 1));
		if (!(mean > 0))
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, c->study_id);
		sqlite3_bind_int64(ins, 2, clock_wall_ms());
		sqlite3_bind_text(ins, 3, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, g->scenario, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, g->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, g->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(ins, 7, g->conc);
		sqlite3_bind_int64(ins, 8, g->planned);
		sqlite3_bind_text(ins, 9, metric[m], -1, SQLITE_STATIC);
		sqlite3_bind_int(ins, 10, g->n);
		sqlite3_bind_double(ins, 11, mean);
		sqlite3_bind_double(ins, 12, sd);
		sqlite3_bind_double(ins, 13, sd / mean);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return db_fail(c->db, "cannot store the calibration", c->err,
			               sizeof c->err);
		(*stored)++;
	}
	return 0;
}

/* 1 when the step row q belongs to the cell g is summing. */
static int same_cell(const struct calib_group *g, sqlite3_stmt *q)
{
	return g->n > 0 && !strcmp(g->scenario, (const char *)sqlite3_column_text(q, 0)) &&
	       !strcmp(g->label, (const char *)sqlite3_column_text(q, 1)) &&
	       !strcmp(g->kind, (const char *)sqlite3_column_text(q, 2)) &&
	       g->conc == sqlite3_column_int(q, 3) && g->planned == sqlite3_column_int64(q, 4);
}

/* Adds the step row q to g, which starts a new cell unless `same`. */
static void add_to_cell(struct calib_group *g, sqlite3_stmt *q, int same)
{
	if (!same) {
		snprintf(g->scenario, sizeof g->scenario, "%s", sqlite3_column_text(q, 0));
		snprintf(g->label, sizeof g->label, "%s", sqlite3_column_text(q, 1));
		snprintf(g->kind, sizeof g->kind, "%s", sqlite3_column_text(q, 2));
		g->conc = sqlite3_column_int(q, 3);
		g->planned = sqlite3_column_int64(q, 4);
		g->n = 0;
	}
	if (g->n < STUDY_MAX_ROUNDS) {
		for (int m = 0; m < 3; m++)
			g->x[m][g->n] = sqlite3_column_double(q, 5 + m);
		g->n++;
	}
}

/* A one-target study measured how much runs of one system differ: stored per cell and
 * metric (tps, mean, p99) from the steps of its done measured runs. */
static int store_calibration(struct ctx *c)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	char host[256];
	int rc = -1, step, stored = 0;
	struct calib_group *g = calloc(1, sizeof *g); /* the cell being summed */

	if (!g) {
		snprintf(c->err, sizeof c->err, "out of memory");
		return -1;
	}
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	if (db_prepare(c->db, &q,
	               "SELECT r.name, r.label, r.mode, s.concurrency, s.planned_ms, s.tps, "
	               "s.mean_us / 1000.0, s.p99_us / 1000.0 FROM study_runs sr "
	               "JOIN runs r ON r.id = sr.run_id JOIN steps s ON s.run_id = r.id "
	               "WHERE sr.study_id = ? AND sr.warmup = 0 AND r.status = 'done' "
	               "AND s.window_end_ms IS NOT NULL AND s.requests > 0 "
	               "ORDER BY r.name, r.label, r.mode, s.concurrency, s.planned_ms, r.id",
	               c->err, sizeof c->err) < 0 ||
	    db_prepare(c->db, &ins,
	               "INSERT OR REPLACE INTO calibrations(study_id, t_ms, host, scenario, label, "
	               "kind, concurrency, planned_ms, metric, runs, mean, sd, cv) "
	               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	               c->err, sizeof c->err) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, c->study_id);
	for (;;) {
		step = sqlite3_step(q);
		int same = step == SQLITE_ROW && same_cell(g, q);
		/* the cell before this row is complete */
		if (!same && g->n >= 2 && store_cell(c, ins, host, g, &stored) < 0)
			goto done;
		if (step != SQLITE_ROW)
			break;
		add_to_cell(g, q, same);
	}
	if (step != SQLITE_DONE) {
		db_fail(c->db, "cannot read the study's steps", c->err, sizeof c->err);
		goto done;
	}
	if (stored)
		fprintf(stderr, "%s: run-to-run spread stored as a calibration (study %lld)\n",
		        c->o->who, (long long)c->study_id);
	rc = 0;
done:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	free(g);
	return rc;
}

/* --- runs -------------------------------------------------------------------------------- */

/* One run of scenario sc against target t, with its tags.  Returns the runner's status, or
 * EXIT_RUNTIME / EXIT_USAGE with c->err. */
static int one_run(struct ctx *c, int t, int sc, const struct tag *tag, int nth, int of)
{
	const struct study *st = c->st;
	struct tstate *s = &c->t[t];
	struct runner_opts ro = c->o->run;
	struct scenario scn;
	char e[1024];
	int rc;

	if (st->before_each &&
	    sh_run(c, "before_each", st->before_each, t, tag->round, NULL, 1) < 0)
		return signalled(c) ? (*c->o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT)
		                    : EXIT_RUNTIME;
	if (study_scenario(st, t, sc, &s->kv, c->o->sets, c->o->nsets, &scn, e, sizeof e) < 0) {
		snprintf(c->err, sizeof c->err, "target %s: %.900s", st->targets[t].name, e);
		return EXIT_USAGE;
	}
	c->tag = *tag;
	c->tag.since_start = s->started ? s->since_start + 1 : 0;
	if (tag->warmup)
		fprintf(stderr, "%s: warm-up run of %s (round %d; recorded, not compared)\n",
		        c->o->who, st->targets[t].name, tag->round);
	else
		fprintf(stderr, "%s: run %d/%d: round %d, position %d: %s ('%s')\n", c->o->who, nth,
		        of, tag->round, tag->position, st->targets[t].name, scn.name);
	ro.db_path = c->o->db_path;
	ro.on_begin = tag_run;
	ro.on_begin_arg = c;
	rc = runner_run(&scn, &ro);
	scn_release(&scn);
	s->since_start++;
	if (rc == EXIT_RUNTIME)
		snprintf(c->err, sizeof c->err, "a run against %s failed (see above)",
		         st->targets[t].name);
	return rc;
}

/* The figure a warm-up run is judged steady on: the TPS of a closed run, the mean latency
 * of an open one (its TPS is the rate it was given); NAN when it has none. */
static double warm_figure(struct ctx *c, int64_t run_id, int *open)
{
	sqlite3_stmt *q = NULL;
	double x = NAN;

	*open = 0;
	if (db_prepare(c->db, &q,
	               "SELECT r.model = 'open', CASE WHEN r.model = 'open' THEN s.mean_us "
	               "ELSE s.tps END FROM steps s JOIN runs r ON r.id = s.run_id "
	               "WHERE s.run_id = ? AND s.requests > 0 ORDER BY s.idx LIMIT 1",
	               c->err, sizeof c->err) < 0)
		return NAN;
	sqlite3_bind_int64(q, 1, run_id);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 1) != SQLITE_NULL) {
		*open = sqlite3_column_int(q, 0);
		x = sqlite3_column_double(q, 1);
	}
	sqlite3_finalize(q);
	return x;
}

/* The warm-up rounds (a run of each scenario) target t still needs before its next
 * compared run: warmup_runs, and with warmup_steady more until the last two agree within
 * it (at most warmup_max). */
static int warm_up(struct ctx *c, int t, int round)
{
	const struct study *st = c->st;
	struct tstate *s = &c->t[t];

	for (;;) {
		int steady = st->warmup_steady > 0, need = st->warmup_runs, open, rc;
		if (steady && need < 2)
			need = 2; /* two runs to compare */
		if (s->warm >= need && (!steady || s->steady || s->warm >= st->warmup_max))
			return EXIT_OK;
		/* A warm-up runs each scenario once: the first run of a scenario after a start is
		 * cold in its own ways (the demo's first run at 600/s cost 1.5 times the CPU per
		 * request of the later ones, after four warm-up runs at 30 users).  Steadiness is
		 * judged on the first scenario's runs. */
		int64_t judged = -1;
		for (int sc = 0; sc < st->nscenarios; sc++) {
			struct tag w = {.round = round, .target = t, .warmup = 1};
			rc = one_run(c, t, sc, &w, 0, 0);
			if (rc != EXIT_OK && rc != EXIT_THRESHOLD) {
				s->warm++;
				return rc;
			}
			if (sc == 0)
				judged = c->run_id;
		}
		s->warm++;
		if (!steady)
			continue;
		double x = warm_figure(c, judged, &open), prev = s->warm_fig;
		s->warm_fig = x;
		if (isnan(x) || isnan(prev) || prev <= 0)
			continue;
		s->steady = fabs(x / prev - 1) <= st->warmup_steady;
		fprintf(stderr, "%s: %s: warm-up run %d: %s %+.1f%% on the one before: %s\n",
		        c->o->who, st->targets[t].name, s->warm, open ? "mean latency" : "TPS",
		        100 * (x / prev - 1),
		        s->steady                   ? "steady"
		        : s->warm >= st->warmup_max ? "not steady, but warmup_max is reached: "
		                                      "its compared runs may still be warming"
		                                    : "not yet steady");
	}
}

/* Begins the study: the one to resume (its seed and done slots, *resumed done: nothing
 * left) or a new one (its seed drawn when random and not given).  EXIT_OK, or the exit
 * status with c->err. */
static int begin_study(struct ctx *c, const char *text, uint64_t *seed, char *done, int *finished)
{
	const struct study *st = c->st;
	int usage = 0;

	*finished = 0;
	if (c->o->resume) {
		int r = find_resume(c, text, seed, done, &usage);
		if (r < 0)
			return usage ? EXIT_USAGE : EXIT_RUNTIME;
		if (r == 1) {
			fprintf(stderr, "%s: study %lld '%s' is done: nothing to resume\n",
			        c->o->who, (long long)c->study_id, st->name);
			*finished = 1;
			return EXIT_OK;
		}
		set_status(c, "running");
		return EXIT_OK;
	}
	if (st->order == STUDY_RANDOM && !st->has_seed)
		*seed = random_seed();
	return new_study(c, text, *seed) < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* Says what the study will do (left of nslots runs to go) and shows it on /metrics. */
static void announce(struct ctx *c, uint64_t seed, int left, int nslots)
{
	const struct study *st = c->st;

	fprintf(stderr, "%s: study %lld '%s' into %s: %d of %d runs to go, %d round%s, %s order",
	        c->o->who, (long long)c->study_id, st->name, c->o->db_path, left, nslots,
	        st->rounds, st->rounds == 1 ? "" : "s",
	        st->order == STUDY_RANDOM ? "random" : "interleaved");
	if (st->order == STUDY_RANDOM)
		fprintf(stderr, " (seed %llu)", (unsigned long long)seed);
	fputc('\n', stderr);
	if (c->o->study_id)
		*c->o->study_id = c->study_id;
	c->ms = (struct mstudy){.active = 1,
	                        .study_id = c->study_id,
	                        .rounds = st->rounds,
	                        .runs = nslots,
	                        .done = nslots - left,
	                        .running = 1};
	publish(c);
}

/* Slot i (the nth of `left` to run): its target started when it must be, its warm-up
 * runs, then the measured run.  EXIT_OK to go on (*breached set when a threshold
 * failed), else the status that stops the study. */
static int run_slot(struct ctx *c, int i, const struct study_slot *sl, int nth, int left,
                    int *breached)
{
	const struct study *st = c->st;
	int t = sl->target, rc;

	c->ms.round = sl->round;
	publish(c);
	if (!st->keep_running && st->targets[t].start && !c->t[t].up &&
	    start_target(c, t, sl->round) < 0)
		return signalled(c) ? EXIT_SIGINT : EXIT_RUNTIME;
	if ((rc = warm_up(c, t, sl->round)) != EXIT_OK)
		return rc;
	struct tag m = {.slot = i + 1, .round = sl->round, .position = sl->position, .target = t};
	rc = one_run(c, t, sl->scenario, &m, nth, left);
	if (rc == EXIT_OK || rc == EXIT_THRESHOLD) {
		c->ms.done++;
		publish(c);
	}
	if (rc == EXIT_THRESHOLD) {
		*breached = 1;
		rc = EXIT_OK;
	}
	if (rc != EXIT_OK)
		return rc;
	if (!st->keep_running) /* each run on a fresh start: no state carried over */
		stop_target(c, t, sl->round);
	return EXIT_OK;
}

/* A sequential study's look after round `round`: 1 to go on, 0 when it stops there (said
 * and recorded), -1 with c->err. */
static int look_after_round(struct ctx *c, int round)
{
	int go = after_round(c, round);

	if (go != 0)
		return go;
	fprintf(stderr, "%s: sequential study stops after round %d: %s\n", c->o->who, round,
	        !strcmp(c->stop, "precise")  ? "every figure resolved"
	        : !strcmp(c->stop, "rounds") ? "its rounds are done"
	                                     : "its budget is spent");
	if (record_look(c, c->looks ? study_look_alpha(0.05, c->looks, c->max_looks) : 0.05) < 0)
		return -1;
	return 0;
}

/* The schedule's slots not done yet, in order (the targets kept running started first).
 * EXIT_OK with *complete when the study got to its end (or a sequential study stopped),
 * else the status that stopped it. */
static int run_slots(struct ctx *c, const struct study_slot *slots, int nslots, const char *done,
                     int left, int *breached, int *complete)
{
	const struct study *st = c->st;
	int nth = 0, rc;

	*complete = 0;
	if (st->keep_running)
		for (int t = 0; t < st->ntargets; t++)
			if (st->targets[t].start && start_target(c, t, 1) < 0)
				return signalled(c) ? EXIT_SIGINT : EXIT_RUNTIME;
	for (int i = 0; i < nslots; i++) {
		const struct study_slot *sl = &slots[i];
		if (done[i])
			continue;
		if ((rc = run_slot(c, i, sl, ++nth, left, breached)) != EXIT_OK)
			return rc;
		/* A sequential study looks after each whole round. */
		if (st->nuntil > 0 && (i + 1 == nslots || slots[i + 1].round != sl->round)) {
			int go = look_after_round(c, sl->round);
			if (go < 0)
				return EXIT_RUNTIME;
			if (!go)
				break;
		}
	}
	*complete = 1;
	return EXIT_OK;
}

/* The study's end, however it came: the targets stopped, its status recorded, a
 * one-target study's calibration stored, what happened said.  Returns the exit status. */
static int end_study(struct ctx *c, int rc, int complete, int breached)
{
	const struct study *st = c->st;
	const struct study_run_opts *o = c->o;
	const char *status = complete ? "done" : "interrupted";

	if (rc == EXIT_SIGINT || rc == EXIT_SIGTERM || signalled(c)) {
		status = "interrupted";
		if (rc == EXIT_OK || rc == EXIT_RUNTIME)
			rc = *o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT;
	} else if (rc != EXIT_OK) {
		status = "failed";
	}
	for (int t = st->ntargets - 1; t >= 0; t--)
		stop_target(c, t, 0);
	set_status(c, status);
	c->ms.running = 0;
	publish(c);
	if (!strcmp(status, "done") && st->ntargets == 1 && store_calibration(c) < 0) {
		fprintf(stderr, "%s: %s\n", o->who, c->err);
		rc = EXIT_RUNTIME;
	}
	if (!strcmp(status, "done"))
		fprintf(stderr, "%s: study %lld '%s' done; `soak report %s` compares its labels\n",
		        o->who, (long long)c->study_id, st->name, o->db_path);
	else if (rc != EXIT_SIGINT && rc != EXIT_SIGTERM)
		fprintf(stderr, "%s: %s\n", o->who, c->err);
	if (strcmp(status, "done"))
		fprintf(stderr, "%s: study %lld %s; the same command with --resume continues it\n",
		        o->who, (long long)c->study_id, status);
	if (rc == EXIT_OK && breached)
		rc = EXIT_THRESHOLD;
	c->err[0] = '\0';
	return rc;
}

int study_run_all(const struct study *st, const struct study_run_opts *o)
{
	struct ctx *c = calloc(1, sizeof *c);
	int nslots = study_nslots(st), rc = EXIT_OK, breached = 0, left = 0, finished, complete;
	struct study_slot *slots = calloc((size_t)nslots, sizeof *slots);
	char *done = calloc((size_t)nslots, 1),
	     *whole = scn_text_with_sets(st->text, o->sets, o->nsets),
	     *text = whole ? redact_ini(NULL, whole) : NULL; /* what studies.text stores */
	uint64_t seed = st->has_seed ? st->seed : 0;

	if (o->study_id)
		*o->study_id = -1;
	free(whole);
	if (!c || !slots || !done || !text) {
		fprintf(stderr, "%s: out of memory\n", o->who);
		free(c);
		free(slots);
		free(done);
		free(text);
		return EXIT_RUNTIME;
	}
	c->st = st;
	c->o = o;
	c->t0_ms = clock_mono_ms();
	if (st->nuntil > 0 && !o->look) {
		snprintf(c->err, sizeof c->err, "%s cannot run a sequential study (until)", o->who);
		rc = EXIT_USAGE;
		goto out;
	}
	for (int t = 0; t < st->ntargets; t++)
		if (study_kv_copy(&c->t[t].kv, &st->targets[t].given) < 0) {
			snprintf(c->err, sizeof c->err, "out of memory");
			rc = EXIT_RUNTIME;
			goto out;
		}
	if (db_open(o->db_path, DB_CREATE, &c->db, c->err, sizeof c->err) < 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if ((rc = begin_study(c, text, &seed, done, &finished)) != EXIT_OK || finished)
		goto out;
	study_schedule(st, seed, slots);
	for (int i = 0; i < nslots; i++)
		left += !done[i];
	announce(c, seed, left, nslots);
	rc = run_slots(c, slots, nslots, done, left, &breached, &complete);
	rc = end_study(c, rc, complete, breached);
out:
	if (c->err[0])
		fprintf(stderr, "%s: %s\n", o->who, c->err);
	for (int t = 0; t < st->ntargets; t++)
		study_kv_release(&c->t[t].kv);
	db_close(c->db);
	free(c);
	free(slots);
	free(done);
	free(text);
	return rc;
}
