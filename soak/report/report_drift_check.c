/* report_drift_check: soak run's end-of-run drift check — the run read and judged as
 * `soak report --runs ID` would (report_data.c, report_drift.c), then its sentence and the
 * breaches of the scenario's drift thresholds in words (report_drift_text.c).  run/ cannot
 * use report/, so soak run hands this function to the runner. */
#include "report/report_int.h"
#include "report/report_text.h"
#include "report/write/report_drift_text.h"

#include <stdio.h>

int rpt_drift_check(const char *db_path, int64_t run_id, double tps, double mean, double p99,
                    char *msgs, size_t msglen, int max, struct buf *verdict, char *err,
                    size_t errlen)
{
	struct report r;
	char id[32];
	const char *dbs[1] = {db_path};
	struct rpt_opts o = {.dbs = dbs, .ndbs = 1, .runs = id};
	int usage, n = 0;

	snprintf(id, sizeof id, "%lld", (long long)run_id);
	if (rpt_read(&r, &o, &usage, err, errlen) < 0) {
		rpt_free(&r);
		return -1;
	}
	const struct rpt_run *run = &r.runs[0];
	struct sbuf v = {0};
	rpt_drift_run_sentence(&v, run);
	/* soak run's own line on the terminal, the sentence whole (runner.h). */
	buf_puts(verdict, rpt_sb_str(&v));
	rpt_sb_release(&v);
	if (!run->step_drift) {
		n = rpt_drift_breaches(&run->drift, tps, mean, p99, msgs, msglen, max);
	} else {
		for (int k = 0; k < run->nsteps && n < max; k++) {
			int got = rpt_drift_breaches(&run->step_drift[k], tps, mean, p99,
			                             msgs + (size_t)n * msglen, msglen, max - n);
			for (int i = n; i < n + got; i++) {
				char one[512];
				snprintf(one, sizeof one, "step %d: %s", k + 1,
				         msgs + (size_t)i * msglen);
				snprintf(msgs + (size_t)i * msglen, msglen, "%s", one);
			}
			n += got;
		}
	}
	rpt_free(&r);
	return n;
}
