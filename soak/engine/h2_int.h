/*
 * h2_int — what the lean HTTP/2 driver's two files share: h2.c (the requests: slots,
 * streams, nghttp2's callbacks, time-outs, the driver contract) and h2conn.c (the
 * connections: opening, TLS, the session, reading and writing).  Not for other modules.
 */
#ifndef SOAK_H2_INT_H
#define SOAK_H2_INT_H

#include <nghttp2/nghttp2.h>
#include <stdint.h>

#include "conn.h"
#include "engine_int.h"
#include "h2msg.h"
#include "mempool.h"
#include "tls.h"
#include "up.h"

#define OUT_CHUNK                    65536     /* frames gathered before a write */
#define OUT_MAX                      (4 << 20) /* frames waiting for one connection's socket, at most */
#define WINDOW                       ((1 << 30) - 1) /* our receive windows: flow control never waits on us */
#define PEER_STREAMS_BEFORE_SETTINGS 100             /* assumed until the server's SETTINGS say */

enum cstate { C_DOWN = 0, C_CONNECTING, C_HANDSHAKE, C_UP };
enum sstate { S_IDLE = 0, S_WAITING, S_INFLIGHT };

struct h2thread;

/* One connection. */
struct h2conn {
	struct h2thread *h;
	struct up up;        /* the socket, its TLS and how it came up (up.c) */
	nghttp2_session *ng; /* once up */
	uint8_t state;       /* enum cstate */
	uint8_t goaway;      /* the server sent GOAWAY: no new streams here */
	uint8_t fresh;       /* connected, and no request has finished on it yet */
	uint8_t dirty;       /* on the dirty list: frames may wait in nghttp2 */
	uint8_t wblocked;    /* a write waits for the socket (TLS: to be repeated as it was) */
	uint8_t stale;       /* an attempt to open it outlived a request's timeout */
	int index;           /* the slots' connection index (position mod nconn) */
	int waiting;         /* slots waiting for it to come up */
	int32_t last_id;     /* GOAWAY: the last stream the server will process */
	int32_t hd_stream;   /* the stream whose header block is being read ... */
	int hd_j;            /* ... and its slot (-1: none), looked up once per block */
	uint32_t goaway_code;
	char *out;                   /* frames the socket has not taken yet */
	size_t outcap, outlen, outoff;
};

/* One slot's request. */
struct h2slot {
	uint8_t state;   /* enum sstate */
	uint8_t kind;    /* request kind */
	uint8_t retried; /* sent once more after a refusal already */
	uint8_t rst;     /* the server reset its stream (rst_code) */
	uint8_t final;   /* the final answer's headers are complete */
	int pc;          /* pool position of its connection */
	int32_t stream;  /* its stream id, 0 when none */
	uint32_t rst_code;
	int status;             /* the answer's status, 0 until its headers */
	int64_t hdr_bytes;      /* as HTTP/1.1 lines: status line, headers, blank line */
	int64_t body_bytes;     /* DATA payload */
	int64_t ttfb_us;        /* start -> first byte of the answer, -1 until then */
	uint64_t seq, vu, iter; /* its template values (a retry builds it again) */
	char *keep;             /* the body's first bytes (expect_body), made once */
	size_t kept;            /* bytes in keep */
	char *bodybuf;          /* a dynamic body (made once) */
	const char *body;       /* the body being sent */
	size_t blen, boff;      /* its length, and what went out */
};


struct h2thread {
	struct ethread *t;
	const struct plan *plan;
	struct h2slot *slots; /* t->max_slots */
	struct h2conn *pool;  /* 2 * nconn */
	int *active;          /* nconn: each index's connection for new streams */
	int nconn;
	int *dirty; /* pool positions with frames to write, ndirty of them */
	int ndirty;
	struct conn_set cs;
	struct h2_req req[PLAN_MAX_REQUESTS];
	int kind_list[PLAN_MAX_REQUESTS]; /* deadline list of each kind */
	struct up_target g; /* the one target (up.h) */
	int has_tls;
	struct tls_client tls;
	struct up_worker up; /* what the pool's bring-ups share: cs, tls, t */
	int need_keep;
	char *scratch; /* the largest kind's header scratch */
	char *rbuf;    /* READ_BUF */
	pcre2_match_data *md;
	nghttp2_session_callbacks *cb;
	nghttp2_option *opt;
	struct mempool pool_mem; /* what nghttp2 allocates for streams and frames */
	nghttp2_mem mem;         /* nghttp2's view of it */
};

/* --- h2.c: the requests ----------------------------------------------------------------- */

/* Slot j's request failed: classed (f, os_errno, where it was), reported, its stream let go
 * (the server told with RST_STREAM when it is open). */
void h2_fail(struct h2thread *h, int j, enum http_fail f, int os_errno, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Submits slot j's request on its connection (up); the frames go out at the next flush. */
void h2_submit(struct h2thread *h, int j);
/* Sends slot j's request once more when the server never saw it: 1 when it did, 0 when it
 * was sent again already (or answered in part). */
int h2_retry(struct h2thread *h, int j);

/* --- h2conn.c: the connections ---------------------------------------------------------- */

/* Opens pool position p's connection for the requests waiting for it. */
void h2c_open(struct h2thread *h, int p);
/* Closes it, whatever its state (the slots on it are the caller's). */
void h2c_close(struct h2thread *h, int p);
/* The connection failed or ended: its requests fail with f (what), or are sent again. */
void h2c_fail(struct h2thread *h, int p, enum http_fail f, int e, const char *what);
/* Frames may wait in nghttp2 for c: written at the next h2c_flush_dirty. */
void h2c_mark_dirty(struct h2thread *h, struct h2conn *c);
/* Writes the frames of every connection marked. */
void h2c_flush_dirty(struct h2thread *h);
/* An epoll event of pool position p's socket. */
void h2c_event(struct h2thread *h, int p, uint32_t evs);
/* The next slot after j (j = -1: the first) whose request is on, or waits for, pool
 * position p; -1 when none. */
int h2c_next_on(const struct h2thread *h, int p, int j);

#endif
