/* report_gaps: the gaps of resumed runs (report_gaps.h).
 * A gap is the time a resumed run had no load: read, never invented from missing rows. */
#include <stdlib.h>

#include "db.h"
#include "report_gaps.h"

#define MAX_GAPS 100 /* a run resumed more often is cut here (the rest are still unmeasured) */

int rpt_read_gaps(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (db_prepare(rd->db, &q,
	               "SELECT g.from_ms, g.to_ms, "
	               "IFNULL((SELECT MIN(i.start_ms) FROM intervals i WHERE i.run_id = g.run_id "
	               "AND i.phase = 'steady' AND i.start_ms >= g.to_ms), g.to_ms) "
	               "FROM gaps g WHERE g.run_id = ? ORDER BY g.from_ms LIMIT ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, MAX_GAPS);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (!run->gaps && !(run->gaps = calloc(MAX_GAPS, sizeof *run->gaps))) {
			sqlite3_finalize(q);
			return rpt_rd_oom(rd);
		}
		run->gaps[run->ngaps].from_ms = sqlite3_column_int64(q, 0);
		run->gaps[run->ngaps].to_ms = sqlite3_column_int64(q, 1);
		run->gaps[run->ngaps].measured_ms = sqlite3_column_int64(q, 2);
		run->ngaps++;
	}
	sqlite3_finalize(q);
	return rpt_rd_done(rd, rc, "cannot read the gaps");
}

int rpt_in_gap(const struct rpt_run *run, int64_t t_ms)
{
	for (int i = 0; i < run->ngaps; i++)
		if (t_ms >= run->gaps[i].from_ms && t_ms < run->gaps[i].measured_ms)
			return 1;
	return 0;
}
