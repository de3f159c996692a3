/*
 * The lean HTTP/2 driver (h2.h): connections shared by many streams, nghttp2 for the
 * framing, the connection core (conn.h) for sockets and deadlines, tls.h for h2 over TLS.
 * This file has the requests (slots, streams, nghttp2's callbacks, time-outs, the driver
 * contract); h2conn.c the connections.
 *
 * Connections: a worker has nconn of them, each index with two places in its pool: the one
 * that takes new streams (active[i]) and its twin, where a connection that got GOAWAY
 * finishes its streams while the other opens afresh.  Epoll events carry the pool
 * position.  Frames nghttp2 serializes are gathered in the connection's buffer and written
 * once per turn (many requests' HEADERS in one write), at the start of each poll and after
 * each read.
 *
 * Slots: slot j's requests go to index j mod nconn.  A request is WAITING while its
 * connection comes up, INFLIGHT once submitted (nghttp2 holds it back beyond the server's
 * stream limit); its stream's user data is j + 1, cleared when the slot lets the stream go
 * (a time-out, a cancel), so late frames of that stream find no slot.
 *
 * Nothing is allocated per request once warm: requests are built in the worker's scratch
 * (nghttp2 copies the header block) and a dynamic body in the slot's buffer, made once;
 * what nghttp2 allocates per stream comes from the worker's pool (mempool.h).
 */
#include "h2.h"
#include "h2_int.h"

#include <errno.h>
#include <netdb.h>
#include <nghttp2/nghttp2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "conn.h"
#include "engine_int.h"
#include "h2msg.h"
#include "mempool.h"
#include "tls.h"

/* --- finishing -------------------------------------------------------------------------- */

/* Slot j lets its stream go: no late frame finds it; the server is told when asked. */
static void detach(struct h2thread *h, int j, int rst)
{
	struct h2slot *s = &h->slots[j];
	struct h2conn *c = &h->pool[s->pc];

	if (s->state == S_WAITING)
		c->waiting--;
	if (s->stream > 0 && s->stream == c->hd_stream)
		c->hd_stream = 0; /* its header block, if one is being read, finds no slot */
	if (s->state == S_INFLIGHT && s->stream > 0 && c->ng) {
		nghttp2_session_set_stream_user_data(c->ng, s->stream, NULL);
		if (rst) {
			nghttp2_submit_rst_stream(c->ng, NGHTTP2_FLAG_NONE, s->stream,
			                          NGHTTP2_CANCEL);
			h2c_mark_dirty(h, c);
		}
	}
	s->stream = 0;
	s->state = S_IDLE;
	dlist_remove(&h->cs.dl, j);
}

/* The connection's connect and TLS figures go with the first request that ends on it. */
static void take_fresh(struct h2conn *c, struct outcome *o)
{
	o->connect_us = -1;
	if (!c->fresh)
		return;
	c->fresh = 0;
	o->connect_us = c->up.connect_us;
	o->tls_us = c->up.tls_us;
	o->tls_resumed = c->up.tls_resumed;
}

void h2_fail(struct h2thread *h, int j, enum http_fail f, int os_errno, const char *fmt, ...)
{
	struct h2slot *s = &h->slots[j];
	struct h2conn *c = &h->pool[s->pc];
	const struct plan_request *r = &h->plan->reqs[s->kind];
	char msg[ERR_SAMPLE_LEN], what[180];
	struct outcome o = {.ttfb_us = s->ttfb_us, .bytes = s->hdr_bytes + s->body_bytes};
	va_list ap;
	int phase = s->state == S_INFLIGHT    ? HTTP_PHASE_REQUEST
	            : c->state == C_HANDSHAKE ? HTTP_PHASE_TLS
	            : c->state == C_UP        ? HTTP_PHASE_REQUEST
	                                      : HTTP_PHASE_CONNECT;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	o.cls = (int)http_fail_detail(r, f, os_errno, phase, what, msg, sizeof msg);
	o.detail = msg;
	take_fresh(c, &o);
	detach(h, j, 1);
	sched_finish(h->t, j, &o);
}

