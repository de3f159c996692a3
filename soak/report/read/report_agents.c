/* report_agents: what a report shows of agents — the agent count of a merged run (and K/N
 * of an agent's own run) and the notes `soak merge` left on a merged run. */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "report_agents.h"

#define MAX_NOTES 200 /* notes of one run; a 72-hour run of a flapping agent is cut here */

int rpt_read_agents(struct reader *rd, sqlite3_stmt *q, struct rpt_run *run)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_column_type(q, 17) != SQLITE_NULL) {
		run->agent = sqlite3_column_int(q, 17);
		run->agents = sqlite3_column_int(q, 18);
		return 0;
	}
	if (sqlite3_column_type(q, 19) == SQLITE_NULL)
		return 0;
	run->agents = sqlite3_column_int(q, 19);
	run->agents_planned = sqlite3_column_int(q, 18);
	if (db_prepare(rd->db, &st,
	               "SELECT detail FROM events WHERE run_id = ? AND source = 'merge' "
	               "ORDER BY t_ms, kind, detail LIMIT ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run->id);
	sqlite3_bind_int(st, 2, MAX_NOTES);
	run->agent_notes = calloc(MAX_NOTES, sizeof *run->agent_notes);
	if (!run->agent_notes) {
		sqlite3_finalize(st);
		return rpt_rd_oom(rd);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *t = db_col_dup(st, 0);
		if (!t) {
			sqlite3_finalize(st);
			return rpt_rd_oom(rd);
		}
		run->agent_notes[run->nagent_notes++] = t;
	}
	sqlite3_finalize(st);
	return rpt_rd_done(rd, rc, "cannot read the merge notes");
}
