/* report_env: what ran and what the load generator shared, read with each run (see
 * report_env.h). */
#include "report_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "dbroles.h"
#include "redact.h"

#define MAX_ENV 400 /* facts of one run read (env.h records at most 160) */

/* Rows of a run: its own (run_id) or a standalone collector's (NULL) within its span. */
#define IN_RUN "(run_id = ?1 OR run_id IS NULL) AND t_ms >= ?2 AND t_ms <= ?3"

static void bind_run(sqlite3_stmt *q, const struct rpt_run *run)
{
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int64(q, 2, run->started_ms);
	sqlite3_bind_int64(q, 3, run->end_ms);
}

static int read_facts(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int step, rc = -1;

	if (!rpt_rd_has(rd->db, "run_env", NULL))
		return 0;
	if (db_prepare(rd->db, &q,
	               "SELECT source, key, value FROM run_env WHERE run_id = ? "
	               "ORDER BY source, key LIMIT ?2",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, MAX_ENV);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_env_fact *f;
		if (!run->env) {
			run->env = calloc(MAX_ENV, sizeof *run->env);
			if (!run->env) {
				rpt_rd_oom(rd);
				goto done;
			}
		}
		f = &run->env[run->nenv++];
		f->source = db_col_dup(q, 0);
		f->key = db_col_dup(q, 1);
		/* A file from before soak redacted what it stored still has a command line's
		 * secrets: none is printed (redact.h). */
		f->value = dbroles_shown(run->redact, "run_env", "value", db_col_str(q, 2));
		if (!f->source || !f->key || !f->value) {
			rpt_rd_oom(rd);
			goto done;
		}
	}
	rc = rpt_rd_done(rd, step, "cannot read run_env");
done:
	sqlite3_finalize(q);
	return rc;
}

/* The collector sources behind the run's series ("app:host" is source "app"), unique, in
 * series order: queries by source use the samples' primary key (source, metric, t_ms). */
static int run_sources(const struct rpt_run *run, char names[][RPT_NAME_MAX])
{
	int n = 0;

	for (int i = 0; i < run->nsrc; i++) {
		const char *name = run->src[i].name, *colon = strstr(name, ":host");
		int len = colon ? (int)(colon - name) : (int)strlen(name), seen = 0;
		for (int j = 0; j < n && !seen; j++)
			seen =
			    (int)strlen(names[j]) == len && !strncmp(names[j], name, (size_t)len);
		if (!seen)
			snprintf(names[n++], RPT_NAME_MAX, "%.*s", len, name);
	}
	return n;
}

