/* report_sources: what the collectors recorded about a run — CPU and RSS samples, GC
 * events and the memory verdict (gca_analyze) — into the run's sources. */
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "db.h"
#include "report_gaps.h"
#include "report_read.h"
#include "report_sources.h"

/* The run's source named `name`, added (sorted by name) when new. */
static struct rpt_source *source(struct reader *rd, struct rpt_run *run, const char *name)
{
	int at = 0;

	for (; at < run->nsrc; at++) {
		int c = strcmp(run->src[at].name, name);
		if (c == 0)
			return &run->src[at];
		if (c > 0)
			break;
	}
	if (run->nsrc >= RPT_MAX_SOURCES) {
		snprintf(rd->err, rd->errlen, "run %lld has more than %d collector series",
		         (long long)run->id, RPT_MAX_SOURCES);
		return NULL;
	}
	if (!run->src) {
		run->src = calloc(RPT_MAX_SOURCES, sizeof *run->src);
		if (!run->src) {
			rpt_rd_oom(rd);
			return NULL;
		}
	}
	memmove(&run->src[at + 1], &run->src[at], (size_t)(run->nsrc - at) * sizeof *run->src);
	memset(&run->src[at], 0, sizeof run->src[at]);
	snprintf(run->src[at].name, sizeof run->src[at].name, "%s", name);
	run->src[at].cpu_mean = NAN;
	run->nsrc++;
	return &run->src[at];
}

/* Rows of a run: its own (run_id) or a standalone collector's (NULL) within its span. */
#define IN_RUN "(run_id = ?1 OR run_id IS NULL) AND t_ms >= ?2 AND t_ms <= ?3"

static void bind_run(sqlite3_stmt *q, const struct rpt_run *run)
{
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int64(q, 2, run->started_ms);
	sqlite3_bind_int64(q, 3, run->end_ms);
}

/* A query of one source's rows of the run: IN_RUN's ?1..?3 and the source as ?4. */
static int prepare_source(struct reader *rd, sqlite3_stmt **q, const char *sql,
                          const struct rpt_run *run, const char *name)
{
	if (db_prepare(rd->db, q, sql, rd->err, rd->errlen) < 0)
		return -1;
	bind_run(*q, run);
	sqlite3_bind_text(*q, 4, name, -1, SQLITE_STATIC);
	return 0;
}

/* Names of the run's CPU series, RSS sources and GC sources. */
static int find_sources(struct reader *rd, struct rpt_run *run)
{
	static const char *const sql[] = {
	    "SELECT DISTINCT source, series FROM rpt_cpu WHERE " IN_RUN,
	    "SELECT DISTINCT source, source FROM rpt_rss WHERE " IN_RUN,
	    "SELECT DISTINCT source, source FROM gc_events WHERE " IN_RUN,
	};
	int rc = 0;

	for (size_t k = 0; k < sizeof sql / sizeof sql[0] && rc == 0; k++) {
		sqlite3_stmt *q = NULL;
		int step;
		if (db_prepare(rd->db, &q, sql[k], rd->err, rd->errlen) < 0)
			return -1;
		bind_run(q, run);
		while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
			struct rpt_source *s = source(rd, run, db_col_text(q, 1));
			if (!s)
				rc = -1;
			else if (k == 0)
				s->has_cpu = 1;
			else if (k == 1)
				s->has_rss = 1;
			else
				s->gc_events = 1; /* counted when read */
		}
		if (rc == 0)
			rc = rpt_rd_done(rd, step, "cannot read samples");
		sqlite3_finalize(q);
	}
	return rc;
}

/* A copy of (t, v) points, at most RPT_MAX_POINTS + 1 of them: when there are more, one
 * per bucket of span_s / RPT_MAX_POINTS seconds, at its first point's time, holding the
 * bucket's mean (how 0), lowest (1) or highest (2) value. */
static int bucket(struct reader *rd, const struct rpt_vpoint *in, size_t n, double span_s, int how,
                  struct rpt_vpoint **out, size_t *nout)
{
	double width = span_s / RPT_MAX_POINTS;
	size_t k = 0;

