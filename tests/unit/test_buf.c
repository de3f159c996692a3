/* The growing string and array (buf), getopt's error words (opt) and the column helpers
 * of the database (db_col_*): the small pieces every module shares. */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "db.h"
#include "opt.h"

static void buf_text(void **state)
{
	struct buf b = {0};
	char big[1000];
	char *s;

	(void)state;
	buf_puts(&b, "GET ");
	buf_put(&b, "/path?x", 5);
	buf_printf(&b, " HTTP/1.%d", 1);
	assert_string_equal(b.p, "GET /path HTTP/1.1");
	assert_int_equal(b.n, strlen(b.p));
	/* Past the first 256 bytes and more: the text grows and stays whole. */
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	buf_printf(&b, "[%s]", big);
	assert_int_equal(b.n, 18 + 2 + 999);
	assert_true(b.cap >= b.n + 1);
	assert_int_equal(b.p[18], '[');
	assert_int_equal(b.p[b.n - 1], ']');
	s = buf_done(&b);
	assert_non_null(s);
	assert_int_equal(strlen(s), 18 + 2 + 999);
	assert_null(b.p); /* the text is the caller's now */
	free(s);
	/* Nothing put: an empty string, not NULL. */
	s = buf_done(&b);
	assert_string_equal(s, "");
	free(s);
	buf_free(&b);
}

static void buf_array(void **state)
{
	int *v = NULL;
	size_t cap = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(buf_grow(&v, &cap, (size_t)i + 1, sizeof *v, 16), 0);
		v[i] = i * 3;
	}
	assert_int_equal(cap, 1024); /* 16 doubled until it holds 1000 */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 3);
	/* Room enough: nothing moves. */
	int *was = v;
	assert_int_equal(buf_grow(&v, &cap, 10, sizeof *v, 16), 0);
	assert_ptr_equal(v, was);
	/* Past what a size_t can count: refused, the array as it was. */
	assert_int_equal(buf_grow(&v, &cap, SIZE_MAX / 2, sizeof *v, 16), -1);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 1024);
	free(v);
}

static void opt_words(void **state)
{
	char a0[] = "soak", a1[] = "--db";
	char *argv[] = {a0, a1, NULL};
	char err[128];
	int saved = optind;

	(void)state;
	optind = 2;
	opt_error_text(':', argv, err, sizeof err);
	assert_string_equal(err, "option '--db' needs a value");
	opt_error_text('?', argv, err, sizeof err);
	assert_string_equal(err, "unknown option '--db'");
	optind = 3; /* past the last argument: no word to quote */
	opt_error_text('?', argv, err, sizeof err);
	assert_string_equal(err, "unknown option '?'");
	optind = saved;
}

static void db_columns(void **state)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	char small[4], *d;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 'kernel 6.1', NULL", -1, &q, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal(db_col_text(q, 0), "kernel 6.1");
	assert_null(db_col_text(q, 1));
	assert_string_equal(db_col_str(q, 1), "");
	d = db_col_dup(q, 0);
	assert_string_equal(d, "kernel 6.1");
	free(d);
	d = db_col_dup(q, 1);
	assert_string_equal(d, "");
	free(d);
	db_col_copy(q, 0, small, sizeof small); /* cut to fit */
	assert_string_equal(small, "ker");
	db_col_copy(q, 1, small, sizeof small);
	assert_string_equal(small, "");
	sqlite3_finalize(q);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(buf_text),
	    cmocka_unit_test(buf_array),
	    cmocka_unit_test(opt_words),
	    cmocka_unit_test(db_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
