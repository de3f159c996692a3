/*
 * engine_int — what the engine core (engine.c, sched.c) shares with its protocol drivers
 * (http.c, tcpframe.c).  Not for other modules.
 *
 * The engine owns the virtual user.  Each worker thread runs the scheduler's loop
 * (sched.c): it hands intervals over (engine_turn), applies control changes, starts the
 * slots that are due — a VU whose think time is over (closed model) or the next arrival of
 * the schedule (open model) — and lets the driver wait for I/O.  A driver only moves bytes
 * for a slot: start a request for slot j, cancel it, one wait/poll step, and a preflight;
 * it reports every finished request through sched_finish(), the one place that counts one
 * (live totals, interval stats, error class and its wording) and decides what the slot
 * does next (think, back off, start again, leave).
 *
 * Slots: 0 <= j < t->max_slots.  Closed model: slot j is the worker's VU j.  Open model:
 * a slot is one request in flight (for HTTP/1.1 and tcp-frame, one connection, kept
 * between requests in keep-alive mode); free slots are reused most recently freed first,
 * so warm connections are reused.
 *
 * Threads: everything here belongs to one worker thread, except the atomics, which the
 * aggregator (engine.c) reads or writes.
 *
 * Time: every moment the scheduler keeps ("mono µs": sends, intended starts, due times,
 * the rate's origin) is read with engine_now_us(), CLOCK_MONOTONIC unless the driver
 * brings a clock of its own (a test's virtual one).
 */
#ifndef SOAK_ENGINE_INT_H
#define SOAK_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>

#include "agent_id.h"
#include "clock.h"
#include "engine.h"
#include "vuheap.h"

enum { ENGINE_RUN = 0, ENGINE_DRAIN = 1, ENGINE_ABORT = 2 };

/* What a driver reports for one finished request. */
struct outcome {
	int cls;            /* -1: passed; otherwise enum err_class */
	int answered;       /* a response arrived (any status): its time goes in the histogram */
	int64_t service_us; /* request started (connect included) -> answer complete */
	int64_t connect_us; /* >= 0 when this request opened a connection, else -1 */
	int64_t ttfb_us;    /* start -> first byte of the answer (-1 when none); tcp-frame:
	                     * the handshake's time */
	int64_t bytes;      /* response bytes received, headers and body */
	int64_t tls_us;     /* > 0 when this request made a TLS handshake: its time (from
	                     * the TCP connection up to the handshake complete) */
	int tls_resumed;    /* and that handshake resumed a session */
	const char *detail; /* errors: what happened (engine_error_text builds the message) */
};

enum slot_state {
	SLOT_IDLE = 0, /* not running (closed: not wanted, or waiting to be wanted) */
	SLOT_WAITING,  /* closed: in the heap or the ready queue (ramp, think, back-off) */
	SLOT_INFLIGHT, /* a request is running in the driver */
	SLOT_FREE,     /* open: on the free stack */
};

/* One slot as the scheduler sees it. */
struct slot {
	uint8_t state;       /* enum slot_state */
	uint64_t iter;       /* requests this slot has started (for ${iter}) */
	int64_t intended_us; /* open model: the arrival's intended start (mono µs) */
	int64_t sent_us;     /* when the current request was started (mono µs) */
	int64_t wait_us;     /* open model: of its wait from intended_us to sent_us, the part
	                      * in which every slot was busy (the server's; in its latency) */
};

#define STARVE_MAX 64 /* open model: periods with every slot busy kept at once */

/* A period in which every slot of a worker was busy (mono µs). */
struct starve {
	int64_t from_us, to_us;
};

