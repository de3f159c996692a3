/* collect: the collector processes soak run starts and stops (collect.h).  They die with
 * the runner, write into the run's database themselves, and one that ends early is an
 * event, never a failed run. */
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

/* The collector binary next to our own executable, or the bare name (PATH). */
static void prog_path(const char *prog, char *out, size_t len)
{
	char self[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, len, "%s/%.32s", self, prog);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "%s", prog);
}

static int spawn(struct collectors *cs, const char *source, const char *prog, char *const argv[],
                 char *err, size_t errlen)
{
	char path[PATH_MAX];
	pid_t parent = getpid(), pid;

	if (cs->n >= COLL_MAX) {
		snprintf(err, errlen, "too many collectors");
		return -1;
	}
	prog_path(prog, path, sizeof path);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", prog, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		/* Die with the runner, even if it is killed with SIGKILL. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_IGN); /* Ctrl-C goes to the runner, which stops us in order */
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		execvp(path, argv);
		fprintf(stderr, "soak run: cannot run '%s': %s\n", path, strerror(errno));
		_exit(127);
	}
	struct coll_child *c = &cs->c[cs->n++];
	memset(c, 0, sizeof *c);
	c->pid = pid;
	snprintf(c->source, sizeof c->source, "%s", source);
	snprintf(c->prog, sizeof c->prog, "%s", prog);
	log_info("started %s for '%s' (pid %d)", prog, source, (int)pid);
	return 0;
}

/* The process set's options (--match, --pidfile or --pid) from argv[a]; the next index.
 * pid holds the number's text. */
static int set_args(char **argv, int a, const struct scn_collect *c, char *pid, size_t len)
{
	if (c->pid_match) {
		argv[a++] = (char *)"--match";
		argv[a++] = c->pid_match;
	} else if (c->pidfile) {
		argv[a++] = (char *)"--pidfile";
		argv[a++] = c->pidfile;
	} else if (c->pid) {
		snprintf(pid, len, "%ld", c->pid);
		argv[a++] = (char *)"--pid";
		argv[a++] = pid;
	}
	return a;
}
/* The arguments every collector gets first: PROG --db DB --source NAME --run RUN, and
 * --redact NAMES (the scenario's redact key) when it has any; returns how many. */
static int collector_args(char **argv, const char *prog, const char *db_path, char *name, char *run,
                          char *redact)
{
	int a = 0;

	argv[a++] = (char *)prog;
	argv[a++] = (char *)"--db";
	argv[a++] = (char *)db_path;
	argv[a++] = (char *)"--source";
	argv[a++] = name;
	argv[a++] = (char *)"--run";
	argv[a++] = run;
	if (*redact) {
		argv[a++] = (char *)"--redact";
		argv[a++] = redact;
	}
	return a;
}

int coll_start(struct collectors *cs, const struct scenario *s, const char *db_path, int64_t run_id,
               char *err, size_t errlen)
{
	char run[32], every[32], pid[32], jvm[32], limit[32];
	char redact[REDACT_MAX_NAMES * REDACT_NAME_MAX];

	memset(cs, 0, sizeof *cs);
	snprintf(run, sizeof run, "%lld", (long long)run_id);
	redact_list(&s->redact, redact, sizeof redact);
	for (int i = 0; i < s->ncollect; i++) {
		const struct scn_collect *k = &s->collect[i];
		if (k->pid_match || k->pidfile || k->pid || k->host) {
			char *argv[24];
			int a;
			snprintf(every, sizeof every, "%lldms", (long long)k->every_ms);
			a = collector_args(argv, "soak-procstat", db_path, k->name, run, redact);
			argv[a++] = (char *)"--every";
			argv[a++] = every;
			argv[a++] = (char *)"--die-with-parent";
			a = set_args(argv, a, k, pid, sizeof pid);
			if (k->host)
				argv[a++] = (char *)"--host";
			if (k->memory_limit > 0) {
				snprintf(limit, sizeof limit, "%lld", (long long)k->memory_limit);
				argv[a++] = (char *)"--memory-limit";
				argv[a++] = limit;
			}
			argv[a] = NULL;
			if (spawn(cs, k->name, "soak-procstat", argv, err, errlen) < 0)
				goto fail;
		}
		if (k->gc_log) {
			char *argv[24];
			int a = collector_args(argv, "soak-gclog", db_path, k->name, run, redact);
			argv[a++] = (char *)"--follow";
			argv[a++] = k->gc_log;
			argv[a++] = (char *)"--die-with-parent";
			if (k->jvm_start_ms) {
				snprintf(jvm, sizeof jvm, "%lld", (long long)k->jvm_start_ms);
				argv[a++] = (char *)"--jvm-start";
				argv[a++] = jvm;
			} else if (k->pid_match) {
				argv[a++] = (char *)"--pid-match";
				argv[a++] = k->pid_match;
			}
			argv[a] = NULL;
			if (spawn(cs, k->name, "soak-gclog", argv, err, errlen) < 0)
				goto fail;
		}
	}
	return 0;
fail:
	coll_stop(cs, 2000);
	return -1;
}

