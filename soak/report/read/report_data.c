/* report_data: reads the selected runs of each database into the report model.
 * Read-only but for an old file's migration; what an older soak stored unredacted is
 * redacted here with each run's own names before the model holds it. */
#include "report_data.h"
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "db.h"
#include "dbroles.h"
#include "hdr.h"
#include "redact.h"
#include "report_agents.h"
#include "report_drift_read.h"
#include "report_env.h"
#include "report_gaps.h"
#include "report_profile_read.h"
#include "report_read.h"
#include "report_sources.h"
#include "report_study.h"
#include "store/results.h"

#define MAX_RUN_FILTERS 256 /* entries of --runs */

/* One --runs entry: a run id, in one database (db >= 0) or in any (-1). */
struct run_filter {
	int db;     /* 0-based database index, or -1 for any */
	int64_t id; /* runs.id */
};

/* Parses "ID,K:ID,..." into filters. */
static int parse_runs(const char *arg, int ndbs, struct run_filter *f, int *n, char *err,
                      size_t errlen)
{
	const char *s = arg;

	*n = 0;
	while (*s) {
		char *end;
		long long a, b = -1;
		errno = 0;
		a = strtoll(s, &end, 10);
		if (end == s || errno || a < 1)
			goto bad;
		if (*end == ':') {
			const char *p = end + 1;
			b = strtoll(p, &end, 10);
			if (end == p || errno || b < 1 || a > ndbs)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		if (*n >= MAX_RUN_FILTERS) {
			snprintf(err, errlen, "--runs: more than %d runs", MAX_RUN_FILTERS);
			return -1;
		}
		f[*n].db = b < 0 ? -1 : (int)a - 1;
		f[*n].id = b < 0 ? a : b;
		(*n)++;
		s = *end ? end + 1 : end;
	}
	if (*n == 0)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen,
	         "bad --runs '%s': expected run ids, or DB:ID with DB the database's position "
	         "(1..%d)",
	         arg, ndbs);
	return -1;
}

static int selected(const struct reader *rd, int64_t id, const char *label)
{
	if (rd->o->nlabels > 0) {
		int found = 0;
		for (int i = 0; i < rd->o->nlabels && !found; i++)
			found = strcmp(rd->o->labels[i], label) == 0;
		if (!found)
			return 0;
	}
	if (!rd->filters)
		return 1;
	for (int i = 0; i < rd->nfilters; i++)
		if (rd->filters[i].id == id &&
		    (rd->filters[i].db < 0 || rd->filters[i].db == rd->dbi))
			return 1;
	return 0;
}

/* Numbers label l n when it has runs and no number yet: map[old] = new, tmp[new] = the
 * label.  The next n. */
static int label_number(struct report *r, int l, int *map, struct rpt_label *tmp, int n)
{
	if (map[l] < 0 && r->labels[l].nruns > 0) {
		map[l] = n;
		tmp[n++] = r->labels[l];
	}
	return n;
}

/* Numbers the labels named in targets (", "-separated, a study's file order) from n on
 * (label_number).  The next n. */
static int study_label_order(struct report *r, const char *targets, int *map, struct rpt_label *tmp,
                             int n)
{
	const char *p = targets;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		for (int l = 0; l < r->nlabels; l++)
			if (strlen(r->labels[l].name) == len && !strncmp(r->labels[l].name, p, len))
				n = label_number(r, l, map, tmp, n);
		p += len;
		p += strspn(p, ", ");
	}
	return n;
}

/* Index of a label, added when new (its place in --label order, else appended). */
static int label_index(struct reader *rd, const char *name)
{
	struct report *r = rd->r;
	for (int i = 0; i < r->nlabels; i++)
		if (strcmp(r->labels[i].name, name) == 0)
			return i;
	if (r->nlabels >= RPT_MAX_LABELS) {
		snprintf(rd->err, rd->errlen, "more than %d labels: choose some with --label",
		         RPT_MAX_LABELS);
		return -1;
	}
	if (!r->labels) {
		r->labels = calloc(RPT_MAX_LABELS, sizeof *r->labels);
		if (!r->labels)
			return rpt_rd_oom(rd);
	}
	r->labels[r->nlabels].name = strdup(name);
	if (!r->labels[r->nlabels].name)
		return rpt_rd_oom(rd);
	return r->nlabels++;
}

