/* common/safename.c: one loop makes every safe name: a picture's file name ('-' for what is
 * not kept), a JUnit class name ('_'), soak import's INI section name (which keeps '.');
 * each byte of a UTF-8 character replaced; cut to fit; empty stays empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "safename.h"

/* Pictures and JUnit keep letters, digits, '-' and '_', and differ in what stands for the
 * rest. */
static void picture_dash_junit_underscore(void **state)
{
	char out[64], small[6];

	(void)state;
	assert_string_equal(safe_name(out, sizeof out, "Tomcat 9.0/a_b-c", "-_", '-'),
	                    "Tomcat-9-0-a_b-c");
	assert_string_equal(safe_name(out, sizeof out, "Tomcat 9.0/a_b-c", "-_", '_'),
	                    "Tomcat_9_0_a_b-c");
	assert_string_equal(safe_name(out, sizeof out, "caf\xc3\xa9:1", "-_", '-'), "caf---1");
	assert_string_equal(safe_name(out, sizeof out, "", "-_", '_'), "");
	assert_string_equal(safe_name(small, sizeof small, "abcdefgh", "-_", '-'), "abcde");
}

/* An imported JMeter label's INI section keeps '.' too ("v1.2"), as jmeter.c always did. */
static void ini_section_keeps_dot(void **state)
{
	char out[80], small[4];

	(void)state;
	assert_string_equal(safe_name(out, sizeof out, "GET v1.2/login?x=1", "_-.", '_'),
	                    "GET_v1.2_login_x_1");
	assert_string_equal(safe_name(out, sizeof out, "a.b-c_d", "_-.", '_'), "a.b-c_d");
	assert_string_equal(safe_name(out, sizeof out, "\xc3\xa9.", "_-.", '_'), "__.");
	assert_string_equal(safe_name(small, sizeof small, "1.2.3", "_-.", '_'), "1.2");
	/* Without '.' in keep, the dot is replaced: the caller's set decides. */
	assert_string_equal(safe_name(out, sizeof out, "a.b", "_-", '_'), "a_b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(picture_dash_junit_underscore),
	    cmocka_unit_test(ini_section_keeps_dot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
