/*
 * The lean HTTP/1.1 driver: http:// and https:// on non-blocking sockets in the worker's
 * epoll loop, requests built and responses parsed by h1.c, TLS by tls.c — wrk's design
 * (one event loop per thread, a small parser) behind the engine's driver contract
 * (engine_int.h).
 *
 * Each slot owns at most one connection, registered once with epoll (edge-triggered, in
 * and out) and kept between requests in keep-alive mode.  A request is written with one
 * gathering write (sendmsg) as soon as its connection is up; the answer is read into the worker's
 * buffer and fed to the slot's parser; a read shorter than the buffer drained the socket, so a
 * response that arrives whole costs one recv.  The connection is closed when the request
 * said `Connection: close` (close mode), when the answer said so or ended at close, and
 * when an idle connection hears from the server (it closed: Tomcat after 100 requests, a
 * keep-alive timeout).  A request sent on a kept connection that the server had closed
 * meanwhile (nothing came back) is sent once more on a fresh one, as libcurl does.
 *
 * https: once connected the slot makes the TLS handshake (L_HANDSHAKE), then writes the
 * request as one TLS record (head and body gathered in the worker's buffer) and reads
 * through OpenSSL; a read that drained the socket ends the turn as in plain HTTP.  A
 * session ticket that comes to an idle connection is taken and the connection kept.
 *
 * Deadlines: the request's timeout covers connect, TLS handshake, send and answer
 * (libcurl's TIMEOUT);
 * one deadline list per request kind's timeout (dlist.h).
 *
 * Memory: per slot a small struct; the request is built in the worker's scratch and copied
 * to the slot only when the kernel did not take it whole; the body's first bytes for
 * expect_body go to the worker's buffer while a response arrives in one read and move to a
 * slot buffer (allocated once, on first need) only when it does not.
 */
#include "lean.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "clock.h"
#include "conn.h"
#include "engine_int.h"
#include "h1.h"
#include "tls.h"
#include "up.h"


enum lstate {
	L_IDLE = 0,   /* no request (a kept connection may be open) */
	L_CONNECTING, /* non-blocking connect in progress */
	L_HANDSHAKE,  /* connected; the TLS handshake in progress */
	L_SENDING,    /* writing the request (the kernel took part of it) */
	L_READING,    /* the request is out; reading the answer */
};


/* One slot: a request in flight and the connection it owns. */
struct lslot {
	struct up up;           /* its connection and how it came up (up.c) */
	uint8_t state;          /* enum lstate */
	uint8_t target;         /* the target fd is connected to */
	uint8_t kind;           /* request kind in flight */
	uint8_t reused;         /* the request went out on a kept connection */
	uint8_t retried;        /* it was sent again on a fresh connection already */
	uint64_t seq, vu, iter; /* the request's template values (it may be built twice) */
	int64_t ttfb_us;        /* start -> first byte of the answer, -1 until then */
	size_t off, len;        /* bytes of pend written, and its length (L_SENDING) */
	char *pend;             /* the rest of a request the kernel did not take at once */
	char *keep;             /* the body's first bytes, when a response spans reads */
	struct h1_resp resp;    /* the answer being read */
};

struct lthread {
	struct ethread *t;
	const struct plan *plan;
	struct lslot *slots;                  /* t->max_slots of them */
	struct conn_set cs;                   /* the epoll set; in-flight slots by deadline, one
	                                       * list per kind */
	struct h1_req req[PLAN_MAX_REQUESTS]; /* the request kinds, compiled */
	int kind_target[PLAN_MAX_REQUESTS];   /* target of each kind */
	int kind_list[PLAN_MAX_REQUESTS];     /* deadline list of each kind */
	struct up_target targets[PLAN_MAX_REQUESTS]; /* where the kinds go (up.h) */
	int ntargets;
	int need_keep; /* some kind checks its body */
	char *scratch; /* a built request (the largest kind's h1_req_scratch) */
	size_t scratch_cap;
	size_t pend_cap; /* the largest request a slot may have to keep */
	char *rbuf;      /* READ_BUF */
	char *gather;    /* https: a request's head and body in one piece (pend_cap), so
	                  * that it goes out as one TLS record */
	int has_tls;     /* some target is https: tls is set up */
	struct tls_client tls;
	struct up_worker up; /* what the slots' bring-ups share: cs, tls, t */
	char *keep; /* HTTP_BODY_KEEP: the body's first bytes within one read */
	pcre2_match_data *md;
};