struct ethread {
	struct engine *eng; /* owner */
	int index;          /* 0..nthreads-1 */
	pthread_t tid;
	int started;             /* tid is valid */
	struct istats st[2];     /* the worker writes st[cur]; the aggregator reads the other */
	int cur;                 /* worker-only */
	int seen_epoch;          /* worker-only: the epoch of st[cur] */
	int64_t cpu_mark_ns;     /* worker-only: thread CPU time at the last handover */
	int64_t wait_mark_ns;    /* worker-only: its run-queue wait at the last handover */
	_Atomic int acked_epoch; /* the last epoch this worker switched buffers for */
	_Atomic int done;        /* the worker's loop has returned */
	/* Live counters, published by the worker once per loop turn (relaxed). */
	_Atomic int64_t live_requests, live_errors, live_conns, live_lag_us;
	_Atomic int live_vus, live_inflight;
	int64_t requests, errors, conns; /* worker-only running totals behind the live ones */
	uint64_t seq_count;              /* requests started by this worker (for ${seq}) */
	uint64_t rng;                    /* per-worker random state, never 0 */
	struct tpl_ctx ctx;              /* the template context of the request being started */
	char nonce[64];                  /* ${nonce}, copied so ctx never points into the opts */
	/* --- the scheduler (sched.c), worker-only --- */
	int max_slots;           /* closed: the most VUs this worker runs; open: its share of
	                          * max_in_flight */
	struct slot *slots;      /* max_slots of them */
	int share;               /* closed: VUs this worker should run now (engine_turn) */
	int64_t ramp_ms;         /* closed: spread of newly started VUs */
	int active;              /* closed: VUs [0, active) are wanted */
	struct vuheap heap;      /* closed: waiting VUs by due time (µs) */
	int *ready;              /* closed: ring of VUs due now (no heap round trip) */
	int ready_head, ready_n; /* its first entry and length */
	int *free_stack;         /* open: free slots, the most recently freed on top */
	int nfree;               /* entries in free_stack */
	int inflight;            /* slots with a request in the driver */
	int kick;                /* something became due while the driver was polling (a VU
	                          * with no think time finished, a slot freed for a waiting
	                          * arrival): poll() must not block any more this turn */
	double rate;             /* open: arrivals per second for this worker (0: none) */
	int64_t rate_t0_us;      /* open: when this rate began (ramp origin) */
	int64_t next_arrival_us; /* open: intended start of the next arrival */
	double tokens;           /* open: catch-up allowance (see sched.c) */
	int64_t tokens_us;       /* when tokens was last topped up */
	int64_t lag_us;          /* open: start lag of the last request sent (status line) */
	struct starve starve[STARVE_MAX]; /* open: recent periods with every slot busy, a
	                                   * ring, oldest first */
	int starve_head, starve_n;        /* its first entry and length */
	int64_t starved_from_us;          /* open: every slot busy since then; -1: not now */
	void *drv;                        /* driver state */
	/* What the driver learnt of the target (engine_facts): each part written once by the
	 * worker, then published by its flag (release) and read-only. */
	struct engine_facts facts;
	_Atomic int facts_tls; /* facts.tls is set */
	_Atomic int facts_h2;  /* facts.h2_max_streams is set */
};

struct driver {
	const char *name; /* "curl", "tcp-frame" */
	int (*init)(struct ethread *t, char *err, size_t errlen);
	void (*release)(struct ethread *t);
	/* Starts slot j's next request now; t->ctx holds its ${seq}, ${vu}, ${iter}.  May
	 * finish it before returning (sched_finish). */
	void (*start)(struct ethread *t, int j);
	/* Drops slot j's request in flight at once and closes its connection; no counting. */
	void (*cancel)(struct ethread *t, int j);
	/* Slot j is no longer wanted (its VU left, the run drains): close its connection. */
	void (*idle)(struct ethread *t, int j);
	/* Waits up to wait_us for I/O (less when the driver's own timer is sooner), handles
	 * what is ready and reports finished requests with sched_finish().  Once t->kick is
	 * set (by sched_finish) it returns without blocking again. */
	void (*poll)(struct ethread *t, int64_t wait_us);
	/* Interrupts poll() from another thread. */
	void (*wake)(struct ethread *t);
	/* Refuses to start when the target cannot even be connected to (3 s at most). */
	int (*preflight)(const struct plan *p, char *err, size_t errlen);
	/* The clock the scheduler runs on with this driver (µs), or NULL: CLOCK_MONOTONIC,
	 * which every real driver measures with (its service times against slot.sent_us).
	 * A test's driver brings its own virtual clock (test_sched.c) and measures with it;
	 * the engine then also seeds its random draws from it, so a run repeats exactly. */
	int64_t (*now_us)(void);
};

