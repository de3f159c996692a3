/* agent: one load generator's share of a group's study and the common start that lines
 * the agents' intervals up (agent.h), so that soak merge can add them exactly. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/agent_id.h"
#include "clock.h"
#include "db.h"
#include "dur.h"

int agent_parse_spec(const char *s, int *k, int *n, char *err, size_t errlen)
{
	char *end;
	long a, b;

	if (strcmp(s, "auto") == 0)
		return 1;
	errno = 0;
	a = strtol(s, &end, 10);
	if (end == s || *end != '/' || errno)
		goto bad;
	s = end + 1;
	b = strtol(s, &end, 10);
	if (end == s || *end || errno)
		goto bad;
	if (b < 1 || b > AGENT_MAX || a < 1 || a > b) {
		snprintf(err, errlen, "--agent %ld/%ld: expected 1 <= K <= N <= %d", a, b,
		         AGENT_MAX);
		return -1;
	}
	*k = (int)a;
	*n = (int)b;
	return 0;
bad:
	snprintf(err, errlen, "--agent: expected K/N (this agent's number and how many) or auto");
	return -1;
}

/* A non-negative integer variable: 1 when set (in *v), 0 when unset, -1 when not a
 * number. */
static int env_int(agent_getenv_fn get, void *ctx, const char *name, long *v, char *err,
                   size_t errlen)
{
	const char *s = get(name, ctx);
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end || errno || *v < 0 || *v > 1000000000L) {
		snprintf(err, errlen, "%s: '%s' is not a task number", name, s);
		return -1;
	}
	return 1;
}

/* K and N of a Slurm job array; 0 when the array variables are absent. */
static int from_slurm_array(agent_getenv_fn get, void *ctx, long *k, long *n, char *group,
                            size_t grouplen, char *err, size_t errlen)
{
	long id, min = 0, max = 0, count = 0, step = 1;
	int rc = env_int(get, ctx, "SLURM_ARRAY_TASK_ID", &id, err, errlen), has_count, has_max;
	const char *job;

	if (rc <= 0)
		return rc;
	if (env_int(get, ctx, "SLURM_ARRAY_TASK_MIN", &min, err, errlen) <= 0) {
		if (!*err)
			snprintf(err, errlen,
			         "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not");
		return -1;
	}
	if (env_int(get, ctx, "SLURM_ARRAY_TASK_STEP", &step, err, errlen) < 0 ||
	    (has_count = env_int(get, ctx, "SLURM_ARRAY_TASK_COUNT", &count, err, errlen)) < 0 ||
	    (has_max = env_int(get, ctx, "SLURM_ARRAY_TASK_MAX", &max, err, errlen)) < 0)
		return -1;
	if (step < 1)
		step = 1;
	if (!has_count && !has_max) {
		snprintf(err, errlen,
		         "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT "
		         "nor SLURM_ARRAY_TASK_MAX is");
		return -1;
	}
	*n = has_count ? count : (max - min) / step + 1;
	*k = (id - min) / step + 1;
	if (id < min || (id - min) % step != 0 || *k > *n || *n < 1) {
		snprintf(err, errlen,
		         "Slurm array task %ld is not one of %ld tasks from %ld in steps of %ld: "
		         "give the array as a range (--array=1-N)",
		         id, *n, min, step);
		return -1;
	}
	job = get("SLURM_ARRAY_JOB_ID", ctx);
	snprintf(group, grouplen, "%s%s", job && *job ? "slurm-" : "", job && *job ? job : "");
	return 1;
}

