/*
 * vclock — a virtual monotonic clock for unit tests of threaded code (test_sched.c runs
 * the engine's scheduler on it): a conservative discrete-event simulation.  The threads
 * that take part (participants) run one at a time, the one holding the baton; the others
 * are ready (first come, first run) or blocked until a virtual moment.  Only when none is
 * ready does time move: it jumps to the earliest wake-up.  So a test does the same on any
 * machine, however busy, its waits take no real time, and the baton's mutex orders every
 * participant's memory accesses after the previous one's.  Ties: participants that wake
 * at one moment run in the order they joined.  Any thread may read the clock; one that
 * is not a participant never makes time move.
 */
#ifndef SOAK_VCLOCK_H
#define SOAK_VCLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define VCLOCK_MAX 8 /* participants at once */

enum { VP_OUT = 0, VP_READY, VP_RUN, VP_BLOCKED };

/* One participant; its owner keeps it (zeroed: not taking part). */
struct vpart {
	int state;         /* VP_* */
	int64_t until;     /* VP_BLOCKED: the virtual moment it wakes at */
	int wakeable;      /* VP_BLOCKED: vclock_wake ends the wait (a poll, not a sleep) */
	int woken;         /* a wake it could not take then: its next poll returns at once */
	uint64_t ticket;   /* VP_READY: when it became ready (first come, first run) */
	pthread_cond_t cv; /* signalled when it gets the baton */
};