struct engine {
	struct engine_opts o;
	int nthreads;
	struct ethread *t;
	const struct driver *drv;
	enum engine_loop loop;  /* resolved: LOOP_POLL or LOOP_EPOLL */
	_Atomic int epoch;      /* bumped by engine_collect */
	_Atomic int ctl_gen;    /* bumped by engine_set_vus / engine_set_rate / engine_stop */
	_Atomic int target_vus; /* closed */
	_Atomic int64_t ramp_ms;
	_Atomic int64_t rate_mhz;   /* open: target arrivals per second, in thousandths */
	_Atomic int64_t rate_t0_us; /* open: when that rate was set (mono µs): every worker's
	                             * schedule starts there, so their arrivals interleave */
	_Atomic int stop;           /* ENGINE_RUN, ENGINE_DRAIN, ENGINE_ABORT */
};

/* Control state seen by a worker at the start of a loop turn. */
struct turn {
	int stop;    /* ENGINE_* */
	int changed; /* share, rate or ramp changed since the last turn */
};

/* The scheduler's clock, µs: the driver's own, or a direct call of clock_mono_us when it
 * has none (every real driver). */
static inline int64_t engine_now_us(const struct engine *e)
{
	return e->drv->now_us ? e->drv->now_us() : clock_mono_us();
}

/* The worker's current buffer. */
static inline struct istats *ethread_stats(struct ethread *t)
{
	return &t->st[t->cur];
}

/* Handles the handover and control changes; cheap when nothing changed. */
void engine_turn(struct ethread *t, struct turn *out);
void engine_publish(struct ethread *t, int vus, int inflight);
/* Waits for events like epoll_wait, with a timeout in µs (epoll_pwait2), so the open
 * model's schedule is kept to the microsecond rather than the millisecond. */
int engine_epoll_wait(int epfd, struct epoll_event *ev, int n, int64_t wait_us);

/* ${seq} for the next request of this worker: unique in the run across workers, and
 * across the agents of a group (agent_id.h). */
static inline uint64_t ethread_next_seq(struct ethread *t)
{
	uint64_t local0 = t->seq_count++ * (uint64_t)t->eng->nthreads + (uint64_t)t->index;
	return agent_id_global(local0, t->eng->o.agent_index, t->eng->o.agent_count);
}
/* ${vu} of this worker's local VU j: unique across workers and agents. */
static inline uint64_t ethread_vu_id(const struct ethread *t, int j)
{
	uint64_t local0 = (uint64_t)j * (uint64_t)t->eng->nthreads + (uint64_t)t->index;
	return agent_id_global(local0, t->eng->o.agent_index, t->eng->o.agent_count);
}

/* --- the scheduler (sched.c) ------------------------------------------------------------ */

/* Sets up / frees the worker's slots (t->max_slots set). */
int sched_init(struct ethread *t, char *err, size_t errlen);
void sched_release(struct ethread *t);
/* The worker's loop, until drained or aborted. */
void sched_run(struct ethread *t);
/* Counts slot j's finished request and decides what the slot does next.  The one place a
 * request is counted; drivers call it, also from inside start(). */
void sched_finish(struct ethread *t, int j, const struct outcome *o);
/* The message stored for an error: one wording per class, whichever driver hit it.
 * `target` is the URL or address, `detail` the driver's words (may be NULL). */
void engine_error_text(enum err_class c, const char *target, const char *detail, char *buf,
                       size_t len);
/* The back-off a slot takes after an error of class c, in ms (0: none). */
int64_t sched_backoff_ms(enum err_class c);

/* Starts an engine on a given driver (tests run the scheduler on a fake one). */
int engine_start_with(struct engine **out, const struct engine_opts *o, const struct driver *drv,
                      char *err, size_t errlen);

extern const struct driver http_driver;
/* http_driver's preflight, which the lean drivers (lean_driver, h2_driver) take as theirs:
 * one connect to each request's host, 3 s at most. */
int http_preflight(const struct plan *p, char *err, size_t errlen);
extern const struct driver tcpframe_driver;
extern const struct driver lean_driver;
extern const struct driver h2_driver;

#endif
