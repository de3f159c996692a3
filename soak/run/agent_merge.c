/* agent_merge: folds the agents' runs of each group into one run (agent_merge.h), rebuilt
 * from the parts the file holds, so merging in any order or any number of times gives the
 * same run. */
#include "agent_merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "db.h"
#include "store/results.h"
#include "store/recorder.h"

#define AGM_TEXT 1024 /* bytes of a note, a reason or the hosts list */

/* One agent's run in a group, and its cursor over its intervals. */
struct part {
	int64_t id;           /* runs.id */
	int k;                /* agent_index */
	struct res_runner rn; /* the load generator: host, process (for a merged run that is
	                       * still running), last heartbeat */
	char state[16];       /* done | interrupted | failed | crashed | running (res_status) */
	char why[256];        /* its reason, or when a crashed run was last heard of; or "" */
	int64_t start_at;     /* start_at_ms (-1: NULL) */
	int64_t lag;          /* start_lag_ms (0: NULL) */
	int64_t offset;       /* clock_offset_ms */
	int has_offset;       /* offset is known */
	int64_t started;      /* runs.started_ms */
	int64_t ended;        /* ended_ms, -1 while open */
	sqlite3_stmt *cur;    /* its intervals in time order */
	int has_row;          /* cur stands on a row */
	int present;          /* it has a row in the merged interval being built */
	int64_t req, vus;     /* that row's requests and VUs */
	int64_t gap_from;     /* start of the stretch it has been silent over, -1: none */
	int64_t gap_to;       /* its end so far */
};

/* Folding one group. */
struct fold {
	sqlite3 *db;
	const char *group;     /* agent_group */
	int seq;               /* agent_seq */
	struct part *p;        /* parts merged, by agent index */
	int np;                /* entries in p */
	int planned;           /* N */
	int64_t interval_ms;   /* the group's interval */
	int64_t run_id;        /* the merged run */
	int64_t t0;            /* its start: the reference day for times in notes */
	int64_t end;           /* end of its last interval before the drain */
	int open;              /* an open-model group: service and lag histograms are added too */
	struct recorder rec;   /* writes the merged run's steps, intervals and notes */
	sqlite3_stmt *es;      /* a part's interval errors (res_add_row), prepared once per group */
	struct agm_group *res; /* what is reported */
	char *err;             /* the caller's */
	size_t errlen;
};

/* "12:00:10", or "2026-05-02 12:00:10" when not on the run's first day (UTC). */
static char *when(const struct fold *f, int64_t ms, char *buf, size_t len)
{
	char a[40], b[40];

	clock_iso(ms, a, sizeof a);
	clock_iso(f->t0, b, sizeof b);
	if (strncmp(a, b, 10) == 0)
		snprintf(buf, len, "%.8s", a + 11);
	else
		snprintf(buf, len, "%.10s %.8s", a, a + 11);
	return buf;
}

/* An event of the merged run: source "merge", the agent's host (or the merged run's). */
__attribute__((format(printf, 5, 6))) static int
note(struct fold *f, int64_t t_ms, const char *kind, const char *host, const char *fmt, ...)
{
	char text[AGM_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (rec_event_at(&f->rec, "merge", host, t_ms, kind, text, f->err, f->errlen) < 0)
		return -1;
	f->res->notes++;
	return 0;
}

/* Runs sql with ?1 = a and ?2 = b (when the statement has it). */
static int exec2(sqlite3 *db, const char *sql, int64_t a, int64_t b, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(db, &st, sql, err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) > 1)
		sqlite3_bind_int64(st, 2, b);
	return db_finish(db, st, "cannot fold agents", err, errlen);
}

/* --- the parts -------------------------------------------------------------------------- */