/* The secret names a run's stored scenario declared (its `redact =` lines), on top of the
 * built-in ones; NULL when out of memory. */
static struct redact *run_redact(struct reader *rd, int64_t id)
{
	struct redact *r = calloc(1, sizeof *r);
	sqlite3_stmt *q = NULL;

	if (r && sqlite3_prepare_v2(rd->db, "SELECT scenario FROM runs WHERE id = ?", -1, &q,
	                            NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW)
			redact_add_from_ini(r, db_col_str(q, 0));
	}
	sqlite3_finalize(q);
	return r;
}

/* --- steps ------------------------------------------------------------------------------ */

/* Figures of a run's step: merged histogram of its steady intervals, interval values. */
static int read_step(struct reader *rd, const struct rpt_run *run, struct rpt_step *s)
{
	struct res_window w = {.run_id = run->id,
	                       .step_idx = s->idx,
	                       .phase = "steady",
	                       .from_ms = -1,
	                       .to_ms = -1,
	                       .redact = run->redact};
	struct istats st;
	sqlite3_stmt *q = NULL;
	double secs;
	int n, rc = -1, step;

	if (istats_init(&st, rd->err, rd->errlen) < 0)
		return -1;
	if (res_collect(rd->db, &w, &st, &secs, &n, rd->err, rd->errlen) < 0)
		goto done;
	istats_figures(&st, secs, &s->f);
	if (hdr_total(&st.hist) > 0 &&
	    hdr_encode(&st.hist, &s->hist, &s->hist_len, rd->err, rd->errlen) < 0)
		goto done;
	if (db_prepare(rd->db, &q,
	               "SELECT tps, mean_ms, p99_ms, error_pct FROM rpt_interval_rows "
	               "WHERE run_id = ? AND step_idx = ? AND phase = 'steady' ORDER BY start_ms",
	               rd->err, rd->errlen) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, s->idx);
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		if (rpt_rd_push(rd, &s->tps, sqlite3_column_double(q, 0)) < 0 ||
		    rpt_rd_push(rd, &s->mean_ms, rpt_rd_col(q, 1)) < 0 ||
		    rpt_rd_push(rd, &s->p99_ms, rpt_rd_col(q, 2)) < 0 ||
		    rpt_rd_push(rd, &s->err_pct, sqlite3_column_double(q, 3)) < 0)
			goto done;
	rc = rpt_rd_done(rd, step, "cannot read intervals");
done:
	sqlite3_finalize(q);
	hdr_release(&st.hist);
	s->st = st; /* counters kept; the histogram lives encoded */
	return rc;
}

