/*
 * db — the results database: one SQLite file holding every number of a study.
 *
 * db_open() opens (or creates, with fmode_file(): 0600 by default) the file in WAL mode with a busy
 * timeout and foreign keys on, then brings its schema up to date: the migrations in sql/NNN_*.sql
 * (embedded into the binary at build time) are applied in order, each in its own transaction, keyed
 * by PRAGMA user_version.  A file written by a newer soak (user_version above what this binary
 * knows) is refused with a clear message.  The report views of sql/views.sql are created as
 * TEMP views on every connection, so a file never depends on one soak version's views.
 * Every file is opened as one from a stranger (db_harden): nothing in it runs inside soak.
 *
 * A connection belongs to one thread at a time.  Writers commit once per batch
 * (db_begin/db_commit, BEGIN IMMEDIATE so two writers queue on the busy timeout instead of
 * deadlocking); readers in WAL mode never block them.
 * Functions return 0 or -1 and fill err with a lower-case message naming the file.
 */
#ifndef SOAK_DB_H
#define SOAK_DB_H

#include <sqlite3.h>
#include <stddef.h>

enum {
	DB_CREATE = 1,   /* create the file when missing */
	DB_READONLY = 2, /* open for reading only (reports); migrations are not applied */
};

#define DB_BUSY_TIMEOUT_MS 10000

/* The schema version this binary writes (number of embedded migrations). */
int db_schema_version(void);
/* $SOAK_DB, or "soak.db". */
const char *db_default_path(void);

int db_open(const char *path, int flags, sqlite3 **out, char *err, size_t errlen);
/* Makes a freshly opened connection safe for a file anybody may have written (an agent's,
 * a colleague's): SQLite's defensive mode, trusted_schema off, no trigger fires and no
 * view of the file is used (soak makes neither: its views are TEMP views); a file that
 * holds a trigger or a view is refused, naming it.  db_open does this on every file;
 * callers that open a file themselves call it.  0, or -1 with err. */
int db_harden(sqlite3 *db, const char *path, char *err, size_t errlen);
/* Closes, finalizing nothing: callers finalize their statements first.  NULL is a no-op. */
void db_close(sqlite3 *db);
/* Applies migrations up to `version` only (tests build old files with it). */
int db_migrate_to(sqlite3 *db, int version, char *err, size_t errlen);

int db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);
int db_prepare(sqlite3 *db, sqlite3_stmt **st, const char *sql, char *err, size_t errlen);
int db_begin(sqlite3 *db, char *err, size_t errlen);
int db_commit(sqlite3 *db, char *err, size_t errlen);
/* Rolls back if a transaction is open; never fails. */
void db_rollback(sqlite3 *db);
/* Runs a statement that returns one integer (or none: then *v = dflt). */
int db_int(sqlite3 *db, const char *sql, long long dflt, long long *v, char *err, size_t errlen);
/* Fills err with "what: sqlite message" and returns -1 (for callers' error paths). */
int db_fail(sqlite3 *db, const char *what, char *err, size_t errlen);
/* Steps st, a statement that returns no row, once and finalizes it: 0, or db_fail's -1. */
int db_finish(sqlite3 *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen);
/* After a loop over a statement's rows: 0 when its last step (sqlite3_step's code) was
 * SQLITE_DONE, else db_fail's -1. */
int db_done(sqlite3 *db, int step, const char *what, char *err, size_t errlen);

/* A row's text columns, the one way soak reads them (column i of q's current row). */
/* The text, or NULL for SQL NULL (sqlite3_column_text as char). */
const char *db_col_text(sqlite3_stmt *q, int i);
/* The text, or "" for SQL NULL. */
const char *db_col_str(sqlite3_stmt *q, int i);
/* A copy to free ("" for SQL NULL), or NULL out of memory. */
char *db_col_dup(sqlite3_stmt *q, int i);
/* The text into dst (len > 0; "" for SQL NULL), cut to len - 1 bytes. */
void db_col_copy(sqlite3_stmt *q, int i, char *dst, size_t len);

#endif
