/* history_runs: which runs of a database soak history reads (see history.h).
 * It reads the runs as soak report does (an older file migrated when writable) and
 * writes nothing of its own into the file. */
#include "history.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "db.h"

/* Whether label and name pass the filters. */
static int wanted(const char *label, const char *name, const char *const *labels, int nlabels,
                  const char *scenario)
{
	int ok = nlabels == 0;
	for (int i = 0; i < nlabels && !ok; i++)
		ok = !strcmp(labels[i], label);
	return ok && (!scenario || !strcmp(scenario, name));
}

int rpt_hist_list_runs(const char *path, const char *const *labels, int nlabels,
                       const char *scenario, int64_t **ids, int *n, int *usage, char *err,
                       size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = -1, step, all = 0;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	/* As `soak report` opens it: migrated when writable, else read as it is. */
	if (db_open(path, 0, &db, err, errlen) < 0 &&
	    (access(path, F_OK) != 0 || access(path, W_OK) == 0 ||
	     db_open(path, DB_READONLY, &db, err, errlen) < 0)) {
		*usage = 1;
		return -1;
	}
	if (db_prepare(db, &q,
	               "SELECT id, label, name FROM runs WHERE merged_into IS NULL "
	               "ORDER BY started_ms, id",
	               err, errlen) < 0)
		goto done;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		all++;
		if (!wanted(db_col_text(q, 1), db_col_text(q, 2), labels, nlabels, scenario))
			continue;
		if (buf_grow(ids, &cap, (size_t)*n + 1, sizeof **ids, 64) < 0) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	if (db_done(db, step, "cannot read runs", err, errlen) < 0)
		goto done;
	if (all == 0) {
		snprintf(err, errlen,
		         "'%s' holds no runs (a collector's file? fold it into the runs' database "
		         "with `soak merge` first)",
		         path);
		*usage = 1;
		goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	db_close(db);
	return rc;
}
