/* The results database: creation, migration of an old file, refusal of a newer one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "db.h"

#include "testdir.h"

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", testdir, name);
}

static void create_new(void **state)
{
	char path[128], err[512];
	sqlite3 *db;
	long long v;
	(void)state;
	path_of(path, sizeof path, "new.db");
	assert_int_equal(db_open(path, DB_CREATE, &db, err, sizeof err), 0);
	assert_int_equal(db_int(db, "PRAGMA user_version", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, db_schema_version());
	assert_int_equal(
	    db_int(db,
	           "SELECT count(*) FROM sqlite_master WHERE name IN "
	           "('runs','steps','intervals','interval_errors','samples','gc_events','events')",
	           -1, &v, err, sizeof err),
	    0);
	assert_int_equal(v, 7);
	assert_int_equal(db_int(db, "PRAGMA journal_mode", -1, &v, err, sizeof err), 0);
	db_close(db);
}

static void missing_without_create(void **state)
{
	char path[128], err[512];
	sqlite3 *db;
	(void)state;
	path_of(path, sizeof path, "absent.db");
	assert_int_equal(db_open(path, 0, &db, err, sizeof err), -1);
	assert_null(db);
	assert_non_null(strstr(err, "cannot open '"));
	assert_int_equal(access(path, F_OK), -1);
}

/* A version-0 file (plain SQLite, nothing in it) is migrated; so is a file left at an
 * older schema, keeping its rows. */
static void migrates_old_files(void **state)
{
	char path[128], err[512];
	sqlite3 *raw, *db;
	long long v;
	(void)state;
	path_of(path, sizeof path, "v0.db");
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "CREATE TABLE notes(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(db_open(path, 0, &db, err, sizeof err), 0);
	assert_int_equal(db_int(db, "PRAGMA user_version", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, db_schema_version());
	assert_int_equal(db_int(db, "SELECT count(*) FROM runs", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	db_close(db);

	path_of(path, sizeof path, "v1.db");
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(db_migrate_to(raw, 1, err, sizeof err), 0);
	assert_int_equal(
	    sqlite3_exec(
	        raw,
	        "INSERT INTO runs(uuid,name,label,mode,connection,host,"
	        "interval_ms,started_ms) VALUES('u','n','l','fixed','keepalive','h',10000,1)",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(db_open(path, 0, &db, err, sizeof err), 0);
	assert_int_equal(db_int(db, "PRAGMA user_version", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, db_schema_version());
	assert_int_equal(
	    db_int(db, "SELECT count(*) FROM runs WHERE label='l'", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, 1);
	db_close(db);
}

static void refuses_newer(void **state)
{
	char path[128], err[512], want[512];
	sqlite3 *raw, *db;
	(void)state;
	path_of(path, sizeof path, "future.db");
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "PRAGMA user_version = 999", NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(db_open(path, 0, &db, err, sizeof err), -1);
	snprintf(want, sizeof want,
	         "'%s' was written by a newer soak (schema 999; this soak knows up to %d): upgrade "
	         "soak to read it",
	         path, db_schema_version());
	assert_string_equal(err, want);
}

static void not_a_database(void **state)
{
	char path[128], err[512];
	sqlite3 *db;
	FILE *f;
	(void)state;
	path_of(path, sizeof path, "text.db");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a database, just text that is long enough to be a header ........\n", f);
	fclose(f);
	assert_int_equal(db_open(path, 0, &db, err, sizeof err), -1);
	assert_non_null(strstr(err, "as a soak database"));
}

/* The report views exist on every connection, read-only ones included. */
static void views_on_readonly(void **state)
{
	char path[128], err[512];
	sqlite3 *db;
	long long v;
	(void)state;
	path_of(path, sizeof path, "ro.db");
	assert_int_equal(db_open(path, DB_CREATE, &db, err, sizeof err), 0);
	db_close(db);
	assert_int_equal(db_open(path, DB_READONLY, &db, err, sizeof err), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM step_rows", -1, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	db_close(db);
}

/* A loop's last step, and a statement run once: done is 0, a failure is worded with what
 * was being done. */
static void done_or_failed(void **state)
{
	char path[128], err[512] = "";
	sqlite3 *db;
	sqlite3_stmt *q = NULL;
	int step;
	(void)state;
	path_of(path, sizeof path, "done.db");
	assert_int_equal(db_open(path, DB_CREATE, &db, err, sizeof err), 0);
	assert_int_equal(db_prepare(db, &q, "SELECT id FROM runs", err, sizeof err), 0);
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		;
	assert_int_equal(db_done(db, step, "cannot read runs", err, sizeof err), 0);
	assert_string_equal(err, "");
	sqlite3_finalize(q);
	assert_int_equal(
	    db_prepare(db, &q, "SELECT abs(-9223372036854775807 - 1)", err, sizeof err), 0);
	step = sqlite3_step(q);
	assert_int_equal(db_done(db, step, "cannot read runs", err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot read runs ('"));
	assert_non_null(strstr(err, "integer overflow"));
	sqlite3_finalize(q);
	assert_int_equal(db_prepare(db, &q, "UPDATE runs SET label = 'x'", err, sizeof err), 0);
	assert_int_equal(db_finish(db, q, "cannot label", err, sizeof err), 0);
	assert_int_equal(
	    db_prepare(db, &q, "SELECT abs(-9223372036854775807 - 1)", err, sizeof err), 0);
	assert_int_equal(db_finish(db, q, "cannot label", err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot label ('"));
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(create_new),         cmocka_unit_test(missing_without_create),
	    cmocka_unit_test(migrates_old_files), cmocka_unit_test(refuses_newer),
	    cmocka_unit_test(not_a_database),     cmocka_unit_test(views_on_readonly),
	    cmocka_unit_test(done_or_failed),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
