/* A user's pattern compiled: one that matches, one that does not compile and why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "re.h"

static void re_good(void **state)
{
	char why[160] = "";
	pcre2_code *re = re_compile("java.*-Dsoak=1", why, sizeof why);
	pcre2_match_data *md;
	const char *line = "/usr/bin/java -Xmx1g -Dsoak=1 Main";
	(void)state;
	assert_non_null(re);
	assert_string_equal(why, "");
	md = pcre2_match_data_create_from_pattern(re, NULL);
	assert_non_null(md);
	assert_true(pcre2_match(re, (PCRE2_SPTR)line, strlen(line), 0, 0, md, NULL) > 0);
	assert_true(pcre2_match(re, (PCRE2_SPTR) "java Main", 9, 0, 0, md, NULL) < 0);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
}

static void re_bad(void **state)
{
	char why[160];
	(void)state;
	assert_null(re_compile("(ab", why, sizeof why));
	assert_string_equal(why, "missing closing parenthesis at offset 3");
	assert_null(re_compile("a[", why, 8)); /* cut to the buffer */
	assert_int_equal(strlen(why), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(re_good),
	    cmocka_unit_test(re_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