/* --- finishing ----------------------------------------------------------------------------- */


/* The slot's request is over: off the deadline list, state idle. */
static void request_over(struct lthread *h, int j)
{
	dlist_remove(&h->cs.dl, j);
	h->slots[j].state = L_IDLE;
}

/* Reports a failure of slot j's request; the connection is dropped. */
static void fail(struct lthread *h, int j, enum http_fail f, int os_errno, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fail(struct lthread *h, int j, enum http_fail f, int os_errno, const char *fmt, ...)
{
	struct lslot *s = &h->slots[j];
	const struct plan_request *r = &h->plan->reqs[s->kind];
	char msg[ERR_SAMPLE_LEN], what[160];
	va_list ap;
	int phase = s->state == L_CONNECTING  ? HTTP_PHASE_CONNECT
	            : s->state == L_HANDSHAKE ? HTTP_PHASE_TLS
	                                      : HTTP_PHASE_REQUEST;
	struct outcome o = {.connect_us = s->up.connect_us,
	                    .ttfb_us = s->ttfb_us,
	                    .tls_us = s->up.tls_us,
	                    .tls_resumed = s->up.tls_resumed,
	                    .bytes = s->resp.hdr_bytes + s->resp.body_bytes};

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	o.cls = (int)http_fail_detail(r, f, os_errno, phase, what, msg, sizeof msg);
	o.detail = msg;
	up_drop(&s->up);
	request_over(h, j);
	sched_finish(h->t, j, &o);
}

/* A complete answer: judged, reported; the connection kept when it may be. */
static void answered(struct lthread *h, int j, int64_t now_us, int leftover)
{
	struct ethread *t = h->t;
	struct lslot *s = &h->slots[j];
	const struct plan_request *r = &h->plan->reqs[s->kind];
	char msg[ERR_SAMPLE_LEN];
	struct outcome o = {.answered = 1,
	                    .connect_us = s->up.connect_us,
	                    .ttfb_us = s->ttfb_us,
	                    .tls_us = s->up.tls_us,
	                    .tls_resumed = s->up.tls_resumed,
	                    .bytes = s->resp.hdr_bytes + s->resp.body_bytes,
	                    .detail = msg};

	o.service_us = now_us - t->slots[j].sent_us;
	o.cls = http_judge(r, s->resp.status, s->resp.keep, s->resp.kept, h->md, msg, sizeof msg);
	/* Bytes after the answer (none was asked for), a request not fully written, or
	 * either side's `Connection: close`: this connection carries nothing more. */
	if (!s->resp.keep_alive || leftover || s->state != L_READING ||
	    h->plan->connection == PLAN_CLOSE)
		up_drop(&s->up);
	request_over(h, j);
	sched_finish(t, j, &o);
}

/* --- sending ------------------------------------------------------------------------------- */

static void start_connect(struct lthread *h, int j);

/* The request went out on a kept connection the server had closed meanwhile (no byte came
 * back): 1 when it is sent once more on a fresh connection, as libcurl does. */
static int retry_fresh(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	if (!s->reused || s->retried || s->resp.started)
		return 0;
	s->retried = 1;
	s->reused = 0;
	up_drop(&s->up);
	start_connect(h, j);
	return 1;
}

/* Whether slot j's connection is https. */
static int slot_tls(const struct lthread *h, const struct lslot *s)
{
	return h->targets[s->target].url->tls;
}

/* A TLS call failed on slot j: the failure classed and reported, or the request sent
 * again on a fresh connection when a kept one had been closed under it. */
static void tls_failed(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	char what[160];
	int e = 0;
	enum http_fail f = tls_failure(&s->up.tls, &e, what, sizeof what);

	if ((f == HTTP_FAIL_IO || f == HTTP_FAIL_CLOSED) && retry_fresh(h, j))
		return;
	fail(h, j, f, e, "%s", what);
}

/* Keeps bytes the socket did not take for later (L_SENDING). */
static int keep_rest(struct lthread *h, int j, const struct iovec *iov, int n, size_t done)
{
	struct lslot *s = &h->slots[j];
	size_t k = 0;

	if (!s->pend && !(s->pend = malloc(h->pend_cap))) {
		fail(h, j, HTTP_FAIL_OTHER, 0, "out of memory keeping a request");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t l = iov[i].iov_len;
		if (done >= l) {
			done -= l;
			continue;
		}
		memcpy(s->pend + k, (char *)iov[i].iov_base + done, l - done);
		k += l - done;
		done = 0;
	}
	s->off = 0;
	s->len = k;
	s->state = L_SENDING;
	return 0;
}

/* https: the request as one TLS record (head and body gathered).  When the socket does
 * not take it now, it waits in the slot's buffer and is written again whole (OpenSSL's
 * rule for a write that has to wait). */
static void send_tls(struct lthread *h, int j, struct iovec *iov, int n)
{
	struct lslot *s = &h->slots[j];
	struct iovec one = iov[0];
	ssize_t w;

	if (n > 1) {
		memcpy(h->gather, iov[0].iov_base, iov[0].iov_len);
		memcpy(h->gather + iov[0].iov_len, iov[1].iov_base, iov[1].iov_len);
		one.iov_base = h->gather;
		one.iov_len += iov[1].iov_len;
	}
	w = tls_write(&s->up.tls, one.iov_base, one.iov_len);
	if (w == (ssize_t)one.iov_len)
		s->state = L_READING;
	else if (w == TLS_FAILED)
		tls_failed(h, j);
	else
		keep_rest(h, j, &one, 1, 0);
}

/* Builds the request and writes what the kernel takes now. */
static void send_request(struct lthread *h, int j)
{
	struct ethread *t = h->t;
	struct lslot *s = &h->slots[j];
	const struct h1_req *q = &h->req[s->kind];
	struct iovec iov[2];
	int n;
	ssize_t w;

	t->ctx.seq = s->seq;
	t->ctx.vu = s->vu;
	t->ctx.iter = s->iter;
	n = h1_req_build(q, &t->ctx, h->scratch, iov);
	h1_resp_start(&s->resp, q->m.head, h->need_keep ? h->keep : NULL,
	              h->need_keep ? HTTP_BODY_KEEP : 0);
	if (slot_tls(h, s)) {
		send_tls(h, j, iov, n);
		return;
	}
	size_t total = iov[0].iov_len + (n > 1 ? iov[1].iov_len : 0);
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
	do /* writev's gather, without SIGPIPE from a closed peer */
		w = sendmsg(s->up.c.fd, &mh, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)total) {
		s->state = L_READING;
		return;
	}
	if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		int e = errno;
		if (!retry_fresh(h, j))
			fail(h, j, HTTP_FAIL_IO, e, "Send failure: %s", strerror(e));
		return;
	}
	/* The kernel took part of it: keep the rest until the socket is writable. */
	keep_rest(h, j, iov, n, w > 0 ? (size_t)w : 0);
}

