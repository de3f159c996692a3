/* report_history: the report's runs as the history's points (history/history.h): for
 * `soak history`, the runs the history lists (rpt_hist_list_runs) read through rpt_read a
 * few at a time; for `soak report`, the runs it read (see report_history.h). */
#include "report_history.h"
#include "report_int.h"
#include "report/judge/report_runfig.h"
#include "report/judge/report_drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs one rpt_read reads for `soak history`: the memory of a few runs' intervals, not
 * of all of them. */
#define HIST_CHUNK 16

/* A point keeps a source's name and the series its figures as the report does. */
_Static_assert(RPT_HIST_NAME_MAX == RPT_NAME_MAX && RPT_HIST_SOURCES == RPT_MAX_SOURCES,
               "history/history.h and report_int.h disagree on sources");

/* --- points -------------------------------------------------------------------------- */

/* Heap after GC of a source over the run: the mean of its steady window's regression
 * points (what stays live: the floor, or what full collections leave). */
static double heap_level(const struct rpt_source *s)
{
	double sum = 0;

	if (s->gc_events == 0 || s->gc.npoints == 0)
		return NAN;
	for (size_t i = 0; i < s->gc.npoints; i++)
		sum += s->gc.points[i].heap_mb;
	return sum / (double)s->gc.npoints;
}

static int copy_env(struct rpt_hist_run *p, const struct rpt_run *run)
{
	if (run->nenv == 0)
		return 0;
	p->env = calloc((size_t)run->nenv, sizeof *p->env);
	if (!p->env)
		return -1;
	for (int i = 0; i < run->nenv; i++) {
		struct rpt_hist_fact *f = &p->env[p->nenv++];
		f->source = strdup(run->env[i].source);
		f->key = strdup(run->env[i].key);
		f->value = strdup(run->env[i].value);
		if (!f->source || !f->key || !f->value)
			return -1;
	}
	return 0;
}

/* One point of a run's step. */
static int make_point(struct rpt_hist_run *p, const struct rpt_run *run, int k, int db,
                      const char *key)
{
	const struct rpt_step *st = &run->steps[k];
	const struct figures *g = &st->f;
	int sweep = strcmp(run->mode, "sweep") == 0;

	memset(p, 0, sizeof *p);
	p->db = db;
	p->id = run->id;
	snprintf(p->key, sizeof p->key, "%s", key);
	p->step = st->idx;
	p->started_ms = run->started_ms;
	p->sweep = sweep;
	p->concurrency = st->concurrency;
	p->planned_ms = st->planned_ms;
	p->tps = g->tps;
	p->p99_ms = g->p50_us > 0 || g->max_us > 0 ? (double)g->p99_us / 1000 : NAN;
	p->error_pct = g->error_pct;
	const struct rpt_drift *d =
	    sweep ? (run->step_drift ? &run->step_drift[k] : NULL) : &run->drift;
	p->drift = d && d->judged ? rpt_drift_name(d->verdict) : NULL;
	p->name = strdup(run->name);
	if (!p->name)
		return -1;
	if (run->nsrc > 0) {
		p->src = calloc((size_t)run->nsrc, sizeof *p->src);
		if (!p->src)
			return -1;
	}
	for (int i = 0; i < run->nsrc; i++) {
		struct rpt_hist_src *s = &p->src[p->nsrc++];
		double cpu = st->cpu_mean ? st->cpu_mean[i] : NAN;
		snprintf(s->name, sizeof s->name, "%s", run->src[i].name);
		/* CPU % (100 = one core) over requests per second: ms of CPU per request. */
		s->cpu_req_ms = rpt_process_series(s->name) && !isnan(cpu) && p->tps > 0
		                    ? 10 * cpu / p->tps
		                    : NAN;
		s->heap_mb = sweep ? NAN : heap_level(&run->src[i]);
	}
	return copy_env(p, run);
}

