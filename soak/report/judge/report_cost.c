/* report_cost: what one request costs the server over a run's measured window (the
 * findings' Server cost and report.json's runs say it). */
#include "report_cost.h"
#include "report/report_int.h"

#include <math.h>
#include <string.h>

#include "report_runfig.h"

/* The first process source (not the host) of a run with CPU samples: the server. */
static const struct rpt_source *server_source(const struct rpt_run *run)
{
	for (int k = 0; k < run->nsrc; k++)
		if (run->src[k].has_cpu && rpt_process_series(run->src[k].name))
			return &run->src[k];
	return NULL;
}

void rpt_run_cost(const struct rpt_run *run, struct rpt_cost *c)
{
	c->src = server_source(run);
	c->cpu_ms = c->mem_mb = c->peak_mb = NAN;
	if (!c->src || run->st.requests == 0 || run->f.seconds <= 0)
		return;
	c->cpu_ms = c->src->cpu_mean / 100.0 * run->f.seconds * 1000.0 / (double)run->st.requests;
	if (c->src->has_rss) {
		c->mem_mb = c->src->rss_mean_mb;
		c->peak_mb = 0;
		for (size_t i = 0; i < c->src->nrss_ts; i++)
			if (c->src->rss_ts[i].v > c->peak_mb)
				c->peak_mb = c->src->rss_ts[i].v;
	}
}
