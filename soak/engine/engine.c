/* engine: the worker threads and their handover of each interval's counters (engine.h).
 * Workers never lock on the request path; the aggregator reads a worker's buffer only
 * after the worker switched to the other one (the epoch protocol). */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine_int.h"
#include "h1.h"
#include "log.h"

/* With LOOP_AUTO, workers running more VUs than this use epoll + socket_action: below it,
 * curl_multi_poll is cheaper per request (no epoll_ctl churn on reused connections); above
 * it, poll()'s scan of every socket on each turn costs more (bench/engine.sh measures). */
#define AUTO_EPOLL_ABOVE 256

static const struct driver *driver_of(const struct plan *p, char *why, size_t whylen)
{
	if (p->protocol == PLAN_TCP_FRAME) {
		if (why && whylen)
			why[0] = '\0';
		return &tcpframe_driver;
	}
	if (h1_client_for(p, why, whylen) != PLAN_CLIENT_LEAN)
		return &http_driver;
	return p->http == PLAN_HTTP2 ? &h2_driver : &lean_driver;
}

const char *engine_client(const struct plan *p, char *why, size_t whylen)
{
	return driver_of(p, why, whylen)->name;
}

void engine_facts(struct engine *e, struct engine_facts *out)
{
	memset(out, 0, sizeof *out);
	out->h2_max_streams = -1;
	for (int i = 0; i < e->nthreads; i++) {
		if (!out->tls[0] && atomic_load_explicit(&e->t[i].facts_tls, memory_order_acquire))
			memcpy(out->tls, e->t[i].facts.tls, sizeof out->tls);
		if (out->h2_max_streams < 0 &&
		    atomic_load_explicit(&e->t[i].facts_h2, memory_order_acquire))
			out->h2_max_streams = e->t[i].facts.h2_max_streams;
	}
}

const char *engine_client_name(const struct engine *e)
{
	return e->drv->name;
}

int engine_preflight(const struct plan *p, char *err, size_t errlen)
{
	return driver_of(p, NULL, 0)->preflight(p, err, errlen);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* How long this thread has waited, ready to run, for a core (the kernel's run-queue wait,
 * /proc/thread-self/schedstat's second field), or 0 when the kernel does not say. */
static int64_t thread_wait_ns(void)
{
	char buf[128];
	long long run = 0, wait = 0;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &run, &wait) != 2)
		return 0;
	return wait;
}

static void *worker(void *arg)
{
	struct ethread *t = arg;
	/* The open model keeps a schedule to the microsecond: the kernel's default 50 µs of
	 * timer slack on every wait would be start lag of our own making. */
	if (t->eng->o.plan->model == PLAN_OPEN)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	t->cpu_mark_ns = thread_cpu_ns();
	t->wait_mark_ns = thread_wait_ns();
	sched_run(t);
	/* The CPU of the last stretch goes into the buffer the last collect will take. */
	int64_t cpu = thread_cpu_ns(), wait = thread_wait_ns();
	ethread_stats(t)->cpu_ns += cpu - t->cpu_mark_ns;
	ethread_stats(t)->wait_ns += wait - t->wait_mark_ns;
	atomic_store_explicit(&t->done, 1, memory_order_release);
	return NULL;
}

int engine_epoll_wait(int epfd, struct epoll_event *ev, int n, int64_t wait_us)
{
	struct timespec ts = {.tv_sec = wait_us / 1000000, .tv_nsec = (wait_us % 1000000) * 1000};
	int r = epoll_pwait2(epfd, ev, n, wait_us < 0 ? NULL : &ts, NULL);
	if (r < 0 && errno == ENOSYS) /* kernels before 5.11: millisecond waits, rounded up */
		r = epoll_wait(epfd, ev, n, wait_us < 0 ? -1 : (int)((wait_us + 999) / 1000));
	return r;
}

void engine_turn(struct ethread *t, struct turn *out)
{
	struct engine *e = t->eng;
	int epoch = atomic_load_explicit(&e->epoch, memory_order_acquire);

	if (epoch != t->seen_epoch) {
		/* Switch buffers: the aggregator cleared the other one before bumping the epoch
		 * (release/acquire on epoch makes that visible here).  The thread's CPU since the
		 * last switch belongs to the buffer it leaves. */
		int64_t cpu = thread_cpu_ns(), wait = thread_wait_ns();
		t->st[t->cur].cpu_ns += cpu - t->cpu_mark_ns;
		t->st[t->cur].wait_ns += wait - t->wait_mark_ns;
		t->cpu_mark_ns = cpu;
		t->wait_mark_ns = wait;
		t->cur ^= 1;
		t->seen_epoch = epoch;
		atomic_store_explicit(&t->acked_epoch, epoch, memory_order_release);
	}
	out->stop = atomic_load_explicit(&e->stop, memory_order_acquire);
	out->changed = 0;
	int target = atomic_load_explicit(&e->target_vus, memory_order_acquire);
	int share = target / e->nthreads + (t->index < target % e->nthreads);
	if (share > t->max_slots)
		share = t->max_slots;
	if (share != t->share) {
		t->share = share;
		t->ramp_ms = atomic_load_explicit(&e->ramp_ms, memory_order_relaxed);
		out->changed = 1;
	}
}

