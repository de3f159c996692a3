/* report_drift_read: what the drift verdict compares, read from the run's database.
 * It reads the windows the drift judge asks for and keeps their observations only while
 * the judge needs them, so memory stays flat over a run of days. */
#include "report_drift_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "hdr.h"
#include "store/results.h"

/* The steady intervals of one step, in time order (the order of step->tps and the rest). */
struct ivs {
	int64_t *start; /* start, wall ms */
	int64_t *len;   /* length, ms */
	double *probe;  /* the machine probe, µs (NAN: not measured) */
	size_t n;       /* how many (never more than the step's values) */
};

/* A part of the window: intervals [i0, i1) of the step. */
struct part {
	size_t i0, i1;    /* interval indices */
	int64_t from, to; /* the part as asked (wall ms) */
	struct figures f; /* its merged figures */
	double secs;      /* summed interval lengths */
};

/* Which rows of a source belong to a part: its own run's or a standalone collector's. */
#define IN_PART "(run_id = ?1 OR run_id IS NULL) AND t_ms >= ?2 AND t_ms < ?3"

static int read_ivs(struct reader *rd, const struct rpt_run *run, const struct rpt_step *s,
                    struct ivs *iv)
{
	sqlite3_stmt *q = NULL;
	char sql[192];
	size_t cap = s->tps.n;
	int step = SQLITE_DONE, rc = -1;

