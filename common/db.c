/* db: the results database opened, hardened and migrated (db.h), and the statement
 * helpers every module uses; every error names the file.  A file is opened as a
 * stranger's whoever wrote it, and never through a link. */
#include "db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmode.h"

/* Generated from sql/ by tools/embed-sql.sh. */
extern const char *const sql_migrations[];
extern const int sql_migration_count;
extern const char sql_views[];

int db_schema_version(void)
{
	return sql_migration_count;
}

const char *db_default_path(void)
{
	const char *p = getenv("SOAK_DB");
	return p && *p ? p : "soak.db";
}

int db_fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
	const char *file = db ? sqlite3_db_filename(db, "main") : NULL;
	/* SQLITE_BUSY comes only once the busy timeout has run out: say that it did, so
	 * "database is locked" does not read like a momentary hiccup. */
	int busy = db && (sqlite3_extended_errcode(db) & 0xff) == SQLITE_BUSY;
	char why[64] = "";

	if (busy)
		snprintf(why, sizeof why, " (another process held it for over %d s)",
		         DB_BUSY_TIMEOUT_MS / 1000);
	snprintf(err, errlen, "%s%s%s%s: %s%s", what, file ? " ('" : "", file ? file : "",
	         file ? "')" : "", db ? sqlite3_errmsg(db) : "out of memory", why);
	return -1;
}

int db_finish(sqlite3 *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	return db_done(db, step, what, err, errlen);
}

int db_done(sqlite3 *db, int step, const char *what, char *err, size_t errlen)
{
	return step == SQLITE_DONE ? 0 : db_fail(db, what, err, errlen);
}

int db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "database error: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_prepare(sqlite3 *db, sqlite3_stmt **st, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(db, "cannot prepare a statement", err, errlen);
	return 0;
}

int db_begin(sqlite3 *db, char *err, size_t errlen)
{
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, "cannot start a transaction", err, errlen);
	return 0;
}

int db_commit(sqlite3 *db, char *err, size_t errlen)
{
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, "cannot commit", err, errlen);
		db_rollback(db);
		return -1;
	}
	return 0;
}

void db_rollback(sqlite3 *db)
{
	if (db && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int db_int(sqlite3 *db, const char *sql, long long dflt, long long *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (db_prepare(db, &st, sql, err, errlen) < 0)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_type(st, 0) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		*v = dflt;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_done(db, rc, "query failed", err, errlen);
}

int db_migrate_to(sqlite3 *db, int version, char *err, size_t errlen)
{
	long long have;
	char pragma[64];

	if (version > sql_migration_count)
		version = sql_migration_count;
	if (db_int(db, "PRAGMA user_version", 0, &have, err, errlen) < 0)
		return -1;
	for (int v = (int)have + 1; v <= version; v++) {
		if (db_begin(db, err, errlen) < 0)
			return -1;
		/* The version check is repeated inside the transaction: two processes opening a
		 * new file at once must not both apply a migration. */
		long long now;
		if (db_int(db, "PRAGMA user_version", 0, &now, err, errlen) < 0)
			goto fail;
		if (now >= v) {
			db_rollback(db);
			continue;
		}
		if (db_exec(db, sql_migrations[v - 1], err, errlen) < 0)
			goto fail;
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v);
		if (db_exec(db, pragma, err, errlen) < 0 || db_commit(db, err, errlen) < 0)
			goto fail;
	}
	return 0;
fail:
	db_rollback(db);
	{
		char inner[512];
		snprintf(inner, sizeof inner, "%s", err);
		snprintf(err, errlen, "cannot migrate '%s' to schema %d: %s",
		         sqlite3_db_filename(db, "main"), version, inner);
	}
	return -1;
}

/* Why path could not be opened: the OS error ("Read-only file system", "Not a directory")
 * says more than SQLite's "unable to open database file".  SQLite retries a failed open
 * read-only and keeps that attempt's errno (ENOENT), so when the file exists or was to be
 * created, a directory that is not writable (no room for the file or its -wal and -shm)
 * is the cause to name. */
static const char *open_error(sqlite3 *db, const char *path, int creating)
{
	int e = db ? sqlite3_system_errno(db) : ENOMEM;
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (e == ENOENT && (creating || access(path, F_OK) == 0)) {
		if (!slash)
			snprintf(dir, sizeof dir, ".");
		else
			snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path),
			         path);
		if (access(dir, W_OK) < 0)
			e = errno;
	}
	return e ? strerror(e) : sqlite3_errmsg(db);
}

/* A database and its -wal, -shm and -journal are opened by name, by SQLite as well: a link
 * planted at any of them would make soak write (as root, often) wherever it points.  0
 * when none of the four is a symbolic link, else -1 with err. */
static int no_links(const char *path, char *err, size_t errlen)
{
	static const char *const ext[] = {"", "-wal", "-shm", "-journal"};
	char name[4096 + 16];
	struct stat st;

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		snprintf(name, sizeof name, "%s%s", path, ext[i]);
		if (lstat(name, &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(err, errlen,
			         "cannot open '%s': '%s' is a symbolic link (soak opens no database "
			         "file through a link)",
			         path, name);
			return -1;
		}
	}
	return 0;
}