static int load_parts(struct fold *f, int64_t now)
{
	sqlite3_stmt *st = NULL;
	int rc;
	size_t cap = 0;
	int64_t first_count = -1;

	if (db_prepare(
	        f->db, &st,
	        "SELECT id, agent_index, agent_count, interval_ms, status, IFNULL(reason, ''), "
	        "host, IFNULL(pid, 0), IFNULL(pid_start, -1), IFNULL(boot_id, ''), "
	        "IFNULL(heartbeat_ms, started_ms), started_ms, IFNULL(ended_ms, -1), "
	        "IFNULL(start_at_ms, -1), IFNULL(start_lag_ms, 0), clock_offset_ms "
	        "FROM runs WHERE agent_group = ? AND agent_seq = ? AND agent_index IS NOT NULL "
	        "ORDER BY agent_index, started_ms DESC, id DESC",
	        f->err, f->errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, f->group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, f->seq);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct part *q;
		int k = sqlite3_column_int(st, 1);
		int64_t count = sqlite3_column_int64(st, 2), iv = sqlite3_column_int64(st, 3);

		if (first_count < 0) {
			first_count = count;
			f->planned = (int)count;
			f->interval_ms = iv;
		}
		if (f->np > 0 && f->p[f->np - 1].k == k) {
			/* The same agent ran twice in the group (restarted by hand): the later
			 * run counts; the earlier stays a run of its own. */
			continue;
		}
		if (count != first_count || iv != f->interval_ms || k < 1 || k > count)
			continue; /* named in notes() */
		if (buf_grow(&f->p, &cap, (size_t)f->np + 1, sizeof *f->p, 16) < 0) {
			sqlite3_finalize(st);
			snprintf(f->err, f->errlen, "out of memory");
			return -1;
		}
		q = &f->p[f->np++];
		memset(q, 0, sizeof *q);
		q->id = sqlite3_column_int64(st, 0);
		q->k = k;
		res_runner_read(st, 6, &q->rn);
		q->started = sqlite3_column_int64(st, 11);
		q->ended = sqlite3_column_int64(st, 12);
		q->start_at = sqlite3_column_int64(st, 13);
		q->lag = sqlite3_column_int64(st, 14);
		q->has_offset = sqlite3_column_type(st, 15) != SQLITE_NULL;
		q->offset = sqlite3_column_int64(st, 15);
		q->gap_from = -1;
		snprintf(q->state, sizeof q->state, "%s",
		         res_status(db_col_text(st, 4), q->rn.host, q->rn.pid, q->rn.pid_start,
		                    q->rn.boot, q->rn.heartbeat, iv, now));
		db_col_copy(st, 5, q->why, sizeof q->why);
	}
	sqlite3_finalize(st);
	return db_done(f->db, rc, "cannot read the agents' runs", f->err, f->errlen);
}

/* Column i as text, or NULL. */
static const char *text(sqlite3_stmt *st, int i)
{
	return db_col_text(st, i);
}

/* The merged run's row: created once (uuid "group:G:SEQ"), its id into f->run_id, its
 * rows of an earlier fold removed. */