/* Writes the kept rest of a request; moves to L_READING when it is out. */
static void send_rest(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	if (slot_tls(h, s)) {
		ssize_t w = tls_write(&s->up.tls, s->pend, s->len);
		if (w == TLS_FAILED)
			tls_failed(h, j);
		else if (w >= 0)
			s->state = L_READING;
		return;
	}
	int r = conn_send(s->up.c.fd, s->pend, s->len, &s->off);
	if (r == 0)
		return;
	if (r < 0) {
		if (!retry_fresh(h, j))
			fail(h, j, HTTP_FAIL_IO, -r, "Send failure: %s", strerror(-r));
		return;
	}
	s->state = L_READING;
}

/* --- connecting ---------------------------------------------------------------------------- */

static void read_answer(struct lthread *h, int j);

/* A step of slot j's bring-up ended with r: the request goes out once it is up. */
static void bring_up(struct lthread *h, int j, int r, const struct up_fail *why)
{
	struct lslot *s = &h->slots[j];

	if (r == UP_WAIT) {
		s->state = s->up.phase == UP_HANDSHAKE ? L_HANDSHAKE : L_CONNECTING;
		return;
	}
	if (r == UP_FAILED) {
		/* A handshake that a kept connection's peer cut may succeed on a fresh one. */
		if (why->in_handshake && (why->f == HTTP_FAIL_IO || why->f == HTTP_FAIL_CLOSED) &&
		    retry_fresh(h, j))
			return;
		fail(h, j, why->f, why->e, "%s", why->what);
		return;
	}
	send_request(h, j);
	/* Bytes the handshake's last read took beyond it bring no epoll edge of their own. */
	if (h->slots[j].state == L_READING && h->slots[j].up.c.fd >= 0 && slot_tls(h, s) &&
	    tls_pending(&s->up.tls))
		read_answer(h, j);
}

