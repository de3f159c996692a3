/* report_build: cells and sweeps from the runs read, then the comparisons
 * (report_compare.c), validity and verdicts (write/ words the findings from them).  A
 * cell pools the compared runs of one label at one key: kind (fixed runs or sweep steps),
 * level (users, or the arrival rate of the open model) and planned step length. */
#include "report/report_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dur.h"
#include "report/report_history.h"
#include "report_runfig.h"
#include "report_compare.h"
#include "report_profile.h"
#include "report_stats.h"
#include "report_steady.h"
#include "report_validity.h"
#include "report_verdict.h"

#define QUEUE_TPS_FLAT   0.10 /* queueing: TPS within this share past saturation... */
#define QUEUE_LAT_GROWTH 1.5  /* ...while mean latency grows at least this factor */

/* --- cells ------------------------------------------------------------------------------ */

/* Index of a CPU series in r->cpu_names, or -1. */
static int cpu_index(const struct report *r, const char *name)
{
	for (int i = 0; i < r->ncpu; i++)
		if (strcmp(r->cpu_names[i], name) == 0)
			return i;
	return -1;
}

static int collect_cpu_names(struct report *r, char *err, size_t errlen)
{
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s = &r->runs[i].src[k];
			int at = 0;
			if (!s->has_cpu || cpu_index(r, s->name) >= 0)
				continue;
			if (r->ncpu >= RPT_MAX_SOURCES) {
				snprintf(err, errlen,
				         "more than %d CPU series in the selected runs",
				         RPT_MAX_SOURCES);
				return -1;
			}
			while (at < r->ncpu && strcmp(r->cpu_names[at], s->name) < 0)
				at++;
			memmove(r->cpu_names[at + 1], r->cpu_names[at],
			        (size_t)(r->ncpu - at) * sizeof r->cpu_names[0]);
			snprintf(r->cpu_names[at], RPT_NAME_MAX, "%s", s->name);
			r->ncpu++;
		}
	return 0;
}

static int cmp_cell(const struct rpt_cell *a, const struct rpt_cell *b)
{
	if (a->sweep != b->sweep)
		return a->sweep - b->sweep;
	if (a->concurrency != b->concurrency)
		return a->concurrency < b->concurrency ? -1 : 1;
	if (a->rate != b->rate)
		return a->rate < b->rate ? -1 : 1;
	if (a->planned_ms != b->planned_ms)
		return a->planned_ms < b->planned_ms ? -1 : 1;
	return a->label - b->label;
}

static int qcmp_cell(const void *a, const void *b)
{
	return cmp_cell(a, b);
}

/* The cell's merged figures and its list of runs. */
static int cell_figures(const struct report *r, struct rpt_cell *c, char *err, size_t errlen)
{
	double secs = 0;
	size_t used = 0;
	int rc = -1;

	if (istats_init(&c->st, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int listed = 0;
		if (!rpt_in_cell(run, c))
			continue;
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			if (!rpt_step_in(s, c))
				continue;
			if (rpt_step_add(&c->st, s, err, errlen) < 0)
				goto done;
			secs += s->f.seconds;
			c->nsteps++;
			if (!listed) {
				int k2 = snprintf(c->runs + used, sizeof c->runs - used, "%s%s",
				                  used ? "," : "", run->key);
				if (k2 > 0 && (size_t)k2 < sizeof c->runs - used)
					used += (size_t)k2;
				listed = 1;
			}
		}
	}
	istats_figures(&c->st, secs, &c->f);
	rc = 0;
done:
	hdr_release(&c->st.hist);
	return rc;
}