static int merged_run(struct fold *f)
{
	sqlite3_stmt *st = NULL;
	char uuid[AGENT_GROUP_MAX + 32];
	int rc;

	snprintf(uuid, sizeof uuid, "group:%s:%d", f->group, f->seq);
	if (db_prepare(f->db, &st,
	               "SELECT name, label, scenario_file, scenario, mode, protocol, connection, "
	               "url, host, soak_version, curl_version, interval_ms, started_ms, "
	               "heartbeat_ms, agent_group, agent_seq, agent_count, model, arrival, "
	               "max_in_flight, max_lag_ms FROM runs WHERE id = ?",
	               f->err, f->errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, f->p[0].id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(f->db, "cannot read an agent's run", f->err, f->errlen);
	}
	/* The first part's row, running: close_run() gives it the group's figures. */
	struct rec_run run = {
	    .uuid = uuid,
	    .name = text(st, 0),
	    .label = text(st, 1),
	    .scenario_file = text(st, 2),
	    .scenario = text(st, 3),
	    .mode = text(st, 4),
	    .protocol = text(st, 5),
	    .connection = text(st, 6),
	    .url = text(st, 7),
	    .host = text(st, 8),
	    .soak_version = text(st, 9),
	    .curl_version = text(st, 10),
	    .interval_ms = sqlite3_column_int64(st, 11),
	    .started_ms = sqlite3_column_int64(st, 12),
	    .heartbeat_ms = sqlite3_column_int64(st, 13),
	    .agent_group = text(st, 14),
	    .agent_seq = sqlite3_column_int(st, 15),
	    .agent_count = sqlite3_column_int(st, 16),
	    .model = text(st, 17),
	    .arrival = text(st, 18),
	    .max_in_flight = sqlite3_column_int(st, 19),
	    .max_lag_ms = sqlite3_column_int64(st, 20),
	};
	rc = rec_run_insert(&f->rec, &run, f->err, f->errlen);
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	f->run_id = f->rec.run_id;
	if (db_prepare(f->db, &st, "SELECT model = 'open' FROM runs WHERE id = ?", f->err,
	               f->errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, f->run_id);
	f->open = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	f->res->run_id = f->run_id;
	if (exec2(f->db, "DELETE FROM interval_errors WHERE run_id = ?", f->run_id, 0, f->err,
	          f->errlen) < 0 ||
	    exec2(f->db, "DELETE FROM intervals WHERE run_id = ?", f->run_id, 0, f->err,
	          f->errlen) < 0 ||
	    exec2(f->db, "DELETE FROM steps WHERE run_id = ?", f->run_id, 0, f->err, f->errlen) <
	        0 ||
	    exec2(f->db, "DELETE FROM events WHERE run_id = ? AND source = 'merge'", f->run_id, 0,
	          f->err, f->errlen) < 0)
		return -1;
	return 0;
}

/* --- intervals -------------------------------------------------------------------------- */

static const char *const phases[] = {"rampup", "warmup", "steady", "drain"};

static int phase_rank(const char *p)
{
	for (int i = 0; i < 4; i++)
		if (p && strcmp(p, phases[i]) == 0)
			return i;
	return 3;
}

static int advance(struct fold *f, struct part *q)
{
	int rc = sqlite3_step(q->cur);

	q->has_row = rc == SQLITE_ROW;
	if (q->has_row)
		return 0;
	return db_done(f->db, rc, "cannot read an agent's intervals", f->err, f->errlen);
}

/* Ends q's silent stretch, if any, with a note. */
static int close_gap(struct fold *f, struct part *q, int at_end)
{
	char a[32], b[32], tail[64] = "";

	if (q->gap_from < 0)
		return 0;
	if (at_end && strcmp(q->state, "done") != 0)
		snprintf(tail, sizeof tail, " (its run %s)", q->state);
	int rc = note(f, q->gap_from, "agent_gap", q->rn.host,
	              "agent %d/%d sent nothing from %s to %s UTC%s", q->k, f->planned,
	              when(f, q->gap_from, a, sizeof a), when(f, q->gap_to, b, sizeof b), tail);
	q->gap_from = -1;
	return rc;
}

/* Writes the merged interval at t from acc and the parts present, and follows each
 * agent's silence.  An agent is silent in it when it has no row there, or a row with
 * VUs that completed nothing while the others did. */
static int write_interval(struct fold *f, int64_t t, int64_t len, int step, int rank, int64_t vus,
                          const struct istats *acc)
{
	/* The generator's CPU and saturation stay on each agent's own run: a sum over
	 * machines means nothing (f->rec.threads 0 leaves gen_cpu_pct NULL). */
	if (rec_interval_row(&f->rec, step, t, len, phases[rank], (int)vus, acc, 0, f->err,
	                     f->errlen) < 0)
		return -1;
	f->res->intervals++;
	if (rank == 3)
		return 0; /* requests in flight at the end: nobody is expected to send more */
	f->end = t + len;
	for (int i = 0; i < f->np; i++) {
		struct part *q = &f->p[i];
		int silent = !q->present || (q->req == 0 && q->vus > 0 && acc->requests > 0);
		if (silent) {
			if (q->gap_from < 0)
				q->gap_from = t;
			q->gap_to = t + len;
		} else if (close_gap(f, q, 0) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The k-way merge of the parts' intervals by start time. */
static int fold_intervals(struct fold *f)
{
	struct istats acc;
	int rc = -1;

	if ((f->open ? istats_init_open(&acc, f->err, f->errlen)
	             : istats_init(&acc, f->err, f->errlen)) < 0)
		return -1;
	for (int i = 0; i < f->np; i++) {
		struct part *q = &f->p[i];
		/* res_add_row's columns first (with the open model's 10..12), then ours. */
		if (db_prepare(
		        f->db, &q->cur,
		        "SELECT start_ms, length_ms, requests, errors, bytes, new_conns, "
		        "connect_us, ttfb_us, mean_us, hist, svc_hist, lag_hist, svc_mean_us, "
		        "step_idx, phase, vus FROM intervals WHERE run_id = ? ORDER BY start_ms",
		        f->err, f->errlen) < 0)
			goto done;
		sqlite3_bind_int64(q->cur, 1, q->id);
		if (advance(f, q) < 0)
			goto done;
	}
	for (;;) {
		int64_t t = INT64_MAX, len = 0, vus = 0;
		int step = -1, rank = 3;
		for (int i = 0; i < f->np; i++)
			if (f->p[i].has_row && sqlite3_column_int64(f->p[i].cur, 0) < t)
				t = sqlite3_column_int64(f->p[i].cur, 0);
		if (t == INT64_MAX)
			break;
		istats_reset(&acc);
		for (int i = 0; i < f->np; i++) {
			struct part *q = &f->p[i];
			q->present = q->has_row && sqlite3_column_int64(q->cur, 0) == t;
			if (!q->present)
				continue;
			int64_t l = sqlite3_column_int64(q->cur, 1);
			int s = sqlite3_column_int(q->cur, 13);
			int r = phase_rank(db_col_text(q->cur, 14));
			q->req = sqlite3_column_int64(q->cur, 2);
			q->vus = sqlite3_column_int64(q->cur, 15);
			if (res_add_row(q->cur, f->es, q->id, NULL, &acc, f->err, f->errlen) < 0)
				goto done;
			len = l > len ? l : len;
			step = step < 0 || s < step ? s : step;
			rank = r < rank ? r : rank;
			vus += q->vus;
			if (advance(f, q) < 0)
				goto done;
		}
		if (write_interval(f, t, len, step, rank, vus, &acc) < 0)
			goto done;
	}
	for (int i = 0; i < f->np; i++)
		if (close_gap(f, &f->p[i], f->p[i].gap_to >= f->end) < 0)
			goto done;
	rc = 0;
done:
	for (int i = 0; i < f->np; i++) {
		sqlite3_finalize(f->p[i].cur);
		f->p[i].cur = NULL;
	}
	istats_release(&acc);
	return rc;
}

/* --- steps ------------------------------------------------------------------------------ */

/* A merged step: the group's concurrency, the earliest start, the sum of its steady merged
 * intervals (so an agent that died mid-step still counts until it died). */
static int fold_steps(struct fold *f)
{
	sqlite3_stmt *st = NULL, *win = NULL;
	struct istats acc;
	sqlite3_str *q = sqlite3_str_new(f->db);
	int rc = -1, step;

	sqlite3_str_appendall(q, "SELECT idx, IFNULL(MAX(group_concurrency), SUM(concurrency)), "
	                         "MIN(started_ms), MAX(planned_ms), SUM(rate) FROM steps "
	                         "WHERE run_id IN (");
	for (int i = 0; i < f->np; i++)
		sqlite3_str_appendf(q, "%s%lld", i ? "," : "", (long long)f->p[i].id);
	sqlite3_str_appendall(q, ") GROUP BY idx ORDER BY idx");
	char *sql = sqlite3_str_finish(q);
	if (!sql) {
		snprintf(f->err, f->errlen, "out of memory");
		return -1;
	}
	if ((f->open ? istats_init_open(&acc, f->err, f->errlen)
	             : istats_init(&acc, f->err, f->errlen)) < 0) {
		sqlite3_free(sql);
		return -1;
	}
	if (db_prepare(f->db, &st, sql, f->err, f->errlen) < 0 ||
	    db_prepare(f->db, &win,
	               "SELECT MIN(start_ms), MAX(start_ms + length_ms) FROM intervals "
	               "WHERE run_id = ? AND step_idx = ? AND phase = 'steady'",
	               f->err, f->errlen) < 0)
		goto done;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int idx = sqlite3_column_int(st, 0);
		struct res_window w = {.run_id = f->run_id,
		                       .step_idx = idx,
		                       .phase = "steady",
		                       .from_ms = -1,
		                       .to_ms = -1};
		double secs;
		int n;

		if (rec_step_begin(&f->rec, idx, sqlite3_column_int(st, 1),
		                   sqlite3_column_double(st, 4), sqlite3_column_int64(st, 2),
		                   sqlite3_column_int64(st, 3), f->err, f->errlen) < 0)
			goto done;
		istats_reset(&acc);
		if (res_collect(f->db, &w, &acc, &secs, &n, f->err, f->errlen) < 0)
			goto done;
		if (n == 0)
			continue;
		sqlite3_bind_int64(win, 1, f->run_id);
		sqlite3_bind_int(win, 2, idx);
		if (sqlite3_step(win) != SQLITE_ROW) {
			db_fail(f->db, "cannot read a merged step's window", f->err, f->errlen);
			goto done;
		}
		int64_t from = sqlite3_column_int64(win, 0), to = sqlite3_column_int64(win, 1);
		sqlite3_reset(win);
		if (rec_step_end(&f->rec, idx, from, to, &acc, f->err, f->errlen) < 0)
			goto done;
	}
	rc = db_done(f->db, step, "cannot read the agents' steps", f->err, f->errlen);
done:
	sqlite3_finalize(st);
	sqlite3_finalize(win);
	sqlite3_free(sql);
	istats_release(&acc);
	return rc;
}

/* --- notes and status ------------------------------------------------------------------- */

/* "1-3, 5" of the agent numbers ks[0..n) (ascending) appended to buf. */
static void ranges(const int *ks, int n, char *buf, size_t len)
{
	size_t at = strlen(buf);

	for (int i = 0; i < n && at < len; i++) {
		int j = i;
		while (j + 1 < n && ks[j + 1] == ks[j] + 1)
			j++;
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : "", ks[i]);
		if (j > i && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%d", j == i + 1 ? ", " : "-",
			                       ks[j]);
		i = j;
	}
}

/* Agents missing, late, started elsewhere in time, or on clocks that disagree; the runs
 * of the group that were left out. */
static int notes(struct fold *f)
{
	char a[32], b[32];
	int64_t lo = INT64_MAX, hi = INT64_MIN, start = f->p[0].start_at;
	int nmiss = 0, at = 0, *miss = calloc((size_t)f->planned + 1, sizeof *miss);
	sqlite3_stmt *st = NULL;

	if (!miss) {
		snprintf(f->err, f->errlen, "out of memory");
		return -1;
	}
	for (int k = 1; k <= f->planned; k++) {
		while (at < f->np && f->p[at].k < k)
			at++;
		if (at >= f->np || f->p[at].k != k)
			miss[nmiss++] = k;
	}
	if (nmiss > 0) {
		char list[AGM_TEXT] = "";
		ranges(miss, nmiss, list, sizeof list);
		if (note(f, f->t0, "agent_missing", f->p[0].rn.host,
		         "agent%s %s of %d sent no run: the merged run holds %d of %d agents' load",
		         nmiss > 1 ? "s" : "", list, f->planned, f->np, f->planned) < 0)
			goto fail;
	}
	free(miss);
	miss = NULL;
	for (int i = 0; i < f->np; i++) {
		const struct part *q = &f->p[i];
		if (q->start_at != start &&
		    note(f, q->started, "agent_start", q->rn.host,
		         "agent %d/%d was given another start (%s UTC, agent %d/%d: %s "
		         "UTC): its intervals do not line up with the others'",
		         q->k, f->planned, when(f, q->start_at, a, sizeof a), f->p[0].k, f->planned,
		         when(f, start, b, sizeof b)) < 0)
			return -1;
		if (q->lag * 10 > f->interval_ms &&
		    note(f, q->started, "agent_late", q->rn.host,
		         "agent %d/%d started %.1f s after the group's start (%s UTC)", q->k,
		         f->planned, (double)q->lag / 1000, when(f, q->start_at, a, sizeof a)) < 0)
			return -1;
		if (q->has_offset) {
			lo = q->offset < lo ? q->offset : lo;
			hi = q->offset > hi ? q->offset : hi;
		}
	}
	if (hi > lo && (hi - lo) * 10 > f->interval_ms) {
		char list[AGM_TEXT] = "";
		size_t n = 0;
		for (int i = 0; i < f->np && n < sizeof list; i++)
			if (f->p[i].has_offset)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%d/%d %+.3f s",
				                      n ? ", " : "", f->p[i].k, f->planned,
				                      (double)f->p[i].offset / 1000);
		if (note(
		        f, f->t0, "agent_clock", f->p[0].rn.host,
		        "the agents' clocks disagree by %.3f s, more than a tenth of the %.1f s "
		        "interval, so their intervals do not cover the same real time (against the "
		        "shared file system's clock: %s); synchronise them (chrony, NTP)",
		        (double)(hi - lo) / 1000, (double)f->interval_ms / 1000, list) < 0)
			return -1;
	}
	/* Runs of the group left out: a repeated agent's earlier run, or a run that
	 * disagrees with the group on N or the interval. */
	if (db_prepare(f->db, &st,
	               "SELECT id, agent_index, agent_count, interval_ms, host FROM runs "
	               "WHERE agent_group = ? AND agent_seq = ? AND agent_index IS NOT NULL "
	               "AND merged_into IS NULL ORDER BY agent_index, id",
	               f->err, f->errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, f->group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, f->seq);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), iv = sqlite3_column_int64(st, 3);
		int in = 0;
		for (int i = 0; i < f->np; i++)
			in |= f->p[i].id == id;
		if (in)
			continue;
		if (note(f, f->t0, "agent_left_out", db_col_text(st, 4),
		         "run %lld (agent %d/%d, %.1f s intervals) is left out of the merged run: "
		         "%s",
		         (long long)id, sqlite3_column_int(st, 1), sqlite3_column_int(st, 2),
		         (double)iv / 1000,
		         sqlite3_column_int(st, 2) != f->planned || iv != f->interval_ms
		             ? "it disagrees with the group on the number of agents or the interval"
		             : "a later run of the same agent is merged instead") < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return 0;
fail:
	free(miss);
	return -1;
}

/* How the parts of a merged run ended, taken together. */
struct parts_end {
	int any_run;            /* a part still running (its index), or -1 */
	int any_failed;         /* a part failed */
	int any_bad;            /* a part neither done nor failed, or an agent sent none */
	int64_t started, ended; /* the earliest start, the latest end (INT64_MAX: a part
	                         * has none) */
	int64_t hb;             /* the latest heartbeat */
	char hosts[AGM_TEXT];   /* the parts' hosts, each once */
};

/* Tallies the parts; a crashed part's why says when it was last heard of. */
static void tally_parts(struct fold *f, struct parts_end *e)
{
	char t[32];

	*e = (struct parts_end){.any_run = -1,
	                        .any_bad = f->np < f->planned,
	                        .started = INT64_MAX,
	                        .ended = INT64_MIN,
	                        .hb = INT64_MIN};
	for (int i = 0; i < f->np; i++) {
		struct part *q = &f->p[i];
		e->started = q->started < e->started ? q->started : e->started;
		e->hb = q->rn.heartbeat > e->hb ? q->rn.heartbeat : e->hb;
		e->ended = q->ended < 0 ? INT64_MAX : (q->ended > e->ended ? q->ended : e->ended);
		if (!strcmp(q->state, "running"))
			e->any_run = i;
		else if (!strcmp(q->state, "failed"))
			e->any_failed = 1;
		else if (strcmp(q->state, "done") != 0)
			e->any_bad = 1;
		if (!strcmp(q->state, "crashed"))
			snprintf(q->why, sizeof q->why, "last heard of at %s UTC",
			         when(f, q->rn.heartbeat, t, sizeof t));
		if (!strstr(e->hosts, q->rn.host) &&
		    strlen(e->hosts) + strlen(q->rn.host) + 3 < 250)
			snprintf(e->hosts + strlen(e->hosts), sizeof e->hosts - strlen(e->hosts),
			         "%s%s", *e->hosts ? ", " : "", q->rn.host);
	}
}

/* The reason: one clause per (state, why), in agent order, then the agents that sent no
 * run.  ks: room for f->np + f->planned + 1 ints. */
static void ends_reason(const struct fold *f, int *ks, char *reason, size_t len)
{
	int *done_ = ks + f->planned + 1; /* marks parts already described */

	reason[0] = '\0';
	memset(done_, 0, (size_t)f->np * sizeof *done_);
	for (int i = 0; i < f->np; i++) {
		int n = 0;
		if (done_[i])
			continue;
		for (int j = i; j < f->np; j++)
			if (!done_[j] && !strcmp(f->p[j].state, f->p[i].state) &&
			    !strcmp(f->p[j].why, f->p[i].why)) {
				done_[j] = 1;
				ks[n++] = f->p[j].k;
			}
		size_t at = strlen(reason);
		snprintf(reason + at, len - at, "%sagent%s ", at ? "; " : "", n > 1 ? "s" : "");
		ranges(ks, n, reason, len);
		at = strlen(reason);
		snprintf(reason + at, len - at, " of %d %s%s%s%s", f->planned, f->p[i].state,
		         *f->p[i].why ? " (" : "", f->p[i].why, *f->p[i].why ? ")" : "");
	}
	if (f->np < f->planned) {
		int n = 0, at = 0;
		for (int k = 1; k <= f->planned; k++) {
			while (at < f->np && f->p[at].k < k)
				at++;
			if (at >= f->np || f->p[at].k != k)
				ks[n++] = k;
		}
		size_t l = strlen(reason);
		snprintf(reason + l, len - l, "; agent%s ", n > 1 ? "s" : "");
		ranges(ks, n, reason, len);
		l = strlen(reason);
		snprintf(reason + l, len - l, " of %d sent no run", f->planned);
	}
}

/* Writes the merged run's row as the parts' ends make it.  0, or -1 with f->err. */
static int update_merged(struct fold *f, const struct parts_end *e, const char *status,
                         const char *reason)
{
	int64_t start_at = f->p[0].start_at;
	sqlite3_stmt *st = NULL;
	int rc;

	if (db_prepare(
	        f->db, &st,
	        "UPDATE runs SET host = ?, status = ?, reason = ?, started_ms = ?, ended_ms = ?, "
	        "heartbeat_ms = ?, agent_count = ?, agents_merged = ?, start_at_ms = ?, pid = ?, "
	        "pid_start = ?, boot_id = ?, agent_index = NULL, merged_into = NULL WHERE id = ?",
	        f->err, f->errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, e->hosts, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, start_at >= 0 && start_at < e->started ? start_at : e->started);
	if (e->any_run < 0 && e->ended != INT64_MAX)
		sqlite3_bind_int64(st, 5, e->ended);
	sqlite3_bind_int64(st, 6, e->hb);
	sqlite3_bind_int(st, 7, f->planned);
	sqlite3_bind_int(st, 8, f->np);
	if (start_at >= 0)
		sqlite3_bind_int64(st, 9, start_at);
	if (e->any_run >= 0) { /* a reader asks the running agent's process whether it lives */
		sqlite3_bind_int64(st, 10, f->p[e->any_run].rn.pid);
		sqlite3_bind_int64(st, 11, f->p[e->any_run].rn.pid_start);
		sqlite3_bind_text(st, 12, f->p[e->any_run].rn.boot, -1, SQLITE_STATIC);
	}
	sqlite3_bind_int64(st, 13, f->run_id);
	rc = db_done(f->db, sqlite3_step(st), "cannot close the merged run", f->err, f->errlen);
	sqlite3_finalize(st);
	return rc;
}

/* The merged run's status and a reason saying which agent ended how:
 * "agents 1, 3 of 3 done; agent 2 crashed (last heard of at 12:00:24 UTC)". */
static int close_run(struct fold *f)
{
	char reason[AGM_TEXT];
	int *ks = calloc((size_t)f->np + (size_t)f->planned + 1, sizeof *ks);
	struct parts_end e;
	const char *status;
	int rc = -1;

	if (!ks) {
		snprintf(f->err, f->errlen, "out of memory");
		return -1;
	}
	tally_parts(f, &e);
	ends_reason(f, ks, reason, sizeof reason);
	status = e.any_run >= 0 ? "running"
	         : e.any_failed ? "failed"
	         : e.any_bad    ? "interrupted"
	                        : "done";
	snprintf(f->res->status, sizeof f->res->status, "%s", status);
	if (update_merged(f, &e, status, reason) < 0)
		goto done;
	for (int i = 0; i < f->np; i++)
		if (exec2(f->db, "UPDATE runs SET merged_into = ?2 WHERE id = ?1", f->p[i].id,
		          f->run_id, f->err, f->errlen) < 0)
			goto done;
	rc = 0;
done:
	free(ks);
	return rc;
}

/* --- groups ----------------------------------------------------------------------------- */

static int fold_group(sqlite3 *db, const char *group, int seq, struct agm_group *res, int64_t now,
                      char *err, size_t errlen)
{
	struct fold f = {
	    .db = db, .group = group, .seq = seq, .res = res, .err = err, .errlen = errlen};
	int rc = -1;

	memset(res, 0, sizeof *res);
	snprintf(res->group, sizeof res->group, "%s", group);
	res->seq = seq;
	if (load_parts(&f, now) < 0)
		goto done;
	if (f.np == 0) { /* every run of the group disagrees with the first: nothing to add */
		rc = 0;
		goto done;
	}
	f.t0 = f.p[0].start_at >= 0 ? f.p[0].start_at : f.p[0].started;
	res->planned = f.planned;
	res->merged = f.np;
	if (rec_attach(&f.rec, db, err, errlen) < 0 || merged_run(&f) < 0)
		goto done;
	f.rec.open = f.open;
	if (db_prepare(db, &f.es,
	               "SELECT class, count, sample FROM interval_errors WHERE run_id = ? AND "
	               "start_ms = ?",
	               err, errlen) < 0)
		goto done;
	/* Parts are marked first, so that notes() sees which runs of the group are left out. */
	for (int i = 0; i < f.np; i++)
		if (exec2(db, "UPDATE runs SET merged_into = -1 WHERE id = ?", f.p[i].id, 0, err,
		          errlen) < 0)
			goto done;
	if (fold_intervals(&f) < 0 || fold_steps(&f) < 0 || notes(&f) < 0 || close_run(&f) < 0)
		goto done;
	rc = 0;
done:
	rec_close(&f.rec);
	sqlite3_finalize(f.es);
	free(f.p);
	return rc;
}

int agm_fold_all(sqlite3 *db, struct agm_group **out, int *n, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct agm_group *res = NULL;
	int rc, ret = -1, ngroups;
	size_t cap = 0;
	int64_t now = clock_wall_ms();

	*out = NULL;
	*n = 0;
	/* merged_into is this file's business: inputs brought their own numbering. */
	if (db_exec(db, "UPDATE runs SET merged_into = NULL WHERE merged_into IS NOT NULL", err,
	            errlen) < 0 ||
	    db_prepare(db, &st,
	               "SELECT agent_group, agent_seq FROM runs WHERE agent_index IS NOT NULL AND "
	               "agent_group IS NOT NULL GROUP BY agent_group, agent_seq "
	               "ORDER BY MIN(started_ms), agent_group, agent_seq",
	               err, errlen) < 0)
		return -1;
	/* The groups are listed first: folding writes to runs. */
	for (ngroups = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; ngroups++) {
		if (buf_grow(&res, &cap, (size_t)ngroups + 1, sizeof *res, 8) < 0) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		snprintf(res[ngroups].group, sizeof res[ngroups].group, "%s", db_col_text(st, 0));
		res[ngroups].seq = sqlite3_column_int(st, 1);
	}
	if (db_done(db, rc, "cannot list the agents' groups", err, errlen) < 0)
		goto done;
	for (int i = 0; i < ngroups; i++) {
		char group[AGENT_GROUP_MAX];
		int seq = res[i].seq;
		snprintf(group, sizeof group, "%s", res[i].group);
		if (fold_group(db, group, seq, &res[*n], now, err, errlen) < 0)
			goto done;
		if (res[*n].merged > 0)
			(*n)++;
	}
	ret = 0;
done:
	sqlite3_finalize(st);
	if (ret < 0) {
		free(res);
		*n = 0;
		return -1;
	}
	*out = res;
	return 0;
}