/* Opens slot j's connection to its kind's target; the rest follows from events. */
static void start_connect(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	struct up_fail why;

	s->target = (uint8_t)h->kind_target[s->kind];
	s->state = L_CONNECTING;
	bring_up(h, j, up_start(&s->up, &h->up, j, &h->targets[s->target], &why), &why);
}

/* --- reading ------------------------------------------------------------------------------- */

/* Feeds bytes to slot j's parser; 1 when the request is over (reported). */
static int feed(struct lthread *h, int j, const char *data, size_t n, int64_t now_us)
{
	struct lslot *s = &h->slots[j];
	size_t used;
	enum h1_status st = h1_resp_feed(&s->resp, data, n, &used);

	if (st == H1_DONE) {
		answered(h, j, now_us, used < n);
		return 1;
	}
	if (st == H1_BAD) {
		if (s->resp.closed) {
			if (!retry_fresh(h, j))
				fail(h, j, HTTP_FAIL_CLOSED, 0, "%s", h1_resp_error(&s->resp));
		} else {
			fail(h, j, HTTP_FAIL_PROTOCOL, 0, "not an HTTP/1.x answer: %s",
			     h1_resp_error(&s->resp));
		}
		return 1;
	}
	/* The answer spans reads: its kept body bytes move out of the worker's buffer. */
	if (s->resp.keep == h->keep && h->keep) {
		if (!s->keep && !(s->keep = malloc(HTTP_BODY_KEEP))) {
			fail(h, j, HTTP_FAIL_OTHER, 0, "out of memory keeping a body");
			return 1;
		}
		memcpy(s->keep, h->keep, s->resp.kept + 1);
		s->resp.keep = s->keep;
	}
	return 0;
}

/* https: reads what OpenSSL and the socket have for slot j's request. */
static void read_tls(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	struct ethread *t = h->t;

	for (;;) {
		ssize_t n = tls_read(&s->up.tls, h->rbuf, READ_BUF);
		if (n > 0) {
			int64_t now = clock_mono_us();
			if (s->ttfb_us < 0)
				s->ttfb_us = now - t->slots[j].sent_us;
			if (feed(h, j, h->rbuf, (size_t)n, now) || tls_drained(&s->up.tls))
				return; /* over, or drained: the next bytes bring a new edge */
			continue;
		}
		if (n == 0) {
			s->up.tls.up = 0; /* closed: no close_notify back */
			feed(h, j, h->rbuf, 0, clock_mono_us());
		} else if (n == TLS_FAILED) {
			tls_failed(h, j);
		}
		return;
	}
}

