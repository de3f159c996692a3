/*
 * burn — a known CPU cost per request in one named function, so that a profile of the
 * server can be held against the cost that was put in (soak's profile tests): burn_a() and
 * burn_b() are two distinct functions that are never inlined, each spinning until the
 * calling thread has used `us` microseconds of CPU (CLOCK_THREAD_CPUTIME_ID), whatever else
 * the machine does.  Thread-safe, no state.
 */
#ifndef REGSERVER_BURN_H
#define REGSERVER_BURN_H

#include <stdint.h>

/* Which function burns: 0 none, 'a' or 'b'. */
void regserver_burn(int which, int64_t us);
/* The two functions a profile names (exported: their symbols survive in the binary). */
void regserver_burn_a(int64_t us);
void regserver_burn_b(int64_t us);

#endif
