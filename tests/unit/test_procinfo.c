/* common/procinfo.c: the boot time read once for both its users (a process's start in wall
 * time here, soak-gclog's anchor for uptime-only logs) is /proc/stat's btime line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "procinfo.h"

/* btime as soak-gclog read it before proc_btime: /proc/stat line by line. */
static long long btime_by_lines(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/stat", "r");

	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "btime %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void btime_is_the_stat_line(void **state)
{
	(void)state;
	long long b = proc_btime();
	assert_true(b > 0);
	assert_int_equal(b, btime_by_lines());
}

/* This process started after boot and not after now. */
static void own_start_lies_between_boot_and_now(void **state)
{
	(void)state;
	int64_t ms = proc_start_wall_ms(getpid());
	assert_true(ms >= proc_btime() * 1000);
	assert_true(ms <= (int64_t)time(NULL) * 1000 + 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(btime_is_the_stat_line),
	    cmocka_unit_test(own_start_lies_between_boot_and_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