	memset(iv, 0, sizeof *iv);
	if (cap == 0)
		return 0;
	iv->start = malloc(cap * sizeof *iv->start);
	iv->len = malloc(cap * sizeof *iv->len);
	iv->probe = malloc(cap * sizeof *iv->probe);
	if (!iv->start || !iv->len || !iv->probe)
		return rpt_rd_oom(rd);
	/* Files from before sql/008 have no probe: NULL, no control. */
	snprintf(sql, sizeof sql,
	         "SELECT start_ms, length_ms, %s FROM intervals WHERE run_id = ? AND step_idx = ? "
	         "AND phase = 'steady' ORDER BY start_ms",
	         rpt_rd_has(rd->db, "intervals", "probe_us") ? "probe_us" : "NULL");
	if (db_prepare(rd->db, &q, sql, rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, s->idx);
	/* A live run may have added intervals since the step was read: they wait. */
	while (iv->n < cap && (step = sqlite3_step(q)) == SQLITE_ROW) {
		iv->start[iv->n] = sqlite3_column_int64(q, 0);
		iv->len[iv->n] = sqlite3_column_int64(q, 1);
		iv->probe[iv->n++] = rpt_rd_col(q, 2);
	}
	rc = iv->n < cap ? rpt_rd_done(rd, step, "cannot read intervals") : 0;
	sqlite3_finalize(q);
	return rc;
}

/* The intervals whose middle lies in [from, to), their merged figures and the part's
 * latency curve into pct[]. */
static int read_part(struct reader *rd, const struct rpt_run *run, const struct rpt_step *s,
                     const struct ivs *iv, int64_t from, int64_t to, struct part *p, double *pct,
                     int64_t *count)
{
	struct res_window w = {.run_id = run->id, .step_idx = s->idx, .phase = "steady"};
	struct istats st;
	int n, rc = -1;

	memset(p, 0, sizeof *p);
	p->from = from;
	p->to = to;
	p->i0 = 0;
	while (p->i0 < iv->n && iv->start[p->i0] + iv->len[p->i0] / 2 < from)
		p->i0++;
	p->i1 = p->i0;
	while (p->i1 < iv->n && iv->start[p->i1] + iv->len[p->i1] / 2 < to)
		p->i1++;
	for (int k = 0; k < RPT_DRIFT_NPCT; k++)
		pct[k] = NAN;
	*count = 0;
	if (p->i1 == p->i0)
		return 0;
	w.from_ms = iv->start[p->i0];
	w.to_ms = iv->start[p->i1 - 1] + 1;
	if (istats_init(&st, rd->err, rd->errlen) < 0)
		return -1;
	if (res_collect(rd->db, &w, &st, &p->secs, &n, rd->err, rd->errlen) < 0)
		goto done;
	istats_figures(&st, p->secs, &p->f);
	*count = hdr_total(&st.hist);
	for (int k = 0; k<RPT_DRIFT_NPCT && * count> 0; k++)
		if (pow(10, k / 4.0) <= (double)*count)
			pct[k] = (double)hdr_value_at_percentile(&st.hist, rpt_drift_pct(k)) / 1000;
	rc = 0;
done:
	istats_release(&st);
	return rc;
}

/* Index of the part's interval holding wall time t, or -1. */
static long find_iv(const struct ivs *iv, const struct part *p, int64_t t)
{
	size_t lo = p->i0, hi = p->i1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (iv->start[mid] + iv->len[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->i1 && iv->start[lo] <= t ? (long)lo : -1;
}

/* A new metric in c (its observations are judged by the caller). */
static struct rpt_drift_metric *add_metric(struct reader *rd, struct rpt_drift_cmp *c,
                                           enum rpt_drift_kind kind, const char *source,
                                           double first, double last)
{
	struct rpt_drift_metric *m, *p = realloc(c->m, (size_t)(c->nm + 1) * sizeof *p);

	if (!p) {
		rpt_rd_oom(rd);
		return NULL;
	}
	c->m = p;
	m = &c->m[c->nm++];
	memset(m, 0, sizeof *m);
	m->kind = kind;
	snprintf(m->source, sizeof m->source, "%s", source ? source : "");
	m->first = first;
	m->last = last;
	m->counts = 1;
	return m;
}

static double ms_or_nan(const struct figures *f, double us)
{
	return f->requests > f->errors ? us / 1000 : NAN;
}

/* Metric k of a part (its merged figures): TPS, mean, p99, error %. */
static double part_fig(const struct part *p, int k)
{
	return k == 0   ? p->f.tps
	       : k == 1 ? ms_or_nan(&p->f, p->f.mean_us)
	       : k == 2 ? ms_or_nan(&p->f, (double)p->f.p99_us)
	                : p->f.error_pct;
}

/* TPS, mean, p99 and error % of the two parts: the step's per-interval values. */
static int traffic(struct reader *rd, const struct rpt_step *s, const struct part *a,
                   const struct part *b, struct rpt_drift_cmp *c)
{
	static const enum rpt_drift_kind kinds[] = {RPT_DK_TPS, RPT_DK_MEAN, RPT_DK_P99,
	                                            RPT_DK_ERR};
	const struct rpt_values *vals[] = {&s->tps, &s->mean_ms, &s->p99_ms, &s->err_pct};

	for (int k = 0; k < 4; k++) {
		struct rpt_drift_metric *m =
		    add_metric(rd, c, kinds[k], NULL, part_fig(a, k), part_fig(b, k));
		if (!m)
			return -1;
		rd->judge->drift_compare(m, vals[k]->v + a->i0, a->i1 - a->i0, vals[k]->v + b->i0,
		                         b->i1 - b->i0);
	}
	return 0;
}

/* Rows (t_ms, value) of a prepared statement bound to the part, into x (and t). */
static int rows(struct reader *rd, sqlite3_stmt *q, const struct rpt_run *run, const struct part *p,
                struct rpt_values *t, struct rpt_values *x)
{
	int step;

	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int64(q, 2, p->from);
	sqlite3_bind_int64(q, 3, p->to);
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		if (rpt_rd_push(rd, t, (double)sqlite3_column_int64(q, 0)) < 0 ||
		    rpt_rd_push(rd, x, sqlite3_column_double(q, 1)) < 0)
			return -1;
	sqlite3_reset(q);
	return rpt_rd_done(rd, step, "cannot read samples");
}

static double mean_of(const struct rpt_values *v)
{
	double sum = 0;
	for (size_t i = 0; i < v->n; i++)
		sum += v->v[i];
	return v->n ? sum / (double)v->n : NAN;
}

/* Observations of one part for a source: CPU per request (what 0: each CPU sample over
 * the TPS of the interval it falls in; *fig = mean CPU over the part's TPS), memory (1:
 * each sample; *fig their mean). */
static int source_obs(struct reader *rd, sqlite3_stmt *q, const struct rpt_run *run,
                      const struct rpt_step *s, const struct ivs *iv, const struct part *p,
                      int what, struct rpt_values *out, double *fig)
{
	struct rpt_values t = {0}, x = {0};
	int rc = -1;

	*fig = NAN;
	if (rows(rd, q, run, p, &t, &x) < 0)
		goto done;
	if (what == 1) {
		for (size_t i = 0; i < x.n; i++)
			if (rpt_rd_push(rd, out, x.v[i]) < 0)
				goto done;
		*fig = mean_of(&x);
	} else {
		/* CPU % / 100 * 1000 ms / (requests/s) = ms of CPU per request. */
		for (size_t i = 0; i < x.n; i++) {
			long j = find_iv(iv, p, (int64_t)t.v[i]);
			if (j >= 0 && s->tps.v[j] > 0 &&
			    rpt_rd_push(rd, out, x.v[i] * 10 / s->tps.v[j]) < 0)
				goto done;
		}
		if (p->f.tps > 0 && x.n)
			*fig = mean_of(&x) * 10 / p->f.tps;
	}
	rc = 0;
done:
	free(t.v);
	free(x.v);
	return rc;
}

/* GC pauses of a source in a part, per interval: the share of its length paused (%) and
 * its longest pause (ms); *share and *longest over the whole part. */
static int gc_obs(struct reader *rd, sqlite3_stmt *q, const struct rpt_run *run,
                  const struct ivs *iv, const struct part *p, struct rpt_values *share,
                  struct rpt_values *longest, double *fshare, double *flongest)
{
	struct rpt_values t = {0}, x = {0};
	size_t n = p->i1 - p->i0;
	double *sum = calloc(n ? n : 1, sizeof *sum), *max = calloc(n ? n : 1, sizeof *max);
	double total = 0, len = 0, top = 0;
	int rc = -1;

	if (!sum || !max) {
		rpt_rd_oom(rd);
		goto done;
	}
	if (rows(rd, q, run, p, &t, &x) < 0)
		goto done;
	for (size_t i = 0; i < x.n; i++) {
		long j = find_iv(iv, p, (int64_t)t.v[i]);
		double ms = x.v[i] / 1000;
		if (j < 0)
			continue;
		sum[(size_t)j - p->i0] += ms;
		max[(size_t)j - p->i0] = fmax(max[(size_t)j - p->i0], ms);
		total += ms;
		top = fmax(top, ms);
	}
	for (size_t k = 0; k < n; k++) {
		double l = (double)iv->len[p->i0 + k];
		len += l;
		if (rpt_rd_push(rd, share, l > 0 ? 100 * sum[k] / l : 0) < 0 ||
		    rpt_rd_push(rd, longest, max[k]) < 0)
			goto done;
	}
	*fshare = len > 0 ? 100 * total / len : NAN;
	*flongest = top;
	rc = 0;
done:
	free(t.v);
	free(x.v);
	free(sum);
	free(max);
	return rc;
}

/* A process source: CPU of the processes, not a host-wide series. */
static int process_cpu(const struct rpt_source *src)
{
	size_t n = strlen(src->name);
	return src->has_cpu && strcmp(src->name, "host") != 0 &&
	       !(n > 5 && strcmp(src->name + n - 5, ":host") == 0);
}

/* Why GC time and pauses are shown beside the verdict, not in it: what they cost the
 * service is in its latency and its CPU per request, which count. */
static void gc_apart(struct rpt_drift_metric *m)
{
	snprintf(m->why_not, sizeof m->why_not,
	         "what it costs is in the latency and CPU per request");
}

/* The per-source metrics of a comparison. */
static int sources(struct reader *rd, const struct rpt_run *run, const struct rpt_step *s,
                   const struct ivs *iv, const struct part *a, const struct part *b,
                   struct rpt_drift_cmp *c)
{
	static const char *const sql[] = {
	    "SELECT t_ms, SUM(value) FROM rpt_cpu WHERE source = ?4 AND series = ?4 AND " IN_PART
	    " GROUP BY t_ms ORDER BY t_ms",
	    "SELECT t_ms, mb FROM rpt_rss WHERE source = ?4 AND " IN_PART " ORDER BY t_ms",
	    "SELECT t_ms, pause_us FROM gc_events WHERE source = ?4 AND " IN_PART
	    " AND kind NOT IN ('safepoint', 'concurrent') AND pause_us > 0 ORDER BY t_ms, id",
	};
	sqlite3_stmt *q[3] = {NULL, NULL, NULL};
	struct rpt_values va = {0}, vb = {0}, wa = {0}, wb = {0};
	int rc = -1;

	for (int k = 0; k < 3; k++)
		if (db_prepare(rd->db, &q[k], sql[k], rd->err, rd->errlen) < 0)
			goto done;
	for (int i = 0; i < run->nsrc; i++) {
		const struct rpt_source *src = &run->src[i];
		struct rpt_drift_metric *m;
		double fa, fb, ga, gb;
		for (int k = 0; k < 3; k++)
			sqlite3_bind_text(q[k], 4, src->name, -1, SQLITE_STATIC);
		/* CPU per request (what 0, q[0]), then memory (1, q[1]). */
		for (int what = 0; what < 2; what++) {
			if (!(what ? src->has_rss : process_cpu(src)))
				continue;
			va.n = vb.n = 0;
			if (source_obs(rd, q[what], run, s, iv, a, what, &va, &fa) < 0 ||
			    source_obs(rd, q[what], run, s, iv, b, what, &vb, &fb) < 0 ||
			    !(m = add_metric(rd, c, what ? RPT_DK_MEM : RPT_DK_CPU_REQ, src->name,
			                     fa, fb)))
				goto done;
			/* Memory is never counted (report_drift.c): the sentence gives its own
			 * verdict. */
			m->src = what ? src : NULL;
			rd->judge->drift_compare(m, va.v, va.n, vb.v, vb.n);
		}
		if (src->gc_events) {
			va.n = vb.n = wa.n = wb.n = 0;
			if (gc_obs(rd, q[2], run, iv, a, &va, &wa, &fa, &ga) < 0 ||
			    gc_obs(rd, q[2], run, iv, b, &vb, &wb, &fb, &gb) < 0 ||
			    !(m = add_metric(rd, c, RPT_DK_GC, src->name, fa, fb)))
				goto done;
			gc_apart(m);
			rd->judge->drift_compare(m, va.v, va.n, vb.v, vb.n);
			if (!(m = add_metric(rd, c, RPT_DK_PAUSE, src->name, ga, gb)))
				goto done;
			gc_apart(m);
			rd->judge->drift_compare(m, wa.v, wa.n, wb.v, wb.n);
		}
	}
	rc = 0;
done:
	for (int k = 0; k < 3; k++)
		sqlite3_finalize(q[k]);
	free(va.v);
	free(vb.v);
	free(wa.v);
	free(wb.v);
	return rc;
}

/* The control: the machine probe (intervals.probe_us), the CPU time of the same arithmetic
 * every interval.  Its change is the machine's (its core's clock, a hypervisor's share),
 * never the server's.  Never counted; the judge weighs the verdict's hint with it.
 * Nothing when the run did not measure it. */
static int machine(struct reader *rd, const struct ivs *iv, const struct part *a,
                   const struct part *b, struct rpt_drift_cmp *c)
{
	struct rpt_values v[2] = {{0}, {0}};
	const struct part *p[2] = {a, b};
	struct rpt_drift_metric *m;
	int rc = -1;

	for (int k = 0; k < 2; k++)
		for (size_t i = p[k]->i0; i < p[k]->i1; i++)
			if (isfinite(iv->probe[i]) && rpt_rd_push(rd, &v[k], iv->probe[i]) < 0)
				goto done;
	rc = 0;
	if (v[0].n < RPT_DRIFT_MIN_PART || v[1].n < RPT_DRIFT_MIN_PART)
		goto done;
	if (!(m = add_metric(rd, c, RPT_DK_MACHINE, NULL, mean_of(&v[0]), mean_of(&v[1])))) {
		rc = -1;
		goto done;
	}
	snprintf(m->why_not, sizeof m->why_not, "the machine's, not the server's");
	rd->judge->drift_compare(m, v[0].v, v[0].n, v[1].v, v[1].n);
done:
	free(v[0].v);
	free(v[1].v);
	return rc;
}

/* One comparison of parts [a_from, a_to) and [b_from, b_to) of the window. */
static int compare(struct reader *rd, const struct rpt_run *run, const struct rpt_step *s,
                   const struct ivs *iv, int hours, int64_t a_from, int64_t a_to, int64_t b_from,
                   int64_t b_to, struct rpt_drift_cmp *c)
{
	struct part a, b;

	memset(c, 0, sizeof *c);
	c->hours = hours;
	if (read_part(rd, run, s, iv, a_from, a_to, &a, c->pct_a, &c->count_a) < 0 ||
	    read_part(rd, run, s, iv, b_from, b_to, &b, c->pct_b, &c->count_b) < 0)
		return -1;
	c->a_from_ms = a_from;
	c->a_to_ms = a_to;
	c->b_from_ms = b_from;
	c->b_to_ms = b_to;
	c->na = (int)(a.i1 - a.i0);
	c->nb = (int)(b.i1 - b.i0);
	if (c->na < RPT_DRIFT_MIN_PART || c->nb < RPT_DRIFT_MIN_PART)
		return 0;
	return traffic(rd, s, &a, &b, c) < 0 || sources(rd, run, s, iv, &a, &b, c) < 0 ||
	               machine(rd, iv, &a, &b, c) < 0
	           ? -1
	           : 0;
}

/* The drift of one step. */
static int step_drift(struct reader *rd, const struct rpt_run *run, const struct rpt_step *s,
                      struct rpt_drift *d)
{
	struct ivs iv;
	int rc = -1;

	memset(d, 0, sizeof *d);
	if (read_ivs(rd, run, s, &iv) < 0)
		goto done;
	d->nintervals = (int)iv.n;
	if (iv.n > 0) {
		int64_t w0 = iv.start[0], w1 = iv.start[iv.n - 1] + iv.len[iv.n - 1];
		int64_t third = (w1 - w0) / 3, hour = 3600000;
		d->window_s = (double)(w1 - w0) / 1000;
		if (compare(rd, run, s, &iv, 0, w0, w0 + third, w1 - third, w1, &d->cmp[0]) < 0)
			goto done;
		d->ncmp = 1;
		if (d->cmp[0].nm == 0) /* a third too short: no verdict from either */
			d->ncmp = 0;
		else if (w1 - w0 >= (int64_t)RPT_DRIFT_HOURS_S * 1000) {
			if (compare(rd, run, s, &iv, 1, w0, w0 + hour, w1 - hour, w1, &d->cmp[1]) <
			    0)
				goto done;
			d->ncmp =
			    d->cmp[1].nm > 0 ? 2 : 1; /* hours of few long intervals: thirds */
		}
	}
	rc = 0;
done:
	free(iv.start);
	free(iv.len);
	free(iv.probe);
	return rc;
}

int rpt_drift_read(struct reader *rd, struct rpt_run *run)
{
	if (!rpt_is_sweep(run)) {
		if (run->nsteps > 0)
			return step_drift(rd, run, &run->steps[0], &run->drift);
		return 0;
	}
	if (run->nsteps > 0) {
		run->step_drift = calloc((size_t)run->nsteps, sizeof *run->step_drift);
		if (!run->step_drift)
			return rpt_rd_oom(rd);
	}
	for (int k = 0; k < run->nsteps; k++)
		if (step_drift(rd, run, &run->steps[k], &run->step_drift[k]) < 0)
			return -1;
	return 0;
}