static void answered(struct h2thread *h, int j)
{
	struct h2slot *s = &h->slots[j];
	const struct plan_request *r = &h->plan->reqs[s->kind];
	char msg[ERR_SAMPLE_LEN];
	struct outcome o = {.answered = 1,
	                    .ttfb_us = s->ttfb_us,
	                    .bytes = s->hdr_bytes + s->body_bytes,
	                    .detail = msg};

	o.service_us = clock_mono_us() - h->t->slots[j].sent_us;
	o.cls = http_judge(r, s->status, s->keep, s->kept, h->md, msg, sizeof msg);
	take_fresh(&h->pool[s->pc], &o);
	detach(h, j, 0);
	sched_finish(h->t, j, &o);
}

/* --- sending ---------------------------------------------------------------------------- */

static ssize_t read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
	struct h2conn *c = user;
	void *u = nghttp2_session_get_stream_user_data(ng, id);
	struct h2slot *s;
	size_t n;
	(void)src;

	if (!u)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* let go: reset the stream */
	s = &c->h->slots[(intptr_t)u - 1];
	n = s->blen - s->boff < len ? s->blen - s->boff : len;
	memcpy(buf, s->body + s->boff, n);
	s->boff += n;
	if (s->boff == s->blen)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* Submits slot j's request on its connection (up); the frames go out at the next flush. */
void h2_submit(struct h2thread *h, int j)
{
	struct ethread *t = h->t;
	struct h2slot *s = &h->slots[j];
	struct h2conn *c = &h->pool[s->pc];
	nghttp2_nv nv[H2_MAX_NV];
	nghttp2_data_provider prd = {.read_callback = read_body};
	size_t nnv;
	int32_t id;

	t->ctx.seq = s->seq;
	t->ctx.vu = s->vu;
	t->ctx.iter = s->iter;
	h2_req_build(&h->req[s->kind], &t->ctx, h->scratch, s->bodybuf, nv, &nnv, &s->body,
	             &s->blen);
	s->boff = 0;
	id = nghttp2_submit_request(c->ng, NULL, nv, nnv, s->body ? &prd : NULL,
	                            (void *)(intptr_t)(j + 1));
	if (id < 0) {
		h2_fail(h, j, HTTP_FAIL_OTHER, 0, "HTTP/2: cannot submit the request: %s",
		        nghttp2_strerror(id));
		return;
	}
	s->stream = id;
	s->state = S_INFLIGHT;
	h2c_mark_dirty(h, c);
}

/* Slot j's request goes to its index's connection: now when it is up, else once it is. */
static void dispatch(struct h2thread *h, int j)
{
	struct h2slot *s = &h->slots[j];
	int p = h->active[j % h->nconn];
	struct h2conn *c = &h->pool[p];

	s->pc = p;
	if (c->state == C_UP && !c->goaway) {
		h2_submit(h, j);
		return;
	}
	s->state = S_WAITING;
	c->waiting++;
	if (c->state == C_DOWN)
		h2c_open(h, p);
}

/* The server never saw slot j's request (refused, or above a GOAWAY's last id): once more,
 * on its index's connection (a fresh one after a GOAWAY). */
int h2_retry(struct h2thread *h, int j)
{
	struct h2slot *s = &h->slots[j];

	if (s->retried || s->status || s->hdr_bytes)
		return 0;
	s->retried = 1;
	detach(h, j, 0);
	dlist_arm(&h->cs.dl, j, h->kind_list[s->kind],
	          h->t->slots[j].sent_us + h->plan->reqs[s->kind].timeout_ms * 1000);
	dispatch(h, j);
	return 1;
}

/* --- nghttp2's callbacks ---------------------------------------------------------------- */

/* Slot j of a stream, or NULL when the slot let it go. */
static struct h2slot *slot_of(struct h2conn *c, int32_t id, int *j)
{
	void *u = nghttp2_session_get_stream_user_data(c->ng, id);
	if (!u)
		return NULL;
	*j = (int)(intptr_t)u - 1;
	return &c->h->slots[*j];
}

