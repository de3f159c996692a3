/* probe: the machine-speed probe (probe.h).
 * The probe measures the machine, never the target; its figure is stored beside each
 * interval so a report can tell a slow machine from a slow server. */
#include "probe.h"

#include <math.h>
#include <stdint.h>
#include <time.h>

#define PROBE_ROUNDS 100000 /* xorshift steps: about 0.2 ms of one core here */
#define PROBE_TRIES  3      /* the least of these: an interrupt inflates one, not all */

static double thread_cpu_us(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return NAN;
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The result is stored where the compiler must assume it is read: the loop stays. */
volatile uint64_t probe_sink;

double probe_us(void)
{
	double best = NAN;

	for (int t = 0; t < PROBE_TRIES; t++) {
		uint64_t x = 0x9E3779B97F4A7C15ULL + (uint64_t)t;
		double t0 = thread_cpu_us();
		for (int i = 0; i < PROBE_ROUNDS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		probe_sink = x;
		double took = thread_cpu_us() - t0;
		if (isfinite(took) && took > 0 && !(took >= best))
			best = took;
	}
	return best;
}