int agent_from_env(agent_getenv_fn get, void *ctx, int agents, int *k, int *n, const char **source,
                   char *group_default, size_t grouplen, char *err, size_t errlen)
{
	long kk = 0, nn = 0, v;
	int rc;

	*group_default = '\0';
	*err = '\0';
	if ((rc = from_slurm_array(get, ctx, &kk, &nn, group_default, grouplen, err, errlen)) < 0)
		return -1;
	if (rc > 0) {
		*source = "Slurm job array";
	} else if ((rc = env_int(get, ctx, "JOB_COMPLETION_INDEX", &v, err, errlen)) != 0) {
		if (rc < 0)
			return -1;
		if (agents < 1) {
			snprintf(err, errlen,
			         "--agent auto in a Kubernetes Indexed Job needs --agents N (the "
			         "Job's completions)");
			return -1;
		}
		kk = v + 1;
		nn = agents;
		*source = "Kubernetes Indexed Job";
	} else if (get("SLURM_STEP_ID", ctx) &&
	           (rc = env_int(get, ctx, "SLURM_PROCID", &v, err, errlen)) != 0) {
		if (rc < 0 || env_int(get, ctx, "SLURM_NTASKS", &nn, err, errlen) <= 0) {
			if (!*err)
				snprintf(err, errlen,
				         "SLURM_PROCID is set but SLURM_NTASKS is not");
			return -1;
		}
		kk = v + 1;
		*source = "srun step";
		const char *job = get("SLURM_JOB_ID", ctx), *st = get("SLURM_STEP_ID", ctx);
		if (job && *job)
			snprintf(group_default, grouplen, "slurm-%s.%s", job, st);
	} else {
		snprintf(
		    err, errlen,
		    "--agent auto: no Slurm job array (SLURM_ARRAY_TASK_ID), Kubernetes Indexed "
		    "Job (JOB_COMPLETION_INDEX) or srun step (SLURM_PROCID) in the environment");
		return -1;
	}
	if (nn < 1 || nn > AGENT_MAX || kk < 1 || kk > nn) {
		snprintf(err, errlen, "%s: agent %ld of %ld is outside 1..%d", *source, kk, nn,
		         AGENT_MAX);
		return -1;
	}
	if (agents > 0 && agents != nn) {
		snprintf(err, errlen, "--agents %d disagrees with the %s's %ld agents", agents,
		         *source, nn);
		return -1;
	}
	*k = (int)kk;
	*n = (int)nn;
	return 0;
}

/* n decimal digits at *p into *v (advances *p); -1 when fewer. */
static int digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

static const char *real_getenv(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

int agent_setup(struct agent *a, const struct agent_args *args, char *err, size_t errlen)
{
	char dflt[AGENT_GROUP_MAX] = "";
	int rc;

	memset(a, 0, sizeof *a);
	a->start_at_ms = a->start_in_ms = a->next_start_ms = -1;
	if (!args->agent) {
		snprintf(err, errlen, "%s needs --agent",
		         args->group      ? "--group"
		         : args->agents   ? "--agents"
		         : args->start_at ? "--start-at"
		         : args->start_in ? "--start-in"
		                          : "--clock-dir");
		return -1;
	}
	if ((rc = agent_parse_spec(args->agent, &a->index, &a->count, err, errlen)) < 0)
		return -1;
	if (rc == 0) {
		a->source = "--agent";
		if (args->agents > 0 && args->agents != a->count) {
			snprintf(err, errlen, "--agents %d disagrees with --agent %s", args->agents,
			         args->agent);
			return -1;
		}
	} else if (agent_from_env(real_getenv, NULL, args->agents, &a->index, &a->count, &a->source,
	                          dflt, sizeof dflt, err, errlen) < 0) {
		return -1;
	}
	const char *g = args->group ? args->group : dflt;
	if (!*g) {
		snprintf(err, errlen,
		         "--agent needs --group NAME: the name that ties the agents of "
		         "one run together");
		return -1;
	}
	if (strlen(g) >= sizeof a->group ||
	    strspn(g, "abcdefghijklmnopqrstuvwxyz"
	              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:@+") != strlen(g)) {
		snprintf(err, errlen, "--group '%.40s': at most %d letters, digits and . _ - : @ +",
		         g, AGENT_GROUP_MAX - 1);
		return -1;
	}
	snprintf(a->group, sizeof a->group, "%s", g);
	a->clock_dir = args->clock_dir;
	if (args->start_at && args->start_in) {
		snprintf(err, errlen, "give --start-at or --start-in, not both");
		return -1;
	}
	char inner[200];
	if (args->start_at &&
	    agent_parse_time(args->start_at, &a->start_at_ms, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "--start-at %s", inner);
		return -1;
	}
	if (args->start_in) {
		if (dur_parse(args->start_in, &a->start_in_ms, inner, sizeof inner) < 0) {
			snprintf(err, errlen, "--start-in: %s", inner);
			return -1;
		}
	}
	return 0;
}

/* Epoch seconds with an optional fraction; 1 when s is one, 0 when it is not. */
static int parse_epoch(const char *s, int64_t *ms)
{
	int64_t sec = 0, frac = 0, scale = 1000;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > 1000000000000LL)
			return 0;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
	if (*p)
		return 0;
	*ms = sec * 1000 + frac;
	return 1;
}

int agent_parse_time(const char *s, int64_t *ms, char *err, size_t errlen)
{
	char buf[64];
	const char *p;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	int64_t frac = 0, scale = 1000;
	struct tm tm = {0};
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= sizeof buf)
		goto bad;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_epoch(buf, ms))
		return 0;
	p = buf;
	if (digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 || *p++ != '-' ||
	    digits(&p, 2, &d) < 0 || (*p != 'T' && *p != 't' && *p != ' '))
		goto bad;
	p++;
	if (digits(&p, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, &mi) < 0 || *p++ != ':' ||
	    digits(&p, 2, &sec) < 0)
		goto bad;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			goto bad;
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (digits(&p, 2, &oh) < 0 || *p++ != ':' || digits(&p, 2, &om) < 0 || oh > 23 ||
		    om > 59)
			goto bad;
	} else {
		goto bad; /* RFC 3339 always names the offset: no guessing the local zone */
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t == (time_t)-1 || tm.tm_mday != d) { /* 31 April rolls over to 1 May */
		snprintf(err, errlen, "'%s': no such date", buf);
		return -1;
	}
	*ms = ((int64_t)t - sign * (oh * 3600 + om * 60)) * 1000 + frac;
	return 0;