/* The clock; guarded by mu. */
static struct {
	pthread_mutex_t mu;
	int64_t now;                 /* virtual µs */
	uint64_t tickets;            /* the last ticket given */
	struct vpart *p[VCLOCK_MAX]; /* participants, in the order they joined */
	int n;
	int running; /* a participant holds the baton */
	pthread_once_t once;
	pthread_key_t self; /* a bound thread's participant: it leaves when the thread ends */
} vclock = {.mu = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static inline int64_t vclock_now(void)
{
	pthread_mutex_lock(&vclock.mu);
	int64_t t = vclock.now;
	pthread_mutex_unlock(&vclock.mu);
	return t;
}

/* Starts the clock again at `origin`; no participant may be in. */
static inline void vclock_reset(int64_t origin)
{
	pthread_mutex_lock(&vclock.mu);
	if (vclock.n > 0) {
		fprintf(stderr, "vclock_reset: %d participants still in\n", vclock.n);
		abort();
	}
	vclock.now = origin;
	pthread_mutex_unlock(&vclock.mu);
}

static inline void vclock_ready_locked(struct vpart *p)
{
	p->state = VP_READY;
	p->ticket = ++vclock.tickets;
}

/* The baton is free: gives it to the first ready participant, moving time to the earliest
 * wake-up when none is ready.  With nobody to run, the clock idles. */
static inline void vclock_dispatch_locked(void)
{
	struct vpart *next = NULL;
	int64_t soonest = INT64_MAX;

	vclock.running = 0;
	for (int i = 0; i < vclock.n; i++) {
		struct vpart *p = vclock.p[i];
		if (p->state == VP_READY && (!next || p->ticket < next->ticket))
			next = p;
		if (p->state == VP_BLOCKED && p->until < soonest)
			soonest = p->until;
	}
	if (!next && soonest != INT64_MAX) {
		if (soonest > vclock.now)
			vclock.now = soonest;
		for (int i = 0; i < vclock.n; i++) {
			struct vpart *p = vclock.p[i];
			if (p->state == VP_BLOCKED && p->until <= vclock.now) {
				vclock_ready_locked(p);
				if (!next)
					next = p;
			}
		}
	}
	if (!next)
		return;
	next->state = VP_RUN;
	vclock.running = 1;
	pthread_cond_signal(&next->cv);
}

static inline void vclock_await_locked(struct vpart *p)
{
	while (p->state != VP_RUN)
		pthread_cond_wait(&p->cv, &vclock.mu);
}

/* Makes p a participant, ready to run (after those ready before it).  The baton holder
 * adds the participants of the threads it starts before starting them. */
static inline void vclock_add(struct vpart *p)
{
	pthread_mutex_lock(&vclock.mu);
	if (vclock.n == VCLOCK_MAX) {
		fprintf(stderr, "vclock_add: more than %d participants\n", VCLOCK_MAX);
		abort();
	}
	pthread_cond_init(&p->cv, NULL);
	p->woken = 0;
	vclock.p[vclock.n++] = p;
	vclock_ready_locked(p);
	if (!vclock.running)
		vclock_dispatch_locked();
	pthread_mutex_unlock(&vclock.mu);
}

/* The participant p leaves; the baton, when p held it, goes on. */
static inline void vclock_leave(struct vpart *p)
{
	pthread_mutex_lock(&vclock.mu);
	int i = 0, was = p->state;
	while (i < vclock.n && vclock.p[i] != p)
		i++;
	for (; i + 1 < vclock.n; i++)
		vclock.p[i] = vclock.p[i + 1];
	if (was != VP_OUT)
		vclock.n--;
	p->state = VP_OUT;
	if (was == VP_RUN)
		vclock_dispatch_locked();
	pthread_mutex_unlock(&vclock.mu);
	if (was != VP_OUT)
		pthread_cond_destroy(&p->cv);
}

static inline void vclock_thread_ends(void *p)
{
	vclock_leave(p);
}

static inline void vclock_key(void)
{
	if (pthread_key_create(&vclock.self, vclock_thread_ends) != 0)
		abort();
}

/* The calling thread is p's (added before): it waits for the baton, and leaves when it
 * ends. */
static inline void vclock_bind(struct vpart *p)
{
	pthread_once(&vclock.once, vclock_key);
	pthread_setspecific(vclock.self, p);
	pthread_mutex_lock(&vclock.mu);
	vclock_await_locked(p);
	pthread_mutex_unlock(&vclock.mu);
}

/* p (the baton holder) joins and waits for the baton: vclock_add on its own thread. */
static inline void vclock_enter(struct vpart *p)
{
	vclock_add(p);
	pthread_mutex_lock(&vclock.mu);
	vclock_await_locked(p);
	pthread_mutex_unlock(&vclock.mu);
}

static inline void vclock_block_locked(struct vpart *p, int64_t until, int wakeable)
{
	p->state = VP_BLOCKED;
	p->until = until;
	p->wakeable = wakeable;
	vclock_dispatch_locked();
	vclock_await_locked(p);
}

/* The baton holder sleeps until `until`; wakes do not end it. */
static inline void vclock_sleep(struct vpart *p, int64_t until)
{
	pthread_mutex_lock(&vclock.mu);
	vclock_block_locked(p, until, 0);
	pthread_mutex_unlock(&vclock.mu);
}

/* The baton holder waits until `until` or a wake, whichever comes first; a wake that came
 * before ends it at once (an eventfd's readiness). */
static inline void vclock_poll(struct vpart *p, int64_t until)
{
	pthread_mutex_lock(&vclock.mu);
	if (p->woken)
		p->woken = 0;
	else
		vclock_block_locked(p, until, 1);
	pthread_mutex_unlock(&vclock.mu);
}

/* The baton holder lets every participant ready now run first. */
static inline void vclock_yield(struct vpart *p)
{
	pthread_mutex_lock(&vclock.mu);
	vclock_ready_locked(p);
	vclock_dispatch_locked();
	vclock_await_locked(p);
	pthread_mutex_unlock(&vclock.mu);
}

/* Wakes p (from any thread): ready at the current moment when it polls, else its next
 * poll returns at once. */
static inline void vclock_wake(struct vpart *p)
{
	pthread_mutex_lock(&vclock.mu);
	if (p->state == VP_BLOCKED && p->wakeable) {
		vclock_ready_locked(p);
		if (!vclock.running)
			vclock_dispatch_locked();
	} else {
		p->woken = 1;
	}
	pthread_mutex_unlock(&vclock.mu);
}

#endif
