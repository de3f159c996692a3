/* CPU sets for placement (common/cpus.c): the list syntax both ways, with its errors;
 * pinning this process and reading its Cpus_allowed_list back; a set's busy share from
 * /proc/stat; and the process sets a scenario names (common/procinfo.c). */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "cpus.h"
#include "procinfo.h"

static void parse_and_format(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {{"0", "0"},        {"1-3", "1-3"}, {"0,2-3", "0,2-3"},     {"3,2,1", "1-3"},
	          {" 0 , 5", "0,5"}, {"0-0", "0"},   {"7,0-1,4", "0-1,4,7"}, {"1023", "1023"}};
	static const char *const bad[] = {"",   "a",   "1-",  "-1",   "3-1",   "1,,2",
	                                  "1,", "1 2", "0x1", "1024", "2-9999"};
	cpu_set_t set;
	char err[256], buf[CPUS_LIST_MAX];
	(void)state;

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		if (cpus_parse(ok[i].in, &set, err, sizeof err) < 0)
			fail_msg("'%s': %s", ok[i].in, err);
		assert_string_equal(cpus_format(&set, buf, sizeof buf), ok[i].out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (cpus_parse(bad[i], &set, err, sizeof err) == 0)
			fail_msg("'%s' parsed", bad[i]);
		assert_true(err[0] == '\'');
	}
	cpu_set_t a, b;
	assert_int_equal(cpus_parse("0-1", &a, err, sizeof err), 0);
	assert_int_equal(cpus_parse("2", &b, err, sizeof err), 0);
	assert_true(cpus_disjoint(&a, &b));
	assert_int_equal(cpus_parse("1-2", &b, err, sizeof err), 0);
	assert_false(cpus_disjoint(&a, &b));
	assert_false(cpus_equal(&a, &b));
	CPU_ZERO(&set);
	assert_string_equal(cpus_format(&set, buf, sizeof buf), "");
}

/* This process pinned to one CPU it may use, and back: the kernel's own list agrees. */
static void place_self(void **state)
{
	cpu_set_t was, one, now;
	char err[256];
	int first = -1;
	(void)state;

	assert_int_equal(sched_getaffinity(0, sizeof was, &was), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &was))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	if (cpus_place(0, &one, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_int_equal(cpus_of(0, &now, err, sizeof err), 0);
	assert_true(cpus_equal(&now, &one));
	if (cpus_place(0, &was, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_int_equal(cpus_of(0, &now, err, sizeof err), 0);
	assert_true(cpus_equal(&now, &was));
	/* A process that does not exist is an error with its pid. */
	assert_int_equal(cpus_place(1 << 30, &one, err, sizeof err), -1);
	assert_non_null(strstr(err, "process"));
}

/* A CPU kept busy by this thread shows busy; the counters only grow. */
static void busy_share(void **state)
{
	cpu_set_t was, one;
	struct cpus_stat a, b;
	char err[256];
	int first = -1;
	(void)state;

	assert_int_equal(sched_getaffinity(0, sizeof was, &was), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &was))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(cpus_place(0, &one, err, sizeof err), 0);
	assert_int_equal(cpus_sample(&one, &a), 0);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile uint64_t x = 1;
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
	assert_int_equal(cpus_sample(&one, &b), 0);
	assert_int_equal(cpus_place(0, &was, err, sizeof err), 0);
	double busy = cpus_busy_pct(&a, &b);
	/* This thread alone kept it busy (others may have too). */
	if (!(busy >= 80 && busy <= 100.0001))
		fail_msg("CPU %d busy %.1f%% while this thread spun on it", first, busy);
	assert_true(isnan(cpus_busy_pct(&b, &b)));
}

/* The process sets of a scenario: a pid, a pid file, a pattern (never this process). */
static void process_sets(void **state)
{
	long pids[4];
	char err[256], path[] = "/tmp/soak-test-cpus-XXXXXX";
	int fd;
	(void)state;

	assert_int_equal(proc_set_find(getpid(), NULL, NULL, pids, 4, err, sizeof err), 1);
	assert_int_equal(pids[0], getpid());
	fd = mkstemp(path);
	assert_true(fd >= 0);
	dprintf(fd, "%ld\n", (long)getppid());
	close(fd);
	assert_int_equal(proc_set_find(0, path, NULL, pids, 4, err, sizeof err), 1);
	assert_int_equal(pids[0], getppid());
	unlink(path);
	/* This test's own command line matches its name, but it is never its own target. */
	assert_int_equal(proc_set_find(0, NULL, "test_cpus", pids, 4, err, sizeof err), 0);
	assert_int_equal(proc_set_find(0, NULL, "(", pids, 4, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad pattern"));
	assert_int_equal(proc_set_find(0, NULL, NULL, pids, 4, err, sizeof err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_and_format),
	    cmocka_unit_test(place_self),
	    cmocka_unit_test(busy_share),
	    cmocka_unit_test(process_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
