/* burn: CPU spent on purpose in one of two named functions (burn.h).  The spin does its
 * own arithmetic between clock reads, so most of its samples land in the function itself,
 * and it stops on the thread's own CPU clock, so a busy machine makes it no cheaper. */
#include "burn.h"

#include <time.h>

/* The thread's CPU time, ns. */
static int64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spins until `us` of this thread's CPU is spent; the sink keeps the loop from being
 * optimised away. */
static inline void spin(int64_t us)
{
	volatile uint64_t sink = 0;
	int64_t until = thread_ns() + us * 1000;

	while (thread_ns() < until)
		for (int i = 0; i < 20000; i++) /* ~10 µs between clock reads */
			sink = sink * 6364136223846793005u + 1442695040888963407u;
}

__attribute__((noinline)) void regserver_burn_a(int64_t us)
{
	spin(us);
	__asm__ volatile("" ::: "memory"); /* a body of its own: never folded with burn_b */
}

__attribute__((noinline)) void regserver_burn_b(int64_t us)
{
	spin(us);
	__asm__ volatile("nop" ::: "memory");
}

void regserver_burn(int which, int64_t us)
{
	if (which == 'a')
		regserver_burn_a(us);
	else if (which == 'b')
		regserver_burn_b(us);
}
