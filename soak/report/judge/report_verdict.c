/* report_verdict: what a reader wants first — each label against the baseline in one row
 * (TPS, average, p99, error %, CPU per request of each process source, drift, each change
 * marked real or noise); write/report_verdict_text.c says it in one sentence that also
 * says what the comparison resolves and what would resolve more, and the row's memory
 * words come from its sources' verdicts (write/report_mem_text.c, rpt_memory_verdicts).
 *
 * A label's row rests on one comparison, its headline: fixed runs before sweep steps, then
 * the comparison with the most runs, then the most interval observations, then the
 * highest level.  The Comparison table lists all of them.  Every figure of the row comes
 * from that comparison (report_compare.c), so the verdict, the tables, the findings and
 * report.json give one quantity one value.
 */
#include "report_verdict.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report_runfig.h"

/* The headline comparison of label l among those at a fixed rate (open 1), at users
 * (open 0), or any (open -1): -1 when none. */
static int headline(const struct report *r, int l, int open)
{
	int best = -1;

	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		if (c->label != l || a->label != 0 || (open >= 0 && (c->rate > 0) != open))
			continue;
		if (best < 0) {
			best = i;
			continue;
		}
		const struct rpt_cmp *o = &r->cmps[best];
		const struct rpt_cell *oa = &r->cells[o->base], *oc = &r->cells[o->cell];
		int runs = a->nruns + c->nruns, oruns = oa->nruns + oc->nruns;
		size_t n = a->bm[RPT_M_TPS].n + c->bm[RPT_M_TPS].n;
		size_t on = oa->bm[RPT_M_TPS].n + oc->bm[RPT_M_TPS].n;
		if (c->sweep != oc->sweep               ? !c->sweep
		    : runs != oruns                     ? runs > oruns
		    : n != on                           ? n > on
		    : c->concurrency != oc->concurrency ? c->concurrency > oc->concurrency
		                                        : c->rate > oc->rate)
			best = i;
	}
	return best;
}

/* Label l's headline comparisons: capacity first (users) into *h, and efficiency (a fixed
 * rate) beside it into *hr when both ran; -1 for none. */
static void headlines(const struct report *r, int l, int *h, int *hr)
{
	*h = headline(r, l, 0);
	*hr = headline(r, l, 1);
	if (*h < 0) {
		*h = *hr;
		*hr = -1;
	}
}

/* A label's own cell when it has no comparison: the one with most observations. */
static int own_cell(const struct report *r, int l)
{
	int best = -1;
	for (int c = 0; c < r->ncells; c++) {
		const struct rpt_cell *x = &r->cells[c];
		if (x->label != l)
			continue;
		if (best < 0 || (x->sweep != r->cells[best].sweep
		                     ? !x->sweep
		                     : x->bm[RPT_M_TPS].n > r->cells[best].bm[RPT_M_TPS].n))
			best = c;
	}
	return best;
}

static void fill_row(struct report *r, struct rpt_vrow *v, int l)
{
	v->label = l;
	/* Drift: the worst verdict of the label's runs (degrading, then improving, then
	 * stable; too short counts only when nothing else was judged). */
	static const int rank[] = {[RPT_DRIFT_TOO_SHORT] = 1,
	                           [RPT_DRIFT_STABLE] = 2,
	                           [RPT_DRIFT_IMPROVING] = 3,
	                           [RPT_DRIFT_DEGRADING] = 4};
	v->drift = -1;
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
		if (run->drift.judged &&
		    (v->drift < 0 || rank[run->drift.verdict] > rank[v->drift]))
			v->drift = (int)run->drift.verdict;
	v->cmp = v->cmp_rate = -1;
	if (l > 0)
		headlines(r, l, &v->cmp, &v->cmp_rate);
	v->cell = v->cmp >= 0 ? r->cmps[v->cmp].cell : own_cell(r, l);
	v->cell_rate = v->cmp_rate >= 0 ? r->cmps[v->cmp_rate].cell : -1;
	if (l == 0)
		for (int k = 1; k < r->nlabels; k++) {
			int h, hr;
			headlines(r, k, &h, &hr);
			if (h >= 0) {
				v->cell = r->cmps[h].base;
				v->cell_rate = hr >= 0 ? r->cmps[hr].base : -1;
				break;
			}
		}
	for (int s = 0; s < RPT_MAX_SOURCES; s++)
		v->cpu_req[s] = NAN;
	for (int s = 0; s < r->ncpu && v->cell >= 0; s++)
		if (rpt_process_series(r->cpu_names[s]))
			v->cpu_req[s] = r->cells[v->cell].value[RPT_FIG_CPU(s)];
	for (int i = 0; i < r->nvalidity; i++)
		v->warnings +=
		    r->validity[i].label == l && !strcmp(r->validity[i].severity, "warn");
}

int rpt_verdicts(struct report *r)
{
	r->verdicts = calloc((size_t)(r->nlabels ? r->nlabels : 1), sizeof *r->verdicts);
	if (!r->verdicts)
		return -1;
	for (int l = 0; l < r->nlabels; l++) {
		fill_row(r, &r->verdicts[l], l);
		r->nverdicts++;
	}
	return 0;
}