/* Reads what the socket has for slot j's request. */
static void read_answer(struct lthread *h, int j)
{
	struct lslot *s = &h->slots[j];
	struct ethread *t = h->t;

	if (slot_tls(h, s)) {
		read_tls(h, j);
		return;
	}
	for (;;) {
		ssize_t n = recv(s->up.c.fd, h->rbuf, READ_BUF, 0);
		if (n > 0) {
			int64_t now = clock_mono_us();
			if (s->ttfb_us < 0)
				s->ttfb_us = now - t->slots[j].sent_us;
			if (feed(h, j, h->rbuf, (size_t)n, now))
				return;
			if (n < READ_BUF)
				return; /* drained: the next bytes bring a new edge */
			continue;
		}
		if (n == 0) {
			feed(h, j, h->rbuf, 0, clock_mono_us());
			return; /* an EOF always ends the request (H1_DONE or H1_BAD) */
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		int e = errno;
		if (!retry_fresh(h, j))
			fail(h, j, HTTP_FAIL_IO, e, "Recv failure: %s", strerror(e));
		return;
	}
}

/* A kept connection with no request hears from the server: it closed (or said something
 * unasked), and the next request connects afresh.  An edge for bytes the last answer's
 * read already took comes late too: then there is nothing to read.  Over TLS, a late
 * session ticket is taken and the connection kept. */
static void idle_event(struct lthread *h, struct lslot *s, uint32_t evs)
{
	if (evs & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		s->up.tls.up = 0;
		up_drop(&s->up);
	} else if ((evs & EPOLLIN) && slot_tls(h, s)) {
		ssize_t n = tls_read(&s->up.tls, h->rbuf, READ_BUF);
		if (n == TLS_AGAIN)
			return;
		if (n == TLS_FAILED) {
			char what[160];
			int e;
			tls_failure(&s->up.tls, &e, what, sizeof what);
		}
		up_drop(&s->up);
	} else if (evs & EPOLLIN) {
		ssize_t n = recv(s->up.c.fd, h->rbuf, 1, MSG_PEEK);
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			up_drop(&s->up);
	}
}

/* An epoll event for slot j's connection. */
static void on_event(struct lthread *h, int j, uint32_t evs)
{
	struct lslot *s = &h->slots[j];

	switch (s->state) {
	case L_CONNECTING:
	case L_HANDSHAKE: {
		struct up_fail why;
		bring_up(h, j, up_event(&s->up, &h->up, j, &h->targets[s->target], evs, &why),
		         &why);
		return;
	}
	case L_SENDING: {
		uint32_t gen = s->up.c.gen;
		if (evs & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			send_rest(h, j);
		/* An answer before the request is out (413, say) is read like any other, on the
		 * same connection (send_rest may have failed it, or retried on a fresh one). */
		if (s->up.c.gen == gen && (s->state == L_SENDING || s->state == L_READING) &&
		    (evs & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
			read_answer(h, j);
		return;
	}
	case L_READING:
		if (evs & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			read_answer(h, j);
		return;
	default:
		idle_event(h, s, evs);
		return;
	}
}

/* Fails the requests whose deadline has passed (in libcurl's words). */
static void expire(struct lthread *h)
{
	int64_t now = clock_mono_us();
	int j;

	while ((j = conn_expired(&h->cs, now)) >= 0) {
		struct lslot *s = &h->slots[j];
		long long ms = (long long)h->plan->reqs[s->kind].timeout_ms;
		if (s->state == L_CONNECTING || s->state == L_HANDSHAKE)
			fail(h, j, HTTP_FAIL_TIMEOUT, 0, "%s timed out after %lld milliseconds",
			     up_timeout_what(&s->up), ms);
		else
			fail(h, j, HTTP_FAIL_TIMEOUT, 0,
			     "Operation timed out after %lld milliseconds with %lld bytes received",
			     ms, (long long)(s->resp.hdr_bytes + s->resp.body_bytes));
	}
}

/* --- the driver contract ---------------------------------------------------------------- */

static void lean_start(struct ethread *t, int j)
{
	struct lthread *h = t->drv;
	struct lslot *s = &h->slots[j];
	int k = plan_pick_kind(h->plan, &h->t->ctx.rng);

	s->kind = (uint8_t)k;
	s->seq = t->ctx.seq;
	s->vu = t->ctx.vu;
	s->iter = t->ctx.iter;
	s->up.connect_us = s->ttfb_us = -1;
	s->up.tls_us = 0;
	s->up.tls_resumed = 0;
	s->retried = 0;
	s->up.tries = 0;
	memset(&s->resp, 0, sizeof s->resp);
	dlist_arm(&h->cs.dl, j, h->kind_list[k],
	          t->slots[j].sent_us + h->plan->reqs[k].timeout_ms * 1000);
	if (s->up.c.fd >= 0 && s->target != h->kind_target[k])
		up_drop(&s->up); /* another host: its own connection */
	if (s->up.c.fd >= 0) {
		s->reused = 1;
		send_request(h, j);
	} else {
		s->reused = 0;
		start_connect(h, j);
	}
}

static void lean_cancel(struct ethread *t, int j)
{
	struct lthread *h = t->drv;
	up_drop(&h->slots[j].up);
	request_over(h, j);
}

static void lean_idle(struct ethread *t, int j)
{
	struct lthread *h = t->drv;
	if (h->slots[j].state == L_IDLE)
		up_drop(&h->slots[j].up);
}

static struct conn *slot_conn(void *arg, int j)
{
	return &((struct lthread *)arg)->slots[j].up.c;
}

static void slot_event(void *arg, int j, uint32_t evs)
{
	on_event(arg, j, evs);
}

static void lean_poll(struct ethread *t, int64_t wait_us)
{
	struct lthread *h = t->drv;

	conn_poll(&h->cs, wait_us, h, slot_conn, slot_event);
	if (dlist_first(&h->cs.dl) >= 0)
		expire(h);
}

static void lean_wake(struct ethread *t)
{
	struct lthread *h = t->drv;
	if (h)
		evloop_wake(&h->cs.loop);
}

static void lean_release(struct ethread *t)
{
	struct lthread *h = t->drv;
	if (!h)
		return;
	for (int j = 0; h->slots && j < t->max_slots; j++) {
		conn_close(&h->slots[j].up.c);
		up_release(&h->slots[j].up);
		free(h->slots[j].pend);
		free(h->slots[j].keep);
	}
	for (int k = 0; k < h->plan->nreqs; k++)
		h1_req_release(&h->req[k]);
	for (int g = 0; g < h->ntargets; g++)
		tls_resume_release(&h->targets[g].resume);
	tls_client_release(&h->tls);
	free(h->gather);
	conn_set_release(&h->cs);
	pcre2_match_data_free(h->md);
	free(h->slots);
	free(h->scratch);
	free(h->rbuf);
	free(h->keep);
	free(h);
	t->drv = NULL;
}

/* Compiles the request kinds and groups them by target and by timeout. */
static int kinds_init(struct lthread *h, char *err, size_t errlen)
{
	const struct plan *p = h->plan;

	for (int k = 0; k < p->nreqs; k++) {
		struct h1_req *q = &h->req[k];
		const struct plan_request *r = &p->reqs[k];
		if (h1_req_init(q, r, p->connection, &h->t->ctx, &p->csv, err, errlen) < 0)
			return -1;
		size_t sc = h1_req_scratch(q), len = sc ? sc : q->fixed_len;
		if (sc > h->scratch_cap)
			h->scratch_cap = sc;
		if (len > h->pend_cap)
			h->pend_cap = len;
		h->need_keep |= r->expect_body != NULL;
		int g = 0;
		while (g < h->ntargets && (strcmp(h->targets[g].url->host, q->m.url.host) != 0 ||
		                           strcmp(h->targets[g].url->port, q->m.url.port) != 0 ||
		                           h->targets[g].url->tls != q->m.url.tls))
			g++;
		if (g == h->ntargets) {
			h->targets[g].url = &q->m.url;
			h->targets[g].net.host = q->m.url.host;
			h->targets[g].net.port = q->m.url.port;
			conn_target_ready(&h->targets[g].net);
			h->ntargets++;
			h->has_tls |= q->m.url.tls;
		}
		h->kind_target[k] = g;
	}
	plan_timeout_lists(p, h->kind_list);
	return 0;
}

static int lean_init(struct ethread *t, char *err, size_t errlen)
{
	struct lthread *h = calloc(1, sizeof *h);
	int n = t->max_slots > 0 ? t->max_slots : 1;

	if (!h)
		goto oom;
	t->drv = h;
	h->t = t;
	h->plan = t->eng->o.plan;
	conn_set_none(&h->cs);
	if (kinds_init(h, err, errlen) < 0)
		return -1;
	if (h->has_tls) {
		if (tls_client_init(&h->tls, &h->plan->tls, TLS_ALPN_H1, err, errlen, NULL) < 0)
			return -1;
		if (!(h->gather = malloc(h->pend_cap)))
			goto oom;
	}
	h->slots = calloc((size_t)n, sizeof *h->slots);
	h->rbuf = malloc(READ_BUF);
	h->md = pcre2_match_data_create(1, NULL);
	if (h->scratch_cap)
		h->scratch = malloc(h->scratch_cap);
	if (h->need_keep)
		h->keep = malloc(HTTP_BODY_KEEP);
	if (!h->slots || !h->rbuf || !h->md || (h->scratch_cap && !h->scratch) ||
	    (h->need_keep && !h->keep))
		goto oom;
	for (int j = 0; j < n; j++)
		h->slots[j].up.c.fd = -1;
	h->up = (struct up_worker){.cs = &h->cs, .tls = &h->tls, .t = h->t};
	return conn_set_init(&h->cs, n, err, errlen);
oom:
	snprintf(err, errlen, "out of memory setting up a worker");
	return -1;
}

const struct driver lean_driver = {
    .name = "lean",
    .init = lean_init,
    .release = lean_release,
    .start = lean_start,
    .cancel = lean_cancel,
    .idle = lean_idle,
    .poll = lean_poll,
    .wake = lean_wake,
    .preflight = http_preflight,
};
