/*
 * delay — answers later without holding a thread: a min-heap of deadlines served by one
 * timer thread.
 *
 * The server's workers never sleep.  A worker that has an answer ready before its deadline
 * suspends the connection and hands the deadline and an opaque pointer to delay_add(); when
 * CLOCK_MONOTONIC reaches the deadline the timer thread calls fire(cls, arg) (the server's
 * fire resumes the connection, and libmicrohttpd calls the handler again, which sends the
 * prepared answer).  Thousands of delayed answers cost one heap entry each, not a thread.
 *
 * Contract:
 *  - fire is called exactly once per accepted entry, from the timer thread, outside the
 *    lock, in deadline order (equal deadlines in insertion order); never after
 *    delay_close() returns.
 *  - The capacity is fixed at creation (the server passes its connection limit: a
 *    connection has at most one delayed answer).  delay_add() refuses (-1) when the heap is
 *    full or closed; the caller then answers at once.
 *  - delay_close() fires every pending entry immediately, refuses new ones and joins the
 *    thread.  The server calls it before stopping libmicrohttpd, which must not stop while
 *    connections are suspended.
 *
 * Thread rules: delay_add() from any thread; delay_new(), delay_close() and delay_free()
 * from the owner only.  The timer thread sets its timer slack to 1 ns (PR_SET_TIMERSLACK)
 * so a wake-up lands within tens of microseconds of the deadline, not the default 50 µs+.
 */
#ifndef REGSERVER_DELAY_H
#define REGSERVER_DELAY_H

#include <stddef.h>
#include <stdint.h>

/* Called by the timer thread when arg's deadline has come. */
typedef void (*delay_fire_fn)(void *cls, void *arg);

struct delay;

/* Creates the heap (cap entries, cap >= 1) and starts the timer thread. */
int delay_new(size_t cap, delay_fire_fn fire, void *cls, struct delay **out, char *err,
              size_t errlen);
/* Schedules fire(cls, arg) at CLOCK_MONOTONIC time at_ns.  0, or -1 when full or closed. */
int delay_add(struct delay *d, int64_t at_ns, void *arg);
/* Entries waiting now (a snapshot, for diagnostics). */
size_t delay_pending(struct delay *d);
/* The most entries that waited at once since delay_new(): how many answers the server
 * held back together without a thread each (tests count it instead of timing them). */
size_t delay_peak(struct delay *d);
/* Fires everything pending now, refuses further entries, stops the thread.  Idempotent. */
void delay_close(struct delay *d);
/* Closes (if not yet) and frees.  NULL is a no-op. */
void delay_free(struct delay *d);

#endif
