/* nmon_db: `soak import nmon` into a database through a stage (nmon_db.h): every sample
 * of the file or none, and importing twice adds nothing. */
#include "nmon_db.h"

#include <stdio.h>
#include <string.h>

#include "db.h"
#include "stage.h"

/* The sink's state: the staged INSERT, with the source and host of every row. */
struct rows {
	sqlite3 *db;
	sqlite3_stmt *ins;
	const struct nmon_opts *o;
	const struct nmon_result *res; /* res->host: known before the first row */
};

static int put_row(void *ctx, const char *metric, int64_t t_ms, double value, char *err,
                   size_t errlen)
{
	struct rows *w = ctx;
	int rc;

	sqlite3_bind_text(w->ins, 1, w->o->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->ins, 2, w->res->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->ins, 3, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(w->ins, 4, t_ms);
	sqlite3_bind_double(w->ins, 5, value);
	rc = sqlite3_step(w->ins);
	sqlite3_reset(w->ins);
	return db_done(w->db, rc, "cannot record a sample", err, errlen);
}

int nmon_import(const struct nmon_opts *o, struct nmon_result *res, char *err, size_t errlen)
{
	struct ireader in;
	struct stage sg;
	struct rows w = {.o = o, .res = res};
	struct nmon_sink sink = {.put = put_row, .ctx = &w};
	int64_t run;
	int rc = -1, staged = 0;

	memset(res, 0, sizeof *res);
	if (ird_open(&in, o->path, NMON_MAX_LINE, err, errlen) < 0)
		return -2;
	if (stage_open(&sg, err, errlen) < 0)
		goto done;
	staged = 1;
	w.db = sg.rec.db;
	if (db_prepare(w.db, &w.ins,
	               "INSERT OR REPLACE INTO samples(source, host, metric, t_ms, value) "
	               "VALUES(?, ?, ?, ?, ?)",
	               err, errlen) < 0 ||
	    db_begin(w.db, err, errlen) < 0)
		goto done;
	if ((rc = nmon_read(&in, o, &sink, res, err, errlen)) < 0)
		goto done;
	rc = -1;
	if (db_commit(w.db, err, errlen) < 0)
		goto done;
	sqlite3_finalize(w.ins);
	w.ins = NULL;
	if (stage_commit(&sg, o->db_path, &run, &res->samples, err, errlen) < 0)
		goto done;
	rc = 0;
done:
	sqlite3_finalize(w.ins);
	if (staged) {
		db_rollback(w.db);
		stage_close(&sg);
	}
	ird_close(&in);
	return rc;
}
