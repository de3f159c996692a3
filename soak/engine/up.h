/*
 * up — one way to bring a connection up, for the drivers that own their sockets (lean.c's
 * HTTP/1.1 slots and h2conn.c's HTTP/2 connections): the target's address (resolved once
 * per worker, the next one when a connect is refused), the non-blocking connect, the TLS
 * handshake offering the target's session, each step timed, each failure classed and
 * worded once.  What comes after (a request, an HTTP/2 session) is the driver's.
 *
 * A bring-up is started with up_start() and moved on by up_event() for each epoll event of
 * its connection (conn_poll's tag); both return UP_WAIT (an event will come), UP_READY (the
 * connection is up: TCP, and TLS when the target is https) or UP_FAILED (why says what, in
 * libcurl's words, and whether it failed in the handshake).  A worker's first handshake
 * records what it negotiated (ethread facts, for run_env).
 *
 * Threads: a bring-up, its target and its worker's parts belong to one worker.  Nothing is
 * allocated but what OpenSSL allocates for a handshake.
 */
#ifndef SOAK_UP_H
#define SOAK_UP_H

#include <stdint.h>

#include "conn.h"
#include "h1.h"
#include "httpclass.h"
#include "tls.h"

struct ethread;

/* A worker's receive buffer (lean's and h2's). */
#define READ_BUF 65536

/* A scheme, host and port connections go to. */
struct up_target {
	struct conn_target net;   /* its addresses */
	const struct h1_url *url; /* scheme (tls), host and port */
	struct tls_resume resume; /* https: the newest session its connections got */
};

enum up_phase {
	UP_DOWN = 0,   /* no connection */
	UP_CONNECTING, /* the non-blocking connect is in progress */
	UP_HANDSHAKE,  /* connected; the TLS handshake is in progress */
	UP_UP,         /* up: the driver's */
};

/* A connection and its bring-up. */
struct up {
	struct conn c;        /* the socket (c.fd -1 when none) */
	struct tls_conn tls;  /* https: its TLS (the SSL object kept across connections) */
	uint8_t phase;        /* enum up_phase */
	uint8_t at;           /* the address it tries (conn_target_first) */
	uint8_t tries;        /* addresses tried and refused for this connect */
	uint8_t made;         /* this bring-up's TCP connection was made */
	uint8_t tls_resumed;  /* the handshake resumed a session */
	int64_t t_conn_us;    /* connect started (mono µs) */
	int64_t t_tls_us;     /* handshake started (mono µs) */
	int64_t connect_us;   /* the connect's time once made (the caller resets it: -1) */
	int64_t tls_us;       /* the handshake's time once done, >= 1 (the caller resets it: 0) */
};

/* What a worker's bring-ups share. */
struct up_worker {
	struct conn_set *cs;     /* its epoll set */
	struct tls_client *tls;  /* its TLS client (https targets) */
	struct ethread *t;       /* its thread: where the first handshake's facts go */
};

/* Why a bring-up failed. */
struct up_fail {
	enum http_fail f;     /* the class of failure */
	int e;                /* the OS errno seen, or 0 */
	int in_handshake;     /* it failed in the TLS handshake (a kept connection's close
	                       * there may be worth a fresh try: the driver's call) */
	char what[400];       /* in libcurl's words */
};

enum { UP_FAILED = -1, UP_WAIT = 0, UP_READY = 1 };

/* Opens u's connection to g (tag: conn_poll's tag for its events).  UP_WAIT, UP_READY or
 * UP_FAILED. */
int up_start(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
             struct up_fail *why);
/* An epoll event of u's connection while it comes up (phase CONNECTING or HANDSHAKE). */
int up_event(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
             uint32_t evs, struct up_fail *why);
/* What a time-out hit while it came up: "Connection" or "TLS handshake". */
const char *up_timeout_what(const struct up *u);
/* Closes the connection (a close_notify first when TLS is up); the phase goes DOWN. */
void up_drop(struct up *u);
/* Frees the TLS state kept across connections (after up_drop). */
void up_release(struct up *u);

#endif
