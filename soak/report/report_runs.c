/* report_runs: what every room (read/, judge/, write/) asks of the model's runs: whether a
 * run is a sweep's, and a label's runs in report order (report_int.h). */
#include "report_int.h"

#include <string.h>

int rpt_is_sweep(const struct rpt_run *run)
{
	return strcmp(run->mode, "sweep") == 0;
}

const struct rpt_run *rpt_label_run(const struct report *r, int l, const struct rpt_run *after)
{
	for (int i = after ? (int)(after - r->runs) + 1 : 0; i < r->nruns; i++)
		if (r->runs[i].label == l)
			return &r->runs[i];
	return NULL;
}
