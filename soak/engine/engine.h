/*
 * engine — the load engine: worker threads, each with its own event loop and its own share
 * of the load: virtual users (VUs) in the closed model (send, wait for the answer, think,
 * send again), or of the arrival rate in the open model (requests start on a clock; latency
 * counts from the intended start).  The plan says which (plan.h); the scheduler (sched.c)
 * runs both, the drivers (http.c, tcpframe.c) move the bytes.
 *
 * Threads and handover: each worker counts into one of two istats buffers; engine_collect()
 * (called by the one aggregating thread at an interval boundary) bumps an epoch, wakes the
 * workers, waits until each has switched to its other buffer, merges the buffers they left
 * and clears them.  Workers take no lock and allocate nothing on the request path.
 * Control (target VUs, stop) travels the same way: atomics written by the aggregator, read
 * by the workers once per loop turn.
 *
 * Lifetime: engine_start() -> engine_set_vus()/engine_collect()... -> engine_stop() ->
 * engine_wait() -> engine_free().  Only the thread that started the engine calls these.
 * The plan must outlive the engine.
 */
#ifndef SOAK_ENGINE_H
#define SOAK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "stats.h"

enum engine_loop {
	LOOP_AUTO = 0,  /* pick by VUs per thread (see engine.c) */
	LOOP_POLL = 1,  /* curl_multi_poll + curl_multi_perform */
	LOOP_EPOLL = 2, /* curl_multi_socket_action driven by epoll */
};

struct engine_opts {
	const struct plan *plan; /* what to send: requests or frames, connection mode, think */
	int64_t run_id;          /* for ${run} */
	const char *nonce;       /* for ${nonce}; must outlive the engine */
	int threads;             /* 0 = one per core */
	int max_vus;             /* closed: the most VUs any step will ask for */
	enum engine_loop loop;
	int agent_index; /* K of `--agent K/N` (1-based); 0 or 1 when not an agent */
	int agent_count; /* N; 0 or 1 when not an agent.  Used only to number ${vu}
	                  * and ${seq} across agents (engine_int.h) */
};

/* Totals since start, for a live status line (read without stopping the workers). */
struct engine_live {
	int64_t requests;
	int64_t errors;
	int64_t new_conns;
	int vus;        /* VUs running (in flight or thinking); open model: in flight */
	int inflight;   /* requests in flight */
	int64_t lag_us; /* open model: the largest start lag of the workers' last requests */
};

/* What the engine learnt of the target while it ran, for run_env. */
struct engine_facts {
	char tls[160];          /* the first TLS handshake's "VERSION CIPHER ALPN" ("-" for no
	                         * ALPN), "" when none was made */
	int64_t h2_max_streams; /* HTTP/2: the server's SETTINGS_MAX_CONCURRENT_STREAMS, -1 when
	                         * no SETTINGS came */
};

struct engine;

/* Connects once to the plan's target (3 s at most): 0, or -1 with "cannot reach ..." or
 * "cannot resolve ..." in err. */
int engine_preflight(const struct plan *p, char *err, size_t errlen);
int engine_start(struct engine **out, const struct engine_opts *o, char *err, size_t errlen);
/* Closed model: sets the number of VUs; new ones start spread evenly over ramp_ms, surplus
 * ones finish their request and stop. */
void engine_set_vus(struct engine *e, int vus, int64_t ramp_ms);
/* Open model: sets the arrival rate (per second, the whole engine's); it grows linearly
 * from a fiftieth over ramp_ms. */
void engine_set_rate(struct engine *e, double per_s, int64_t ramp_ms);
/* Adds every worker's counts since the previous collect into `into` (initialised with
 * istats_init_open for an open-model plan). */
int engine_collect(struct engine *e, struct istats *into, char *err, size_t errlen);
void engine_live(struct engine *e, struct engine_live *out);
/* Stops sending: abort = 0 lets requests in flight finish; 1 drops them at once. */
void engine_stop(struct engine *e, int abort);
/* Waits up to timeout_ms for the workers to finish; 0 when all have, -1 otherwise. */
int engine_wait(struct engine *e, int64_t timeout_ms);
/* Aborts whatever still runs, joins and frees.  NULL is a no-op. */
void engine_free(struct engine *e);
/* The number of worker threads and the event loop in use. */
int engine_threads(const struct engine *e);
/* The driver that sends plan p: "curl", "lean" or "tcp-frame" (client = auto resolved).
 * When auto leaves the lean driver for libcurl, `why` (may be NULL) says what needs it;
 * otherwise it is emptied.  A plan asking for lean that lean cannot send gets "lean" and
 * the reason in why (the scenario refuses such plans before this). */
const char *engine_client(const struct plan *p, char *why, size_t whylen);
/* What the workers learnt so far (a fact no worker has is empty). */
void engine_facts(struct engine *e, struct engine_facts *out);
/* The driver a started engine runs. */
const char *engine_client_name(const struct engine *e);
const char *engine_loop_name(const struct engine *e);

#endif
