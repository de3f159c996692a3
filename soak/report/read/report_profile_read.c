/* report_profile_read: a run's CPU profiles as soak-perf stored them (report_profile_read.h).
 * Stacks are text a user's code named: they pass through the run's redaction again, like
 * every text a report shows. */
#include "report_profile_read.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "db.h"
#include "dbroles.h"

#define MAX_NOTES 16 /* profile events of one run shown; more say the same */

/* Frames in a folded stack. */
static int depth(const char *stack)
{
	int n = 1;
	for (const char *c = stack; *c; c++)
		n += *c == ';';
	return n;
}

/* Window w's stacks, most sampled first. */
static int read_stacks(struct reader *rd, const struct rpt_run *run, struct rpt_prof *w)
{
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int rc;

	if (db_prepare(rd->db, &q,
	               "SELECT stack, samples FROM profiles WHERE run_id = ? AND step_idx = ? AND "
	               "source = ? ORDER BY samples DESC, stack",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, w->step);
	sqlite3_bind_text(q, 3, w->source, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_pstack *s;
		if (buf_grow(&w->st, &cap, (size_t)w->nst + 1, sizeof *w->st, 64) < 0)
			goto oom;
		s = &w->st[w->nst];
		s->samples = sqlite3_column_int64(q, 1);
		if (!(s->stack = dbroles_shown(run->redact, "profiles", "stack", db_col_str(q, 0))))
			goto oom;
		w->nst++;
		if (w->jvm && depth(s->stack) <= 2 && strcmp(s->stack, "[other]") != 0)
			w->shallow += s->samples;
	}
	sqlite3_finalize(q);
	return rpt_rd_done(rd, rc, "cannot read the profiles");
oom:
	sqlite3_finalize(q);
	return rpt_rd_oom(rd);
}

static int read_notes(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (db_prepare(rd->db, &q,
	               "SELECT source || ': ' || detail FROM events WHERE run_id = ? AND kind IN "
	               "('profile_unavailable', 'profile_process_gone', 'profile_empty') "
	               "GROUP BY detail ORDER BY MIN(t_ms) LIMIT ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	sqlite3_bind_int(q, 2, MAX_NOTES);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char *t = dbroles_shown(run->redact, "events", "detail", db_col_str(q, 0));
		char **v = realloc(run->prof_notes, (size_t)(run->nprof_notes + 1) * sizeof *v);
		if (!t || !v) {
			free(t);
			if (v)
				run->prof_notes = v;
			sqlite3_finalize(q);
			return rpt_rd_oom(rd);
		}
		run->prof_notes = v;
		v[run->nprof_notes++] = t;
	}
	sqlite3_finalize(q);
	return rpt_rd_done(rd, rc, "cannot read the profile events");
}

int rpt_read_profiles(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int rc;

	if (db_prepare(rd->db, &q,
	               "SELECT step_idx, source, hz, sampled_ms, samples, unnamed, jit_unnamed, "
	               "cut, pids, jvm FROM profile_windows WHERE run_id = ? "
	               "ORDER BY step_idx, source",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_prof *w;
		if (buf_grow(&run->prof, &cap, (size_t)run->nprof + 1, sizeof *run->prof, 4) < 0) {
			sqlite3_finalize(q);
			return rpt_rd_oom(rd);
		}
		w = &run->prof[run->nprof++];
		memset(w, 0, sizeof *w);
		w->step = sqlite3_column_int(q, 0);
		snprintf(w->source, sizeof w->source, "%s", db_col_str(q, 1));
		w->hz = sqlite3_column_int(q, 2);
		w->sampled_ms = sqlite3_column_int64(q, 3);
		w->samples = sqlite3_column_int64(q, 4);
		w->unnamed = sqlite3_column_int64(q, 5);
		w->jit_unnamed = sqlite3_column_int64(q, 6);
		w->cut = sqlite3_column_int64(q, 7);
		snprintf(w->pids, sizeof w->pids, "%s", db_col_str(q, 8));
		w->jvm = sqlite3_column_int(q, 9);
		if (read_stacks(rd, run, w) < 0) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	sqlite3_finalize(q);
	if (rpt_rd_done(rd, rc, "cannot read the profile windows") < 0)
		return -1;
	return read_notes(rd, run);
}
