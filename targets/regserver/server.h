/*
 * server — regserver's HTTP side: libmicrohttpd, the routes, the fault knobs and the
 * delayed answers.
 *
 * Routes:
 *   POST /register  form or JSON {username, email, password} (see regform.h)
 *                   201 {"id":N} | 400 {"error":"bad field: NAME"} | 400 malformed body |
 *                   409 {"error":"username taken"} | 413 body over SRV_MAX_BODY |
 *                   415 other content type | 405 other methods (Allow: POST)
 *   GET  /health    200 "ok" (HEAD too; 405 for other methods)
 *   anything else   404
 * Every answer carries Content-Length; keep-alive and the client's `Connection: close` are
 * libmicrohttpd's.
 *
 * Fault knobs, decided when a request's headers arrive (its "arrival"), in this order:
 *   1. Content-Length over SRV_MAX_BODY: 413 at once, undelayed, and libmicrohttpd closes
 *      the connection (the body is never read).  A chunked body that grows past the cap
 *      is read and dropped (up to SRV_MAX_DROP bytes, then the connection is cut) and gets
 *      413 like any other answer.
 *   2. error_rate: that fraction answers 503 without touching the store.
 *   3. Every answer (503s included) leaves no earlier than arrival + latency + a uniform
 *      0..jitter; a stall_rate fraction leaves no earlier than arrival + stall (when that is
 *      later).  Delays never hold a worker: the connection is suspended
 *      (MHD_suspend_connection) and the delay module's timer thread resumes it at the
 *      deadline.  Work that outlasts the deadline is answered as soon as it is done.
 * The random draws come from a hash of (seed, request number): no shared RNG state.
 *
 * Threads: libmicrohttpd's epoll loop in `threads` worker threads (a thread pool when > 1),
 * plus the delay timer thread when a delay is configured.  The store is shared behind its
 * mutex; counters are relaxed atomics.  srv_start()/srv_stop()/srv_free() from the owner.
 * Functions return 0 or -1 and fill err.
 */
#ifndef REGSERVER_SERVER_H
#define REGSERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#define SRV_MAX_BODY (64 * 1024)   /* a request body past this gets 413 */
#define SRV_MAX_DROP (1024 * 1024) /* body bytes read and dropped before a connection is cut */

struct srv_config {
	unsigned port;             /* TCP port on 127.0.0.1; 0: the kernel picks one */
	int64_t latency_ns;        /* minimum delay of every answer, from arrival */
	int64_t jitter_ns;         /* plus a uniform 0..jitter_ns */
	double error_rate;         /* fraction of requests answered 503, 0..1 */
	double stall_rate;         /* fraction answered no earlier than stall_ns after arrival */
	int64_t stall_ns;          /* how long a stalled request waits, from arrival */
	unsigned threads;          /* libmicrohttpd worker threads, >= 1 */
	const char *db_path;       /* SQLite file or ":memory:"; the caller's string, kept by
	                            * reference until srv_free */
	long long max_users;       /* start the store over at this many users; 0 = never */
	uint64_t seed;             /* seed of the jitter/error/stall draws */
	const char *arrivals;      /* file that gets each request's arrival time (CLOCK_MONOTONIC
	                            * µs, one line each: a test's view of the load's schedule), or
	                            * NULL; the caller's string */
	unsigned capacity;         /* requests in service at once, each for the drawn delay;
	                            * more wait their turn in arrival order (0 = unlimited).
	                            * Emulated by deadlines, so no thread ever blocks: with
	                            * latency L the server saturates at capacity / L per second */
	int64_t capacity_after_ns; /* > 0: this long after srv_start the capacity becomes
	                            * capacity_after (a server that degrades on cue, for tests
	                            * of soak's drift verdict) */
	unsigned capacity_after;   /* the capacity from then on, >= 1 */
	int burn_fn;               /* 'a' or 'b': the function that spends burn_us (burn.h) */
	int64_t burn_us;           /* CPU spent per request in it, µs (0: none) */
};

/* Counters reported on exit; SRV_N_REQUESTS counts every request whose headers arrived. */
enum srv_count {
	SRV_N_REQUESTS,
	SRV_N_200,
	SRV_N_201,
	SRV_N_400,
	SRV_N_404,
	SRV_N_405,
	SRV_N_409,
	SRV_N_413,
	SRV_N_415,
	SRV_N_500,
	SRV_N_503,
	SRV_N_QUEUED,       /* requests that waited for a --capacity slot */
	SRV_N_DELAYED_PEAK, /* the most answers held back at once (not a count: a peak) */
	SRV_N_COUNT
};

struct srv;

/* Opens the store, starts the delay timer (when needed) and libmicrohttpd. */
int srv_start(const struct srv_config *cfg, struct srv **out, char *err, size_t errlen);
/* The port actually bound. */
unsigned srv_port(const struct srv *s);
/* Connections libmicrohttpd will accept at once (from RLIMIT_NOFILE, raised to the hard
 * limit). */
unsigned srv_conn_limit(const struct srv *s);
/* Stops accepting, answers every delayed request at once, stops libmicrohttpd.
 * Idempotent. */
void srv_stop(struct srv *s);
/* A snapshot of the counters into out[SRV_N_COUNT]. */
void srv_counts(struct srv *s, unsigned long long *out);
/* Users in the store now, and how many times max_users made it start over. */
void srv_store_stats(struct srv *s, long long *users, long long *resets);
/* Stops (if not yet) and frees.  NULL is a no-op. */
void srv_free(struct srv *s);

#endif