static void first_byte(struct h2conn *c, struct h2slot *s, int j)
{
	if (s->ttfb_us < 0)
		s->ttfb_us = clock_mono_us() - c->h->t->slots[j].sent_us;
}

/* A header block begins: its stream's slot is looked up once for all its headers. */
static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *user)
{
	struct h2conn *c = user;
	struct h2slot *s;
	int j;
	(void)ng;

	c->hd_stream = f->hd.stream_id;
	c->hd_j = -1;
	if (f->hd.type == NGHTTP2_HEADERS && (s = slot_of(c, f->hd.stream_id, &j))) {
		c->hd_j = j;
		first_byte(c, s, j);
	}
	return 0;
}

/* The slot of the header block being read (on_begin_headers), or NULL. */
static struct h2slot *headers_slot(struct h2conn *c, const nghttp2_frame *f)
{
	if (f->hd.type != NGHTTP2_HEADERS || f->hd.stream_id != c->hd_stream || c->hd_j < 0)
		return NULL;
	return &c->h->slots[c->hd_j];
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t nl,
                     const uint8_t *value, size_t vl, uint8_t flags, void *user)
{
	struct h2slot *s = headers_slot(user, f);
	(void)ng;
	(void)flags;

	if (!s)
		return 0;
	if (nl == 7 && !memcmp(name, ":status", 7) && vl == 3) {
		s->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
		s->hdr_bytes += 13; /* "HTTP/2 200 \r\n", as libcurl counts it */
	} else {
		s->hdr_bytes += (int64_t)(nl + vl + 4);
	}
	return 0;
}

static int on_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
                   void *user)
{
	struct h2conn *c = user;
	struct h2slot *s;
	int j;
	(void)ng;
	(void)flags;

	if (!(s = slot_of(c, id, &j)))
		return 0;
	first_byte(c, s, j);
	s->body_bytes += (int64_t)len;
	if (s->keep && s->kept < HTTP_BODY_KEEP - 1) {
		size_t k = HTTP_BODY_KEEP - 1 - s->kept;
		k = k < len ? k : len;
		memcpy(s->keep + s->kept, data, k);
		s->kept += k;
		s->keep[s->kept] = '\0';
	}
	return 0;
}

/* GOAWAY: no new streams here; a fresh connection takes them (the twin place). */
static void went_away(struct h2thread *h, struct h2conn *c, const nghttp2_goaway *g)
{
	int p = (int)(c - h->pool), twin = p < h->nconn ? p + h->nconn : p - h->nconn;

	ethread_stats(h->t)->h2_goaway++;
	c->goaway = 1;
	c->last_id = g->last_stream_id;
	c->goaway_code = g->error_code;
	if (h->active[c->index] == p && h->pool[twin].state == C_DOWN)
		h->active[c->index] = twin;
}

