/* report_study: what the report knows about studies (soak study, soak calibrate): each
 * run's study tags, the studies' designs, the stored calibrations, and the cold_start
 * validity items.  Reading is done database by database (report_read.h); the rest works on
 * the model alone. */
#include "report_study.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "dbroles.h"
#include "redact.h"
#include "dur.h"
#include "report_read.h"
#include "report/report_text.h"

/* Whether the database has the study tables (a read-only file of an older schema may not). */
static int has_tables(struct reader *rd)
{
	long long n = 0;
	char err[256];
	if (db_int(rd->db,
	           "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
	           "('studies', 'study_runs', 'calibrations')",
	           0, &n, err, sizeof err) < 0)
		return 0;
	return n == 3;
}

/* Index of study `id` of the current database in r->studies, loading it when new; -1 with
 * rd->err on failure. */
/* The studies row id's columns of sql, columns a later migration added (col is one of
 * them): 1 with the row in *q, 0 when the database predates col or has no row, -1 on
 * error. */
static int later_row(struct reader *rd, sqlite3_stmt **q, int64_t id, const char *col,
                     const char *sql)
{
	if (!rpt_rd_has(rd->db, "studies", col))
		return 0;
	if (db_prepare(rd->db, q, sql, rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(*q, 1, id);
	return sqlite3_step(*q) == SQLITE_ROW;
}

/* A study's design (sql/011) and its length; the defaults for an older file. */
static int read_design(struct reader *rd, struct rpt_study *st, int64_t id)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	st->replicas = st->starts = 1;
	switch (later_row(rd, &q, id, "design",
	                  "SELECT IFNULL(design, ''), IFNULL(together, ''), IFNULL(replicas, 1), "
	                  "IFNULL(starts, 1), IFNULL(primary_fig, ''), IFNULL(warmup_jit, 0), "
	                  "IFNULL(IFNULL(ended_ms, (SELECT MAX(ended_ms) FROM runs r JOIN "
	                  "study_runs sr ON sr.run_id = r.id WHERE sr.study_id = s.id)) - "
	                  "started_ms, 0) FROM studies s WHERE id = ?")) {
	case -1:
		rc = -1;
		break;
	case 1:
		db_col_copy(q, 0, st->design, sizeof st->design);
		db_col_copy(q, 1, st->together, sizeof st->together);
		st->replicas = sqlite3_column_int(q, 2);
		st->starts = sqlite3_column_int(q, 3);
		db_col_copy(q, 4, st->primary, sizeof st->primary);
		st->warmup_jit = sqlite3_column_double(q, 5);
		st->wall_ms = sqlite3_column_int64(q, 6);
	}
	sqlite3_finalize(q);
	return rc;
}

static int load_study(struct reader *rd, int64_t id)
{
	struct report *r = rd->r;
	struct rpt_study *st;
	sqlite3_stmt *q = NULL;
	int rc = -1;

	for (int i = 0; i < r->nstudies; i++)
		if (r->studies[i].db == rd->dbi && r->studies[i].id == id)
			return i;
	if (r->nstudies >= RPT_MAX_STUDIES) {
		snprintf(rd->err, rd->errlen,
		         "runs of more than %d studies: choose some with --runs", RPT_MAX_STUDIES);
		return -1;
	}
	if (!r->studies && !(r->studies = calloc(RPT_MAX_STUDIES, sizeof *r->studies)))
		return rpt_rd_oom(rd);
	if (db_prepare(rd->db, &q,
	               "SELECT name, order_kind, IFNULL(seed, 0), rounds, warmup_runs, "
	               "keep_running, IFNULL(before_each, ''), targets, slots, status, managed, "
	               "(SELECT COUNT(DISTINCT sr.slot) FROM study_runs sr JOIN runs ru "
	               "ON ru.id = sr.run_id WHERE sr.study_id = s.id AND sr.slot IS NOT NULL "
	               "AND ru.status = 'done') FROM studies s WHERE id = ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		snprintf(rd->err, rd->errlen, "study %lld of a run is missing from its database",
		         (long long)id);
		goto done;
	}
	st = &r->studies[r->nstudies];
	memset(st, 0, sizeof *st);
	st->db = rd->dbi;
	st->id = id;
	st->name = db_col_dup(q, 0);
	db_col_copy(q, 1, st->order, sizeof st->order);
	st->seed = sqlite3_column_int64(q, 2);
	st->rounds = sqlite3_column_int(q, 3);
	st->warmup_runs = sqlite3_column_int(q, 4);
	st->keep_running = sqlite3_column_int(q, 5);
	/* redacted again: an older soak stored it as given */
	st->before_each = dbroles_shown(NULL, "studies", "before_each", db_col_str(q, 6));
	st->targets = db_col_dup(q, 7);
	st->slots = sqlite3_column_int(q, 8);
	db_col_copy(q, 9, st->status, sizeof st->status);
	st->managed = sqlite3_column_int(q, 10);
	st->done_slots = sqlite3_column_int(q, 11);
	r->nstudies++;
	if (!st->name || !st->before_each || !st->targets) {
		rpt_rd_oom(rd);
		goto done;
	}
	rc = r->nstudies - 1;
	if (read_design(rd, st, id) < 0) {
		rc = -1;
		goto done;
	}
	/* A sequential study (sql/009): what it ran until, and the looks it took. */
	sqlite3_finalize(q);
	q = NULL;
	switch (later_row(rd, &q, id, "alpha",
	                  "SELECT IFNULL(until, ''), IFNULL(budget_ms, 0), IFNULL(max_looks, 0), "
	                  "IFNULL(looks, 0), IFNULL(alpha, 0), IFNULL(stop, '') FROM studies "
	                  "WHERE id = ?")) {
	case -1:
		rc = -1;
		goto done;
	case 1:
		db_col_copy(q, 0, st->until, sizeof st->until);
		st->budget_ms = sqlite3_column_int64(q, 1);
		st->max_looks = sqlite3_column_int(q, 2);
		st->looks = sqlite3_column_int(q, 3);
		st->alpha = sqlite3_column_double(q, 4);
		db_col_copy(q, 5, st->stop, sizeof st->stop);
	}
	/* Warm-up until steady (sql/010). */
	sqlite3_finalize(q);
	q = NULL;
	switch (later_row(rd, &q, id, "warmup_steady",
	                  "SELECT IFNULL(warmup_steady, 0), IFNULL(warmup_max, 0) FROM studies "
	                  "WHERE id = ?")) {
	case -1:
		rc = -1;
		goto done;
	case 1:
		st->warmup_steady = sqlite3_column_double(q, 0);
		st->warmup_max = sqlite3_column_int(q, 1);
	}
done:
	sqlite3_finalize(q);
	return rc;
}

int rpt_read_study_run(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int rc = -1, step;

	run->study = -1;
	run->compared = 1;
	run->replica = 1;
	run->jit_share = run->gap_s = NAN;
	if (!has_tables(rd))
		return 0;
	int later = rpt_rd_has(rd->db, "study_runs", "grp");
	if (db_prepare(rd->db, &q,
	               later ? "SELECT study_id, round, position, warmup, since_start, "
	                       "IFNULL(replica, 1), IFNULL(start_no, 0), IFNULL(grp, 0), jit_share "
	                       "FROM study_runs WHERE run_id = ?"
	                     : "SELECT study_id, round, position, warmup, since_start, 1, 0, 0, "
	                       "NULL FROM study_runs WHERE run_id = ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	step = sqlite3_step(q);
	if (step == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(q, 0);
		run->round = sqlite3_column_int(q, 1);
		run->position = sqlite3_column_int(q, 2);
		run->warmup = sqlite3_column_int(q, 3) != 0;
		run->since_start = sqlite3_column_int(q, 4);
		run->replica = sqlite3_column_int(q, 5);
		run->start_no = sqlite3_column_int(q, 6);
		run->grp = sqlite3_column_int(q, 7);
		run->jit_share = rpt_rd_col(q, 8);
		/* A study's slot whose run was interrupted is run again on --resume: only
		 * finished runs are its evidence. */
		run->compared = !run->warmup && strcmp(run->status, "done") == 0;
		if ((run->study = load_study(rd, sid)) < 0)
			goto done;
	} else if (rpt_rd_done(rd, step, "cannot read study_runs") < 0) {
		goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

/* Calibrations: one row per metric in the database; one rpt_cal per measured cell. */
/* Each measured run's gap: the seconds since the study's previous measured run ended (what
 * it cost to start targets, warm them up, run before_each), which the advice counts. */
static void study_gaps(struct report *r, int dbi)
{
	for (int i = 0; i < r->nruns; i++) {
		struct rpt_run *x = &r->runs[i];
		int64_t prev = INT64_MIN;
		if (x->db != dbi || x->study < 0 || x->warmup)
			continue;
		for (int j = 0; j < r->nruns; j++) {
			const struct rpt_run *y = &r->runs[j];
			if (j != i && y->study == x->study && !y->warmup &&
			    y->end_ms <= x->started_ms && y->end_ms > prev)
				prev = y->end_ms;
		}
		if (prev != INT64_MIN)
			x->gap_s = (double)(x->started_ms - prev) / 1000.0;
	}
}

/* The calibrations' query: a group's facts, then the cv of each request figure whose row
 * keeps one (stored under the row's key), in the rows' order from column 9. */
static void cal_sql(char *sql, size_t len)
{
	size_t n = (size_t)snprintf(sql, len,
	                            "SELECT MIN(id), MAX(t_ms), host, scenario, label, "
	                            "kind, concurrency, planned_ms, MIN(runs)");

	for (int k = 0; k < RPT_NMETRIC && n < len; k++)
		if (rpt_figrows[k].cv)
			n += (size_t)snprintf(sql + n, len - n,
			                      ", MAX(CASE WHEN metric = '%s' THEN cv END)",
			                      rpt_figrows[k].key);
	if (n < len)
		snprintf(
		    sql + n, len - n,
		    " FROM calibrations GROUP BY IFNULL(study_id, -id), host, scenario, label, "
		    "kind, concurrency, planned_ms ORDER BY MIN(id)");
}

int rpt_read_studies(struct reader *rd)
{
	struct report *r = rd->r;
	sqlite3_stmt *q = NULL;
	int rc = -1, step;
	char sql[1024];

	if (!has_tables(rd))
		return 0;
	study_gaps(r, rd->dbi);
	cal_sql(sql, sizeof sql);
	if (db_prepare(rd->db, &q, sql, rd->err, rd->errlen) < 0)
		return -1;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_cal *k;
		if (r->ncals >= RPT_MAX_CALS)
			break; /* the most recent are not the first: see the ORDER BY (oldest kept)
			        */
		if (!r->cals && !(r->cals = calloc(RPT_MAX_CALS, sizeof *r->cals))) {
			rpt_rd_oom(rd);
			goto done;
		}
		k = &r->cals[r->ncals++];
		k->db = rd->dbi;
		k->id = sqlite3_column_int64(q, 0);
		k->t_ms = sqlite3_column_int64(q, 1);
		db_col_copy(q, 2, k->host, sizeof k->host);
		db_col_copy(q, 3, k->scenario, sizeof k->scenario);
		db_col_copy(q, 4, k->label, sizeof k->label);
		k->sweep = strcmp(db_col_text(q, 5), "sweep") == 0;
		k->concurrency = sqlite3_column_int(q, 6);
		k->planned_ms = sqlite3_column_int64(q, 7);
		k->runs = sqlite3_column_int(q, 8);
		for (int f = 0, col = 9; f < RPT_NMETRIC; f++)
			k->cv[f] = rpt_figrows[f].cv ? rpt_rd_col(q, col++) : NAN;
	}
	/* A row still there: the loop stopped at RPT_MAX_CALS. */
	if (step != SQLITE_ROW && rpt_rd_done(rd, step, "cannot read calibrations") < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}