bad:
	snprintf(err, errlen,
	         "'%.40s': expected RFC 3339 (2026-05-01T12:00:00Z, 2026-05-01T14:00:00+02:00) "
	         "or epoch seconds",
	         s);
	return -1;
}

int64_t agent_boundary_at_or_after(int64_t wall_ms, int64_t interval_ms)
{
	int64_t r;

	if (interval_ms <= 0)
		return wall_ms;
	r = wall_ms % interval_ms;
	if (r < 0)
		r += interval_ms;
	return r == 0 ? wall_ms : wall_ms + interval_ms - r;
}

int64_t agent_plan_start(const struct agent *a, const struct scenario *s, int64_t now_ms)
{
	if (a->next_start_ms >= 0)
		return agent_boundary_at_or_after(a->next_start_ms, s->interval_ms);
	if (a->start_at_ms >= 0)
		return a->start_at_ms;
	return agent_boundary_at_or_after(now_ms + (a->start_in_ms > 0 ? a->start_in_ms : 0),
	                                  s->interval_ms);
}

void agent_plan_next(struct agent *a, const struct scenario *s, int64_t t0_ms)
{
	int64_t longest = 0;

	for (int i = 0; i < s->plan.nreqs; i++)
		if (s->plan.reqs[i].timeout_ms > longest)
			longest = s->plan.reqs[i].timeout_ms;
	a->next_start_ms = t0_ms + scn_total_ms(s) + longest + AGENT_QUEUE_GAP_MS;
	a->seq++;
}

void agent_share(const struct agent *a, int level, double rate, struct agent_share *out)
{
	out->vus = a ? agent_id_count(level, a->index, a->count) : level;
	/* The open model: rate / N each; the engine offsets the agents' constant schedules
	 * by (K - 1) / N of a gap, and their Poisson streams are drawn independently. */
	out->rate = a && a->count > 0 ? rate / a->count : rate;
}