int db_harden(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	static const int off[] = {SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
	                          SQLITE_DBCONFIG_ENABLE_VIEW, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER,
	                          SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
	sqlite3_stmt *q = NULL;
	int step;

	if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK)
		return db_fail(db, "cannot make the connection defensive", err, errlen);
	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
		if (sqlite3_db_config(db, off[i], 0, NULL) != SQLITE_OK)
			return db_fail(db, "cannot make the connection defensive", err, errlen);
	if (sqlite3_prepare_v2(db,
	                       "SELECT type, name FROM main.sqlite_master WHERE type IN "
	                       "('trigger', 'view') ORDER BY type, name LIMIT 1",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(db, "cannot read the schema", err, errlen);
	step = sqlite3_step(q);
	if (step == SQLITE_ROW)
		snprintf(err, errlen,
		         "'%s' holds a %s soak did not make ('%s'): soak runs nothing a database "
		         "brings; remove it (sqlite3 '%s' 'DROP %s \"%s\"') if you trust the file",
		         path, db_col_str(q, 0), db_col_str(q, 1), path, db_col_str(q, 0),
		         db_col_str(q, 1));
	else if (step != SQLITE_DONE)
		db_fail(db, "cannot read the schema", err, errlen);
	sqlite3_finalize(q);
	return step == SQLITE_DONE ? 0 : -1;
}

int db_open(const char *path, int flags, sqlite3 **out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int oflags = (flags & DB_READONLY)
	                 ? SQLITE_OPEN_READONLY
	                 : SQLITE_OPEN_READWRITE | ((flags & DB_CREATE) ? SQLITE_OPEN_CREATE : 0);
	long long ver;

	*out = NULL;
	if (*path && strcmp(path, ":memory:") != 0 && strncmp(path, "file:", 5) != 0 &&
	    no_links(path, err, errlen) < 0)
		return -1;
	/* SQLite would create the file 0644 (and its -wal and -shm alike, which take the
	 * file's mode): created here first, it is its owner's (fmode.h). */
	if ((flags & DB_CREATE) && *path && strcmp(path, ":memory:") != 0 &&
	    strncmp(path, "file:", 5) != 0)
		fmode_create(path);
	if (sqlite3_open_v2(path, &db, oflags | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		         open_error(db, path, flags & DB_CREATE));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, DB_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	/* SQLite opens lazily: a file it cannot open (or whose -wal/-shm it cannot create, in
	 * a read-only directory) fails here, at the first read. */
	if (db_int(db, "PRAGMA user_version", 0, &ver, err, errlen) < 0) {
		if ((sqlite3_extended_errcode(db) & 0xff) == SQLITE_CANTOPEN)
			snprintf(err, errlen, "cannot open '%s': %s", path,
			         open_error(db, path, flags & DB_CREATE));
		else
			snprintf(err, errlen, "cannot read '%s' as a soak database: %s", path,
			         sqlite3_errmsg(db));
		goto fail;
	}
	/* Before anything else is read or written: the file may be anybody's. */
	if (db_harden(db, path, err, errlen) < 0)
		goto fail;
	if (ver > sql_migration_count) {
		snprintf(
		    err, errlen,
		    "'%s' was written by a newer soak (schema %lld; this soak knows up to %d): "
		    "upgrade soak to read it",
		    path, ver, sql_migration_count);
		goto fail;
	}
	if (!(flags & DB_READONLY)) {
		/* WAL: readers (a report during a 72-hour run) never block the writers. */
		if (db_exec(db, "PRAGMA journal_mode=WAL", err, errlen) < 0 ||
		    db_exec(db, "PRAGMA synchronous=NORMAL", err, errlen) < 0)
			goto fail;
		if (db_migrate_to(db, sql_migration_count, err, errlen) < 0)
			goto fail;
	} else if (ver < sql_migration_count) {
		snprintf(
		    err, errlen,
		    "'%s' has schema %lld, older than this soak's %d: open it once for writing "
		    "(e.g. `soak runs --db %s`) to migrate it",
		    path, ver, sql_migration_count, path);
		goto fail;
	}
	if (db_exec(db, "PRAGMA foreign_keys=ON", err, errlen) < 0)
		goto fail;
	if (sql_views[0] && db_exec(db, sql_views, err, errlen) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	return -1;
}

void db_close(sqlite3 *db)
{
	if (db)
		sqlite3_close(db);
}

const char *db_col_text(sqlite3_stmt *q, int i)
{
	return (const char *)sqlite3_column_text(q, i);
}

const char *db_col_str(sqlite3_stmt *q, int i)
{
	const char *s = db_col_text(q, i);
	return s ? s : "";
}

char *db_col_dup(sqlite3_stmt *q, int i)
{
	return strdup(db_col_str(q, i));
}

void db_col_copy(sqlite3_stmt *q, int i, char *dst, size_t len)
{
	snprintf(dst, len, "%s", db_col_str(q, i));
}
