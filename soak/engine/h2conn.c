/*
 * The lean HTTP/2 driver's connections (h2_int.h): a connection opens when its first
 * request starts (TCP, then TLS with h2 in ALPN, or h2c with prior knowledge), its waiting
 * requests go out once nghttp2's session is up, frames are gathered and written once per
 * turn, and what it reads goes to nghttp2.  A connection that fails takes its requests
 * with it (h2c_fail), except those the server never saw after a GOAWAY.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "buf.h"
#include "clock.h"
#include "h2_int.h"

/* --- the connection --------------------------------------------------------------------- */

/* Frames may wait in nghttp2 for this connection: written at the next flush. */
void h2c_mark_dirty(struct h2thread *h, struct h2conn *c)
{
	if (c->dirty || !c->ng)
		return;
	c->dirty = 1;
	h->dirty[h->ndirty++] = (int)(c - h->pool);
}

/* The slots whose requests are on (or wait for) pool position p, one by one: j = -1 first. */
int h2c_next_on(const struct h2thread *h, int p, int j)
{
	int n = h->t->max_slots;
	for (j = j < 0 ? h->pool[p].index : j + h->nconn; j < n; j += h->nconn)
		if (h->slots[j].state != S_IDLE && h->slots[j].pc == p)
			return j;
	return -1;
}

void h2c_close(struct h2thread *h, int p)
{
	struct h2conn *c = &h->pool[p];

	nghttp2_session_del(c->ng);
	c->ng = NULL;
	up_drop(&c->up);
	c->state = C_DOWN;
	c->goaway = c->fresh = c->wblocked = 0;
	c->outlen = c->outoff = 0;
	c->waiting = 0;
	c->up.connect_us = -1;
	c->up.tls_us = 0;
}

/* The connection failed or ended: every request on it, or waiting for it, fails the same
 * way, except that a request the server never saw after a GOAWAY is sent once more, and
 * requests waiting for a connection that had gone away get a new one here. */
void h2c_fail(struct h2thread *h, int p, enum http_fail f, int e, const char *what)
{
	struct h2conn *c = &h->pool[p];
	int j, next, retiring = c->state == C_UP && c->goaway, waiting = 0;

	for (j = h2c_next_on(h, p, -1); j >= 0; j = next) {
		struct h2slot *s = &h->slots[j];
		next = h2c_next_on(h, p, j);
		if (s->state == S_WAITING && retiring)
			continue;
		if (c->goaway && s->state == S_INFLIGHT && s->stream > c->last_id && h2_retry(h, j))
			continue;
		if (c->goaway && f == HTTP_FAIL_CLOSED)
			h2_fail(h, j, HTTP_FAIL_H2_GOAWAY, 0,
			        "the server went away (GOAWAY %s) with the "
			        "stream open",
			        nghttp2_http2_strerror(c->goaway_code));
		else
			h2_fail(h, j, f, e, "%s", what);
	}
	h2c_close(h, p);
	for (j = h2c_next_on(h, p, -1); j >= 0; j = h2c_next_on(h, p, j))
		waiting += h->slots[j].state == S_WAITING;
	if (waiting > 0) {
		c->waiting = waiting;
		h2c_open(h, p);
	}
}

/* HTTP/2 begins: the session, our SETTINGS, the waiting requests. */
static void session_up(struct h2thread *h, int p)
{
	struct h2conn *c = &h->pool[p];
	nghttp2_settings_entry set[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
	                                {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, WINDOW}};

	if (nghttp2_session_client_new3(&c->ng, h->cb, c, h->opt, &h->mem) != 0 ||
	    nghttp2_submit_settings(c->ng, NGHTTP2_FLAG_NONE, set, 2) != 0 ||
	    nghttp2_session_set_local_window_size(c->ng, NGHTTP2_FLAG_NONE, 0, WINDOW) != 0) {
		h2c_fail(h, p, HTTP_FAIL_OTHER, 0, "out of memory starting HTTP/2");
		return;
	}
	c->state = C_UP;
	h2c_mark_dirty(h, c);
	for (int j = h2c_next_on(h, p, -1); j >= 0; j = h2c_next_on(h, p, j))
		if (h->slots[j].state == S_WAITING) {
			c->waiting--;
			h2_submit(h, j);
		}
}