/* The process sources sampled (or whose GC log was read) on the generator's host. */
static int read_colocated(struct reader *rd, struct rpt_run *run)
{
	char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int n = run_sources(run, names), rc = 0;
	size_t used = 0;
	sqlite3_stmt *q = NULL;

	if (db_prepare(rd->db, &q,
	               "SELECT EXISTS (SELECT 1 FROM samples WHERE source = ?4 AND "
	               "metric IN ('cpu_pct', 'rss_kb', 'pss_kb') AND host = ?5 AND " IN_RUN
	               ") OR EXISTS (SELECT 1 FROM gc_events WHERE source = ?4 AND host = ?5 "
	               "AND " IN_RUN ")",
	               rd->err, rd->errlen) < 0)
		return -1;
	for (int i = 0; i < n && rc == 0; i++) {
		bind_run(q, run);
		sqlite3_bind_text(q, 4, names[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, run->host, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_ROW) {
			rc = db_fail(rd->db, "cannot read samples", rd->err, rd->errlen);
		} else if (sqlite3_column_int(q, 0)) {
			int k = snprintf(run->colocated + used, sizeof run->colocated - used,
			                 "%s%s", used ? ", " : "", names[i]);
			if (k > 0 && (size_t)k < sizeof run->colocated - used)
				used += (size_t)k;
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return rc;
}

/* The host-wide CPU of the generator's host, averaged over each step's window: user,
 * system and steal, the time its work wanted the cores (on a VM the hypervisor's steal
 * is contention too: 1.5-11.7 % of a window where the cores were 3.5-10 % idle). */
static int read_host_cpu(struct reader *rd, struct rpt_run *run)
{
	char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int nn = run_sources(run, names);
	sqlite3_stmt *q = NULL;
	struct {
		double sum; /* the samples' sum in this step's window */
		long n;     /* how many */
	} *acc = calloc((size_t)run->nsteps + 1, sizeof *acc);
	int step = SQLITE_DONE, rc = -1;

	if (!acc) {
		rpt_rd_oom(rd);
		goto done;
	}
	if (db_prepare(rd->db, &q,
	               "SELECT t_ms, SUM(value) FROM samples WHERE source = ?4 AND "
	               "metric IN ('cpu_user_pct', 'cpu_sys_pct', 'cpu_steal_pct') AND "
	               "host = ?5 AND " IN_RUN " GROUP BY t_ms",
	               rd->err, rd->errlen) < 0)
		goto done;
	for (int i = 0; i < nn && step == SQLITE_DONE; i++) {
		bind_run(q, run);
		sqlite3_bind_text(q, 4, names[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, run->host, -1, SQLITE_STATIC);
		while ((step = sqlite3_step(q)) == SQLITE_ROW) {
			int64_t t = sqlite3_column_int64(q, 0);
			for (int k = 0; k < run->nsteps; k++) {
				const struct rpt_step *s = &run->steps[k];
				if (s->nintervals > 0 && t >= s->win_from_ms && t < s->win_to_ms) {
					acc[k].sum += sqlite3_column_double(q, 1);
					acc[k].n++;
				}
			}
		}
		sqlite3_reset(q);
	}
	if (rpt_rd_done(rd, step, "cannot read samples") < 0)
		goto done;
	for (int k = 0; k < run->nsteps; k++)
		run->steps[k].host_cpu_pct = acc[k].n ? acc[k].sum / (double)acc[k].n : NAN;
	rc = 0;
done:
	sqlite3_finalize(q);
	free(acc);
	return rc;
}

/* Per step, over the steady intervals: the generator's mean busy share and run-queue wait
 * (% of all its engine threads), and in the open model its start lag (the mean and the
 * highest of the intervals' p99, and how many passed 10 ms), when the file has the
 * columns. */
static int read_generator(struct reader *rd, struct rpt_run *run)
{
	int cpu = rpt_rd_has(rd->db, "intervals", "gen_cpu_pct");
	int wait = rpt_rd_has(rd->db, "intervals", "gen_wait_pct");
	int lag = rpt_rd_has(rd->db, "intervals", "lag_p99_us");
	int busy = rpt_rd_has(rd->db, "intervals", "gen_cpus_busy_pct");
	sqlite3_stmt *q = NULL;
	char sql[512];
	int step;

	if (!cpu && !lag)
		return 0;
	snprintf(sql, sizeof sql,
	         "SELECT step_idx, %s, %s, %s, %s, %s, %s FROM intervals WHERE run_id = ? AND "
	         "phase = 'steady' GROUP BY step_idx",
	         cpu ? "AVG(gen_cpu_pct)" : "NULL", wait ? "AVG(gen_wait_pct)" : "NULL",
	         lag ? "AVG(lag_p99_us)" : "NULL", lag ? "MAX(lag_p99_us)" : "NULL",
	         lag ? "SUM(lag_p99_us > 10000)" : "0", busy ? "AVG(gen_cpus_busy_pct)" : "NULL");
	if (db_prepare(rd->db, &q, sql, rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0);
		for (int k = 0; k < run->nsteps; k++) {
			struct rpt_step *s = &run->steps[k];
			if (s->idx != idx)
				continue;
			s->gen_cpu_pct = rpt_rd_col(q, 1);
			s->gen_wait_pct = rpt_rd_col(q, 2);
			s->lag_p99_ms = rpt_rd_col(q, 3) / 1000;
			s->lag_top_ms = rpt_rd_col(q, 4) / 1000;
			s->late_intervals = sqlite3_column_int(q, 5);
			s->gen_cpus_busy_pct = rpt_rd_col(q, 6);
		}
	}
	sqlite3_finalize(q);
	return rpt_rd_done(rd, step, "cannot read intervals");
}

/* A merged run: how far apart its agents' clocks were. */
static int read_skew(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int step;

	if (!rpt_rd_has(rd->db, "runs", "clock_offset_ms") ||
	    !rpt_rd_has(rd->db, "runs", "merged_into"))
		return 0;
	if (db_prepare(rd->db, &q,
	               "SELECT MAX(clock_offset_ms) - MIN(clock_offset_ms), COUNT(clock_offset_ms) "
	               "FROM runs WHERE merged_into = ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	step = sqlite3_step(q);
	if (step == SQLITE_ROW && sqlite3_column_int(q, 1) >= 2)
		run->clock_skew_ms = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	if (step != SQLITE_ROW)
		return db_fail(rd->db, "cannot read runs", rd->err, rd->errlen);
	return 0;
}

int rpt_read_env(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;

	run->clock_skew_ms = NAN;
	for (int k = 0; k < run->nsteps; k++)
		run->steps[k].host_cpu_pct = run->steps[k].gen_cpu_pct =
		    run->steps[k].gen_wait_pct = run->steps[k].lag_p99_ms =
		        run->steps[k].lag_top_ms = NAN;
	if (db_prepare(rd->db, &q, "SELECT host FROM runs WHERE id = ?", rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	run->host = sqlite3_step(q) == SQLITE_ROW ? db_col_dup(q, 0) : strdup("");
	sqlite3_finalize(q);
	if (!run->host)
		return rpt_rd_oom(rd);
	if (read_facts(rd, run) < 0 || read_colocated(rd, run) < 0 || read_host_cpu(rd, run) < 0 ||
	    read_generator(rd, run) < 0 || read_skew(rd, run) < 0)
		return -1;
	return 0;
}
