/* study_group: the grouped path of a study (study_int.h).  Start by start: every instance
 * (a target's replica) is started, the instances are warmed up until steady (side by side,
 * on the first side-by-side scenario, when the study has one), then the start's slots run:
 * the one-at-a-time ones alone, a group's all at once.  A group's runs are children of
 * this process, forked when the group begins: each is an ordinary run (its own runner, its
 * own database connection, its own collectors), tagged with the group, so that each target
 * keeps its own figures and the report pairs them by the seconds they shared. */
#include "run/study_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "exitcode.h"

#define GROUP_SETUP_MS 1500 /* a run's setup before its load, allowed for a group's start */

/* Starts every instance the study starts that is not up; 0, or -1 with c->err. */
static int start_all(struct ctx *c, int round)
{
	for (int i = 0; i < study_ninstances(c->st); i++)
		if (c->st->targets[SR_TARGET(c, i)].start && !c->t[i].up &&
		    sr_start(c, i, round) < 0)
			return -1;
	return 0;
}

static void stop_all(struct ctx *c, int round)
{
	for (int i = study_ninstances(c->st) - 1; i >= 0; i--)
		sr_stop(c, i, round);
}

/* The run study_runs.seq `seq` of this study made, or -1 (it failed before its row). */
static int64_t run_of_seq(struct ctx *c, int seq)
{
	char sql[128];
	long long id = -1;

	snprintf(
	    sql, sizeof sql,
	    "SELECT IFNULL(MAX(run_id), -1) FROM study_runs WHERE study_id = %lld AND seq = %d",
	    (long long)c->study_id, seq);
	if (db_int(c->db, sql, -1, &id, c->err, sizeof c->err) < 0)
		return -1;
	return id;
}

/* The worse of two run statuses: a failure over a breached threshold over success. */
static int worse(int a, int b)
{
	if (a == EXIT_OK || (a == EXIT_THRESHOLD && b != EXIT_OK))
		return b;
	return a;
}

/* Waits for the members' processes; a signal to this one (the user's Ctrl-C, a TERM to
 * the study) is passed on to each, so that every run stops as a run alone would, keeping
 * what it measured.  The worst of their statuses. */
static int wait_members(struct ctx *c, const pid_t *pid, int n)
{
	int left = 0, rc = EXIT_OK, told = 0, done[STUDY_MAX_INSTANCES] = {0};

	for (int k = 0; k < n; k++)
		left += pid[k] > 0;
	while (left > 0) {
		if (!told && sr_signalled(c)) {
			for (int k = 0; k < n; k++)
				if (pid[k] > 0 && !done[k])
					kill(pid[k],
					     SIGTERM); /* one stop each, not a second Ctrl-C */
			told = 1;
		}
		for (int k = 0; k < n; k++) {
			int status = 0;
			if (pid[k] <= 0 || done[k] || waitpid(pid[k], &status, WNOHANG) != pid[k])
				continue;
			done[k] = 1;
			left--;
			rc = worse(rc, WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUNTIME);
		}
		if (left > 0)
			clock_sleep_ms(50, NULL);
	}
	/* Stopped by this process's signal: its status, not the TERM passed on. */
	return told ? (*c->o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT) : rc;
}

/* Forks a child per member: member k runs scenario sc against instance inst[k] with tags
 * tags[k] (its seq fixed before the fork, so that every child writes its own).  Returns
 * the worst status; ids[k] gets member k's run (or -1). */
static int fork_members(struct ctx *c, int sc, const int *inst, const struct tag *tags, int n,
                        int nth, int of, int64_t *ids)
{
	pid_t pid[STUDY_MAX_INSTANCES];
	int base = c->seq, rc = EXIT_OK;
	/* Each run opens its database, starts its collectors and its engine first: they all
	 * begin their load at the same instant, their intervals aligned, once all are ready. */
	int64_t at = clock_wall_ms() + GROUP_SETUP_MS;

	fflush(NULL);
	for (int k = 0; k < n; k++) {
		struct tag g = tags[k];
		g.seq = base + k + 1;
		g.member = k;
		g.start_at_ms = at;
		pid[k] = fork();
		if (pid[k] == 0) {
			c->skip_before_each = 1;
			c->err[0] = '\0';
			int r = sr_one_run(c, inst[k], sc, &g, nth ? nth + k : 0, of);
			if (c->err[0])
				fprintf(stderr, "%s: %s\n", c->o->who, c->err);
			fflush(NULL);
			_exit(r);
		}
		if (pid[k] < 0) {
			snprintf(c->err, sizeof c->err, "fork: %s", strerror(errno));
			rc = EXIT_RUNTIME;
		}
	}
	rc = worse(rc, wait_members(c, pid, n));
	c->seq = base + n;
	for (int k = 0; k < n; k++) {
		ids[k] = run_of_seq(c, base + k + 1);
		c->t[inst[k]].since_start++;
	}
	if (rc == EXIT_RUNTIME && !c->err[0])
		snprintf(c->err, sizeof c->err, "a run of a side-by-side group failed (see above)");
	return rc;
}