/* The server's SETTINGS: its stream limit, the first time, for run_env. */
static void note_settings(struct h2thread *h, struct h2conn *c)
{
	struct ethread *t = h->t;

	if (atomic_load_explicit(&t->facts_h2, memory_order_relaxed))
		return;
	t->facts.h2_max_streams = (int64_t)nghttp2_session_get_remote_settings(
	    c->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
	atomic_store_explicit(&t->facts_h2, 1, memory_order_release);
}

static int on_frame(nghttp2_session *ng, const nghttp2_frame *f, void *user)
{
	struct h2conn *c = user;
	struct h2slot *s;
	int j;
	(void)ng;

	switch (f->hd.type) {
	case NGHTTP2_HEADERS:
		if (!(f->hd.flags & NGHTTP2_FLAG_END_HEADERS) || !(s = headers_slot(c, f)))
			break;
		s->hdr_bytes += 2;
		/* An interim (1xx) answer: the final one follows on the same stream. */
		if (s->status >= 200 || s->status == 101)
			s->final = 1;
		else
			s->status = 0;
		break;
	case NGHTTP2_SETTINGS:
		if (!(f->hd.flags & NGHTTP2_FLAG_ACK))
			note_settings(c->h, c);
		break;
	case NGHTTP2_GOAWAY:
		went_away(c->h, c, &f->goaway);
		break;
	case NGHTTP2_RST_STREAM:
		ethread_stats(c->h->t)->h2_rst++;
		if ((s = slot_of(c, f->hd.stream_id, &j))) {
			s->rst = 1;
			s->rst_code = f->rst_stream.error_code;
		}
		break;
	}
	return 0;
}

static int on_close(nghttp2_session *ng, int32_t id, uint32_t code, void *user)
{
	struct h2conn *c = user;
	struct h2thread *h = c->h;
	struct h2slot *s;
	int j;
	(void)ng;

	if (!(s = slot_of(c, id, &j)))
		return 0;
	nghttp2_session_set_stream_user_data(c->ng, id, NULL);
	s->stream = 0; /* closed: nothing to reset */
	if (code == NGHTTP2_NO_ERROR && s->final)
		answered(h, j);
	else if ((code == NGHTTP2_REFUSED_STREAM || (c->goaway && id > c->last_id)) &&
	         h2_retry(h, j))
		return 0;
	else if (s->rst)
		h2_fail(h, j, HTTP_FAIL_H2_RST, 0, "the server reset the stream (RST_STREAM %s)",
		        nghttp2_http2_strerror(s->rst_code));
	else if (c->goaway)
		h2_fail(h, j, HTTP_FAIL_H2_GOAWAY, 0, "the server went away (GOAWAY %s)",
		        nghttp2_http2_strerror(c->goaway_code));
	else
		h2_fail(h, j, HTTP_FAIL_PROTOCOL, 0, "HTTP/2 stream closed: %s",
		        nghttp2_http2_strerror(code));
	return 0;
}

/* --- time-outs -------------------------------------------------------------------------- */

static void expire(struct h2thread *h)
{
	int64_t now = clock_mono_us();
	int j;

	while ((j = conn_expired(&h->cs, now)) >= 0) {
		struct h2slot *s = &h->slots[j];
		int p = s->pc;
		struct h2conn *c = &h->pool[p];
		long long ms = (long long)h->plan->reqs[s->kind].timeout_ms;
		if (s->state == S_INFLIGHT) {
			h2_fail(
			    h, j, HTTP_FAIL_TIMEOUT, 0,
			    "Operation timed out after %lld milliseconds with %lld bytes received",
			    ms, (long long)(s->hdr_bytes + s->body_bytes));
			continue;
		}
		h2_fail(h, j, HTTP_FAIL_TIMEOUT, 0, "%s timed out after %lld milliseconds",
		        up_timeout_what(&c->up), ms);
		/* An attempt older than this request has had a whole timeout: the requests still
		 * waiting get one of their own, once every request due now is judged by it. */
		if (c->state != C_UP && c->up.t_conn_us <= h->t->slots[j].sent_us)
			c->stale = 1;
	}
	for (int p = 0; p < 2 * h->nconn; p++) {
		struct h2conn *c = &h->pool[p];
		int waiting = c->waiting;
		if (!c->stale)
			continue;
		c->stale = 0;
		h2c_close(h, p);
		if (waiting > 0) {
			c->waiting = waiting;
			h2c_open(h, p);
		}
	}
}

/* --- the driver contract ---------------------------------------------------------------- */

static void h2_start(struct ethread *t, int j)
{
	struct h2thread *h = t->drv;
	struct h2slot *s = &h->slots[j];
	int k = plan_pick_kind(h->plan, &h->t->ctx.rng);

	s->kind = (uint8_t)k;
	s->seq = t->ctx.seq;
	s->vu = t->ctx.vu;
	s->iter = t->ctx.iter;
	s->retried = s->rst = s->final = 0;
	s->status = 0;
	s->hdr_bytes = s->body_bytes = 0;
	s->ttfb_us = -1;
	s->kept = 0;
	if (s->keep)
		s->keep[0] = '\0';
	dlist_arm(&h->cs.dl, j, h->kind_list[k],
	          t->slots[j].sent_us + h->plan->reqs[k].timeout_ms * 1000);
	dispatch(h, j);
}

static void h2_cancel(struct ethread *t, int j)
{
	detach(t->drv, j, 1);
}

/* Connections are shared: a slot that is no longer wanted keeps them open for the others. */
static void h2_idle(struct ethread *t, int j)
{
	(void)t;
	(void)j;
}

static struct conn *pool_conn(void *arg, int p)
{
	return &((struct h2thread *)arg)->pool[p].up.c;
}

static void pool_event(void *arg, int p, uint32_t evs)
{
	h2c_event(arg, p, evs);
}

static void h2_poll(struct ethread *t, int64_t wait_us)
{
	struct h2thread *h = t->drv;

	h2c_flush_dirty(h);
	conn_poll(&h->cs, t->kick ? 0 : wait_us, h, pool_conn, pool_event);
	h2c_flush_dirty(h);
	if (dlist_first(&h->cs.dl) >= 0)
		expire(h);
	h2c_flush_dirty(h);
}

static void h2_wake(struct ethread *t)
{
	struct h2thread *h = t->drv;
	if (h)
		evloop_wake(&h->cs.loop);
}

static void h2_release(struct ethread *t)
{
	struct h2thread *h = t->drv;

	if (!h)
		return;
	for (int p = 0; h->pool && p < 2 * h->nconn; p++) {
		nghttp2_session_del(h->pool[p].ng);
		conn_close(&h->pool[p].up.c);
		up_release(&h->pool[p].up);
		free(h->pool[p].out);
	}
	for (int j = 0; h->slots && j < t->max_slots; j++) {
		free(h->slots[j].keep);
		free(h->slots[j].bodybuf);
	}
	for (int k = 0; k < h->plan->nreqs; k++)
		h2_req_release(&h->req[k]);
	tls_resume_release(&h->g.resume);
	tls_client_release(&h->tls);
	conn_set_release(&h->cs);
	nghttp2_session_callbacks_del(h->cb);
	nghttp2_option_del(h->opt);
	mempool_release(&h->pool_mem); /* every session is gone: all its blocks are free */
	pcre2_match_data_free(h->md);
	free(h->pool);
	free(h->active);
	free(h->dirty);
	free(h->slots);
	free(h->scratch);
	free(h->rbuf);
	free(h);
	t->drv = NULL;
}

/* Compiles the request kinds, groups them by timeout, sizes the scratch and body buffers. */
static int kinds_init(struct h2thread *h, size_t *body_cap, char *err, size_t errlen)
{
	const struct plan *p = h->plan;
	size_t scratch = 1;

	*body_cap = 0;
	for (int k = 0; k < p->nreqs; k++) {
		struct h2_req *q = &h->req[k];
		const struct plan_request *r = &p->reqs[k];
		if (h2_req_init(q, r, &h->t->ctx, &p->csv, err, errlen) < 0)
			return -1;
		if (q->scratch_cap > scratch)
			scratch = q->scratch_cap;
		if (q->m.body_cap > *body_cap)
			*body_cap = q->m.body_cap;
		h->need_keep |= r->expect_body != NULL;
	}
	plan_timeout_lists(p, h->kind_list);
	h->g.url = &h->req[0].m.url;
	h->g.net.host = h->g.url->host;
	h->g.net.port = h->g.url->port;
	h->has_tls = h->g.url->tls;
	return (h->scratch = malloc(scratch)) ? 0 : -1;
}

static void *mem_malloc(size_t n, void *pool)
{
	return mempool_alloc(pool, n);
}

static void mem_free(void *p, void *pool)
{
	mempool_free(pool, p);
}

static void *mem_calloc(size_t nmemb, size_t size, void *pool)
{
	return mempool_calloc(pool, nmemb, size);
}

static void *mem_realloc(void *p, size_t n, void *pool)
{
	return mempool_realloc(pool, p, n);
}

/* nghttp2's callbacks, options and allocator, shared by the worker's sessions: what it
 * allocates per stream comes from the worker's pool, not malloc, once warm. */
static int nghttp2_init(struct h2thread *h)
{
	h->mem = (nghttp2_mem){.mem_user_data = &h->pool_mem,
	                       .malloc = mem_malloc,
	                       .free = mem_free,
	                       .calloc = mem_calloc,
	                       .realloc = mem_realloc};
	if (nghttp2_session_callbacks_new(&h->cb) != 0 || nghttp2_option_new(&h->opt) != 0)
		return -1;
	nghttp2_session_callbacks_set_on_begin_headers_callback(h->cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(h->cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h->cb, on_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(h->cb, on_frame);
	nghttp2_session_callbacks_set_on_stream_close_callback(h->cb, on_close);
	nghttp2_option_set_peer_max_concurrent_streams(h->opt, PEER_STREAMS_BEFORE_SETTINGS);
	return 0;
}

/* This worker's share of the plan's connections (one per worker by default). */
static int conn_share(const struct ethread *t)
{
	int total = t->eng->o.plan->connections, n = t->eng->nthreads;
	if (total <= 0)
		total = n;
	int share = total / n + (t->index < total % n);
	return share > 0 ? share : 1;
}

static int slots_init(struct h2thread *h, int n, size_t body_cap)
{
	for (int j = 0; j < n; j++) {
		struct h2slot *s = &h->slots[j];
		if ((h->need_keep && !(s->keep = malloc(HTTP_BODY_KEEP))) ||
		    (body_cap && !(s->bodybuf = malloc(body_cap))))
			return -1;
	}
	for (int p = 0; p < 2 * h->nconn; p++) {
		h->pool[p].h = h;
		h->pool[p].up.c.fd = -1;
		h->pool[p].index = p % h->nconn;
		h->pool[p].up.connect_us = -1;
	}
	for (int i = 0; i < h->nconn; i++)
		h->active[i] = i;
	return 0;
}

static int h2_init(struct ethread *t, char *err, size_t errlen)
{
	struct h2thread *h = calloc(1, sizeof *h);
	int n = t->max_slots > 0 ? t->max_slots : 1;
	size_t body_cap;

	if (!h)
		goto oom;
	t->drv = h;
	h->t = t;
	h->plan = t->eng->o.plan;
	h->nconn = conn_share(t);
	conn_set_none(&h->cs);
	if (kinds_init(h, &body_cap, err, errlen) < 0)
		return -1;
	if (h->has_tls && tls_client_init(&h->tls, &h->plan->tls, "h2", err, errlen, NULL) < 0)
		return -1;
	h->slots = calloc((size_t)n, sizeof *h->slots);
	h->pool = calloc((size_t)(2 * h->nconn), sizeof *h->pool);
	h->active = calloc((size_t)h->nconn, sizeof *h->active);
	h->dirty = calloc((size_t)(2 * h->nconn), sizeof *h->dirty);
	h->rbuf = malloc(READ_BUF);
	h->md = pcre2_match_data_create(1, NULL);
	if (!h->slots || !h->pool || !h->active || !h->dirty || !h->rbuf || !h->md ||
	    nghttp2_init(h) < 0 || slots_init(h, n, body_cap) < 0)
		goto oom;
	if (conn_set_init(&h->cs, n > 2 * h->nconn ? n : 2 * h->nconn, err, errlen) < 0)
		return -1;
	h->up = (struct up_worker){.cs = &h->cs, .tls = &h->tls, .t = h->t};
	return 0;
oom:
	snprintf(err, errlen, "out of memory setting up a worker");
	return -1;
}

const struct driver h2_driver = {
    .name = "lean-h2",
    .init = h2_init,
    .release = h2_release,
    .start = h2_start,
    .cancel = h2_cancel,
    .idle = h2_idle,
    .poll = h2_poll,
    .wake = h2_wake,
    .preflight = http_preflight,
};
