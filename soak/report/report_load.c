/* report_load: rpt_read, the way in for every reader of runs (soak report, soak runs, soak
 * history, soak run's drift check): the runs read (read/report_data.c), then what is
 * judged of each run as soon as it is read (judge/report_drift.c: its drift verdict), so
 * that a reader sees the verdicts without a build. */
#include "report.h"
#include "report_int.h"

int rpt_read(struct report *r, const struct rpt_opts *o, int *usage, char *err, size_t errlen)
{
	if (rpt_read_dbs(r, o, usage, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++)
		rpt_drift_judge_run(&r->runs[i]);
	return 0;
}