	*out = NULL;
	*nout = 0;
	if (n == 0)
		return 0;
	*out = malloc((n <= RPT_MAX_POINTS ? n : RPT_MAX_POINTS + 1) * sizeof **out);
	if (!*out)
		return rpt_rd_oom(rd);
	if (n <= RPT_MAX_POINTS || !(width > 0)) {
		size_t m = n <= RPT_MAX_POINTS ? n : RPT_MAX_POINTS;
		memcpy(*out, in, m * sizeof *in);
		*nout = m;
		return 0;
	}
	for (size_t i = 0; i < n && k <= RPT_MAX_POINTS;) {
		long b = (long)(in[i].t_s / width);
		double acc = in[i].v;
		size_t j = i + 1;
		for (; j < n && (long)(in[j].t_s / width) == b; j++) {
			if (how == 0)
				acc += in[j].v;
			else if (how == 1 ? in[j].v < acc : in[j].v > acc)
				acc = in[j].v;
		}
		(*out)[k].t_s = in[i].t_s;
		(*out)[k].v = how == 0 ? acc / (double)(j - i) : acc;
		k++;
		i = j;
	}
	*nout = k;
	return 0;
}

/* Reads rows (t_ms, value) of a prepared query into a growing array. */
static int read_points(struct reader *rd, sqlite3_stmt *q, const struct rpt_run *run,
                       struct rpt_vpoint **out, size_t *n)
{
	size_t cap = 0;
	int step;

	*out = NULL;
	*n = 0;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap && *n >= RPT_MAX_INTERVALS * 4UL) {
			snprintf(rd->err, rd->errlen, "run %lld: too many samples",
			         (long long)run->id);
			return -1;
		}
		if (buf_grow(out, &cap, *n + 1, sizeof **out, 256) < 0)
			return rpt_rd_oom(rd);
		(*out)[*n].t_s = (double)(sqlite3_column_int64(q, 0) - run->started_ms) / 1000.0;
		(*out)[*n].v = sqlite3_column_double(q, 1);
		(*n)++;
	}
	return rpt_rd_done(rd, step, "cannot read samples");
}

/* Whether a time (s since the run's start) lies in a step's measured window. */
static int in_window(const struct rpt_run *run, const struct rpt_step *s, double t_s)
{
	int64_t t = run->started_ms + (int64_t)llround(t_s * 1000);
	return s->nintervals > 0 && t >= s->win_from_ms && t < s->win_to_ms && !rpt_in_gap(run, t);
}

