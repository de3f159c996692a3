/* stage: the private temporary database an import is recorded into before one short
 * transaction copies it to the target (stage.h), so a bad file leaves nothing behind. */
#include "stage.h"

#include <stdio.h>
#include <string.h>

#include "db.h"

int stage_open(struct stage *s, char *err, size_t errlen)
{
	/* "" is SQLite's private temporary database: on disk when it grows, never named. */
	if (rec_open(&s->rec, "", err, errlen) < 0)
		return -1;
	/* Nothing here outlives a crash: no journal syncs needed. */
	return db_exec(s->rec.db, "PRAGMA synchronous=OFF", err, errlen);
}

void stage_close(struct stage *s)
{
	rec_close(&s->rec);
}

/* How a table's rows are copied. */
struct copy {
	const char *table;
	const char *skip; /* a column the target assigns (id), or NULL */
	const char *verb; /* INSERT OR IGNORE / OR REPLACE */
	int run;          /* run_id takes the new run id (NULL stays NULL) */
};

/* INSERT INTO dst.T (cols) SELECT cols FROM main.T, run_id replaced by ?1. */
static int copy_rows(sqlite3 *db, const struct copy *c, int64_t run_id, int64_t *rows, char *err,
                     size_t errlen)
{
	sqlite3_stmt *cols = NULL, *ins = NULL;
	sqlite3_str *names = sqlite3_str_new(db), *values = sqlite3_str_new(db);
	char *n = NULL, *v = NULL, *sql = NULL;
	int rc = -1, k = 0, step;

	if (db_prepare(db, &cols, "SELECT name FROM pragma_table_info(?1, 'main') ORDER BY cid",
	               err, errlen) < 0)
		goto done;
	sqlite3_bind_text(cols, 1, c->table, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(cols)) == SQLITE_ROW) {
		const char *name = db_col_text(cols, 0);
		if (!name || (c->skip && strcmp(name, c->skip) == 0))
			continue;
		sqlite3_str_appendf(names, "%s\"%w\"", k ? ", " : "", name);
		if (c->run && strcmp(name, "run_id") == 0)
			sqlite3_str_appendf(values,
			                    "%sCASE WHEN run_id IS NULL THEN NULL ELSE ?1 END",
			                    k ? ", " : "");
		else
			sqlite3_str_appendf(values, "%s\"%w\"", k ? ", " : "", name);
		k++;
	}
	if (db_done(db, step, "cannot read the table layout", err, errlen) < 0)
		goto done;
	n = sqlite3_str_finish(names);
	v = sqlite3_str_finish(values);
	names = values = NULL;
	sql = sqlite3_mprintf("%s INTO dst.\"%w\" (%s) SELECT %s FROM main.\"%w\"", c->verb,
	                      c->table, n ? n : "", v ? v : "", c->table);
	if (!sql || !n || !v) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (db_prepare(db, &ins, sql, err, errlen) < 0)
		goto done;
	sqlite3_bind_int64(ins, 1, run_id);
	if (db_done(db, sqlite3_step(ins), "cannot copy the import", err, errlen) < 0)
		goto done;
	if (rows)
		*rows = sqlite3_changes64(db);
	rc = 0;
done:
	sqlite3_finalize(cols);
	sqlite3_finalize(ins);
	sqlite3_free(sqlite3_str_finish(names));
	sqlite3_free(sqlite3_str_finish(values));
	sqlite3_free(n);
	sqlite3_free(v);
	sqlite3_free(sql);
	return rc;
}

int stage_commit(struct stage *s, const char *target, int64_t *run_id, int64_t *samples, char *err,
                 size_t errlen)
{
	static const struct copy children[] = {
	    {"steps", NULL, "INSERT", 1},
	    {"intervals", NULL, "INSERT", 1},
	    {"interval_errors", NULL, "INSERT", 1},
	    {"thresholds", NULL, "INSERT", 1},
	    {"events", "id", "INSERT OR IGNORE", 1},
	    {"samples", NULL, "INSERT OR REPLACE", 0},
	};
	static const struct copy runs = {"runs", "id", "INSERT", 0};
	sqlite3 *db = s->rec.db, *tdb = NULL;
	sqlite3_stmt *at = NULL;
	int64_t id = -1;
	int rc = -1;

	*run_id = -1;
	*samples = 0;
	/* Opening the target once creates it or brings its schema up to this soak's. */
	if (db_open(target, DB_CREATE, &tdb, err, errlen) < 0)
		return -1;
	db_close(tdb);
	if (db_prepare(db, &at, "ATTACH DATABASE ?1 AS dst", err, errlen) < 0)
		return -1;
	sqlite3_bind_text(at, 1, target, -1, SQLITE_STATIC);
	if (db_finish(db, at, "cannot open the target database", err, errlen) < 0)
		return -1;
	if (db_begin(db, err, errlen) < 0)
		goto detach;
	if (s->rec.run_id > 0) {
		if (copy_rows(db, &runs, -1, NULL, err, errlen) < 0)
			goto fail;
		id = sqlite3_last_insert_rowid(db);
	}
	for (size_t i = 0; i < sizeof children / sizeof *children; i++) {
		int64_t n = 0;
		if (copy_rows(db, &children[i], id, &n, err, errlen) < 0)
			goto fail;
		if (strcmp(children[i].table, "samples") == 0)
			*samples = n;
	}
	if (db_commit(db, err, errlen) < 0)
		goto detach;
	*run_id = id;
	rc = 0;
	goto detach;
fail:
	db_rollback(db);
detach:
	sqlite3_exec(db, "DETACH DATABASE dst", NULL, NULL, NULL);
	return rc;
}
