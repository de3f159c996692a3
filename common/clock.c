/* clock: the monotonic clock for durations and the wall clock for stored timestamps
 * (clock.h).  Nothing else in soak reads a clock directly for either use. */
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

static int64_t ts_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}
int64_t clock_mono_us(void)
{
	return ts_ns(CLOCK_MONOTONIC) / 1000;
}
int64_t clock_mono_ms(void)
{
	return ts_ns(CLOCK_MONOTONIC) / 1000000;
}
int64_t clock_wall_ms(void)
{
	return ts_ns(CLOCK_REALTIME) / 1000000;
}

char *clock_iso(int64_t epoch_ms, char *buf, size_t len)
{
	time_t s = (time_t)(epoch_ms / 1000);
	struct tm tm;
	char day[24];

	gmtime_r(&s, &tm);
	strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", day, (int)(epoch_ms % 1000));
	return buf;
}

void clock_sleep_ms(int64_t ms, const volatile int *stop)
{
	struct timespec req, rem;

	if (ms <= 0)
		return;
	req.tv_sec = ms / 1000;
	req.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&req, &rem) < 0 && errno == EINTR) {
		if (stop && *stop)
			return;
		req = rem;
	}
}
