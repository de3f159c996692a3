/* common/slurp.c: a whole file read into memory, empty or longer than any first buffer; a
 * missing file; the cap refused or cut; a link at a name in a folder never followed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "slurp.h"
#include "testdir.h"

#define BIG (200 * 1024 + 7) /* past the 64 KiB chunk and buf's first 256 bytes */

/* Writes n bytes of a repeating pattern (or nothing) to testdir/name; its path in path. */
static void make(const char *name, size_t n, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", testdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	assert_int_equal(fclose(f), 0);
}

static void an_empty_file_is_an_empty_string(void **state)
{
	char path[128];
	size_t n = 99;
	int more = 9;

	(void)state;
	make("empty", 0, path, sizeof path);
	char *s = slurp(AT_FDCWD, path, 100, &n, &more);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(n, 0);
	assert_int_equal(more, 0);
	free(s);
}

static void a_file_past_the_first_buffer_is_read_whole(void **state)
{
	char path[128];
	size_t n = 0;

	(void)state;
	make("big", BIG, path, sizeof path);
	char *s = slurp(AT_FDCWD, path, BIG, &n, NULL);
	assert_non_null(s);
	assert_int_equal(n, BIG);
	assert_int_equal(strlen(s), BIG);
	assert_int_equal(s[BIG - 1], 'a' + (BIG - 1) % 26);
	free(s);
}

static void a_missing_file_is_null_with_enoent(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof path, "%s/no-such-file", testdir);
	errno = 0;
	assert_null(slurp(AT_FDCWD, path, 100, NULL, NULL));
	assert_int_equal(errno, ENOENT);
}

/* Past max: refused without `more`, cut to max with it. */
static void past_the_cap_refused_or_cut(void **state)
{
	char path[128];
	size_t n = 0;
	int more = 0;

	(void)state;
	make("capped", BIG, path, sizeof path);
	errno = 0;
	assert_null(slurp(AT_FDCWD, path, BIG - 1, NULL, NULL));
	assert_int_equal(errno, EFBIG);
	char *s = slurp(AT_FDCWD, path, 70000, &n, &more);
	assert_non_null(s);
	assert_int_equal(n, 70000);
	assert_int_equal(strlen(s), 70000);
	assert_int_equal(more, 1);
	free(s);
	s = slurp(AT_FDCWD, path, BIG, &n, &more);
	assert_non_null(s);
	assert_int_equal(more, 0);
	free(s);
}

/* A name in a folder that is a link is not followed; a path with AT_FDCWD is. */
static void a_link_in_a_folder_is_not_followed(void **state)
{
	char path[128], link[128];
	int dir = open(testdir, O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(dir >= 0);
	make("target", 5, path, sizeof path);
	snprintf(link, sizeof link, "%s/link", testdir);
	assert_int_equal(symlink(path, link), 0);
	errno = 0;
	assert_null(slurp(dir, "link", 100, NULL, NULL));
	assert_int_equal(errno, ELOOP);
	char *s = slurp(dir, "target", 100, NULL, NULL);
	assert_string_equal(s, "abcde");
	free(s);
	s = slurp(AT_FDCWD, link, 100, NULL, NULL);
	assert_string_equal(s, "abcde");
	free(s);
	close(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_empty_file_is_an_empty_string),
	    cmocka_unit_test(a_file_past_the_first_buffer_is_read_whole),
	    cmocka_unit_test(a_missing_file_is_null_with_enoent),
	    cmocka_unit_test(past_the_cap_refused_or_cut),
	    cmocka_unit_test(a_link_in_a_folder_is_not_followed),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
