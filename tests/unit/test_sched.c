/* The engine's scheduler (sched.c) on a fake driver: shares across threads, ramp, think
 * time, back-off by error class, drain, abort, and the open model's arrival schedules
 * (constant and Poisson, max_in_flight and max_lag, latency from the intended start, the
 * catch-up limit).  The fake driver answers each request after a service time the test
 * sets, with an outcome the test sets, and records every start (worker-owned arrays, read
 * by the test while it holds the clock's baton or after the workers have stopped).
 *
 * Time is virtual (vclock.h): the driver brings the clock the scheduler runs on, the
 * workers wait for it in the fake's poll, the test in sleep_ms(), and the fake's service
 * times, stalls, freezes and late wake-ups are moments on it.  So every figure below is
 * the scheduler's own, exact on any machine however busy, and the suite takes no real
 * time for its waits.  One test runs the real clock (the engine's default) with no bound
 * on time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "engine/engine_int.h"
#include "vclock.h"

#define MAX_STARTS  200000
#define MAX_THREADS 4
#define V_ORIGIN                                                                                   \
	1000000000000LL /* virtual µs at each engine's start (any moment will do;                 \
	                 * one for all, so each test repeats exactly) */
#define HANG_GUARD_MS                                                                              \
	600000 /* engine_wait's bound: longer than the suite's own timeout (tests/run.sh), which   \
	        * is the guard against a hang */

static int real_clock;          /* 1: the fake runs on CLOCK_MONOTONIC, the engine's default */
static struct vpart main_vp;    /* the test's own thread, a participant while it drives */
static _Atomic int vus_started; /* closed model: VUs that have sent their first request */

/* What the fake driver does; set by each test before the engine starts. */
static struct {
	int64_t service_us;     /* every request takes this long */
	int cls;                /* -1: passes; else every request fails with this class */
	int64_t stall_until_us; /* no request completes before this (µs); 0: none */
	int64_t freeze_at_us;   /* the worker itself stops (blocks in poll) once at this time
	                         * (µs)... */
	int64_t freeze_us;      /* ...for this long: the generator stopped, not the server */
	int oversleep_every;    /* every this many polls wake up late (0: never)... */
	int64_t oversleep_us;   /* ...by this much: a busy machine's late wake-ups */
	int polls;              /* polls so far (one worker) */
} fake;

/* One start as the driver saw it. */
struct start_rec {
	int64_t at_us;       /* when start() was called */
	int64_t intended_us; /* open model: its intended start on the schedule */
	uint64_t vu, seq;    /* ${vu}, ${seq} */
	int thread;
};

/* Per-worker driver state. */
struct fthread {
	struct vpart vp; /* virtual clock: the worker as a participant */
	int bound;       /* virtual clock: the worker's thread has taken vp */
	int wakefd;      /* real clock: eventfd; engine_set_* and engine_stop wake poll() */
	int64_t *due;    /* per slot: completion time, -1 = none */
	int64_t *sent;   /* per slot: when its request started */
	struct start_rec *starts;
	int nstarts;
};

static struct fthread *threads_seen[MAX_THREADS];

static int f_init(struct ethread *t, char *err, size_t errlen)
{
	struct fthread *f = calloc(1, sizeof *f);
	(void)err;
	(void)errlen;
	if (!f)
		return -1;
	f->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	f->due = malloc((size_t)(t->max_slots > 0 ? t->max_slots : 1) * sizeof *f->due);
	f->sent = malloc((size_t)(t->max_slots > 0 ? t->max_slots : 1) * sizeof *f->sent);
	f->starts = calloc(MAX_STARTS, sizeof *f->starts);
	for (int j = 0; j < t->max_slots; j++)
		f->due[j] = -1;
	t->drv = f;
	threads_seen[t->index] = f;
	if (!real_clock)
		vclock_add(&f->vp); /* ready to run before its thread starts */
	return 0;
}

static void f_release(struct ethread *t)
{
	/* Kept for the test to read: freed by release_seen(). */
	(void)t;
}

static void release_seen(void)
{
	for (int i = 0; i < MAX_THREADS; i++) {
		if (!threads_seen[i])
			continue;
		close(threads_seen[i]->wakefd);
		free(threads_seen[i]->due);
		free(threads_seen[i]->sent);
		free(threads_seen[i]->starts);
		free(threads_seen[i]);
		threads_seen[i] = NULL;
	}
}

/* Now on the fake's clock. */
static int64_t now_us(void)
{
	return real_clock ? clock_mono_us() : vclock_now();
}

