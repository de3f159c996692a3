/* study_cmd: a study's commands: the targets' start and stop, before_each (study_int.h).
 * Every command runs in its own process group with a timeout and is stopped by pid; what
 * it prints is shown redacted with the built-in and the study's own names. */
#include "run/study_int.h"

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
#include "dur.h"
#include "redact.h"

#define OUT_MAX       65536 /* bytes of a start command's stdout kept */
#define KILL_GRACE_MS 3000  /* after SIGTERM to a command's group, SIGKILL */

/* /metrics: the study as it stands now (when served). */
void sr_publish(struct ctx *c)
{
	if (c->o->run.metrics)
		metrics_publish_study(c->o->run.metrics, &c->ms);
}

int sr_signalled(const struct ctx *c)
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
static void exec_command(const struct ctx *c, const char *cmd, int i, const char *round,
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
	int t = i >= 0 ? SR_TARGET(c, i) : -1;
	if (t >= 0) {
		char rep[16];
		snprintf(rep, sizeof rep, "%d", SR_REPLICA(c, i) + 1);
		setenv("SOAK_TARGET", st->targets[t].name, 1);
		setenv("SOAK_REPLICA", rep, 1);
	}
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
		} else if (interruptible && sr_signalled(c)) {
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

/* "tomcat9" or "tomcat9#2" (replica 2 of 3): how progress lines name instance i. */
const char *sr_inst_name(const struct ctx *c, int i, char *buf, size_t len)
{
	const char *name = c->st->targets[SR_TARGET(c, i)].name;

	if (c->st->targets[SR_TARGET(c, i)].replicas > 1)
		snprintf(buf, len, "%s#%d", name, SR_REPLICA(c, i) + 1);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* Runs `cmd` for target t (or -1) in round `round`; with `out`, its stdout is read into a
 * malloc'd string (else it goes to stderr).  A signal ends it when `interruptible` (a stop
 * runs to its end: it is what a signal asks for).  0 when it exits 0; -1 with c->err. */
int sr_sh_run(struct ctx *c, const char *what, const char *cmd, int i, int round, char **out,
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
		exec_command(c, cmd, i, rnd, dir, out ? pfd[1] : STDERR_FILENO);
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

int sr_start(struct ctx *c, int i, int round)
{
	const struct study_target *tg = &c->st->targets[SR_TARGET(c, i)];
	struct tstate *s = &c->t[i];
	char what[128], *out = NULL;

	snprintf(what, sizeof what, "starting target %s",
	         sr_inst_name(c, i, (char[STUDY_NAME_MAX + 8]){0}, STUDY_NAME_MAX + 8));
	fprintf(stderr, "%s: %s\n", c->o->who, what);
	/* Marked up before it runs: a start that fails half-way is still stopped. */
	s->up = 1;
	if (sr_sh_run(c, what, tg->start, i, round, &out, 1) < 0)
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
		char *shown = redact_text(&c->st->redact, l);
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
	s->jit_quiet = 0;
	return 0;
}

/* Stops a target this process started; a failure is a warning (the study's data stands). */
void sr_stop(struct ctx *c, int i, int round)
{
	const struct study_target *tg = &c->st->targets[SR_TARGET(c, i)];
	char what[128];

	if (!c->t[i].up)
		return;
	c->t[i].up = 0;
	if (!tg->stop)
		return;
	snprintf(what, sizeof what, "stopping target %s",
	         sr_inst_name(c, i, (char[STUDY_NAME_MAX + 8]){0}, STUDY_NAME_MAX + 8));
	fprintf(stderr, "%s: %s\n", c->o->who, what);
	if (sr_sh_run(c, what, tg->stop, i, round, NULL, 0) < 0)
		fprintf(stderr, "%s: warning: %s\n", c->o->who, c->err);
}
