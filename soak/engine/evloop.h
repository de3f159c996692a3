/*
 * evloop — a worker's epoll set and the eventfd that wakes it, the part the drivers' event
 * loops share (http.c in epoll mode, tcpframe.c, lean.c).
 *
 * A registration carries 64 bits of the caller's (epoll_event.data.u64), except the value
 * EVLOOP_WAKE, which is the wake-up's own.  evloop_tag() packs a slot number and the
 * generation of its connection, so that an event of a connection closed earlier in the
 * same batch is told apart from one of the connection that now has the slot.
 *
 * Threads: evloop_wake() may be called from any thread; everything else belongs to the
 * worker that owns the loop.
 */
#ifndef SOAK_EVLOOP_H
#define SOAK_EVLOOP_H

#include <stdint.h>
#include <sys/epoll.h>

#define EVLOOP_WAKE UINT64_MAX /* the wake-up eventfd's registration */

struct evloop {
	int epfd;   /* the epoll set, -1 before evloop_init */
	int wakefd; /* eventfd written by evloop_wake, registered as EVLOOP_WAKE */
};

/* Creates the set and the wake-up; 0, or -1 with err.  After a failure (or none), release
 * is still safe when the struct was set to {-1, -1} or zeroed by evloop_none. */
int evloop_init(struct evloop *l, char *err, size_t errlen);
/* A loop that holds nothing yet (evloop_release is a no-op on it). */
void evloop_none(struct evloop *l);
void evloop_release(struct evloop *l);
/* Interrupts a wait in progress (or the next one). */
void evloop_wake(struct evloop *l);
/* Waits up to wait_us (< 0: forever) for events; the wake-up is consumed and not returned.
 * Returns the number of events in ev (0 on a time-out or a wake-up alone, -1 on error). */
int evloop_wait(struct evloop *l, struct epoll_event *ev, int n, int64_t wait_us);

static inline uint64_t evloop_tag(int slot, uint32_t gen)
{
	return (uint64_t)(uint32_t)slot | (uint64_t)gen << 32;
}
static inline int evloop_slot(uint64_t tag)
{
	return (int)(uint32_t)tag;
}
static inline uint32_t evloop_gen(uint64_t tag)
{
	return (uint32_t)(tag >> 32);
}

#endif