/* CPU: the series over the run, each step's window values and means. */
static int read_cpu(struct reader *rd, struct rpt_run *run, int si)
{
	struct rpt_source *src = &run->src[si];
	sqlite3_stmt *q = NULL;
	struct rpt_vpoint *all = NULL;
	size_t n = 0;
	double sum = 0;
	size_t cnt = 0;
	int rc = -1;

	if (prepare_source(rd, &q,
	                   "SELECT t_ms, SUM(value) FROM rpt_cpu WHERE source = ?5 AND series = ?4 "
	                   "AND " IN_RUN " GROUP BY t_ms ORDER BY t_ms",
	                   run, src->name) < 0)
		return -1;
	/* The source column lets SQLite narrow the view's grouped arm to one source. */
	{
		size_t len = strlen(src->name);
		int host = len > 5 && strcmp(src->name + len - 5, ":host") == 0;
		int jit = len > 4 && strcmp(src->name + len - 4, ":jit") == 0;
		sqlite3_bind_text(q, 5, src->name,
		                  host  ? (int)(len - 5)
		                  : jit ? (int)(len - 4)
		                        : -1,
		                  SQLITE_STATIC);
	}
	if (read_points(rd, q, run, &all, &n) < 0)
		goto done;
	for (int k = 0; k < run->nsteps; k++) {
		struct rpt_step *s = &run->steps[k];
		double ssum = 0;
		size_t sc = 0;
		for (size_t i = 0; i < n; i++) {
			if (!in_window(run, s, all[i].t_s))
				continue;
			if (rpt_rd_push(rd, &s->cpu[si], all[i].v) < 0)
				goto done;
			ssum += all[i].v;
			sc++;
		}
		s->cpu_mean[si] = sc ? ssum / (double)sc : NAN;
		sum += ssum;
		cnt += sc;
	}
	src->cpu_mean = cnt ? sum / (double)cnt : NAN;
	src->has_cpu = n > 0;
	if (bucket(rd, all, n, (double)(run->end_ms - run->started_ms) / 1000.0, 0, &src->cpu_ts,
	           &src->ncpu_ts) < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(q);
	free(all);
	return rc;
}

/* The largest value of a source's metric in KB (mem_limit_kb, shmem_mapped_kb, ...) over
 * the run, in MB, or 0 when not recorded. */
static int read_limit(struct reader *rd, const struct rpt_run *run, const char *name,
                      const char *metric, double *mb)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	*mb = 0;
	if (prepare_source(rd, &q,
	                   "SELECT MAX(value) / 1024.0 FROM samples WHERE source = ?4 AND "
	                   "metric = ?5 AND " IN_RUN,
	                   run, name) < 0)
		return -1;
	sqlite3_bind_text(q, 5, metric, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		*mb = sqlite3_column_type(q, 0) == SQLITE_NULL ? 0 : sqlite3_column_double(q, 0);
	else
		rc = db_fail(rd->db, "cannot read samples", rd->err, rd->errlen);
	sqlite3_finalize(q);
	return rc;
}

/* The shortest window a memory trend is judged on (--memory-window), hours; 0: the
 * default. */
static double min_hours(const struct reader *rd)
{
	return (double)rd->o->mem_window_ms / 3600000.0;
}

/* Whether a time (s since the run's start) lies in any step's measured window. */
static int in_any_window(const struct rpt_run *run, double t_s)
{
	for (int k = 0; k < run->nsteps; k++)
		if (in_window(run, &run->steps[k], t_s))
			return 1;
	return 0;
}

/* The bounds of a source's kinds: what its shared memory cannot pass, PostgreSQL's
 * shared_buffers, a JVM's -Xmx (NAN when not recorded). */
static int read_bounds(struct reader *rd, const struct rpt_run *run, struct rpt_source *src)
{
	static const char *const metric[] = {"shmem_mapped_kb", "shared_buffers_kb", "heap_max_kb"};
	double *to[] = {&src->kinds.shared_bound_mb, &src->kinds.shared_buffers_mb,
	                &src->kinds.heap_max_mb};

	for (int i = 0; i < 3; i++) {
		if (read_limit(rd, run, src->name, metric[i], to[i]) < 0)
			return -1;
		if (!(*to[i] > 0))
			*to[i] = NAN;
	}
	return 0;
}

/* Memory by kind (rpt_memkind): each kind's measured-window samples into pts[j][0..*n)
 * (allocated), and the bounds; k->has 0 when the collector recorded no kinds. */
static int read_kinds(struct reader *rd, const struct rpt_run *run, struct rpt_source *src,
                      struct rpt_vpoint *pts[RPT_MEMK_N], size_t *n)
{
	struct rpt_memkinds *k = &src->kinds;
	sqlite3_stmt *q = NULL;
	size_t cap[RPT_MEMK_N] = {0};
	int rc = -1, step;

	memset(k, 0, sizeof *k);
	k->by = -1;
	k->shared_bound_mb = k->shared_buffers_mb = k->heap_max_mb = k->req_per_h = NAN;
	*n = 0;
	if (prepare_source(rd, &q,
	                   "SELECT t_ms, private_mb, shared_mb, file_mb FROM rpt_memkind WHERE "
	                   "source = ?4 AND " IN_RUN " ORDER BY t_ms",
	                   run, src->name) < 0)
		return -1;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		double t = (double)(sqlite3_column_int64(q, 0) - run->started_ms) / 1000.0;
		k->has = 1;
		if (!in_any_window(run, t))
			continue;
		for (int j = 0; j < RPT_MEMK_N; j++) {
			if (buf_grow(&pts[j], &cap[j], *n + 1, sizeof *pts[j], 256) < 0) {
				rpt_rd_oom(rd);
				goto done;
			}
			pts[j][*n].t_s = t;
			pts[j][*n].v = sqlite3_column_double(q, 1 + j);
		}
		(*n)++;
	}
	if (rpt_rd_done(rd, step, "cannot read samples") < 0 ||
	    (k->has && read_bounds(rd, run, src) < 0))
		goto done;
	k->req_per_h = run->f.tps > 0 ? run->f.tps * (1 - run->f.error_pct / 100) * 3600 : NAN;
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

/* RSS: the series over the run, its trend over the measured windows and its verdict. */
static int read_rss(struct reader *rd, struct rpt_run *run, struct rpt_source *src)
{
	sqlite3_stmt *q = NULL;
	struct rpt_vpoint *all = NULL, *win = NULL, *kpts[RPT_MEMK_N] = {NULL};
	double *x = NULL, *y = NULL, sum = 0, first = NAN, last = NAN, limit;
	size_t n = 0, m = 0, kn = 0;
	int rc = -1;

	if (prepare_source(rd, &q,
	                   "SELECT t_ms, mb FROM rpt_rss WHERE source = ?4 AND " IN_RUN
	                   " ORDER BY t_ms",
	                   run, src->name) < 0)
		return -1;
	if (read_points(rd, q, run, &all, &n) < 0)
		goto done;
	x = malloc((n ? n : 1) * sizeof *x);
	y = malloc((n ? n : 1) * sizeof *y);
	win = malloc((n ? n : 1) * sizeof *win);
	if (!x || !y || !win) {
		rpt_rd_oom(rd);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (!in_any_window(run, all[i].t_s))
			continue;
		if (m == 0)
			first = all[i].t_s;
		last = all[i].t_s;
		x[m] = (all[i].t_s - first) / 3600.0;
		win[m] = all[i];
		y[m++] = all[i].v;
		sum += all[i].v;
	}
	if (read_limit(rd, run, src->name, "mem_limit_kb", &limit) < 0)
		goto done;
	if (read_kinds(rd, run, src, kpts, &kn) < 0)
		goto done;
	rd->judge->mem_judge(&src->mem, &src->kinds, win, m, limit, kpts, kn, min_hours(rd));
	src->has_rss = n > 0;
	src->rss_mean_mb = m ? sum / (double)m : NAN;
	src->rss_hours = m ? (last - first) / 3600.0 : 0;
	src->rss_fit = m >= 2 && gca_linreg(x, y, m, &src->rss_slope_mb_h, &src->rss_first_mb,
	                                    &src->rss_r2) == 0;
	if (bucket(rd, all, n, (double)(run->end_ms - run->started_ms) / 1000.0, 0, &src->rss_ts,
	           &src->nrss_ts) < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(q);
	free(all);
	free(win);
	free(x);
	free(y);
	for (int j = 0; j < RPT_MEMK_N; j++)
		free(kpts[j]);
	return rc;
}

static int64_t col_kb(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? GCP_NONE : sqlite3_column_int64(q, i);
}

/* GC: the events of the source in the run, gca_analyze, heap and pause series. */
static int read_gc(struct reader *rd, struct rpt_run *run, struct rpt_source *src)
{
	sqlite3_stmt *q = NULL;
	struct gcp_event *ev = NULL;
	struct rpt_vpoint *heap = NULL, *pause = NULL;
	size_t n = 0, cap = 0, nh = 0, np = 0;
	double span = (double)(run->end_ms - run->started_ms) / 1000.0;
	int rc = -1, step;

	if (prepare_source(
	        rd, &q,
	        "SELECT t_ms, uptime_ms, gc_id, kind, IFNULL(cause, ''), pause_us, conc_us, "
	        "heap_before_kb, heap_after_kb, heap_total_kb, young_before_kb, "
	        "young_after_kb, young_total_kb, old_before_kb, old_after_kb, old_total_kb, "
	        "meta_before_kb, meta_after_kb, meta_total_kb FROM gc_events "
	        "WHERE source = ?4 AND " IN_RUN " ORDER BY t_ms, id",
	        run, src->name) < 0)
		return -1;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct gcp_event *e;
		int kind;
		if (rpt_in_gap(run, sqlite3_column_int64(q, 0)))
			continue; /* a resumed run's time without load */
		if (n == cap && n >= RPT_MAX_INTERVALS * 4UL) {
			snprintf(rd->err, rd->errlen, "run %lld: too many GC events",
			         (long long)run->id);
			goto done;
		}
		if (buf_grow(&ev, &cap, n + 1, sizeof *ev, 1024) < 0) {
			rpt_rd_oom(rd);
			goto done;
		}
		e = &ev[n++];
		gcp_event_clear(e);
		e->t_ms = sqlite3_column_int64(q, 0);
		e->uptime_ms = col_kb(q, 1);
		e->gc_id = col_kb(q, 2);
		kind = gcp_kind_parse(db_col_text(q, 3));
		e->kind = kind < 0 ? GCP_OTHER : (enum gcp_kind)kind;
		db_col_copy(q, 4, e->cause, sizeof e->cause);
		e->pause_us = sqlite3_column_int64(q, 5);
		e->conc_us = col_kb(q, 6);
		int64_t *figs[] = {&e->heap_before_kb,  &e->heap_after_kb,  &e->heap_total_kb,
		                   &e->young_before_kb, &e->young_after_kb, &e->young_total_kb,
		                   &e->old_before_kb,   &e->old_after_kb,   &e->old_total_kb,
		                   &e->meta_before_kb,  &e->meta_after_kb,  &e->meta_total_kb};
		for (int i = 0; i < 12; i++)
			*figs[i] = col_kb(q, 7 + i);
	}
	if (rpt_rd_done(rd, step, "cannot read gc_events") < 0)
		goto done;
	src->gc_events = (int64_t)n;
	if (n == 0) {
		rc = 0;
		goto done;
	}
	if (gca_analyze(ev, n, &src->gc, rd->err, rd->errlen) < 0)
		goto done;
	/* The pause share of the run's own time, not of the span between its first and last
	 * GC event: one 34 ms pause in a 12 s run is 0.3 %, not 100 %. */
	int64_t wall_ms = run->end_ms - run->started_ms;
	for (int g = 0; g < run->ngaps; g++)
		wall_ms -= run->gaps[g].measured_ms - run->gaps[g].from_ms;
	if (wall_ms > 0)
		src->gc.gc_time_pct = src->gc.pause_total_ms * 100.0 / (double)wall_ms;
	heap = malloc(n * sizeof *heap);
	pause = malloc(n * sizeof *pause);
	if (!heap || !pause) {
		rpt_rd_oom(rd);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		double t = (double)(ev[i].t_ms - run->started_ms) / 1000.0;
		if (ev[i].heap_after_kb != GCP_NONE && ev[i].kind != GCP_SAFEPOINT &&
		    ev[i].kind != GCP_OTHER) {
			heap[nh].t_s = t;
			heap[nh++].v = (double)ev[i].heap_after_kb / 1024.0;
		}
		if (ev[i].pause_us > 0 && ev[i].kind != GCP_SAFEPOINT &&
		    ev[i].kind != GCP_CONCURRENT) {
			pause[np].t_s = t;
			pause[np++].v = (double)ev[i].pause_us / 1000.0;
		}
	}
	if (bucket(rd, heap, nh, span, 1, &src->heap_ts, &src->nheap_ts) < 0 ||
	    bucket(rd, pause, np, span, 2, &src->pause_ts, &src->npause_ts) < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(q);
	free(ev);
	free(heap);
	free(pause);
	return rc;
}

int rpt_read_sources(struct reader *rd, struct rpt_run *run)
{
	if (find_sources(rd, run) < 0)
		return -1;
	for (int k = 0; k < run->nsteps; k++) {
		struct rpt_step *s = &run->steps[k];
		s->cpu = calloc(RPT_MAX_SOURCES, sizeof *s->cpu);
		s->cpu_mean = malloc(RPT_MAX_SOURCES * sizeof *s->cpu_mean);
		if (!s->cpu || !s->cpu_mean)
			return rpt_rd_oom(rd);
		for (int i = 0; i < RPT_MAX_SOURCES; i++)
			s->cpu_mean[i] = NAN;
	}
	for (int i = 0; i < run->nsrc; i++) {
		struct rpt_source *s = &run->src[i];
		if (s->has_cpu && read_cpu(rd, run, i) < 0)
			return -1;
		if (s->has_rss && read_rss(rd, run, s) < 0)
			return -1;
		if (s->gc_events && read_gc(rd, run, s) < 0)
			return -1;
	}
	return 0;
}
