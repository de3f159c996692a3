/*
 * report_cost — what one request costs the server over a run's measured window (CPU time,
 * memory), for the cost findings and report.json.  Not for other modules.
 */
#ifndef SOAK_REPORT_COST_H
#define SOAK_REPORT_COST_H

#include "report/report_int.h"

/* What one request (a tcp-frame iteration) costs the server, over a run's measured window:
 * its first process source with CPU samples (not the host). */
struct rpt_cost {
	const struct rpt_source *src; /* the server's source, or NULL */
	double cpu_ms;                /* CPU time per request, ms (NAN when unknown) */
	double mem_mb;                /* its mean memory (NAN when unknown) */
	double peak_mb;               /* its largest memory sample (NAN when unknown) */
};
/* The cost of run `run` into *c. */
void rpt_run_cost(const struct rpt_run *run, struct rpt_cost *c);

#endif