int rpt_hist_add(struct rpt_history *h, const struct report *r, const struct rpt_run *run, int db,
                 const char *key, char *err, size_t errlen)
{
	const char *label = r->labels[run->label].name;

	if (strcmp(run->status, "done") != 0 || run->nsteps == 0) {
		h->not_done++;
		return 0;
	}
	if (run->warmup) {
		h->warmups++;
		return 0;
	}
	if (rpt_hist_room(h, run->nsteps, err, errlen) < 0)
		return -1;
	for (int k = 0; k < run->nsteps; k++) {
		struct rpt_hist_run *p = &h->runs[h->nruns];
		if (run->steps[k].nintervals == 0) /* nothing measured: no figure to show */
			continue;
		int rc = make_point(p, run, k, db, key);
		h->nruns++; /* counted either way, so rpt_hist_free releases what it holds */
		if (rc < 0 || !(p->label = strdup(label)))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* --- reading ------------------------------------------------------------------------- */

int rpt_hist_read(struct rpt_history **out, const char *const *dbs, int ndbs,
                  const char *const *labels, int nlabels, const char *scenario, int *usage,
                  char *err, size_t errlen)
{
	struct rpt_history *h = NULL;
	int64_t *ids = NULL;
	int nids = 0, rc = -1, any = 0;
	struct report rr;

	memset(&rr, 0, sizeof rr);
	*out = NULL;
	*usage = 0;
	if (ndbs < 1 || ndbs > RPT_MAX_DBS) {
		snprintf(err, errlen, "between 1 and %d databases, please", RPT_MAX_DBS);
		*usage = 1;
		return -1;
	}
	if (!(h = rpt_hist_new(dbs, ndbs))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int d = 0; d < ndbs; d++) {
		if (rpt_hist_list_runs(dbs[d], labels, nlabels, scenario, &ids, &nids, usage, err,
		                       errlen) < 0)
			goto done;
		any += nids;
		/* A few runs at a time: the report's reader and figures, bounded memory. */
		for (int i = 0; i < nids; i += HIST_CHUNK) {
			char sel[HIST_CHUNK * 24], key[48];
			size_t n = 0;
			const char *one[1] = {dbs[d]};
			struct rpt_opts o = {.dbs = one, .ndbs = 1, .runs = sel};
			for (int k = i; k < nids && k < i + HIST_CHUNK; k++)
				n += (size_t)snprintf(sel + n, sizeof sel - n, "%s%lld",
				                      k > i ? "," : "", (long long)ids[k]);
			if (rpt_read(&rr, &o, usage, err, errlen) < 0)
				goto done;
			for (int k = 0; k < rr.nruns; k++) {
				const struct rpt_run *run = &rr.runs[k];
				if (ndbs > 1)
					snprintf(key, sizeof key, "%d:%lld", d + 1,
					         (long long)run->id);
				else
					snprintf(key, sizeof key, "%lld", (long long)run->id);
				if (rpt_hist_add(h, &rr, run, d, key, err, errlen) < 0)
					goto done;
			}
			rpt_free(&rr);
		}
		free(ids);
		ids = NULL;
	}
	if (any == 0) {
		snprintf(err, errlen, "no run matches the selection (--label, --scenario)");
		*usage = 1;
		goto done;
	}
	if (rpt_hist_analyse(h, err, errlen) < 0)
		goto done;
	*out = h;
	h = NULL;
	rc = 0;
done:
	rpt_free(&rr);
	free(ids);
	rpt_hist_free(h);
	return rc;
}

int rpt_hist_from_report(struct report *r, char *err, size_t errlen)
{
	struct rpt_history *h = rpt_hist_new((const char *const *)r->dbs, r->ndbs);
	int analysed = 0;

	r->history = NULL;
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int points = 0;
	for (int i = 0; i < r->nruns; i++)
		points += r->runs[i].nsteps;
	if (points > RPT_HIST_MAX_RUNS) { /* sweeps of many steps: no history in the report */
		rpt_hist_free(h);
		return 0;
	}
	for (int i = 0; i < r->nruns; i++)
		if (rpt_hist_add(h, r, &r->runs[i], r->runs[i].db, r->runs[i].key, err, errlen) < 0)
			goto fail;
	if (rpt_hist_analyse(h, err, errlen) < 0)
		goto fail;
	for (int i = 0; i < h->nseries; i++)
		analysed += h->series[i].analysed;
	if (analysed)
		r->history = h;
	else
		rpt_hist_free(h);
	return 0;
fail:
	rpt_hist_free(h);
	return -1;
}
