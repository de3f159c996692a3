/* store: the monitor server's SQLite file, written in batches (store.h), so a crash loses
 * at most one batch and the loop never waits on a commit per message. */
#include "store.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"

static const char schema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=NORMAL;"
    "CREATE TABLE IF NOT EXISTS messages("
    "  id INTEGER PRIMARY KEY, session INTEGER, kind TEXT, s INTEGER, mid INTEGER,"
    "  ts INTEGER, nitems INTEGER, bytes INTEGER, received_ms INTEGER);"
    "CREATE TABLE IF NOT EXISTS items("
    "  message INTEGER NOT NULL, name TEXT NOT NULL, value REAL, text TEXT);";

static int fail(struct store *st, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, st->db ? sqlite3_errmsg(st->db) : "no database");
	return -1;
}

int store_open(struct store *st, const char *path, int items, int batch, int64_t flush_ms,
               char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	st->items = items;
	st->batch = batch > 0 ? batch : 1;
	st->flush_ms = flush_ms;
	if (sqlite3_open(path, &st->db) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		         st->db ? sqlite3_errmsg(st->db) : "out of memory");
		sqlite3_close(st->db);
		st->db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(st->db, 10000);
	if (sqlite3_exec(st->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return fail(st, "cannot create the tables", err, errlen);
	if (sqlite3_prepare_v2(st->db,
	                       "INSERT INTO messages(session, kind, s, mid, ts, nitems, bytes, "
	                       "received_ms) VALUES(?,?,?,?,?,?,?,?)",
	                       -1, &st->ins_msg, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
	                       "INSERT INTO items(message, name, value, text) VALUES(?,?,?,?)", -1,
	                       &st->ins_item, NULL) != SQLITE_OK)
		return fail(st, "cannot prepare the inserts", err, errlen);
	return 0;
}

static int begin(struct store *st, char *err, size_t errlen)
{
	if (st->open_tx)
		return 0;
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return fail(st, "cannot begin a batch", err, errlen);
	st->open_tx = 1;
	st->pending = 0;
	st->opened_ms = clock_mono_ms();
	return 0;
}

int store_message(struct store *st, int64_t session, const char *kind, int64_t s, int64_t mid,
                  int64_t ts, int nitems, int64_t bytes, int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt *q = st->ins_msg;

	if (begin(st, err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, s);
	sqlite3_bind_int64(q, 4, mid);
	sqlite3_bind_int64(q, 5, ts);
	sqlite3_bind_int(q, 6, nitems);
	sqlite3_bind_int64(q, 7, bytes);
	sqlite3_bind_int64(q, 8, clock_wall_ms());
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return fail(st, "cannot store a message", err, errlen);
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_item(struct store *st, int64_t id, const char *name, int is_num, double value,
               const char *text, char *err, size_t errlen)
{
	sqlite3_stmt *q = st->ins_item;

	if (!st->items)
		return 0;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	if (is_num) {
		sqlite3_bind_double(q, 3, value);
		sqlite3_bind_null(q, 4);
	} else {
		sqlite3_bind_null(q, 3);
		if (text)
			sqlite3_bind_text(q, 4, text, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(q, 4);
	}
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return fail(st, "cannot store an item", err, errlen);
	return 0;
}

int store_message_done(struct store *st, char *err, size_t errlen)
{
	if (++st->pending >= st->batch)
		return store_flush(st, 1, err, errlen);
	return 0;
}

int store_flush(struct store *st, int force, char *err, size_t errlen)
{
	if (!st->open_tx)
		return 0;
	if (!force && clock_mono_ms() - st->opened_ms < st->flush_ms)
		return 0;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return fail(st, "cannot commit a batch", err, errlen);
	st->open_tx = 0;
	st->pending = 0;
	st->commits++;
	return 0;
}

int64_t store_due_in(const struct store *st)
{
	if (!st->open_tx)
		return -1;
	int64_t d = st->opened_ms + st->flush_ms - clock_mono_ms();
	return d < 0 ? 0 : d;
}

int store_close(struct store *st, char *err, size_t errlen)
{
	int rc = 0;
	if (!st->db)
		return 0;
	if (store_flush(st, 1, err, errlen) < 0)
		rc = -1;
	sqlite3_finalize(st->ins_msg);
	sqlite3_finalize(st->ins_item);
	sqlite3_close(st->db);
	st->db = NULL; /* the counters stay readable */
	st->ins_msg = st->ins_item = NULL;
	st->open_tx = 0;
	return rc;
}