static int build_cells(struct report *r, char *err, size_t errlen)
{
	size_t cap = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsteps && run->compared; k++) {
			const struct rpt_step *s = &run->steps[k];
			struct rpt_cell key = {.sweep = rpt_is_sweep(run),
			                       .label = run->label,
			                       .concurrency = s->rate > 0 ? 0 : s->concurrency,
			                       .rate = s->rate,
			                       .planned_ms = s->planned_ms};
			int found = 0;
			if (s->nintervals == 0)
				continue;
			for (int c = 0; c < r->ncells && !found; c++)
				found = rpt_same_key(&r->cells[c], &key) &&
				        r->cells[c].label == key.label;
			if (found)
				continue;
			if (buf_grow(&r->cells, &cap, (size_t)r->ncells + 1, sizeof key, 16) < 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			r->cells[r->ncells++] = key;
		}
	}
	if (r->ncells)
		qsort(r->cells, (size_t)r->ncells, sizeof *r->cells, qcmp_cell);
	for (int c = 0; c < r->ncells; c++) {
		struct rpt_cell *cell = &r->cells[c];
		if (cell_figures(r, cell, err, errlen) < 0)
			return -1;
		if (rpt_cell_stats(r, cell) < 0)
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int build_sweeps(struct report *r, char *err, size_t errlen)
{
	size_t cap = 0;

	for (int l = 0; l < r->nlabels; l++) {
		/* One sweep per planned step duration of this label's sweep cells. */
		for (int c = 0; c < r->ncells; c++) {
			const struct rpt_cell *cell = &r->cells[c];
			int seen = 0;
			if (!cell->sweep || cell->label != l)
				continue;
			for (int s = 0; s < r->nsweeps && !seen; s++)
				seen = r->sweeps[s].label == l &&
				       r->sweeps[s].planned_ms == cell->planned_ms;
			if (seen)
				continue;
			if (buf_grow(&r->sweeps, &cap, (size_t)r->nsweeps + 1, sizeof *r->sweeps,
			             4) < 0)
				goto oom;
			struct rpt_sweep *sw = &r->sweeps[r->nsweeps++];
			memset(sw, 0, sizeof *sw);
			sw->label = l;
			sw->planned_ms = cell->planned_ms;
			sw->cells = malloc((size_t)r->ncells * sizeof *sw->cells);
			if (!sw->cells)
				goto oom;
			/* Cells are sorted by concurrency within a kind. */
			for (int k = 0; k < r->ncells; k++)
				if (r->cells[k].sweep && r->cells[k].label == l &&
				    r->cells[k].planned_ms == cell->planned_ms)
					sw->cells[sw->ncells++] = k;
		}
	}
	for (int s = 0; s < r->nsweeps; s++) {
		struct rpt_sweep *sw = &r->sweeps[s];
		double *n = malloc((size_t)sw->ncells * sizeof *n);
		double *x = malloc((size_t)sw->ncells * sizeof *x);
		int k = sw->ncells;
		if (!n || !x) {
			free(n);
			free(x);
			goto oom;
		}
		for (int i = 0; i < k; i++) {
			n[i] = r->cells[sw->cells[i]].concurrency;
			x[i] = r->cells[sw->cells[i]].f.tps;
		}
		rpt_saturation(x, (size_t)k, &sw->sat);
		/* The USL models users, not an arrival rate. */
		if (k >= RPT_USL_MIN_LEVELS && !(r->cells[sw->cells[0]].rate > 0))
			rpt_usl_fit(n, x, (size_t)k, &sw->usl);
		if (sw->sat.ok && sw->sat.saturated) {
			const struct rpt_cell *a = &r->cells[sw->cells[sw->sat.at]];
			const struct rpt_cell *b = &r->cells[sw->cells[k - 1]];
			double flat =
			    a->f.tps > 0 ? fabs(b->f.tps - a->f.tps) / a->f.tps : INFINITY;
			sw->q_from = sw->cells[sw->sat.at];
			sw->q_to = sw->cells[k - 1];
			sw->queueing = flat <= QUEUE_TPS_FLAT && a->f.mean_us > 0 &&
			               b->f.mean_us >= QUEUE_LAT_GROWTH * a->f.mean_us;
		}
		free(n);
		free(x);
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int rpt_build(struct report *r, const struct rpt_opts *o, char *err, size_t errlen)
{
	if (o->title && *o->title) {
		r->title = strdup(o->title);
	} else {
		char t[512];
		size_t n = (size_t)snprintf(t, sizeof t, "soak report");
		for (int l = 0; l < r->nlabels && l < 4 && n < sizeof t; l++)
			n += (size_t)snprintf(t + n, sizeof t - n, "%s%s", l == 0 ? ": " : " vs ",
			                      r->labels[l].name);
		if (r->nlabels > 4 && n < sizeof t)
			snprintf(t + n, sizeof t - n, " and %d more", r->nlabels - 4);
		r->title = strdup(t);
	}
	if (!r->title)
		goto oom;
	rpt_steady(r);
	if (collect_cpu_names(r, err, errlen) < 0 || build_cells(r, err, errlen) < 0 ||
	    rpt_compare(r, err, errlen) < 0 || rpt_profiles(r, err, errlen) < 0 ||
	    build_sweeps(r, err, errlen) < 0)
		return -1;
	if (rpt_validity(r) < 0 || rpt_verdicts(r) < 0)
		goto oom;
	if (rpt_hist_from_report(r, err, errlen) < 0)
		return -1;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
