/* Durations, spans, ranges and percentages: good and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dur.h"

static void dur_good(void **state)
{
	static const struct {
		const char *in;
		int64_t ms;
	} cases[] = {{"250ms", 250},     {"30s", 30000},      {"30m", 1800000}, {"2h", 7200000},
	             {"72h", 259200000}, {"3d", 259200000},   {"0", 0},         {" 1.5h ", 5400000},
	             {"1h30m", 5400000}, {"10s500ms", 10500}, {"0.25s", 250},   {"12h", 43200000},
	             {"4h", 14400000},   {"1m", 60000}};
	char err[128];
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t ms = -1;
		assert_int_equal(dur_parse(cases[i].in, &ms, err, sizeof err), 0);
		assert_int_equal(ms, cases[i].ms);
	}
}

static void dur_bad(void **state)
{
	static const struct {
		const char *in, *msg;
	} cases[] = {{"", "empty duration"},
	             {"30", "bad duration '30': missing unit (ms, s, m, h or d)"},
	             {"30x", "bad duration '30x': unknown unit 'x' (use ms, s, m, h or d)"},
	             {"m", "bad duration 'm': expected a number"},
	             {"-5s", "bad duration '-5s': expected a number"},
	             {"400d", "bad duration '400d': longer than a year"},
	             {"1.2.3s", "bad duration '1.2.3s'"}};
	char err[128];
	int64_t ms;
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(dur_parse(cases[i].in, &ms, err, sizeof err), -1);
		assert_string_equal(err, cases[i].msg);
	}
}

static void dur_format_roundtrip(void **state)
{
	static const struct {
		int64_t ms;
		const char *out;
	} cases[] = {{0, "0s"},       {250, "250ms"},       {45000, "45s"},   {90000, "1m30s"},
	             {7200000, "2h"}, {129600000, "1d12h"}, {1500, "1s500ms"}};
	char buf[32], err[64];
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t back;
		assert_string_equal(dur_format(cases[i].ms, buf, sizeof buf), cases[i].out);
		assert_int_equal(dur_parse(buf, &back, err, sizeof err), 0);
		assert_int_equal(back, cases[i].ms);
	}
}

static void spans(void **state)
{
	int64_t a, b;
	char err[128];
	(void)state;
	assert_int_equal(dur_span_parse("100ms..300ms", &a, &b, err, sizeof err), 0);
	assert_int_equal(a, 100);
	assert_int_equal(b, 300);
	assert_int_equal(dur_span_parse("0", &a, &b, err, sizeof err), 0);
	assert_int_equal(a + b, 0);
	assert_int_equal(dur_span_parse("2s .. 1s", &a, &b, err, sizeof err), -1);
	assert_string_equal(err, "bad range '2s .. 1s': the end is before the start");
}

static void ranges(void **state)
{
	int v[64], n;
	char err[128];
	(void)state;
	assert_int_equal(dur_range_parse("10..100 step 10", 1, 100000, v, 64, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 10);
	assert_int_equal(v[0], 10);
	assert_int_equal(v[9], 100);
	assert_int_equal(dur_range_parse("10,20, 50", 1, 100000, v, 64, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[2], 50);
	assert_int_equal(dur_range_parse("30", 1, 100000, v, 64, &n, err, sizeof err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(dur_range_parse("1..5", 1, 100000, v, 64, &n, err, sizeof err), 0);
	assert_int_equal(n, 5);
	assert_int_equal(dur_range_parse("10..", 1, 100000, v, 64, &n, err, sizeof err), -1);
	assert_string_equal(err, "bad range '10..': expected N, A..B [step S] or A,B,C");
	assert_int_equal(dur_range_parse("100..10", 1, 100000, v, 64, &n, err, sizeof err), -1);
	assert_string_equal(err, "bad range '100..10': the end is before the start");
	assert_int_equal(dur_range_parse("0,10", 1, 100000, v, 64, &n, err, sizeof err), -1);
	assert_string_equal(err, "bad range '0,10': 0 is outside 1..100000");
	assert_int_equal(dur_range_parse("1..1000", 1, 100000, v, 64, &n, err, sizeof err), -1);
	assert_string_equal(err, "bad range '1..1000': more than 64 levels");
	assert_int_equal(dur_range_parse("10 .. 30 step 0", 1, 100000, v, 64, &n, err, sizeof err),
	                 -1);
}

static void percentages(void **state)
{
	double f;
	char err[128];
	(void)state;
	assert_int_equal(dur_pct_parse("1%", &f, err, sizeof err), 0);
	assert_float_equal(f, 0.01, 1e-12);
	assert_int_equal(dur_pct_parse(" 0.5 % ", &f, err, sizeof err), 0);
	assert_float_equal(f, 0.005, 1e-12);
	assert_int_equal(dur_pct_parse("0.1", &f, err, sizeof err), 0);
	assert_float_equal(f, 0.1, 1e-12);
	assert_int_equal(dur_pct_parse("5", &f, err, sizeof err), -1);
	assert_string_equal(err, "bad percentage '5': expected e.g. 1%, 0.5% or a fraction 0..1");
	assert_int_equal(dur_pct_parse("150%", &f, err, sizeof err), -1);
	assert_int_equal(dur_pct_parse("abc", &f, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dur_good),
	    cmocka_unit_test(dur_bad),
	    cmocka_unit_test(dur_format_roundtrip),
	    cmocka_unit_test(spans),
	    cmocka_unit_test(ranges),
	    cmocka_unit_test(percentages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
