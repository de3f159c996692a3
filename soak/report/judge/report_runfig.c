/* report_runfig: which runs and steps a cell holds, and a run's figures at a cell's key
 * (TPS, latency, error %, a process's CPU per request and memory) with their standard
 * errors from the run's own intervals: what comparing (report_compare.c), its side-by-side
 * part (report_groups.c) and the trends across rounds (report_trend.c) observe of a run. */
#include "report_runfig.h"
#include "report/report_int.h"

#include <math.h>
#include <string.h>

#include "report_stats.h"

int rpt_step_in(const struct rpt_step *s, const struct rpt_cell *c)
{
	if (s->nintervals == 0 || s->planned_ms != c->planned_ms)
		return 0;
	if (c->rate > 0 || s->rate > 0)
		return fabs(s->rate - c->rate) <= 1e-9 * fmax(1, c->rate);
	return s->concurrency == c->concurrency;
}

int rpt_same_key(const struct rpt_cell *a, const struct rpt_cell *b)
{
	return a->sweep == b->sweep && a->concurrency == b->concurrency && a->rate == b->rate &&
	       a->planned_ms == b->planned_ms;
}

int rpt_in_cell(const struct rpt_run *run, const struct rpt_cell *c)
{
	if (!run->compared || run->label != c->label || rpt_is_sweep(run) != c->sweep)
		return 0;
	for (int j = 0; j < run->nsteps; j++)
		if (rpt_step_in(&run->steps[j], c))
			return 1;
	return 0;
}

int rpt_jit_series(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && strcmp(name + n - 4, ":jit") == 0;
}

int rpt_process_series(const char *name)
{
	return strcmp(name, "host") != 0 && !strstr(name, ":host");
}

/* --- one run's figures ---------------------------------------------------------------- */

/* Index of the run's source named like the report's CPU series s, or -1. */
int rpt_run_source(const struct report *r, const struct rpt_run *run, int s)
{
	for (int k = 0; k < run->nsrc; k++)
		if (strcmp(run->src[k].name, r->cpu_names[s]) == 0)
			return k;
	return -1;
}

/* CPU ms per request with its standard error by the delta method (relative errors added
 * in quadrature; their covariance ignored: conservative when CPU and TPS move together). */
void rpt_per_request(const struct rpt_bm *cpu, const struct rpt_bm *tps, struct rpt_bm *out)
{
	memset(out, 0, sizeof *out);
	out->mean = out->se = NAN;
	if (!(tps->mean > 0) || isnan(cpu->mean))
		return;
	out->n = cpu->n < tps->n ? cpu->n : tps->n;
	out->batches = cpu->batches < tps->batches ? cpu->batches : tps->batches;
	out->mean = 10 * cpu->mean / tps->mean;
	out->df = cpu->df < tps->df ? cpu->df : tps->df;
	if (!isnan(cpu->se) && !isnan(tps->se) && cpu->mean != 0)
		out->se = fabs(out->mean) *
		          sqrt(pow(cpu->se / cpu->mean, 2) + pow(tps->se / tps->mean, 2));
}

/* The per-interval observations of figure f (< RPT_NMETRIC) of a step. */
const struct rpt_values *rpt_step_values(const struct rpt_step *s, int f)
{
	return f == RPT_M_TPS    ? &s->tps
	       : f == RPT_M_MEAN ? &s->mean_ms
	       : f == RPT_M_P99  ? &s->p99_ms
	                         : &s->err_pct;
}

/* Metric m (< RPT_NMETRIC) of merged figures x: latency NAN when nothing was answered. */
double rpt_metric_of(const struct figures *x, int m)
{
	int answered = x->p50_us > 0 || x->max_us > 0;

	return m == RPT_M_TPS    ? x->tps
	       : m == RPT_M_MEAN ? (answered ? x->mean_us / 1000 : NAN)
	       : m == RPT_M_P99  ? (answered ? (double)x->p99_us / 1000 : NAN)
	                         : x->error_pct;
}

/* A step's request figure f and its standard error from its intervals (batch means). */
static void step_request(const struct rpt_step *s, int f, double *v, double *se)
{
	struct rpt_bm b;
	const struct rpt_values *x = rpt_step_values(s, f);

	*v = rpt_metric_of(&s->f, f);
	rpt_batch_means(x->v, x->n, NULL, 0, &b);
	*se = b.se;
}

/* A step's CPU per request of the run's source si, and its standard error. */
static void step_cpu(const struct rpt_step *s, int si, double *v, double *se)
{
	struct rpt_bm c, t, q;

	if (!s->cpu || !s->cpu_mean || isnan(s->cpu_mean[si]) || !(s->f.tps > 0))
		return;
	*v = 10 * s->cpu_mean[si] / s->f.tps;
	rpt_batch_means(s->cpu[si].v, s->cpu[si].n, NULL, 0, &c);
	rpt_batch_means(s->tps.v, s->tps.n, NULL, 0, &t);
	c.mean = s->cpu_mean[si];
	t.mean = s->f.tps;
	rpt_per_request(&c, &t, &q);
	*se = q.se;
}

/* A step's figure f and its standard error, read as its row's source says. */
static void step_fig(const struct report *r, const struct rpt_run *run, const struct rpt_step *s,
                     int f, double *v, double *se)
{
	int series = rpt_fig_series(f), si = -1;

	*v = *se = NAN;
	if (series >= 0) {
		si = rpt_run_source(r, run, series);
		if (si < 0 || !rpt_process_series(r->cpu_names[series]))
			return;
	}
	switch (rpt_fig_row(f)->src) {
	case RPT_SRC_REQUEST:
		step_request(s, f, v, se);
		break;
	case RPT_SRC_CPU:
		step_cpu(s, si, v, se);
		break;
	case RPT_SRC_MEM: /* the window's mean of a fixed run (sweep steps share one process) */
		if (!rpt_is_sweep(run) && run->src[si].has_rss && !isnan(run->src[si].rss_mean_mb))
			*v = run->src[si].rss_mean_mb;
		break;
	}
}

/* A run's figure f at a cell's key: the mean over its matching steps (a run may repeat a
 * level), the standard error of that mean from its intervals, and its measured and
 * unmeasured seconds.  NAN when it has none. */
void rpt_run_fig(const struct report *r, const struct rpt_run *run, const struct rpt_cell *c, int f,
                 double *v, double *se, double *secs, double *over)
{
	double sum = 0, var = 0, t = 0, o = 0;
	int n = 0, nse = 0;

	*v = *se = *secs = *over = NAN;
	if (rpt_is_sweep(run) != c->sweep)
		return;
	for (int j = 0; j < run->nsteps; j++) {
		const struct rpt_step *s = &run->steps[j];
		double x, e;
		if (!rpt_step_in(s, c))
			continue;
		step_fig(r, run, s, f, &x, &e);
		if (isnan(x))
			continue;
		sum += x;
		n++;
		if (!isnan(e)) {
			var += e * e;
			nse++;
		}
		t += s->f.seconds;
		o += fmax(0, (double)s->planned_ms / 1000 - s->f.seconds);
	}
	if (n == 0)
		return;
	*v = sum / n;
	*se = nse == n ? sqrt(var) / n : NAN;
	*secs = t;
	*over = o;
}