int agent_wait(int64_t t0_ms, const volatile sig_atomic_t *sigint,
               const volatile sig_atomic_t *sigterm, int64_t *t0_mono)
{
	for (;;) {
		int64_t left = t0_ms - clock_wall_ms();
		if (*sigint || *sigterm)
			return -1;
		if (left <= 200) {
			/* The last stretch on the monotonic clock: it does not jump, and the
			 * caller schedules on it from here. */
			int64_t target = clock_mono_ms() + left;
			struct timespec ts = {.tv_sec = target / 1000,
			                      .tv_nsec = target % 1000 * 1000000};
			if (left > 0)
				while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
				       EINTR)
					if (*sigint || *sigterm)
						return -1;
			*t0_mono = target;
			return 0;
		}
		clock_sleep_ms(left - 200 < 200 ? left - 200 : 200, NULL);
	}
}

int agent_clock_offset(const struct agent *a, const char *db_path, int64_t *offset_ms, char *err,
                       size_t errlen)
{
	char path[4096];
	const char *slash = strrchr(db_path, '/');
	struct timespec t1, t2;
	struct stat st;
	int fd, n;

	if (a && a->clock_dir)
		n = snprintf(path, sizeof path, "%s/.soak-clock-%ld-%lld", a->clock_dir,
		             (long)getpid(), (long long)clock_mono_ns());
	else if (slash)
		n = snprintf(path, sizeof path, "%.*s/.soak-clock-%ld-%lld", (int)(slash - db_path),
		             db_path, (long)getpid(), (long long)clock_mono_ns());
	else
		n = snprintf(path, sizeof path, ".soak-clock-%ld-%lld", (long)getpid(),
		             (long long)clock_mono_ns());
	if (n < 0 || (size_t)n >= sizeof path) {
		snprintf(err, errlen, "the database's folder name is too long");
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &t1);
	fd = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
	clock_gettime(CLOCK_REALTIME, &t2);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	n = stat(path, &st);
	unlink(path);
	if (n < 0) {
		snprintf(err, errlen, "cannot stat '%s': %s", path, strerror(errno));
		return -1;
	}
	int64_t before = (int64_t)t1.tv_sec * 1000000 + t1.tv_nsec / 1000;
	int64_t after = (int64_t)t2.tv_sec * 1000000 + t2.tv_nsec / 1000;
	int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
	if (after - before > AGENT_PROBE_MAX_MS * 1000) {
		snprintf(err, errlen, "creating a file took %lld ms: too slow to compare clocks",
		         (long long)((after - before) / 1000));
		return -1;
	}
	*offset_ms = ((before + after) / 2 - m) / 1000;
	return 0;
}

int agent_record_run(sqlite3 *db, int64_t run_id, const struct agent *a, int64_t start_at_ms,
                     int64_t lag_ms, const int64_t *offset_ms, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(
	        db, &st,
	        "UPDATE runs SET agent_group = ?, agent_seq = ?, agent_index = ?, "
	        "agent_count = ?, start_at_ms = ?, start_lag_ms = ?, clock_offset_ms = ?, "
	        "started_ms = ?5 + ?6, heartbeat_ms = MAX(heartbeat_ms, ?5 + ?6) WHERE id = ?",
	        err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, a->group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, a->seq);
	sqlite3_bind_int(st, 3, a->index);
	sqlite3_bind_int(st, 4, a->count);
	sqlite3_bind_int64(st, 5, start_at_ms);
	sqlite3_bind_int64(st, 6, lag_ms);
	if (offset_ms)
		sqlite3_bind_int64(st, 7, *offset_ms);
	sqlite3_bind_int64(st, 8, run_id);
	return db_finish(db, st, "cannot record the agent", err, errlen);
}

int agent_record_step(sqlite3 *db, int64_t run_id, int idx, int group_level, char *err,
                      size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(db, &st,
	               "UPDATE steps SET group_concurrency = ? WHERE run_id = ? AND idx = ?", err,
	               errlen) < 0)
		return -1;
	sqlite3_bind_int(st, 1, group_level);
	sqlite3_bind_int64(st, 2, run_id);
	sqlite3_bind_int(st, 3, idx);
	return db_finish(db, st, "cannot record the group's concurrency", err, errlen);
}