/* The worker's driver state; on the virtual clock its thread's first call takes its
 * participant and waits for the baton. */
static struct fthread *f_self(struct ethread *t)
{
	struct fthread *f = t->drv;
	if (!real_clock && !f->bound) {
		f->bound = 1;
		vclock_bind(&f->vp);
	}
	return f;
}

static void f_start(struct ethread *t, int j)
{
	struct fthread *f = f_self(t);
	int64_t now = now_us();
	if (t->ctx.iter == 1)
		atomic_fetch_add(&vus_started, 1);
	if (f->nstarts < MAX_STARTS)
		f->starts[f->nstarts++] = (struct start_rec){.at_us = now,
		                                             .intended_us = t->slots[j].intended_us,
		                                             .vu = t->ctx.vu,
		                                             .seq = t->ctx.seq,
		                                             .thread = t->index};
	f->due[j] = now + fake.service_us;
	f->sent[j] = now;
}

static void f_cancel(struct ethread *t, int j)
{
	struct fthread *f = f_self(t);
	f->due[j] = -1;
}

static void f_idle(struct ethread *t, int j)
{
	(void)f_self(t); /* the worker's last calls: its thread leaves the clock when it ends */
	(void)j;
}

/* Blocks the calling worker until `until`, whatever wakes it: the generator stopped. */
static void sleep_until(struct fthread *f, int64_t until)
{
	if (!real_clock) {
		vclock_sleep(&f->vp, until);
		return;
	}
	for (int64_t now = clock_mono_us(); now < until; now = clock_mono_us()) {
		struct timespec ts = {.tv_sec = (until - now) / 1000000,
		                      .tv_nsec = (until - now) % 1000000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Waits from `now` until `until` or a wake (f_wake), whichever comes first. */
static void wait_until(struct fthread *f, int64_t now, int64_t until)
{
	if (!real_clock) {
		vclock_poll(&f->vp, until);
		return;
	}
	struct timespec ts = {.tv_sec = (until - now) / 1000000,
	                      .tv_nsec = (until - now) % 1000000 * 1000};
	struct pollfd pf = {.fd = f->wakefd, .events = POLLIN};
	uint64_t x;
	if (ppoll(&pf, 1, &ts, NULL) > 0 && read(f->wakefd, &x, sizeof x) < 0)
		x = 0;
}

static void f_poll(struct ethread *t, int64_t wait_us)
{
	struct fthread *f = f_self(t);
	int64_t now = now_us(), next = now + wait_us;

	if (fake.freeze_at_us > 0 && now >= fake.freeze_at_us) {
		fake.freeze_at_us = 0; /* once */
		sleep_until(f, now + fake.freeze_us);
		now = now_us();
		next = now;
	}
	if (fake.oversleep_every > 0 && ++fake.polls % fake.oversleep_every == 0) {
		sleep_until(f, now + fake.oversleep_us);
		now = now_us();
	}

	for (int j = 0; j < t->max_slots; j++)
		if (f->due[j] >= 0 && f->due[j] < next)
			next = f->due[j];
	if (fake.stall_until_us > now && next < fake.stall_until_us)
		next = fake.stall_until_us < now + wait_us ? fake.stall_until_us : now + wait_us;
	if (next > now)
		wait_until(f, now, next);
	now = now_us();
	int64_t stall_end = fake.stall_until_us;
	if (now < stall_end)
		return;
	for (int j = 0; j < t->max_slots; j++) {
		if (f->due[j] < 0 || f->due[j] > now)
			continue;
		/* The service time the test set, or, for an answer the server's stall held
		 * back, until the stall's end: the server's time, not when this worker got
		 * round to reading it. */
		int64_t took = fake.service_us;
		if (stall_end > f->sent[j] + took)
			took = stall_end - f->sent[j];
		struct outcome o = {.cls = fake.cls,
		                    .answered = fake.cls < 0,
		                    .service_us = took,
		                    .connect_us = -1,
		                    .ttfb_us = -1,
		                    .detail = fake.cls < 0 ? NULL : "fake failure"};
		f->due[j] = -1;
		sched_finish(t, j, &o);
	}
}

static void f_wake(struct ethread *t)
{
	struct fthread *f = t->drv;
	uint64_t one = 1;
	if (f && !real_clock)
		vclock_wake(&f->vp);
	else if (f && write(f->wakefd, &one, sizeof one) < 0)
		one = 0; /* already pending */
}

static int f_preflight(const struct plan *p, char *err, size_t errlen)
{
	(void)p;
	(void)err;
	(void)errlen;
	return 0;
}

/* The fake on the virtual clock: the scheduler runs on it too. */
static const struct driver fake_driver = {
    .name = "fake",
    .init = f_init,
    .release = f_release,
    .start = f_start,
    .cancel = f_cancel,
    .idle = f_idle,
    .poll = f_poll,
    .wake = f_wake,
    .preflight = f_preflight,
    .now_us = vclock_now,
};

/* The fake on the clock real_clock says: on the real one without now_us, so the engine
 * runs on its default (CLOCK_MONOTONIC). */
static const struct driver *fake_on_clock(void)
{
	static struct driver real;
	real = fake_driver;
	real.now_us = NULL;
	return real_clock ? &real : &fake_driver;
}

/* Starts the engine on the fake driver, on the clock real_clock says.  On the virtual one
 * the test's thread takes part from here to finish_engine(), and each worker has had its
 * first (idle) turn when this returns. */
static struct engine *start_engine(const struct plan *p, int threads, int max_vus)
{
	struct engine_opts o = {.plan = p,
	                        .run_id = 1,
	                        .nonce = "n",
	                        .threads = threads,
	                        .max_vus = max_vus,
	                        .loop = LOOP_POLL};
	struct engine *e = NULL;
	char err[256];
	release_seen();
	atomic_store(&vus_started, 0);
	if (!real_clock) {
		vclock_reset(V_ORIGIN);
		vclock_enter(&main_vp);
	}
	assert_int_equal(engine_start_with(&e, &o, fake_on_clock(), err, sizeof err), 0);
	if (!real_clock)
		vclock_yield(&main_vp);
	return e;
}

/* The test's thread waits: on the virtual clock, the workers run meanwhile. */
static void sleep_ms(int64_t ms)
{
	if (!real_clock) {
		vclock_sleep(&main_vp, vclock_now() + ms * 1000);
		return;
	}
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};
	nanosleep(&ts, NULL);
}

/* Stops the engine; on the virtual clock the test's thread leaves it, so the workers drain
 * on their own, and the clock ends at the drain's last moment. */
static void finish_engine(struct engine *e, struct istats *st, int abort)
{
	char err[256];
	engine_stop(e, abort);
	if (!real_clock)
		vclock_leave(&main_vp);
	assert_int_equal(engine_wait(e, HANG_GUARD_MS), 0);
	assert_int_equal(engine_collect(e, st, err, sizeof err), 0);
	engine_free(e);
}

static int nstarts(int nthreads)
{
	int n = 0;
	for (int i = 0; i < nthreads; i++)
		n += threads_seen[i] ? threads_seen[i]->nstarts : 0;
	return n;
}

/* --- closed model ------------------------------------------------------------------------ */

/* 10 VUs on 3 threads for 100 ms after the last one started, on the clock `real` says. */
static void shares_across_threads(int real)
{
	struct plan p = {.model = PLAN_CLOSED};
	struct istats st;
	char err[256];
	int seen[11] = {0};

	memset(&fake, 0, sizeof fake);
	fake.service_us = 2000, fake.cls = -1;
	real_clock = real;
	assert_int_equal(istats_init(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 3, 10);
	int threads = engine_threads(e);
	engine_set_vus(e, 10, 0);
	/* Until every VU has started: at once on the virtual clock; on the real one however
	 * long a busy machine takes (the suite's timeout guards a hang). */
	while (atomic_load(&vus_started) < 10)
		sleep_ms(1);
	sleep_ms(100);
	finish_engine(e, &st, 0);
	real_clock = 0;
	assert_int_equal(threads, 3);
	/* Every VU 1..10 ran, each on one thread only, and ${seq} never repeats. */
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < threads_seen[i]->nstarts; k++) {
			uint64_t vu = threads_seen[i]->starts[k].vu;
			assert_true(vu >= 1 && vu <= 10);
			assert_int_equal((int)((vu - 1) % 3), i);
			seen[vu] = 1;
		}
	for (int v = 1; v <= 10; v++)
		if (!seen[v])
			fail_msg("VU %d never started", v);
	/* Every start was counted, as a request, once. */
	if (st.requests != nstarts(3))
		fail_msg("%lld requests counted, %d started", (long long)st.requests, nstarts(3));
	assert_int_equal(st.errors, 0);
	assert_int_equal(hdr_total(&st.hist), st.requests);
	/* Virtual time: all started at once, 1 ms before the 100 ms; each VU sends back to
	 * back, 2 ms a request, for 101 ms: 51 each. */
	if (!real && st.requests != 10 * 51)
		fail_msg("%lld requests of 10 VUs at 2 ms in 101 ms", (long long)st.requests);
	istats_release(&st);
	release_seen();
}

static void closed_shares_across_threads(void **state)
{
	(void)state;
	shares_across_threads(0);
}

/* The engine's own clock (the driver brings none): the same, with no bound on time. */
static void real_clock_shares_across_threads(void **state)
{
	(void)state;
	shares_across_threads(1);
}

static void closed_shrinks_and_ramps(void **state)
{
	struct plan p = {.model = PLAN_CLOSED};
	struct istats st;
	char err[256];
	(void)state;

	memset(&fake, 0, sizeof fake);
	fake.service_us = 1000, fake.cls = -1;
	assert_int_equal(istats_init(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 8);
	int64_t t0 = now_us();
	engine_set_vus(e, 4, 400); /* 4 VUs spread over 400 ms: 0, 100, 200, 300 ms */
	sleep_ms(500);
	int64_t t_shrunk = now_us();
	engine_set_vus(e, 2, 0);
	sleep_ms(200);
	finish_engine(e, &st, 0);
	struct fthread *f = threads_seen[0];
	int64_t first[5] = {-1, -1, -1, -1, -1};
	for (int k = 0; k < f->nstarts; k++) {
		uint64_t vu = f->starts[k].vu;
		assert_true(vu >= 1 && vu <= 4);
		if (first[vu] < 0)
			first[vu] = f->starts[k].at_us - t0;
		/* Once the share shrank to 2, VUs 3 and 4 start nothing. */
		if (f->starts[k].at_us > t_shrunk && vu > 2)
			fail_msg("VU %d started %lld us after the share shrank to 2", (int)vu,
			         (long long)(f->starts[k].at_us - t_shrunk));
	}
	/* Each on its moment of the ramp, to the microsecond. */
	for (int v = 1; v <= 4; v++)
		if (first[v] != (v - 1) * 100000)
			fail_msg("VU %d started at %lld us of the ramp, not %d", v,
			         (long long)first[v], (v - 1) * 100000);
	istats_release(&st);
	release_seen();
}

static void closed_think_time(void **state)
{
	struct plan p = {.model = PLAN_CLOSED, .think_min_ms = 50, .think_max_ms = 50};
	struct istats st;
	char err[256];
	(void)state;

	memset(&fake, 0, sizeof fake);
	fake.service_us = 0, fake.cls = -1;
	assert_int_equal(istats_init(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 2);
	engine_set_vus(e, 2, 0);
	sleep_ms(500);
	finish_engine(e, &st, 0);
	/* 2 VUs, 50 ms think, no service time: at 0, 50, ..., 450 ms, 10 requests each in
	 * 0.5 s (the stop at 500 ms comes first), each VU's one 50 ms after the last. */
	if (st.requests != 20)
		fail_msg("%lld requests of 2 VUs thinking 50 ms in 0.5 s", (long long)st.requests);
	struct fthread *f = threads_seen[0];
	int64_t last[3] = {0};
	for (int k = 0; k < f->nstarts; k++) {
		uint64_t vu = f->starts[k].vu;
		if (last[vu] && f->starts[k].at_us - last[vu] != 50000)
			fail_msg("VU %d started %lld us after its last request", (int)vu,
			         (long long)(f->starts[k].at_us - last[vu]));
		last[vu] = f->starts[k].at_us;
	}
	istats_release(&st);
	release_seen();
}

/* One back-off table for every driver: refused connections wait 50 ms, port exhaustion
 * 250 ms; an answer that fails its checks does not wait. */
static void closed_backs_off_by_class(void **state)
{
	static const struct {
		int cls;
		int want; /* starts of one VU in 500 ms: one per 2 ms of service + back-off,
		           * the stop at 500 ms first */
	} c[] = {
	    {ERR_CONNECT_REFUSED, 10}, /* 0, 52, ..., 468 ms */
	    {ERR_CLIENT_PORTS, 2},     /* 0, 252 */
	    {ERR_BODY_MISMATCH, 250},  /* 0, 2, ..., 498 */
	    {ERR_HTTP_5XX, 250},
	};
	struct plan p = {.model = PLAN_CLOSED};
	char err[256];
	(void)state;

	assert_int_equal(sched_backoff_ms(ERR_CONNECT_REFUSED), 50);
	assert_int_equal(sched_backoff_ms(ERR_CLIENT_PORTS), 250);
	assert_int_equal(sched_backoff_ms(ERR_BODY_MISMATCH), 0);
	assert_int_equal(sched_backoff_ms(ERR_TIMEOUT), 0);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct istats st;
		memset(&fake, 0, sizeof fake);
		fake.service_us = 2000, fake.cls = c[i].cls;
		assert_int_equal(istats_init(&st, err, sizeof err), 0);
		struct engine *e = start_engine(&p, 1, 1);
		engine_set_vus(e, 1, 0);
		sleep_ms(500);
		finish_engine(e, &st, 0);
		if (st.requests != c[i].want)
			fail_msg("class %s: %lld requests in 500 ms, want %d",
			         err_class_name((enum err_class)c[i].cls), (long long)st.requests,
			         c[i].want);
		assert_int_equal(st.errors, st.requests);
		assert_int_equal(st.err_count[c[i].cls], st.requests);
		/* Failed requests that were never answered are not in the histogram. */
		assert_int_equal(hdr_total(&st.hist), 0);
		istats_release(&st);
	}
	/* One wording per class: the EADDRNOTAVAIL sentence is the scheduler's. */
	char msg[ERR_SAMPLE_LEN];
	engine_error_text(ERR_CLIENT_PORTS, NULL, "connect to 127.0.0.1:1: Cannot assign", msg,
	                  sizeof msg);
	assert_string_equal(msg, "connect to 127.0.0.1:1: Cannot assign (EADDRNOTAVAIL: the load "
	                         "generator ran out of ephemeral ports)");
	release_seen();
}

static void closed_drain_and_abort(void **state)
{
	struct plan p = {.model = PLAN_CLOSED};
	struct istats st;
	char err[256];
	int n;
	(void)state;

	/* Drain: requests in flight (300 ms each) finish, and are counted. */
	memset(&fake, 0, sizeof fake);
	fake.service_us = 300000, fake.cls = -1;
	assert_int_equal(istats_init(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 2, 6);
	engine_set_vus(e, 6, 0);
	sleep_ms(100);
	int64_t t0 = now_us();
	finish_engine(e, &st, 0);
	/* It waited for them: to the end of their 300 ms, 200 ms after the stop. */
	if (now_us() - t0 != 200000)
		fail_msg("drain: ended %lld us after the stop, not 200000",
		         (long long)(now_us() - t0));
	n = nstarts(2);
	if (n != 6 || st.requests != 6 || st.errors != 0)
		fail_msg("drain: %d started, %lld counted, %lld errors", n, (long long)st.requests,
		         (long long)st.errors);
	istats_reset(&st);

	/* Abort: dropped at once, each counted as a failed request. */
	e = start_engine(&p, 2, 6);
	engine_set_vus(e, 6, 0);
	sleep_ms(10);
	n = nstarts(2); /* all six in flight, 290 ms to go */
	t0 = now_us();
	finish_engine(e, &st, 1);
	/* At once: the workers ended at the moment of the stop. */
	if (n != 6 || now_us() != t0)
		fail_msg("abort: %d in flight; ended %lld us after the stop", n,
		         (long long)(now_us() - t0));
	if (st.requests != 6 || st.err_count[ERR_OTHER] != 6)
		fail_msg("abort: %lld counted, %lld dropped in flight", (long long)st.requests,
		         (long long)st.err_count[ERR_OTHER]);
	assert_string_equal(st.err_sample[ERR_OTHER],
	                    "dropped in flight: the run was stopped at once");
	istats_release(&st);
	release_seen();
}

/* --- open model -------------------------------------------------------------------------- */

/* Coefficient of variation of the gaps between consecutive intended starts (open model)
 * of all threads: the schedule itself, free of the machine's wake-up jitter. */
static double gaps_cv(int nthreads, int64_t from_us, int *n_out)
{
	int64_t *t = malloc(MAX_STARTS * sizeof *t);
	int n = 0;
	for (int i = 0; i < nthreads; i++)
		for (int k = 0; k < threads_seen[i]->nstarts; k++)
			if (threads_seen[i]->starts[k].at_us >= from_us && n < MAX_STARTS)
				t[n++] = threads_seen[i]->starts[k].intended_us;
	for (int i = 1; i < n; i++) /* insertion sort: merged per-thread runs, nearly sorted */
		for (int k = i; k > 0 && t[k] < t[k - 1]; k--) {
			int64_t x = t[k];
			t[k] = t[k - 1];
			t[k - 1] = x;
		}
	double sum = 0, sq = 0;
	for (int i = 1; i < n; i++) {
		double g = (double)(t[i] - t[i - 1]);
		sum += g;
		sq += g * g;
	}
	free(t);
	*n_out = n;
	if (n < 3)
		return NAN;
	double mean = sum / (n - 1), var = sq / (n - 1) - mean * mean;
	return sqrt(var > 0 ? var : 0) / mean;
}

static void open_constant_and_poisson(void **state)
{
	char err[256];
	(void)state;

	for (int poisson = 0; poisson <= 1; poisson++) {
		struct plan p = {.model = PLAN_OPEN,
		                 .arrival = poisson ? PLAN_POISSON : PLAN_CONSTANT,
		                 .max_in_flight = 100,
		                 .max_lag_ms = 1000};
		struct istats st;
		int n;
		memset(&fake, 0, sizeof fake);
		fake.service_us = 5000, fake.cls = -1;
		assert_int_equal(istats_init_open(&st, err, sizeof err), 0);
		struct engine *e = start_engine(&p, 2, 0);
		int64_t t0 = now_us();
		engine_set_rate(e, 400, 0);
		sleep_ms(1000);
		finish_engine(e, &st, 0);
		double cv = gaps_cv(2, t0, &n);
		/* 400/s for 1 s: constant, 400 (the one due at the stop's moment is not sent),
		 * the two workers' gaps of 5 ms interleaved into one of exactly 2.5 ms; Poisson,
		 * one draw (the seed is the virtual clock's): its count varies by sqrt(400) =
		 * 5 %, its gaps' CV is 1. */
		if (poisson ? n < 350 || n > 450 : n != 400)
			fail_msg("%s: %d starts in 1 s at 400/s", poisson ? "poisson" : "constant",
			         n);
		if (poisson ? (cv < 0.85 || cv > 1.15) : cv != 0)
			fail_msg("%s: inter-arrival CV %.3f", poisson ? "poisson" : "constant", cv);
		assert_int_equal(st.requests, n);
		assert_int_equal(st.err_count[ERR_DROPPED], 0);
		/* Service time is the driver's; latency adds the start lag only, and the
		 * generator is never late: every arrival goes out at its moment. */
		assert_int_equal(hdr_total(&st.svc), n);
		assert_int_equal(hdr_max(&st.svc), hdr_highest_equivalent(&st.svc, 5000));
		assert_int_equal(hdr_max(&st.hist), hdr_highest_equivalent(&st.hist, 5000));
		assert_int_equal(hdr_total(&st.lag), n);
		assert_int_equal(hdr_max(&st.lag), 0);
		istats_release(&st);
	}
	release_seen();
}

/* max_in_flight full: arrivals wait (latency from their intended start grows), the ones
 * later than max_lag are dropped and counted, and no catch-up burst exceeds the rate by
 * more than the allowance. */
static void open_overload_waits_then_drops(void **state)
{
	struct plan p = {
	    .model = PLAN_OPEN, .arrival = PLAN_CONSTANT, .max_in_flight = 2, .max_lag_ms = 200};
	struct istats st;
	char err[256];
	int n;
	(void)state;

	/* 2 slots of 50 ms each: 40/s at most, asked for 100/s. */
	memset(&fake, 0, sizeof fake);
	fake.service_us = 50000, fake.cls = -1;
	assert_int_equal(istats_init_open(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 0);
	engine_set_rate(e, 100, 0);
	sleep_ms(1500);
	finish_engine(e, &st, 0);
	(void)gaps_cv(1, 0, &n);
	int64_t dropped = st.err_count[ERR_DROPPED];
	/* 150 arrivals in 1.5 s: 60 served (each slot back to back, 30 of 50 ms), the 20 of
	 * the last 200 ms still waiting at the stop, the other 70 dropped once 200 ms late. */
	if (n != 60 || dropped != 70)
		fail_msg("%d served and %lld dropped of 150 arrivals", n, (long long)dropped);
	assert_int_equal(st.requests, n + dropped);
	/* Latency from the intended start: up to max_lag + service, never hidden, never
	 * more. */
	if (hdr_value_at_percentile(&st.hist, 90) < 150000 ||
	    hdr_max(&st.hist) != hdr_highest_equivalent(&st.hist, 200000 + 50000))
		fail_msg(
		    "latency from the intended start: p90 %lld us, max %lld us (max_lag 200 ms, "
		    "service 50 ms)",
		    (long long)hdr_value_at_percentile(&st.hist, 90), (long long)hdr_max(&st.hist));
	assert_int_equal(hdr_value_at_percentile(&st.svc, 99),
	                 hdr_highest_equivalent(&st.svc, 50000));
	istats_reset(&st);

	/* A stall of the server with slots to spare holds nothing back. */
	p.max_in_flight = 1000;
	p.max_lag_ms = 10000;
	fake.service_us = 1000;
	e = start_engine(&p, 1, 0);
	engine_set_rate(e, 200, 0);
	sleep_ms(200);
	int64_t stall_from = now_us();
	fake.stall_until_us = stall_from + 400000; /* nothing completes for 400 ms... */
	sleep_ms(1200);
	finish_engine(e, &st, 0);
	/* ...but with 1000 slots nothing waited: every send at its moment on the schedule,
	 * and the latency shows the whole stall (the requests were sent and not answered). */
	struct fthread *f = threads_seen[0];
	int on_time = 0;
	for (int k = 0; k < f->nstarts; k++)
		on_time += f->starts[k].at_us == f->starts[k].intended_us;
	if (on_time != f->nstarts)
		fail_msg("%d of %d starts on the schedule", on_time, f->nstarts);
	if (hdr_max(&st.hist) < 400000)
		fail_msg("latency max %lld us: the server's 400 ms stall is not in it",
		         (long long)hdr_max(&st.hist));
	istats_release(&st);
	release_seen();
}

/* The server stalls with every slot busy: the arrivals behind them wait, that wait is the
 * server's and counts in their latency (wrk2's correction); the backlog goes out as slots
 * free, and the generator itself is never late. */
static void open_server_backlog_is_latency(void **state)
{
	struct plan p = {
	    .model = PLAN_OPEN, .arrival = PLAN_CONSTANT, .max_in_flight = 4, .max_lag_ms = 5000};
	struct istats st;
	char err[256];
	(void)state;

	memset(&fake, 0, sizeof fake);
	fake.service_us = 1000, fake.cls = -1;
	assert_int_equal(istats_init_open(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 0);
	engine_set_rate(e, 200, 0);
	sleep_ms(200);
	int64_t stall_end = now_us() + 500000;
	fake.stall_until_us = stall_end; /* the 4 slots fill, arrivals pile up behind them */
	sleep_ms(1000);
	finish_engine(e, &st, 0);
	fake.stall_until_us = 0;
	struct fthread *f = threads_seen[0];
	/* The backlog, the arrivals due while the 4 slots were held (one each 5 ms from
	 * 220 ms, when the fourth was taken, to the stall's end at 700 ms: 96), went out as
	 * fast as the slots freed: 4 a millisecond, all within 24 ms. */
	int backlog = 0, slow = 0;
	for (int k = 0; k < f->nstarts; k++)
		if (f->starts[k].intended_us < stall_end && f->starts[k].at_us >= stall_end) {
			backlog++;
			slow += f->starts[k].at_us - stall_end >= 24000;
		}
	if (backlog != 96 || slow > 0)
		fail_msg(
		    "%d arrivals held back by the stall, %d of them sent 24 ms or more after it",
		    backlog, slow);
	assert_int_equal(st.err_count[ERR_DROPPED], 0);
	/* Their latency holds the wait for a slot: up to the stall's 500 ms, no more. */
	if (hdr_max(&st.hist) != hdr_highest_equivalent(&st.hist, 500000) ||
	    hdr_value_at_percentile(&st.hist, 90) < 100000)
		fail_msg("latency p90 %lld us, max %lld us: the server's stall is not in it",
		         (long long)hdr_value_at_percentile(&st.hist, 90),
		         (long long)hdr_max(&st.hist));
	/* The generator itself was never late: it waited for the server. */
	if (hdr_max(&st.lag) != 0)
		fail_msg("start lag max %lld us while the server held every slot",
		         (long long)hdr_max(&st.lag));
	istats_release(&st);
	release_seen();
}

/* The generator itself stops for 600 ms (its thread blocked, every slot free): the delay is
 * start lag, never latency; the backlog it built goes out CATCHUP_S' worth at once, then at
 * most twice the rate, and the lag is gone soon after. */
static void open_generator_stall_is_lag(void **state)
{
	struct plan p = {.model = PLAN_OPEN,
	                 .arrival = PLAN_CONSTANT,
	                 .max_in_flight = 1000,
	                 .max_lag_ms = 10000};
	struct istats st;
	char err[256];
	(void)state;

	memset(&fake, 0, sizeof fake);
	fake.service_us = 1000, fake.cls = -1;
	assert_int_equal(istats_init_open(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 0);
	engine_set_rate(e, 400, 0);
	sleep_ms(200);
	int64_t freeze = now_us() + 50000;
	fake.freeze_us = 600000;
	fake.freeze_at_us = freeze; /* 240 arrivals fall due while it is stopped */
	sleep_ms(1700);
	finish_engine(e, &st, 0);
	struct fthread *f = threads_seen[0];
	int64_t thaw = freeze + fake.freeze_us;
	int worst = 0, caught = -1, at_once = 0;
	for (int k = 0; k < f->nstarts; k++) {
		const struct start_rec *a = &f->starts[k];
		if (a->at_us < thaw)
			continue;
		at_once += a->at_us == thaw;
		int c = 0;
		for (int m = k; m < f->nstarts && f->starts[m].at_us < a->at_us + 100000; m++)
			c++;
		if (c > worst)
			worst = c;
		if (caught < 0 && a->at_us - a->intended_us < 5000)
			caught = (int)((a->at_us - thaw) / 1000);
	}
	/* 100 at once (0.25 s' worth at 400/s), then 800/s at most: no storm of 240. */
	if (at_once != 100 || worst > 100 + 80)
		fail_msg("%d starts as the generator ran again, %d in one 100 ms window", at_once,
		         worst);
	/* 140 left after the allowance, drained at 400/s above the rate: 350 ms, to the
	 * last 5 ms (the lag that counts as caught up). */
	if (caught < 345 || caught > 350)
		fail_msg("caught up with the schedule %d ms after the generator ran again", caught);
	/* None of the lateness is latency: the server always answered in 1 ms (the fake
	 * reports the server's time, also for the request it read after the stop). */
	if (hdr_max(&st.hist) != hdr_highest_equivalent(&st.hist, 1000))
		fail_msg("latency max %lld us, the server answered in 1000",
		         (long long)hdr_max(&st.hist));
	/* The arrival 2.5 ms after the stop began waited for the rest of it. */
	if (hdr_max(&st.lag) < 600000 - 2500)
		fail_msg("start lag max %lld us after a 600 ms stop", (long long)hdr_max(&st.lag));
	assert_int_equal(st.err_count[ERR_DROPPED], 0);
	istats_release(&st);
	release_seen();
}

/* A busy machine wakes the generator a few ms late now and then, inside Poisson bursts:
 * each late arrival goes out at once, and the lateness never builds up into a tail. */
static void open_late_wakeups_leave_no_tail(void **state)
{
	struct plan p = {.model = PLAN_OPEN,
	                 .arrival = PLAN_POISSON,
	                 .max_in_flight = 1000,
	                 .max_lag_ms = 10000};
	struct istats st;
	char err[256];
	(void)state;

	memset(&fake, 0, sizeof fake);
	fake.service_us = 2000, fake.cls = -1;
	fake.oversleep_every = 10, fake.oversleep_us = 3000;
	assert_int_equal(istats_init_open(&st, err, sizeof err), 0);
	struct engine *e = start_engine(&p, 1, 0);
	engine_set_rate(e, 500, 0);
	sleep_ms(1500);
	finish_engine(e, &st, 0);
	/* The oversleeps alone: never later than one, 3 ms; a catch-up that queued them
	 * would add tens of ms (the 24-46 ms p99). */
	if (hdr_max(&st.lag) > hdr_highest_equivalent(&st.lag, 3000))
		fail_msg("start lag max %lld us with 3 ms late wake-ups",
		         (long long)hdr_max(&st.lag));
	assert_int_equal(hdr_max(&st.hist), hdr_highest_equivalent(&st.hist, 2000));
	istats_release(&st);
	release_seen();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(closed_shares_across_threads),
	    cmocka_unit_test(real_clock_shares_across_threads),
	    cmocka_unit_test(closed_shrinks_and_ramps),
	    cmocka_unit_test(closed_think_time),
	    cmocka_unit_test(closed_backs_off_by_class),
	    cmocka_unit_test(closed_drain_and_abort),
	    cmocka_unit_test(open_constant_and_poisson),
	    cmocka_unit_test(open_overload_waits_then_drops),
	    cmocka_unit_test(open_server_backlog_is_latency),
	    cmocka_unit_test(open_generator_stall_is_lag),
	    cmocka_unit_test(open_late_wakeups_leave_no_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
