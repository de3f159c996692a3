/* delay: answers later without holding a thread (delay.h): a min-heap of deadlines served
 * by one timer thread; every accepted entry fires exactly once. */
#include "delay.h"

#include "clock.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

struct delay_entry {
	int64_t at_ns; /* CLOCK_MONOTONIC deadline */
	uint64_t seq;  /* insertion number: breaks ties so equal deadlines fire in order */
	void *arg;     /* handed back to fire(); owned by the caller */
};

struct delay {
	pthread_mutex_t lock;      /* guards heap, n, seq and closing */
	pthread_cond_t wake;       /* on CLOCK_MONOTONIC; signalled when heap[0] gets earlier
	                            * or on close */
	struct delay_entry *heap;  /* min-heap on (at_ns, seq); heap[0] fires next */
	size_t n;                  /* entries in heap */
	size_t peak;               /* the largest n so far */
	size_t cap;                /* entries heap and batch can hold; fixed at creation */
	uint64_t seq;              /* next insertion number */
	int closing;               /* set once by delay_close: add refuses, the thread drains */
	struct delay_entry *batch; /* the timer thread's own: due entries fired after unlock */
	delay_fire_fn fire;        /* the owner's callback */
	void *cls;                 /* its first argument */
	pthread_t thread;          /* the timer thread, valid while running */
	int running;               /* thread started and not yet joined (owner only) */
};

static int entry_before(const struct delay_entry *a, const struct delay_entry *b)
{
	return a->at_ns < b->at_ns || (a->at_ns == b->at_ns && a->seq < b->seq);
}

/* Caller holds the lock and has checked n < cap. */
static void heap_push(struct delay *d, struct delay_entry e)
{
	size_t i = d->n++;

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!entry_before(&e, &d->heap[parent]))
			break;
		d->heap[i] = d->heap[parent];
		i = parent;
	}
	d->heap[i] = e;
}

/* Caller holds the lock and has checked n > 0. */
static struct delay_entry heap_pop(struct delay *d)
{
	struct delay_entry top = d->heap[0], last = d->heap[--d->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= d->n)
			break;
		if (c + 1 < d->n && entry_before(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!entry_before(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->n > 0)
		d->heap[i] = last;
	return top;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	return ts;
}

static void *timer_main(void *p)
{
	struct delay *d = p;

	/* The default 50 µs slack would be added to every delayed answer. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&d->lock);
	for (;;) {
		size_t k = 0;
		int64_t now;

		if (!d->closing && d->n == 0) {
			pthread_cond_wait(&d->wake, &d->lock);
			continue;
		}
		now = clock_mono_ns();
		if (!d->closing && d->heap[0].at_ns > now) {
			struct timespec until = ns_to_ts(d->heap[0].at_ns);
			pthread_cond_timedwait(&d->wake, &d->lock, &until);
			continue;
		}
		/* Due entries (all of them when closing) are fired after unlocking, so workers
		 * adding entries never wait for libmicrohttpd's resume calls. */
		while (d->n > 0 && (d->closing || d->heap[0].at_ns <= now))
			d->batch[k++] = heap_pop(d);
		if (d->closing && k == 0)
			break;
		pthread_mutex_unlock(&d->lock);
		for (size_t i = 0; i < k; i++)
			d->fire(d->cls, d->batch[i].arg);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int delay_new(size_t cap, delay_fire_fn fire, void *cls, struct delay **out, char *err,
              size_t errlen)
{
	struct delay *d = NULL;
	pthread_condattr_t attr;
	int rc, have_lock = 0, have_cond = 0;

	*out = NULL;
	if (cap == 0 || cap > SIZE_MAX / sizeof(struct delay_entry)) {
		snprintf(err, errlen, "bad delay capacity %zu", cap);
		return -1;
	}
	d = calloc(1, sizeof *d);
	if (!d)
		goto nomem;
	d->heap = calloc(cap, sizeof *d->heap);
	d->batch = calloc(cap, sizeof *d->batch);
	if (!d->heap || !d->batch)
		goto nomem;
	d->cap = cap;
	d->fire = fire;
	d->cls = cls;
	if ((rc = pthread_mutex_init(&d->lock, NULL)) != 0)
		goto fail;
	have_lock = 1;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&d->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (rc != 0)
		goto fail;
	have_cond = 1;
	if ((rc = pthread_create(&d->thread, NULL, timer_main, d)) != 0)
		goto fail;
	d->running = 1;
	*out = d;
	return 0;
nomem:
	rc = ENOMEM;
fail:
	snprintf(err, errlen, "cannot start the delay timer: %s", strerror(rc));
	if (d) {
		if (have_cond)
			pthread_cond_destroy(&d->wake);
		if (have_lock)
			pthread_mutex_destroy(&d->lock);
		free(d->batch);
		free(d->heap);
		free(d);
	}
	return -1;
}

int delay_add(struct delay *d, int64_t at_ns, void *arg)
{
	int rc = -1;

	pthread_mutex_lock(&d->lock);
	if (!d->closing && d->n < d->cap) {
		struct delay_entry e = {.at_ns = at_ns, .seq = d->seq++, .arg = arg};
		heap_push(d, e);
		if (d->n > d->peak)
			d->peak = d->n;
		/* Only a new earliest deadline changes when the timer must wake. */
		if (d->heap[0].seq == e.seq)
			pthread_cond_signal(&d->wake);
		rc = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* *field read under the lock. */
static size_t locked_read(struct delay *d, const size_t *field)
{
	size_t n;

	pthread_mutex_lock(&d->lock);
	n = *field;
	pthread_mutex_unlock(&d->lock);
	return n;
}

size_t delay_pending(struct delay *d)
{
	return locked_read(d, &d->n);
}

size_t delay_peak(struct delay *d)
{
	return locked_read(d, &d->peak);
}

void delay_close(struct delay *d)
{
	if (!d || !d->running)
		return;
	pthread_mutex_lock(&d->lock);
	d->closing = 1;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	d->running = 0;
	assert(d->n == 0);
}

void delay_free(struct delay *d)
{
	if (!d)
		return;
	delay_close(d);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	free(d->batch);
	free(d->heap);
	free(d);
}