static int read_steps(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int rc = -1, step;
	size_t cap = 0;

	if (db_prepare(rd->db, &q,
	               "SELECT idx, concurrency, planned_ms, n_steady, IFNULL(from_ms, 0), "
	               "IFNULL(to_ms, 0), IFNULL(rate, 0) FROM rpt_steps WHERE run_id = ? "
	               "ORDER BY idx",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_step *s;
		if (buf_grow(&run->steps, &cap, (size_t)run->nsteps + 1, sizeof *s, 4) < 0) {
			rpt_rd_oom(rd);
			goto done;
		}
		s = &run->steps[run->nsteps++];
		memset(s, 0, sizeof *s);
		s->idx = sqlite3_column_int(q, 0);
		s->concurrency = sqlite3_column_int(q, 1);
		s->planned_ms = sqlite3_column_int64(q, 2);
		s->nintervals = sqlite3_column_int(q, 3);
		s->win_from_ms = sqlite3_column_int64(q, 4);
		s->win_to_ms = sqlite3_column_int64(q, 5);
		s->rate = sqlite3_column_double(q, 6);
		if (read_step(rd, run, s) < 0)
			goto done;
	}
	if (rpt_rd_done(rd, step, "cannot read steps") < 0)
		goto done;
	/* The run's whole measured window: every step's, histograms merged. */
	if (istats_init(&run->st, rd->err, rd->errlen) < 0)
		goto done;
	double secs = 0;
	for (int i = 0; i < run->nsteps; i++) {
		if (rpt_step_add(&run->st, &run->steps[i], rd->err, rd->errlen) < 0)
			goto done;
		secs += run->steps[i].f.seconds;
	}
	istats_figures(&run->st, secs, &run->f);
	rc = 0;
done:
	hdr_release(&run->st.hist);
	sqlite3_finalize(q);
	return rc;
}

/* --- time series --------------------------------------------------------------------- */

/* A bucket of consecutive intervals being merged. */
struct bucket {
	struct hdr h;             /* merged histograms */
	int64_t t0;               /* start of the first interval */
	int64_t ms;               /* summed lengths of the intervals that count as a rate */
	int64_t rate_req;         /* their requests (a drain interval's are not a rate) */
	int64_t requests, errors; /* summed counters of every interval */
	double lat_sum;           /* mean x answered, summed: the exact mean of the bucket */
	int n;                    /* intervals in it */
};

/* The bucket's point; empties it. */
static void bucket_point(struct bucket *b, const struct rpt_run *run, struct rpt_tpoint *p)
{
	int64_t answered = hdr_total(&b->h);

	p->t_s = (double)(b->t0 - run->started_ms) / 1000.0;
	p->tps = b->ms > 0 ? (double)b->rate_req * 1000.0 / (double)b->ms : NAN;
	p->error_pct = b->requests > 0 ? 100.0 * (double)b->errors / (double)b->requests : 0;
	p->mean_ms = answered ? b->lat_sum / (double)answered / 1000 : NAN;
	p->p50_ms = answered ? (double)hdr_value_at_percentile(&b->h, 50) / 1000 : NAN;
	p->p90_ms = answered ? (double)hdr_value_at_percentile(&b->h, 90) / 1000 : NAN;
	p->p99_ms = answered ? (double)hdr_value_at_percentile(&b->h, 99) / 1000 : NAN;
	hdr_reset(&b->h);
	b->ms = b->rate_req = b->requests = b->errors = 0;
	b->lat_sum = 0;
	b->n = 0;
}

/* Whether an interval's requests over its length are a rate.  A drain interval holds the
 * requests that were in flight when sending stopped, answered within a few milliseconds:
 * as a rate it would be a spike of thousands per second.  An interval cut to less than a
 * quarter of the run's interval (a phase change a moment after a boundary) is too short
 * to stand beside its neighbours as a rate. */
static int is_rate(const char *phase, int64_t len_ms, int64_t interval_ms)
{
	return strcmp(phase, "drain") != 0 && len_ms > 0 && 4 * len_ms >= interval_ms;
}

/* TPS and latency over the whole run (every phase): one point per interval, from its own
 * figures; past RPT_MAX_POINTS intervals, one per bucket of consecutive intervals whose
 * histograms are merged (one pass: a 72-hour run decodes each histogram once here).
 * Rates only from intervals that are one (is_rate): a point without any is NAN (the
 * pictures leave it out); a bucket's rate is its requests over its summed real lengths. */
static int read_series(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	struct bucket b = {.n = 0};
	long long n = 0;
	size_t per, i = 0;
	int rc = -1, step;
	char sql[96];

	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM intervals WHERE run_id = %lld",
	         (long long)run->id);
	if (db_int(rd->db, sql, 0, &n, rd->err, rd->errlen) < 0)
		return -1;
	if (n == 0)
		return 0;
	if (n > RPT_MAX_INTERVALS) {
		snprintf(rd->err, rd->errlen, "run %lld has more than %d intervals",
		         (long long)run->id, RPT_MAX_INTERVALS);
		return -1;
	}
	per = ((size_t)n + RPT_MAX_POINTS - 1) / RPT_MAX_POINTS;
	run->ts = calloc(((size_t)n + per - 1) / per, sizeof *run->ts);
	if (!run->ts)
		return rpt_rd_oom(rd);
	if (per > 1 && hdr_init_latency(&b.h, rd->err, rd->errlen) < 0)
		return -1;
	if (db_prepare(
	        rd->db, &q,
	        "SELECT start_ms, length_ms, tps, mean_ms, p50_ms, p90_ms, p99_ms, error_pct, "
	        "requests, errors, hist, phase FROM rpt_interval_rows WHERE run_id = ? "
	        "ORDER BY start_ms",
	        rd->err, rd->errlen) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, run->id);
	/* A live run may add intervals after the count: they wait for the next report. */
	while (i < (size_t)n && (step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(q, 0), iv_ms = sqlite3_column_int64(q, 1);
		int rate = is_rate(db_col_text(q, 11), iv_ms, run->interval_ms);
		if (per == 1) {
			struct rpt_tpoint *p = &run->ts[run->nts++];
			p->t_s = (double)(start - run->started_ms) / 1000.0;
			p->tps = rate ? sqlite3_column_double(q, 2) : NAN;
			p->mean_ms = rpt_rd_col(q, 3);
			p->p50_ms = rpt_rd_col(q, 4);
			p->p90_ms = rpt_rd_col(q, 5);
			p->p99_ms = rpt_rd_col(q, 6);
			p->error_pct = sqlite3_column_double(q, 7);
		} else {
			const void *blob = sqlite3_column_blob(q, 10);
			int len = sqlite3_column_bytes(q, 10);
			struct hdr one;
			if (b.n == 0)
				b.t0 = start;
			if (blob && len > 0) {
				if (hdr_decode(blob, (size_t)len, &one, rd->err, rd->errlen) < 0)
					goto done;
				hdr_add(&b.h, &one);
				b.lat_sum +=
				    sqlite3_column_double(q, 3) * 1000 * (double)hdr_total(&one);
				hdr_release(&one);
			}
			if (rate) {
				b.ms += iv_ms;
				b.rate_req += sqlite3_column_int64(q, 8);
			}
			b.requests += sqlite3_column_int64(q, 8);
			b.errors += sqlite3_column_int64(q, 9);
			if (++b.n == (int)per)
				bucket_point(&b, run, &run->ts[run->nts++]);
		}
		i++;
	}
	if (i < (size_t)n && rpt_rd_done(rd, step, "cannot read intervals") < 0)
		goto done;
	if (b.n > 0)
		bucket_point(&b, run, &run->ts[run->nts++]);
	run->ts_bucket_s =
	    run->nts ? (double)(run->end_ms - run->started_ms) / 1000.0 / (double)run->nts : 0;
	rc = 0;
done:
	sqlite3_finalize(q);
	hdr_release(&b.h);
	return rc;
}

/* --- runs ----------------------------------------------------------------------------- */

static int add_run(struct reader *rd, sqlite3_stmt *q)
{
	struct report *r = rd->r;
	struct rpt_run *run;
	const char *label = db_col_text(q, 2);
	int li;

	if (r->nruns >= RPT_MAX_RUNS) {
		snprintf(rd->err, rd->errlen,
		         "more than %d runs: choose some with --runs or --label", RPT_MAX_RUNS);
		return -1;
	}
	if (!r->runs) {
		r->runs = calloc(RPT_MAX_RUNS, sizeof *r->runs);
		if (!r->runs)
			return rpt_rd_oom(rd);
	}
	if ((li = label_index(rd, label)) < 0)
		return -1;
	run = &r->runs[r->nruns++];
	run->db = rd->dbi;
	run->id = sqlite3_column_int64(q, 0);
	if (rd->o->ndbs > 1)
		snprintf(run->key, sizeof run->key, "%d:%lld", rd->dbi + 1, (long long)run->id);
	else
		snprintf(run->key, sizeof run->key, "%lld", (long long)run->id);
	run->label = li;
	run->name = db_col_dup(q, 1);
	run->mode = db_col_dup(q, 3);
	run->connection = db_col_dup(q, 4);
	run->protocol = db_col_dup(q, 15);
	run->status = strdup(res_status(db_col_text(q, 5), db_col_text(q, 7),
	                                sqlite3_column_int64(q, 8), sqlite3_column_int64(q, 9),
	                                db_col_text(q, 10), sqlite3_column_int64(q, 11),
	                                sqlite3_column_int64(q, 12), rd->now_ms));
	if (!(run->redact = run_redact(rd, run->id)))
		return rpt_rd_oom(rd);
	/* A reason quotes what failed (a URL, an answer, a command): an older file kept it
	 * as it was, and even now only the names soak knew of when it was stored. */
	run->reason = dbroles_shown(run->redact, "runs", "reason", db_col_str(q, 6));
	run->interval_ms = sqlite3_column_int64(q, 12);
	run->started_ms = sqlite3_column_int64(q, 13);
	run->end_ms = sqlite3_column_int64(q, 14);
	if (!run->name || !run->mode || !run->connection || !run->protocol || !run->status ||
	    !run->reason)
		return rpt_rd_oom(rd);
	r->labels[li].nruns++;
	if (rpt_read_gaps(rd, run) < 0 || rpt_read_study_run(rd, run) < 0 ||
	    read_steps(rd, run) < 0 || read_series(rd, run) < 0 || rpt_read_sources(rd, run) < 0 ||
	    rpt_read_agents(rd, q, run) < 0 || rpt_read_env(rd, run) < 0 ||
	    rpt_drift_read(rd, run) < 0 || rpt_read_profiles(rd, run) < 0)
		return -1;
	return 0;
}

static int read_db(struct reader *rd, const char *path, int *usage)
{
	sqlite3_stmt *q = NULL;
	long long nall = 0;
	int rc = -1, step;

	/* Opened for writing, like `soak runs`: an older file is migrated first.  A file we
	 * may not write (an archived study) is read as it is, when its schema is current. */
	if (db_open(path, 0, &rd->db, rd->err, rd->errlen) < 0 &&
	    (access(path, F_OK) != 0 || access(path, W_OK) == 0 ||
	     db_open(path, DB_READONLY, &rd->db, rd->err, rd->errlen) < 0)) {
		*usage = 1;
		return -1;
	}
	if (db_int(rd->db, "SELECT COUNT(*) FROM runs", 0, &nall, rd->err, rd->errlen) < 0)
		goto done;
	if (db_prepare(rd->db, &q,
	               "SELECT id, name, label, mode, connection, status, reason, host, pid, "
	               "pid_start, boot_id, heartbeat_ms, interval_ms, started_ms, end_ms, "
	               "protocol, merged_into, agent_index, agent_count, agents_merged "
	               "FROM rpt_runs ORDER BY started_ms, id",
	               rd->err, rd->errlen) < 0)
		goto done;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		if (!selected(rd, sqlite3_column_int64(q, 0), db_col_text(q, 2)))
			continue;
		/* An agent's run folded into a merged run is reported as that run, unless
		 * --runs asks for it by id. */
		if (!rd->filters && sqlite3_column_type(q, 16) != SQLITE_NULL)
			continue;
		if (add_run(rd, q) < 0)
			goto done;
	}
	if (rpt_rd_done(rd, step, "cannot read runs") < 0 || rpt_read_studies(rd) < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(q);
	db_close(rd->db);
	rd->db = NULL;
	if (rc == 0 && nall == 0) {
		snprintf(rd->err, rd->errlen,
		         "'%s' holds no runs: nothing to report (a collector's file? fold it into "
		         "the runs' database with `soak merge` first)",
		         path);
		*usage = 1;
		rc = -1;
	}
	return rc;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* Orders runs by start time, then database, then id (a stable, total order). */
static int cmp_run(const void *a, const void *b)
{
	const struct rpt_run *x = a, *y = b;
	if (x->started_ms != y->started_ms)
		return x->started_ms < y->started_ms ? -1 : 1;
	if (x->db != y->db)
		return x->db < y->db ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The runs whose pictures are drawn: the first RPT_MAX_RUN_PICTURES compared ones in the
 * report's order, then warm-up runs while there is room (a study's dozens of warm-up runs
 * come first in time, and would otherwise take every place). */
static void picture_runs(struct report *r)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < r->nruns; i++)
			if (r->runs[i].warmup == pass)
				r->runs[i].pictured = n++ < RPT_MAX_RUN_PICTURES;
}