void engine_publish(struct ethread *t, int vus, int inflight)
{
	atomic_store_explicit(&t->live_requests, t->requests, memory_order_relaxed);
	atomic_store_explicit(&t->live_errors, t->errors, memory_order_relaxed);
	atomic_store_explicit(&t->live_conns, t->conns, memory_order_relaxed);
	atomic_store_explicit(&t->live_vus, vus, memory_order_relaxed);
	atomic_store_explicit(&t->live_inflight, inflight, memory_order_relaxed);
	atomic_store_explicit(&t->live_lag_us, t->lag_us, memory_order_relaxed);
}

static int ncores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* The seed of the workers' random draws: a new one each run, or on a driver's own clock
 * (a test's virtual one) that clock's reading, so a simulated run repeats exactly. */
static uint64_t engine_seed(const struct driver *drv)
{
	if (drv->now_us)
		return (uint64_t)drv->now_us();
	return (uint64_t)clock_wall_ms() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)clock_mono_ns();
}

int engine_start_with(struct engine **out, const struct engine_opts *o, const struct driver *drv,
                      char *err, size_t errlen)
{
	struct engine *e;
	uint64_t seed = engine_seed(drv);
	const struct plan *p = o->plan;
	int open = p->model == PLAN_OPEN;
	int units = open ? p->max_in_flight : o->max_vus; /* slots in all */

	*out = NULL;
	e = calloc(1, sizeof *e);
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	e->o = *o;
	if (e->o.agent_count < 1 || e->o.agent_index < 1 || e->o.agent_index > e->o.agent_count)
		e->o.agent_index = e->o.agent_count = 1; /* not an agent */
	e->nthreads = o->threads > 0 ? o->threads : ncores();
	if (e->nthreads > units)
		e->nthreads = units > 0 ? units : 1;
	/* HTTP/2: a worker holds at least one of the plan's connections. */
	if (drv == &h2_driver && p->connections > 0 && e->nthreads > p->connections)
		e->nthreads = p->connections;
	e->drv = drv;
	e->loop = o->loop;
	/* The open model keeps its schedule to the microsecond: epoll (epoll_pwait2), not
	 * curl_multi_poll's milliseconds. */
	if (e->loop == LOOP_AUTO && open)
		e->loop = LOOP_EPOLL;
	if (e->loop == LOOP_AUTO)
		e->loop = (units + e->nthreads - 1) / e->nthreads > AUTO_EPOLL_ABOVE ? LOOP_EPOLL
		                                                                     : LOOP_POLL;
	e->t = calloc((size_t)e->nthreads, sizeof *e->t);
	if (!e->t) {
		snprintf(err, errlen, "out of memory");
		free(e);
		return -1;
	}
	for (int i = 0; i < e->nthreads; i++) {
		struct ethread *t = &e->t[i];
		t->eng = e;
		t->index = i;
		t->max_slots = units / e->nthreads + (i < units % e->nthreads);
		t->rng = (seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL) | 1;
		snprintf(t->nonce, sizeof t->nonce, "%s", o->nonce ? o->nonce : "");
		t->ctx.nonce = t->nonce;
		t->ctx.run_id = o->run_id;
		t->ctx.agent = (uint64_t)o->agent_index;
		t->ctx.rng = t->rng ^ 0x5851F42D4C957F2DULL;
		if (!t->ctx.rng)
			t->ctx.rng = 1;
		t->ctx.csv = p->csv.ncols ? &p->csv : NULL;
		if ((open ? istats_init_open(&t->st[0], err, errlen) < 0 ||
		                istats_init_open(&t->st[1], err, errlen) < 0
		          : istats_init(&t->st[0], err, errlen) < 0 ||
		                istats_init(&t->st[1], err, errlen) < 0) ||
		    (plan_uses_tls(p) && (istats_init_tls(&t->st[0], err, errlen) < 0 ||
		                          istats_init_tls(&t->st[1], err, errlen) < 0)) ||
		    sched_init(t, err, errlen) < 0 || e->drv->init(t, err, errlen) < 0)
			goto fail;
	}
	for (int i = 0; i < e->nthreads; i++) {
		int rc = pthread_create(&e->t[i].tid, NULL, worker, &e->t[i]);
		if (rc != 0) {
			snprintf(err, errlen, "cannot start a worker thread: %s", strerror(rc));
			goto fail;
		}
		e->t[i].started = 1;
	}
	*out = e;
	return 0;
fail:
	engine_free(e);
	return -1;
}

int engine_start(struct engine **out, const struct engine_opts *o, char *err, size_t errlen)
{
	return engine_start_with(out, o, driver_of(o->plan, NULL, 0), err, errlen);
}

