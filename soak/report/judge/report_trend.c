/* report_trend: do a study's runs move with the order they ran in?
 *
 * The verdict treats a label's compared runs as repeated draws of one figure, and their
 * spread as noise.  Servers that are still warming up (a JIT still compiling, caches
 * filling) or a machine whose other work changes during the study break that: the runs
 * rise or fall with time, and the trend becomes most of the run-to-run spread, which more
 * rounds only average.  For each level of a study (users, or a fixed rate) and each figure
 * that resolves (TPS or mean latency, and CPU per request of each process), the labels'
 * runs in the order they ran are tested together for a trend: Mann-Kendall's S summed
 * over the labels, against its exact distribution when every order is equally likely
 * (rpt_mk_p), the figures of one level at 5 % together (Bonferroni).  A trend of 5 % or
 * more from the first run to the last, on average over the labels, is the rounds_trend
 * warning (what was found, as data: write/report_validity_text.c words it, with the advice
 * that fits it: warm up longer, keep other work off the machine).
 */
#include "report_trend.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_runfig.h"
#include "report_stats.h"

#define TREND_ALPHA 0.05 /* the family of one level's figures */
#define TREND_MIN   0.05 /* a trend worth naming: 5 % from the first run to the last */

/* Whether the cell holds only runs of a study (whose order of runs means something). */
static int study_cell(const struct report *r, const struct rpt_cell *c)
{
	int n = 0;
	for (int i = 0; i < r->nruns; i++)
		if (rpt_in_cell(&r->runs[i], c)) {
			if (r->runs[i].study < 0)
				return 0;
			n++;
		}
	return n > 0;
}

/* The trend of figure f over the cells g[0..ng): 1 when it is real and material, with
 * the mean relative change (first run to last) in *rel and the p-value in *p. */
static int trend(const struct report *r, const int *g, int ng, int f, double alpha, double *rel,
                 double *p)
{
	int n[RPT_MAX_LABELS], s = 0, k = 0, nrel = 0;
	double sum = 0;

	for (int i = 0; i < ng; i++) {
		const struct rpt_cell *c = &r->cells[g[i]];
		if (c->run[f].n < 2)
			continue;
		n[k++] = (int)c->run[f].n;
		s += c->trend_s[f];
		if (c->first[f] > 0 && isfinite(c->last[f])) {
			sum += c->last[f] / c->first[f] - 1;
			nrel++;
		}
	}
	if (k == 0 || nrel == 0 || s == 0)
		return 0;
	*rel = sum / nrel;
	*p = rpt_mk_p(n, k, s);
	return *p < alpha && fabs(*rel) >= TREND_MIN && (*rel > 0) == (s > 0);
}

/* The figures one level tests: TPS with users, mean latency at a fixed rate; CPU per
 * request of each process series. */
static int level_figures(const struct report *r, const struct rpt_cell *c, int *figs)
{
	int nf = 0;
	figs[nf++] = c->rate > 0 ? RPT_M_MEAN : RPT_M_TPS;
	for (int s = 0; s < r->ncpu; s++)
		if (rpt_process_series(r->cpu_names[s]))
			figs[nf++] = RPT_FIG_CPU(s);
	return nf;
}

int rpt_trends(const struct report *r, struct rpt_item **out, int *n)
{
	int cap = 0;
	char *done = calloc((size_t)(r->ncells ? r->ncells : 1), 1);

	*out = NULL;
	*n = 0;
	if (!done)
		return -1;
	for (int c0 = 0; c0 < r->ncells; c0++) {
		int figs[1 + RPT_MAX_SOURCES];
		struct rpt_item it = {
		    .label = -1, .code = "rounds_trend", .severity = "warn", .kind = RPT_V_TREND};
		struct rpt_trend *t = &it.trend;
		if (done[c0] || r->cells[c0].sweep)
			continue;
		for (int c = c0; c < r->ncells; c++)
			if (!done[c] && rpt_same_key(&r->cells[c0], &r->cells[c])) {
				done[c] = 1;
				if (t->ncells < RPT_MAX_LABELS && study_cell(r, &r->cells[c]))
					t->cell[t->ncells++] = c;
			}
		if (t->ncells == 0)
			continue;
		int nf = level_figures(r, &r->cells[c0], figs);
		for (int i = 0; i < nf; i++)
			if (trend(r, t->cell, t->ncells, figs[i], TREND_ALPHA / nf,
			          &t->rel[t->nfig], &t->p[t->nfig]))
				t->fig[t->nfig++] = figs[i];
		if (t->nfig == 0)
			continue;
		if (rpt_item_add(out, n, &cap, &it, NULL) < 0) {
			free(done);
			rpt_items_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
	}
	free(done);
	return 0;
}
