/* common/dbroles.c: sql/roles.txt covers the schema the migrations make, every table and
 * text column, and a migration that adds one without a role is caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db.h"
#include "dbroles.h"
#include "redact.h"

/* A database in memory with every migration applied. */
static sqlite3 *fresh(void)
{
	sqlite3 *db = NULL;
	char err[512];

	assert_int_equal(db_open(":memory:", DB_CREATE, &db, err, sizeof err), 0);
	return db;
}

static void the_schema_is_covered(void **state)
{
	sqlite3 *db = fresh();
	char err[512] = "";
	(void)state;

	if (dbroles_check(db, err, sizeof err) < 0)
		fail_msg("%s", err);
	db_close(db);
}

static void a_new_table_or_text_column_without_a_role_fails(void **state)
{
	sqlite3 *db = fresh();
	char err[512];
	(void)state;

	/* What a careless migration would do. */
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE traces (run_id INTEGER, span TEXT)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(dbroles_check(db, err, sizeof err), -1);
	assert_string_equal(err, "table 'traces' has no role in sql/roles.txt");
	assert_int_equal(sqlite3_exec(db, "DROP TABLE traces; ALTER TABLE events ADD note TEXT",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(dbroles_check(db, err, sizeof err), -1);
	assert_string_equal(err, "text column 'events.note' has no role in sql/roles.txt");
	/* A number needs no role: it holds no secret and is copied as it is. */
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE events DROP note; ALTER TABLE events ADD n "
	                                  "INTEGER",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(dbroles_check(db, err, sizeof err), 0);
	db_close(db);
}

static void a_role_of_what_is_gone_fails(void **state)
{
	sqlite3 *db = fresh();
	char err[512];
	(void)state;

	assert_int_equal(sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN origin", NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(dbroles_check(db, err, sizeof err), -1);
	assert_string_equal(err, "sql/roles.txt: runs.origin plain: no such table or column");
	db_close(db);
}

static void rows_of_a_run_name_their_run(void **state)
{
	(void)state;
	/* Every table whose rows belong to a run says which column holds its id. */
	for (int i = 0; i < dbroles_nlines; i++) {
		const char *t = dbroles_lines[i].table;
		enum dbrole_table r = dbroles_table(t);
		if (dbroles_lines[i].column[0] || r == DBT_RUN || r == DBT_STUDY)
			continue;
		int has = 0;
		for (int k = 0; k < dbroles_nlines; k++)
			has |= !strcmp(dbroles_lines[k].table, t) &&
			       (dbroles_col(t, dbroles_lines[k].column) == DBC_RUN_ID ||
			        dbroles_col(t, dbroles_lines[k].column) == DBC_STUDY_ID);
		if (!has)
			fail_msg("%s: rows of a run or study with no run-id or study-id column", t);
	}
	assert_int_equal(dbroles_table("runs"), DBT_RUN);
	assert_int_equal(dbroles_table("samples"), DBT_RUN_ROWS_OPT);
	assert_int_equal(dbroles_col("runs", "reason"), DBC_SECRET_TEXT);
	assert_int_equal(dbroles_col("intervals", "requests"), DBC_DATA);
}

static void shown_redacts_by_role(void **state)
{
	struct redact r;
	char err[128];
	char *a, *b, *c;
	(void)state;

	redact_init(&r);
	assert_int_equal(redact_add(&r, "X-Tenant", err, sizeof err), 0);
	a = dbroles_shown(&r, "runs", "reason", "HTTP 401 for X-Tenant: lab-7");
	b = dbroles_shown(&r, "runs", "label", "X-Tenant: lab-7");
	c = dbroles_shown(NULL, "runs", "scenario", "[request]\nheader = Authorization: Bearer t0k\n");
	assert_string_equal(a, "HTTP 401 for X-Tenant: " REDACTED);
	assert_string_equal(b, "X-Tenant: lab-7"); /* a label is shown as given */
	assert_non_null(strstr(c, "Authorization: Bearer " REDACTED));
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_schema_is_covered),
	    cmocka_unit_test(a_new_table_or_text_column_without_a_role_fails),
	    cmocka_unit_test(a_role_of_what_is_gone_fails),
	    cmocka_unit_test(rows_of_a_run_name_their_run),
	    cmocka_unit_test(shown_redacts_by_role),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
