/* report_read: the small helpers every reader of the report model uses (report_int.h).
 * Each helper says what failed in the reader's err and frees nothing it did not take. */
#include "report_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
#include "db.h"

int rpt_rd_oom(struct reader *rd)
{
	snprintf(rd->err, rd->errlen, "out of memory");
	return -1;
}

int rpt_rd_push(struct reader *rd, struct rpt_values *v, double x)
{
	if (v->n == v->cap && v->n >= RPT_MAX_INTERVALS) {
		snprintf(rd->err, rd->errlen, "more than %d intervals in one step",
		         RPT_MAX_INTERVALS);
		return -1;
	}
	if (buf_grow(&v->v, &v->cap, v->n + 1, sizeof x, 64) < 0)
		return rpt_rd_oom(rd);
	v->v[v->n++] = x;
	return 0;
}

int rpt_rd_done(struct reader *rd, int step, const char *what)
{
	return db_done(rd->db, step, what, rd->err, rd->errlen);
}

double rpt_rd_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int rpt_rd_has(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *q = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT 1 FROM pragma_table_info(?1) WHERE ?2 IS NULL OR name = ?2",
	                       -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	if (column)
		sqlite3_bind_text(q, 2, column, -1, SQLITE_STATIC);
	found = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return found;
}