/* Runs members [0, n) at once, before_each once before them all. */
static int run_together(struct ctx *c, int sc, const int *inst, const struct tag *tags, int n,
                        int nth, int of, int64_t *ids)
{
	const struct study *st = c->st;

	if (st->before_each &&
	    sr_sh_run(c, "before_each", st->before_each, -1, tags[0].round, NULL, 1) < 0)
		return sr_signalled(c) ? (*c->o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT)
		                       : EXIT_RUNTIME;
	if (nth == 0)
		fprintf(stderr, "%s: warm-up runs of %d instances side by side (round %d)\n",
		        c->o->who, n, tags[0].round);
	else
		fprintf(stderr, "%s: runs %d-%d/%d: round %d: %d instances side by side\n",
		        c->o->who, nth, nth + n - 1, of, tags[0].round, n);
	return fork_members(c, sc, inst, tags, n, nth, of, ids);
}

/* Warm-up side by side: runs of scenario sc by every instance at once until each is warm
 * (sr_warm_done: its JIT quiet and, if asked, its figure steady; at most warmup_max). */
static int warm_group(struct ctx *c, int start, int round, int sc)
{
	int n = study_ninstances(c->st), inst[STUDY_MAX_INSTANCES], rc = EXIT_OK;
	struct tag tags[STUDY_MAX_INSTANCES];
	int64_t ids[STUDY_MAX_INSTANCES];

	for (int k = 0; k < n; k++) {
		inst[k] = k;
		tags[k] = (struct tag){.round = round,
		                       .target = SR_TARGET(c, k),
		                       .replica = SR_REPLICA(c, k),
		                       .start = start,
		                       .warmup = 1};
	}
	for (;;) {
		int all = 1;
		for (int k = 0; k < n; k++)
			all &= sr_warm_done(c, k);
		if (rc != EXIT_OK && rc != EXIT_THRESHOLD)
			return rc;
		if (all)
			return EXIT_OK;
		rc = run_together(c, sc, inst, tags, n, 0, 0, ids);
		for (int k = 0; k < n; k++) {
			c->t[k].warm++;
			if (ids[k] > 0)
				sr_warm_judge(c, k, ids[k]);
		}
	}
}

/* The start's warm-up: side by side on the first side-by-side scenario, else each instance
 * alone on every scenario. */
static int warm_start(struct ctx *c, int start, int round)
{
	const struct study *st = c->st;
	int rc = EXIT_OK;

	for (int sc = 0; sc < st->nscenarios; sc++)
		if (st->together[sc])
			return warm_group(c, start, round, sc);
	for (int i = 0; i < study_ninstances(st) && rc == EXIT_OK; i++)
		rc = sr_warm_up(c, i, round);
	return rc;
}

/* Slots [from, to) of one group, those not done, at once.  *ran counts them. */
static int run_group(struct ctx *c, const struct study_slot *slots, int from, int to,
                     const char *done, int nth, int left, int *ran)
{
	int inst[STUDY_MAX_INSTANCES], n = 0, rc;
	struct tag tags[STUDY_MAX_INSTANCES];
	int64_t ids[STUDY_MAX_INSTANCES];

	for (int i = from; i < to; i++) {
		const struct study_slot *sl = &slots[i];
		if (done[i])
			continue;
		inst[n] = study_instance(c->st, sl->target, sl->replica);
		tags[n++] = (struct tag){.slot = i + 1,
		                         .round = sl->round,
		                         .position = sl->position,
		                         .target = sl->target,
		                         .replica = sl->replica,
		                         .start = sl->start,
		                         .group = sl->group};
	}
	*ran = n;
	if (n == 0)
		return EXIT_OK;
	rc = run_together(c, slots[from].scenario, inst, tags, n, nth, left, ids);
	for (int k = 0; k < n; k++)
		c->ms.done += ids[k] > 0;
	sr_publish(c);
	return rc;
}

