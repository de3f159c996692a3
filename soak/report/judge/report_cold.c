/* report_cold: the runs that came first after their target started and stood out from
 * their label's other runs at the same key (a cold start): a warning, or a note for a
 * warm-up run, judged as the outlier test of report_stats.c (rpt_cold_start).  What it
 * found is data; write/report_validity_text.c words it. */
#include "report_cold.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_stats.h"

/* A run's figure m (TPS or mean latency) at a cell key: the mean over its matching steps;
 * NAN when it has none. */
static double run_figure(const struct rpt_run *run, const struct rpt_cell *c, enum rpt_metric m)
{
	double sum = 0;
	int n = 0;

	if (rpt_is_sweep(run) != c->sweep)
		return NAN;
	for (int j = 0; j < run->nsteps; j++) {
		const struct rpt_step *s = &run->steps[j];
		int answered = s->f.p50_us > 0 || s->f.max_us > 0;
		if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
		    s->nintervals == 0)
			continue;
		if (m == RPT_M_TPS) {
			sum += s->f.tps;
			n++;
		} else if (answered) {
			sum += s->f.mean_us / 1000;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* A cold_start item about run, with what was found (c): a warning, or a note when the run
 * is a warm-up (slow by design and left out of the comparison); write/ words it. */
static int add_item(struct rpt_item **out, int *n, int *cap, const struct rpt_run *run,
                    const struct rpt_cold *c)
{
	struct rpt_item it = {.label = run->label, .kind = RPT_V_COLD, .cold = *c};

	snprintf(it.code, sizeof it.code, "cold_start");
	snprintf(it.severity, sizeof it.severity, "%s", run->warmup ? "info" : "warn");
	rpt_runs_add(&it.run, run->key);
	return rpt_item_add(out, n, cap, &it, NULL);
}

/* Whether run i stood out at cell c from its label's other compared runs there: TPS and
 * mean latency tested as outliers, what was found in *f. */
static int stood_out(const struct report *r, int i, int c, struct rpt_cold *f)
{
	const struct rpt_run *run = &r->runs[i];
	double x[RPT_MAX_RUNS];
	struct rpt_bm rest;

	*f = (struct rpt_cold){.run = i, .cell = c};
	for (int m = 0; m < 2; m++) {
		int k = 0;
		for (int j = 0; j < r->nruns; j++)
			if (j != i && r->runs[j].compared && r->runs[j].label == run->label)
				if (!isnan(x[k] = run_figure(&r->runs[j], &r->cells[c],
				                             m ? RPT_M_MEAN : RPT_M_TPS)))
					k++;
		rpt_run_means(x, (size_t)k, &rest);
		/* Two figures tested: each at 2.5 %. */
		f->out[m] =
		    rpt_outlier(&rest, run_figure(run, &r->cells[c], m ? RPT_M_MEAN : RPT_M_TPS),
		                RPT_ALPHA / 2, &f->rel[m], &f->half[m]);
		f->others = k;
	}
	return f->out[0] || f->out[1];
}

int rpt_cold_start(const struct report *r, struct rpt_item **out, int *n)
{
	int cap = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->study < 0 || run->since_start != 1)
			continue;
		for (int c = 0; c < r->ncells; c++) {
			struct rpt_cold f;
			if (r->cells[c].label != run->label ||
			    isnan(run_figure(run, &r->cells[c], RPT_M_TPS)) ||
			    !stood_out(r, i, c, &f))
				continue;
			if (add_item(out, n, &cap, run, &f) < 0) {
				rpt_items_free(*out, *n);
				*out = NULL;
				*n = 0;
				return -1;
			}
		}
	}
	return 0;
}
