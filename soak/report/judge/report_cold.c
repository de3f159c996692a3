/* report_cold: the runs that came first after their target started and stood out from
 * their label's other runs at the same key (a cold start): a warning, or a note for a
 * warm-up run, judged as the outlier test of report_stats.c (rpt_cold_start). */
#include "report_cold.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report_stats.h"

#define COLD_MAX 1400 /* bytes of one cold-start sentence */

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

/* A cold_start item about run: a warning, or a note when the run is a warm-up (slow by
 * design and left out of the comparison). */
static int add_item(struct rpt_item **out, int *n, int *cap, const struct rpt_run *run,
                    const char *msg)
{
	struct rpt_item it = {.label = run->label};

	snprintf(it.code, sizeof it.code, "cold_start");
	snprintf(it.severity, sizeof it.severity, "%s", run->warmup ? "info" : "warn");
	snprintf(it.run, sizeof it.run, "%s", run->key);
	return rpt_item_add(out, n, cap, &it, msg);
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
			const struct rpt_cell *cell = &r->cells[c];
			double x[RPT_MAX_RUNS], rel[2], half[2], v[2];
			struct rpt_bm rest[2];
			int k = 0, out2[2] = {0, 0};
			struct sbuf b = {.cap = COLD_MAX};
			char d[32], lv[48];
			if (cell->label != run->label || isnan(run_figure(run, cell, RPT_M_TPS)))
				continue;
			/* The label's other compared runs at this key: what the run should match.
			 */
			for (int f = 0; f < 2; f++) {
				enum rpt_metric m = f ? RPT_M_MEAN : RPT_M_TPS;
				k = 0;
				for (int j = 0; j < r->nruns; j++)
					if (j != i && r->runs[j].compared &&
					    r->runs[j].label == run->label)
						if (!isnan(x[k] = run_figure(&r->runs[j], cell, m)))
							k++;
				rpt_run_means(x, (size_t)k, &rest[f]);
				v[f] = run_figure(run, cell, m);
				/* Two figures tested: each at 2.5 %. */
				out2[f] =
				    rpt_outlier(&rest[f], v[f], RPT_ALPHA / 2, &rel[f], &half[f]);
			}
			if (!out2[0] && !out2[1])
				continue;
			rpt_sb_printf(&b, "Run %s (%s), the first after its target started, ",
			              run->key, r->labels[run->label].name);
			if (out2[0])
				rpt_sb_printf(&b, "served %.1f %% %s requests per second",
				              fabs(rel[0]), rel[0] < 0 ? "fewer" : "more");
			if (out2[0] && out2[1])
				rpt_sb_printf(&b, " and ");
			if (out2[1])
				rpt_sb_printf(&b, "answered %.1f %% %s on average", fabs(rel[1]),
				              rel[1] > 0 ? "slower" : "faster");
			rpt_sb_printf(&b, " than the label's %d other compared run%s at %s (%s", k,
			              k == 1 ? "" : "s",
			              rpt_level_text(cell->concurrency, cell->rate, lv, sizeof lv),
			              dur_format(cell->planned_ms, d, sizeof d));
			rpt_sb_printf(&b, "; 95 %% prediction interval +-%.1f %%",
			              out2[0] ? half[0] : half[1]);
			rpt_sb_printf(&b, "). %s",
			              run->warmup
			                  ? "It was a warm-up run and is not compared."
			                  : "It is compared: a warm-up run (warmup_runs = 1) would "
			                    "leave it out.");
			if (add_item(out, n, &cap, run, b.s) < 0) {
				rpt_items_free(*out, *n);
				*out = NULL;
				*n = 0;
				return -1;
			}
		}
	}
	return 0;
}