void engine_set_rate(struct engine *e, double per_s, int64_t ramp_ms)
{
	atomic_store_explicit(&e->ramp_ms, ramp_ms, memory_order_relaxed);
	atomic_store_explicit(&e->rate_t0_us, engine_now_us(e), memory_order_relaxed);
	atomic_store_explicit(&e->rate_mhz, (int64_t)(per_s * 1000 + 0.5), memory_order_release);
	atomic_fetch_add(&e->ctl_gen, 1);
	for (int i = 0; i < e->nthreads; i++)
		e->drv->wake(&e->t[i]);
}

void engine_set_vus(struct engine *e, int vus, int64_t ramp_ms)
{
	atomic_store_explicit(&e->ramp_ms, ramp_ms, memory_order_relaxed);
	atomic_store_explicit(&e->target_vus, vus, memory_order_release);
	atomic_fetch_add(&e->ctl_gen, 1);
	for (int i = 0; i < e->nthreads; i++)
		e->drv->wake(&e->t[i]);
}

int engine_collect(struct engine *e, struct istats *into, char *err, size_t errlen)
{
	int epoch = atomic_load(&e->epoch) + 1;
	int64_t deadline = clock_mono_ms() + 10000;

	atomic_store_explicit(&e->epoch, epoch, memory_order_release);
	for (int i = 0; i < e->nthreads; i++)
		e->drv->wake(&e->t[i]);
	for (int i = 0; i < e->nthreads; i++) {
		struct ethread *t = &e->t[i];
		/* A worker switches within one loop turn; one that has finished never will, and
		 * its last buffer is complete. */
		while (atomic_load_explicit(&t->acked_epoch, memory_order_acquire) != epoch &&
		       !atomic_load_explicit(&t->done, memory_order_acquire)) {
			if (clock_mono_ms() > deadline) {
				snprintf(err, errlen,
				         "worker %d did not hand over its interval within 10 s", i);
				return -1;
			}
			struct timespec ts = {0, 200000};
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < e->nthreads; i++) {
		struct ethread *t = &e->t[i];
		struct istats *left;
		if (atomic_load_explicit(&t->acked_epoch, memory_order_acquire) == epoch) {
			/* st index: the worker flips cur on each epoch starting at 0, so after
			 * epoch k it writes st[k & 1] and left st[(k - 1) & 1]. */
			left = &t->st[(epoch - 1) & 1];
			istats_add(into, left);
			istats_reset(left);
		} else {
			/* Finished without switching: both buffers are at rest. */
			istats_add(into, &t->st[0]);
			istats_add(into, &t->st[1]);
			istats_reset(&t->st[0]);
			istats_reset(&t->st[1]);
		}
	}
	return 0;
}

void engine_live(struct engine *e, struct engine_live *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < e->nthreads; i++) {
		struct ethread *t = &e->t[i];
		out->requests += atomic_load_explicit(&t->live_requests, memory_order_relaxed);
		out->errors += atomic_load_explicit(&t->live_errors, memory_order_relaxed);
		out->new_conns += atomic_load_explicit(&t->live_conns, memory_order_relaxed);
		out->vus += atomic_load_explicit(&t->live_vus, memory_order_relaxed);
		out->inflight += atomic_load_explicit(&t->live_inflight, memory_order_relaxed);
		int64_t lag = atomic_load_explicit(&t->live_lag_us, memory_order_relaxed);
		if (lag > out->lag_us)
			out->lag_us = lag;
	}
}

void engine_stop(struct engine *e, int abort)
{
	int want = abort ? ENGINE_ABORT : ENGINE_DRAIN;
	if (atomic_load(&e->stop) < want)
		atomic_store_explicit(&e->stop, want, memory_order_release);
	for (int i = 0; i < e->nthreads; i++)
		e->drv->wake(&e->t[i]);
}

int engine_wait(struct engine *e, int64_t timeout_ms)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;
	for (;;) {
		int all = 1;
		for (int i = 0; i < e->nthreads; i++)
			if (e->t[i].started &&
			    !atomic_load_explicit(&e->t[i].done, memory_order_acquire))
				all = 0;
		if (all)
			return 0;
		if (clock_mono_ms() >= deadline)
			return -1;
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	engine_stop(e, 1);
	for (int i = 0; i < e->nthreads; i++)
		if (e->t[i].started)
			pthread_join(e->t[i].tid, NULL);
	for (int i = 0; i < e->nthreads; i++) {
		e->drv->release(&e->t[i]);
		sched_release(&e->t[i]);
		istats_release(&e->t[i].st[0]);
		istats_release(&e->t[i].st[1]);
	}
	free(e->t);
	free(e);
}

int engine_threads(const struct engine *e)
{
	return e->nthreads;
}

const char *engine_loop_name(const struct engine *e)
{
	if (e->drv != &http_driver)
		return "epoll";
	return e->loop == LOOP_EPOLL ? "epoll" : "poll";
}