int coll_profile(struct collectors *cs, const struct scenario *s, const char *db_path,
                 int64_t run_id, int k, int64_t from_mono, int all, char *err, size_t errlen)
{
	char run[32], step[32], hz[32], pid[32], from[32];
	char redact[REDACT_MAX_NAMES * REDACT_NAME_MAX];

	memset(cs, 0, sizeof *cs);
	snprintf(run, sizeof run, "%lld", (long long)run_id);
	snprintf(step, sizeof step, "%d", k);
	snprintf(from, sizeof from, "%lld", (long long)from_mono);
	redact_list(&s->redact, redact, sizeof redact);
	for (int i = 0; i < s->ncollect; i++) {
		const struct scn_collect *c = &s->collect[i];
		char *argv[24];
		int a;
		if (!(c->profile || all) || (!c->pid_match && !c->pidfile && !c->pid))
			continue;
		a = collector_args(argv, "soak-perf", db_path, c->name, run, redact);
		snprintf(hz, sizeof hz, "%d", c->profile_hz);
		argv[a++] = (char *)"--step";
		argv[a++] = step;
		argv[a++] = (char *)"--hz";
		argv[a++] = hz;
		argv[a++] = (char *)"--from-mono";
		argv[a++] = from;
		argv[a++] = (char *)"--die-with-parent";
		a = set_args(argv, a, c, pid, sizeof pid);
		argv[a] = NULL;
		if (spawn(cs, c->name, "soak-perf", argv, err, errlen) < 0) {
			coll_stop(cs, 2000);
			return -1;
		}
	}
	return 0;
}

static void describe(const struct coll_child *c, char *buf, size_t len)
{
	if (WIFEXITED(c->status))
		snprintf(buf, len,
		         "%s for '%s' (pid %d) exited with status %d; its samples stop here",
		         c->prog, c->source, (int)c->pid, WEXITSTATUS(c->status));
	else
		snprintf(buf, len,
		         "%s for '%s' (pid %d) was killed by signal %d; its samples stop here",
		         c->prog, c->source, (int)c->pid, WTERMSIG(c->status));
}

void coll_poll(struct collectors *cs, struct recorder *r)
{
	for (int i = 0; i < cs->n; i++) {
		struct coll_child *c = &cs->c[i];
		char detail[256], err[256];
		if (!c->pid || waitpid(c->pid, &c->status, WNOHANG) != c->pid)
			continue;
		describe(c, detail, sizeof detail);
		log_warn("%s", detail);
		if (r && rec_event(r, c->source, "collector_lost", detail, err, sizeof err) < 0)
			log_warn("%s", err);
		c->pid = 0;
	}
}

void coll_stop(struct collectors *cs, int64_t timeout_ms)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;
	int left;

	for (int i = 0; i < cs->n; i++)
		if (cs->c[i].pid)
			kill(cs->c[i].pid, SIGTERM);
	do {
		left = 0;
		for (int i = 0; i < cs->n; i++) {
			struct coll_child *c = &cs->c[i];
			if (!c->pid)
				continue;
			if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
				c->pid = 0;
			else
				left++;
		}
		if (left) {
			struct timespec ts = {0, 20000000};
			nanosleep(&ts, NULL);
		}
	} while (left && clock_mono_ms() < deadline);
	for (int i = 0; i < cs->n; i++) {
		struct coll_child *c = &cs->c[i];
		if (!c->pid)
			continue;
		log_warn("%s for '%s' did not stop within %lld ms: killing it", c->prog, c->source,
		         (long long)timeout_ms);
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->pid = 0;
	}
}