static void read_conn(struct h2thread *h, int p);

/* A step of connection p's bring-up ended with r: HTTP/2 begins once it is up, over TLS
 * only where ALPN chose h2. */
static void bring_up(struct h2thread *h, int p, int r, const struct up_fail *why)
{
	struct h2conn *c = &h->pool[p];
	char what[200];
	unsigned n = 0;
	const char *a = NULL;

	c->fresh |= c->up.made; /* a connection made, whatever comes of it */
	if (r == UP_WAIT) {
		c->state = c->up.phase == UP_HANDSHAKE ? C_HANDSHAKE : C_CONNECTING;
		return;
	}
	if (r == UP_FAILED) {
		h2c_fail(h, p, why->f, why->e, why->what);
		return;
	}
	if (h->g.url->tls && ((a = tls_alpn(&c->up.tls, &n)), n != 2 || memcmp(a, "h2", 2) != 0)) {
		snprintf(what, sizeof what,
		         "the server did not take HTTP/2 in ALPN (it chose %.*s)", n ? (int)n : 4,
		         n ? a : "none");
		h2c_fail(h, p, HTTP_FAIL_PROTOCOL, 0, what);
		return;
	}
	session_up(h, p);
	if (c->state == C_UP && h->g.url->tls && tls_pending(&c->up.tls))
		read_conn(h, p); /* the server's SETTINGS came with the handshake's last read */
}

void h2c_open(struct h2thread *h, int p)
{
	struct up_fail why;

	h->pool[p].state = C_CONNECTING;
	bring_up(h, p, up_start(&h->pool[p].up, &h->up, p, &h->g, &why), &why);
}

/* --- writing and reading ---------------------------------------------------------------- */

/* Writes the frames gathered: 1 all out, 0 the socket is full (wait), -1 failed. */
static int write_out(struct h2thread *h, int p)
{
	struct h2conn *c = &h->pool[p];
	char what[200];
	int e = 0;

	while (c->outoff < c->outlen) {
		ssize_t w;
		if (c->up.tls.up) {
			w = tls_write(&c->up.tls, c->out + c->outoff, c->outlen - c->outoff);
			if (w == TLS_FAILED) {
				enum http_fail f = tls_failure(&c->up.tls, &e, what, sizeof what);
				h2c_fail(h, p, f, e, what);
				return -1;
			}
		} else {
			do
				w = send(c->up.c.fd, c->out + c->outoff, c->outlen - c->outoff,
				         MSG_NOSIGNAL);
			while (w < 0 && errno == EINTR);
			if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				e = errno;
				snprintf(what, sizeof what, "Send failure: %s", strerror(e));
				h2c_fail(h, p, HTTP_FAIL_IO, e, what);
				return -1;
			}
		}
		if (w < 0) {
			c->wblocked = 1;
			return 0;
		}
		c->outoff += (size_t)w;
	}
	c->outlen = c->outoff = 0;
	c->wblocked = 0;
	return 1;
}

/* Room for n more bytes of frames; -1 past OUT_MAX or out of memory.  OUT_MAX is a power
 * of two times the first capacity, so a buffer that holds up to OUT_MAX bytes never
 * allocates past it. */
static int out_room(struct h2conn *c, size_t n)
{
	if (c->outlen + n > OUT_MAX)
		return -1;
	return buf_grow(&c->out, &c->outcap, c->outlen + n, 1, OUT_CHUNK * 2);
}