/* A one-at-a-time slot of the grouped path. */
static int run_alone(struct ctx *c, int i, const struct study_slot *sl, int nth, int left)
{
	struct tag m = {.slot = i + 1,
	                .round = sl->round,
	                .position = sl->position,
	                .target = sl->target,
	                .replica = sl->replica,
	                .start = sl->start};
	int rc;

	c->ms.round = sl->round;
	sr_publish(c);
	rc = sr_one_run(c, study_instance(c->st, sl->target, sl->replica), sl->scenario, &m, nth,
	                left);
	if (rc == EXIT_OK || rc == EXIT_THRESHOLD) {
		c->ms.done++;
		sr_publish(c);
	}
	return rc;
}

/* The slots of one start, [from, to), those not done; EXIT_OK or what stopped it. */
static int run_start_slots(struct ctx *c, const struct study_slot *slots, int from, int to,
                           const char *done, int *nth, int left, int *breached)
{
	for (int i = from; i < to;) {
		int j = i + 1, rc, ran = 1;
		if (slots[i].group) {
			while (j < to && slots[j].group == slots[i].group)
				j++;
			rc = run_group(c, slots, i, j, done, *nth + 1, left, &ran);
		} else {
			rc = done[i] ? (ran = 0, EXIT_OK)
			             : run_alone(c, i, &slots[i], *nth + 1, left);
		}
		*nth += ran;
		if (rc == EXIT_THRESHOLD)
			*breached = 1;
		else if (rc != EXIT_OK)
			return rc;
		i = j;
	}
	return EXIT_OK;
}

/* starts = auto, s starts done: records them (the study's starts and slots, and `stop` once
 * it stops), and whether another may begin: while one more start, as long as the longest
 * this process made (0: none yet) and a margin, fits in what is left of the budget (a
 * resumed study measures its starts again, and its budget counts from the resume). */
static int another_start(struct ctx *c, int s, int64_t longest)
{
	const struct study *st = c->st;
	int64_t elapsed = clock_mono_ms() - c->t0_ms;
	int go = s < st->starts && study_another_fits(elapsed, longest, st->budget_ms);
	int per = st->rounds * study_ninstances(st) * st->nscenarios; /* slots a start */
	char sql[256];

	c->ms.runs = (s + go) * per; /* /metrics: the runs planned as far as known */
	sr_publish(c);
	snprintf(sql, sizeof sql,
	         "UPDATE studies SET starts = %d, slots = %d, stop = %s WHERE id = %lld", s,
	         s * per,
	         go               ? "NULL"
	         : s < st->starts ? "'budget'"
	                          : "'rounds'",
	         (long long)c->study_id);
	if (db_exec(c->db, sql, c->err, sizeof c->err) < 0)
		return -1;
	if (!go)
		fprintf(stderr, "%s: %d start%s made; %s\n", c->o->who, s, s == 1 ? "" : "s",
		        s < st->starts ? "another would not fit in the budget"
		                       : "the most starts = auto makes");
	return go;
}

/* Start s of the study, slots [from, to): its instances started and warmed up, its slots
 * run, the instances stopped unless `last`. */
static int run_start(struct ctx *c, const struct study_slot *slots, int s, int from, int to,
                     const char *done, int *nth, int left, int *breached, int last)
{
	int round = slots[from].round, rc;

	if (start_all(c, round) < 0)
		return sr_signalled(c) ? EXIT_SIGINT : EXIT_RUNTIME;
	if ((rc = warm_start(c, s, round)) != EXIT_OK && rc != EXIT_THRESHOLD)
		return rc;
	rc = run_start_slots(c, slots, from, to, done, nth, left, breached);
	if (rc == EXIT_OK && !last)
		stop_all(c, slots[to - 1].round);
	return rc;
}

int sr_run_grouped(struct ctx *c, const struct study_slot *slots, int nslots, const char *done,
                   int left, int *breached, int *complete)
{
	const struct study *st = c->st;
	int nth = 0, rc;
	int64_t longest = 0;

	*complete = 0;
	for (int s = 1, from = 0; s <= st->starts; s++) {
		int to = from, todo = 0, go = 1;
		while (to < nslots && slots[to].start == s)
			todo += !done[to++];
		if (todo > 0) {
			int64_t t0 = clock_mono_ms();
			rc = run_start(c, slots, s, from, to, done, &nth, left, breached,
			               s == st->starts);
			if (rc != EXIT_OK)
				return rc;
			if (clock_mono_ms() - t0 > longest)
				longest = clock_mono_ms() - t0;
		}
		if (st->starts_auto && (go = another_start(c, s, longest)) < 0)
			return EXIT_RUNTIME;
		if (!go)
			break;
		from = to;
	}
	*complete = 1;
	return EXIT_OK;
}
