/*
 * engine_int — what the engine core (engine.c) shares with its protocol drivers (http.c,
 * tcpframe.c).  Not for other modules.
 *
 * A driver runs one worker's event loop.  It must, once per loop turn, call
 * engine_turn(), which performs the interval handover and returns the current control
 * state; it records into ethread_stats(t) only; it publishes its live counters with
 * engine_publish(); and it returns from run() when stop says so (after draining its
 * requests for stop == ENGINE_DRAIN).
 */
#ifndef SOAK_ENGINE_INT_H
#define SOAK_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "agent_id.h"
#include "engine.h"

enum { ENGINE_RUN = 0, ENGINE_DRAIN = 1, ENGINE_ABORT = 2 };

struct ethread {
	struct engine *eng;      /* owner */
	int index;               /* 0..nthreads-1 */
	pthread_t tid;
	int started;             /* tid is valid */
	struct istats st[2];     /* the worker writes st[cur]; the aggregator reads the other */
	int cur;                 /* worker-only */
	int seen_epoch;          /* worker-only: the epoch of st[cur] */
	_Atomic int acked_epoch; /* the last epoch this worker switched buffers for */
	_Atomic int done;        /* run() has returned */
	/* Live counters, published by the worker once per loop turn (relaxed). */
	_Atomic int64_t live_requests, live_errors, live_conns;
	_Atomic int live_vus, live_inflight;
	int64_t requests, errors, conns; /* worker-only running totals behind the live ones */
	uint64_t seq_count;      /* requests started by this worker (for ${seq}) */
	uint64_t rng;            /* per-worker random state, never 0 */
	int share;               /* VUs this worker should run now (from engine_turn) */
	int64_t ramp_ms;         /* spread for newly started VUs */
	int max_share;           /* the most VUs this worker will ever run */
	void *drv;               /* driver state */
};

struct driver {
	const char *name;
	int (*init)(struct ethread *t, char *err, size_t errlen);
	void (*run)(struct ethread *t);
	void (*wake)(struct ethread *t); /* interrupts the worker's wait; async-safe enough */
	void (*release)(struct ethread *t);
	/* Refuses to start when the target cannot even be connected to (3 s at most). */
	int (*preflight)(const struct plan *p, char *err, size_t errlen);
};

struct engine {
	struct engine_opts o;
	int nthreads;
	struct ethread *t;
	const struct driver *drv;
	enum engine_loop loop;    /* resolved: LOOP_POLL or LOOP_EPOLL */
	_Atomic int epoch;        /* bumped by engine_collect */
	_Atomic int ctl_gen;      /* bumped by engine_set_vus / engine_stop */
	_Atomic int target_vus;
	_Atomic int64_t ramp_ms;
	_Atomic int stop;         /* ENGINE_RUN, ENGINE_DRAIN, ENGINE_ABORT */
};

/* Control state seen by a worker at the start of a loop turn. */
struct turn {
	int stop;    /* ENGINE_* */
	int changed; /* share or ramp changed since the last turn */
};

/* The worker's current buffer. */
static inline struct istats *ethread_stats(struct ethread *t) { return &t->st[t->cur]; }

/* Handles the handover and control changes; cheap when nothing changed. */
void engine_turn(struct ethread *t, struct turn *out);
void engine_publish(struct ethread *t, int vus, int inflight);
/* When local VU j starts after the share grew from `from` to `want` VUs at `now`: new
 * VUs are spread evenly over the ramp, the first at once. */
static inline int64_t ethread_ramp_due(const struct ethread *t, int j, int from, int want,
				       int64_t now)
{
	return t->ramp_ms > 0 ? now + t->ramp_ms * (j - from) / (want - from) : now;
}

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

extern const struct driver http_driver;
extern const struct driver tcpframe_driver;

#endif