/* Sends what nghttp2 has for the connection, gathered into few writes. */
static void flush(struct h2thread *h, int p)
{
	struct h2conn *c = &h->pool[p];

	while (c->ng && !c->wblocked) {
		while (c->outlen < OUT_CHUNK) {
			const uint8_t *d;
			ssize_t n = nghttp2_session_mem_send(c->ng, &d);
			if (n < 0) {
				h2c_fail(h, p, HTTP_FAIL_PROTOCOL, 0, nghttp2_strerror((int)n));
				return;
			}
			if (n == 0)
				break;
			if (out_room(c, (size_t)n) < 0) {
				h2c_fail(h, p, HTTP_FAIL_OTHER, 0,
				         "HTTP/2: frames beyond 4 MB wait");
				return;
			}
			memcpy(c->out + c->outlen, d, (size_t)n);
			c->outlen += (size_t)n;
		}
		if (c->outlen == 0 || write_out(h, p) <= 0)
			break;
	}
	/* Nothing more to say or hear (a GOAWAY's streams are all answered): it ends. */
	if (c->ng && !c->wblocked && !nghttp2_session_want_read(c->ng) &&
	    !nghttp2_session_want_write(c->ng))
		h2c_fail(h, p, HTTP_FAIL_CLOSED, 0, "the connection ended");
}

void h2c_flush_dirty(struct h2thread *h)
{
	while (h->ndirty > 0) {
		int p = h->dirty[--h->ndirty];
		h->pool[p].dirty = 0;
		flush(h, p);
	}
}

/* Bytes from the connection to nghttp2; 1 when the connection ended. */
static int take(struct h2thread *h, int p, const char *buf, size_t n)
{
	struct h2conn *c = &h->pool[p];
	ssize_t rv = nghttp2_session_mem_recv(c->ng, (const uint8_t *)buf, n);
	char what[160];

	if (rv >= 0)
		return 0;
	snprintf(what, sizeof what, "HTTP/2: %s", nghttp2_strerror((int)rv));
	h2c_fail(h, p, HTTP_FAIL_PROTOCOL, 0, what);
	return 1;
}

static void read_conn(struct h2thread *h, int p)
{
	struct h2conn *c = &h->pool[p];
	char what[200];
	int e = 0;

	for (;;) {
		ssize_t n;
		if (c->up.tls.up)
			n = tls_read(&c->up.tls, h->rbuf, READ_BUF);
		else
			do
				n = recv(c->up.c.fd, h->rbuf, READ_BUF, 0);
			while (n < 0 && errno == EINTR);
		if (n > 0) {
			if (take(h, p, h->rbuf, (size_t)n))
				return;
			if (c->up.tls.up ? tls_drained(&c->up.tls) : n < READ_BUF)
				break;
			continue;
		}
		if (n == 0) {
			c->up.tls.up = 0; /* closed: no close_notify back */
			h2c_fail(h, p, HTTP_FAIL_CLOSED, 0,
			         "the server closed the connection with the stream open");
			return;
		}
		if (c->up.tls.up && n == TLS_FAILED) {
			enum http_fail f = tls_failure(&c->up.tls, &e, what, sizeof what);
			h2c_fail(h, p, f, e, what);
			return;
		}
		if (!c->up.tls.up && errno != EAGAIN && errno != EWOULDBLOCK) {
			e = errno;
			snprintf(what, sizeof what, "Recv failure: %s", strerror(e));
			h2c_fail(h, p, HTTP_FAIL_IO, e, what);
			return;
		}
		break;
	}
	h2c_mark_dirty(h, c);
}

void h2c_event(struct h2thread *h, int p, uint32_t evs)
{
	struct h2conn *c = &h->pool[p];

	switch (c->state) {
	case C_CONNECTING:
	case C_HANDSHAKE: {
		struct up_fail why;
		bring_up(h, p, up_event(&c->up, &h->up, p, &h->g, evs, &why), &why);
		return;
	}
	case C_UP:
		if ((evs & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && c->wblocked && write_out(h, p) < 0)
			return;
		if (evs & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			read_conn(h, p);
		else
			h2c_mark_dirty(h, c);
		return;
	default:
		return;
	}
}
