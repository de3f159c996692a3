/* report_load: rpt_read, the way in for every reader of runs (soak report, soak runs, soak
 * history, soak run's drift check): the runs read (read/report_data.c), with what must be
 * judged while they are read handed to the reading (judge/'s drift comparison and memory
 * verdict: read/ calls them through struct rpt_read_judges and names no judge/ function),
 * then what is judged of each run as soon as it is read (judge/report_drift.c: its drift
 * verdict), so that a reader sees the verdicts without a build. */
#include "report.h"
#include "report_int.h"

#include "report/judge/report_drift.h"
#include "report/judge/report_mem.h"
#include "report/read/report_data.h"
#include "report/read/report_read.h"

/* What the reading judges as it reads (report_read.h says why). */
static const struct rpt_read_judges judges = {
    .drift_compare = rpt_drift_compare,
    .mem_judge = rpt_mem_judge,
};

int rpt_read(struct report *r, const struct rpt_opts *o, int *usage, char *err, size_t errlen)
{
	if (rpt_read_dbs(r, o, &judges, usage, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++)
		rpt_drift_judge_run(&r->runs[i]);
	return 0;
}