int rpt_read_dbs(struct report *r, const struct rpt_opts *o, const struct rpt_read_judges *judge,
                 int *usage, char *err, size_t errlen)
{
	struct run_filter filters[MAX_RUN_FILTERS];
	struct reader rd = {.r = r,
	                    .o = o,
	                    .judge = judge,
	                    .err = err,
	                    .errlen = errlen,
	                    .now_ms = clock_wall_ms()};

	memset(r, 0, sizeof *r);
	*usage = 0;
	if (o->ndbs < 1 || o->ndbs > RPT_MAX_DBS) {
		snprintf(err, errlen, "between 1 and %d databases, please", RPT_MAX_DBS);
		*usage = 1;
		return -1;
	}
	if (o->runs) {
		if (parse_runs(o->runs, o->ndbs, filters, &rd.nfilters, err, errlen) < 0) {
			*usage = 1;
			return -1;
		}
		rd.filters = filters;
	}
	/* --label fixes the order of the labels (the first is the baseline). */
	for (int i = 0; i < o->nlabels; i++)
		if (label_index(&rd, o->labels[i]) < 0)
			return -1;
	for (int i = 0; i < o->ndbs; i++) {
		r->dbs[i] = strdup(base_name(o->dbs[i]));
		if (!r->dbs[i])
			return rpt_rd_oom(&rd);
		r->ndbs = i + 1;
		rd.dbi = i;
		if (read_db(&rd, o->dbs[i], usage) < 0)
			return -1;
	}
	if (r->nruns == 0) {
		snprintf(err, errlen, "no run matches the selection (--runs, --label)");
		*usage = 1;
		return -1;
	}
	qsort(r->runs, (size_t)r->nruns, sizeof *r->runs, cmp_run);
	picture_runs(r);
	/* Renumbered after sorting: label old becomes map[old], tmp[map[old]] its label.
	 * Without --label, a study's targets go first, in the order of its file (the first is
	 * the baseline: the runs of a side-by-side group start in any order), then the other
	 * labels in order of first appearance; with it, its order, less the entries that matched
	 * no run (they are not in any table). */
	struct rpt_label tmp[RPT_MAX_LABELS];
	int map[RPT_MAX_LABELS], n = 0;
	for (int i = 0; i < r->nlabels; i++)
		map[i] = -1;
	for (int s = 0; s < r->nstudies && o->nlabels == 0; s++)
		n = study_label_order(r, r->studies[s].targets, map, tmp, n);
	for (int i = 0; i < r->nruns && o->nlabels == 0; i++)
		n = label_number(r, r->runs[i].label, map, tmp, n);
	for (int l = 0; l < r->nlabels && o->nlabels > 0; l++)
		n = label_number(r, l, map, tmp, n);
	for (int i = 0; i < r->nruns; i++)
		r->runs[i].label = map[r->runs[i].label];
	for (int l = 0; l < r->nlabels; l++)
		if (map[l] < 0)
			free(r->labels[l].name);
	memcpy(r->labels, tmp, (size_t)n * sizeof *tmp);
	r->nlabels = n;
	return 0;
}
