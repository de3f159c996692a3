/* report_estimate: how long to run, for `soak check`: from the runs of a scenario already
 * in a database, each figure's noise in its two parts (run to run, within a run) over the
 * runs of one label at one level, and the rounds and run length that would tell the usual
 * targets apart. */
#include "report/report_int.h"
#include "report/judge/report_compare.h"
#include "report_fmt.h"

#include <math.h>
#include <stdio.h>

/* One figure's line: its noise in its two parts and the rounds and run length that would
 * tell target % apart between two systems as noisy as these runs. */
static void estimate_line(const struct report *r, const struct rpt_cell *c, int f, double target,
                          FILE *out)
{
	struct rpt_resolve x = {.basis = RPT_ADV_COMPONENTS};
	char key[96], adv[256];
	const struct rpt_vc *v = &c->vc[f];
	/* Every figure of a comparison is judged in one family: the advice holds at the
	 * strictest level of a family of TPS, mean, p99, errors and the CPU series. */
	double alpha = RPT_ALPHA / (RPT_NMETRIC + r->ncpu);

	if (v->runs < 2 || !isfinite(c->value[f]) || !(c->value[f] != 0))
		return;
	rpt_advise(v, v, c->value[f], target, alpha, &x);
	fprintf(out,
	        "  %-24s run-to-run sd %.1f%%, within a run %.1f%%: to tell %.0f%% apart, %s\n",
	        rpt_fig_key(r, f, key, sizeof key), x.between_pct, x.within_pct, target,
	        rpt_advice_text(&x, v->runs, v->secs, adv, sizeof adv));
}

void rpt_write_estimate(const char *path, const char *runs, FILE *out)
{
	const char *dbs[1] = {path};
	char err[512];
	struct rpt_opts o = {.dbs = dbs, .ndbs = 1, .runs = runs, .title = "check"};
	struct report r;
	int usage;

	if (rpt_read(&r, &o, &usage, err, sizeof err) < 0 ||
	    rpt_build(&r, &o, err, sizeof err) < 0) {
		rpt_free(&r);
		return;
	}
	for (int i = 0; i < r.ncells; i++) {
		const struct rpt_cell *c = &r.cells[i];
		char at[96], d[32];
		fprintf(
		    out,
		    "how long to run, from %d run%s of label %s at %s in %s (%s measured each):\n",
		    c->nruns, c->nruns == 1 ? "" : "s", r.labels[c->label].name,
		    rpt_cell_text(c, at, sizeof at), path,
		    rpt_fmt_need(c->vc[RPT_M_TPS].secs, d, sizeof d));
		if (c->nruns < 2) {
			fprintf(out,
			        "  one run: the run-to-run noise is unknown; run the scenario 3 "
			        "or more times (soak calibrate) before planning by it\n");
			continue;
		}
		for (int f = 0; f < RPT_NFIG; f++)
			if (rpt_fig_in(f, r.ncpu) && rpt_fig_row(f)->resolve_pct > 0)
				estimate_line(&r, c, f, rpt_fig_row(f)->resolve_pct, out);
	}
	rpt_free(&r);
}
