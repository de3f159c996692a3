/*
 * The tcp-frame driver (tcpframe.h): epoll, edge-triggered, one registration per
 * connection; each VU a small state machine that always tries to make progress first and
 * waits for an edge only after EAGAIN.
 */
#include "tcpframe.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "httpclass.h"
#include "conn.h"
#include "dur.h"
#include "engine_int.h"
#include "frame.h"

#define KEEP_CAP             8192  /* reply payload bytes kept for the handshake's expect */
#define TURN_MAX_MS          200   /* longest wait of a loop turn (control is also woken) */
#define BACKOFF_MS           50    /* pause after a failed connect: a dead target is not spun on */
#define PORTS_BACKOFF_MS     250   /* EADDRNOTAVAIL: give TIME_WAIT ports time to free up */
#define READ_CHUNK           65536 /* a worker's scratch for reply payloads (skipped bytes) */
#define PREFLIGHT_TIMEOUT_MS 3000

enum tf_state {
	TF_IDLE = 0,   /* no iteration running (the connection may be kept) */
	TF_CONNECTING, /* non-blocking connect in progress */
	TF_HS_SEND,    /* writing the handshake */
	TF_HS_READ,    /* reading the handshake's reply */
	TF_SEND,       /* writing the frame group buf[off..end) */
	TF_READ,       /* reading the reply to the group's last frame */
};

struct tthread;

/* One virtual user. */
struct tvu {
	int j; /* local index in the worker */
	enum tf_state state;
	struct conn c;      /* the connection (c.fd -1 when none) */
	int64_t connect_us; /* this iteration's connect time, -1 when it reused one */
	int64_t ttfb_us;    /* this iteration's handshake time, -1 when none */
	int64_t bytes;      /* reply bytes this iteration has received so far */
	uint64_t iter;      /* iterations started */
	uint64_t seq;       /* ${seq} of the current iteration */
	char *buf;          /* handshake or the iteration's frames, headers included */
	size_t len;         /* bytes in buf */
	size_t off;         /* bytes of buf written */
	size_t end;         /* end of the group being written */
	int next_frame;     /* first frame not yet in a written group */
	int group_last;     /* last frame of the group being written */
	size_t frame_end[PLAN_MAX_FRAMES]; /* end of each frame in buf */
	struct frame_rd rd;                /* the reply being read */
	char *keep;        /* KEEP_CAP bytes of the handshake reply, when expect is set */
	int64_t t_conn_us; /* connect started (mono µs) */
	int64_t t_hs_us;   /* handshake started */
	int64_t t_iter_us; /* first byte of the iteration's frames written */
};

struct tthread {
	struct ethread *t;
	const struct plan *plan;
	struct tvu *vus;       /* max_slots of them */
	int active;            /* VUs [0, active) are wanted */
	struct conn_set cs;    /* the epoll set; in-flight VUs by deadline, earliest first */
	struct conn_addr addr; /* the target, resolved once */
	int64_t timeout_ms;    /* connect, handshake and iteration each */
	size_t buf_cap;        /* per-VU buffer size */
	uint8_t *scratch;      /* READ_CHUNK bytes */
	struct tpl_ctx *ctx;   /* the worker's template context (engine_int.h) */
	pcre2_match_data *md;
};

/* --- the deadline list: sorted because every deadline is now + the same timeout ------- */

static void dl_remove(struct tthread *h, struct tvu *v)
{
	dlist_remove(&h->cs.dl, v->j);
}

/* Gives v the deadline now + timeout (moving it to the tail); now_us is the caller's
 * reading of the monotonic clock (two fewer clock reads per iteration). */
static void dl_arm(struct tthread *h, struct tvu *v, int64_t now_us)
{
	dlist_arm(&h->cs.dl, v->j, 0, now_us + h->timeout_ms * 1000);
}

/* --- connections ------------------------------------------------------------------- */

/* A failed connect or send, classed as the HTTP drivers class theirs (httpclass.c). */
static enum err_class connect_class(int e)
{
	return http_fail_class(HTTP_FAIL_CONNECT, e, HTTP_PHASE_CONNECT);
}

static enum err_class io_class(int e)
{
	return http_fail_class(HTTP_FAIL_IO, e, HTTP_PHASE_REQUEST);
}

/* --- the iteration's end ------------------------------------------------------------ */

static void iteration_over(struct tthread *h, struct tvu *v)
{
	dl_remove(h, v);
	v->state = TF_IDLE;
}

/* Reports a failed iteration with its class and message; drops the connection. */
static void fail(struct tthread *h, struct tvu *v, enum err_class c, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(struct tthread *h, struct tvu *v, enum err_class c, const char *fmt, ...)
{
	char msg[ERR_SAMPLE_LEN];
	struct outcome o = {.cls = (int)c, .connect_us = v->connect_us, .ttfb_us = v->ttfb_us};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	o.detail = msg;
	o.bytes = v->bytes;
	if (v->state == TF_HS_READ || v->state == TF_READ)
		o.bytes += (int64_t)frame_rd_bytes(&v->rd);
	conn_close(&v->c);
	iteration_over(h, v);
	sched_finish(h->t, v->j, &o);
}

static void succeed(struct tthread *h, struct tvu *v)
{
	struct outcome o = {.cls = -1,
	                    .answered = 1,
	                    .connect_us = v->connect_us,
	                    .ttfb_us = v->ttfb_us,
	                    .bytes = v->bytes};

	o.service_us = clock_mono_us() - v->t_iter_us;
	iteration_over(h, v);
	if (h->plan->connection == PLAN_CLOSE)
		conn_close(&v->c);
	sched_finish(h->t, v->j, &o);
}

/* --- writing and reading -------------------------------------------------------------- */

/* Expands the handshake into v->buf. */
static void expand_handshake(struct tthread *h, struct tvu *v)
{
	const struct plan_frame *fr = &h->plan->handshake;
	long n;

	h->ctx->seq = v->seq;
	h->ctx->vu = ethread_vu_id(h->t, v->j);
	h->ctx->iter = v->iter;
	n = tpl_expand(&fr->text, h->ctx, v->buf + FRAME_HDR, h->buf_cap - FRAME_HDR);
	if (n < 0)
		n = 0; /* cannot happen: buf_cap >= tpl_max_len */
	frame_put_header((uint8_t *)v->buf, (unsigned)fr->type, (uint32_t)n);
	v->len = v->end = FRAME_HDR + (size_t)n;
	v->off = 0;
}

/* Expands every frame of the iteration into v->buf, one after the other. */
static void expand_frames(struct tthread *h, struct tvu *v)
{
	const struct plan *s = h->plan;
	size_t off = 0;

	h->ctx->seq = v->seq;
	h->ctx->vu = ethread_vu_id(h->t, v->j);
	h->ctx->iter = v->iter;
	for (int i = 0; i < s->nframes; i++) {
		long n = tpl_expand(&s->frames[i].text, h->ctx, v->buf + off + FRAME_HDR,
		                    h->buf_cap - off - FRAME_HDR);
		if (n < 0)
			n = 0; /* cannot happen: buf_cap is the sum of the frames' tpl_max_len */
		frame_put_header((uint8_t *)v->buf + off, (unsigned)s->frames[i].type, (uint32_t)n);
		off += FRAME_HDR + (size_t)n;
		v->frame_end[i] = off;
	}
	v->len = off;
	v->off = 0;
	v->next_frame = 0;
}

/* Sets up the next group: frames up to the first that expects a reply, or to the last. */
static void next_group(struct tthread *h, struct tvu *v)
{
	const struct plan *s = h->plan;
	int i = v->next_frame;
	while (i < s->nframes - 1 && !s->frames[i].expect_reply)
		i++;
	v->group_last = i;
	v->end = v->frame_end[i];
	v->next_frame = i + 1;
	v->state = TF_SEND;
}

/* Writes buf[off..end); 1 when all is written, 0 on EAGAIN, -1 after fail(). */
static int send_some(struct tthread *h, struct tvu *v)
{
	int r = conn_send(v->c.fd, v->buf, v->end, &v->off);

	if (r < 0)
		fail(h, v, io_class(-r), "%s to %s: %s (%zu of %zu bytes written)",
		     v->state == TF_HS_SEND ? "handshake" : "frames", h->plan->address, strerror(-r),
		     v->off, v->end);
	return r;
}

/* Reads the reply in v->rd; 1 when complete, 0 on EAGAIN, -1 after fail(). */
static int read_some(struct tthread *h, struct tvu *v)
{
	const char *what = v->state == TF_HS_READ ? "handshake reply" : "reply";
	for (;;) {
		size_t need = frame_rd_need(&v->rd), used;
		ssize_t n;
		enum frame_status fs;

		if (need == 0) /* an empty payload completes with its header */
			return 1;
		n = recv(v->c.fd, h->scratch, need < READ_CHUNK ? need : READ_CHUNK, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			int e = errno;
			fail(h, v, io_class(e), "%s from %s: %s after %llu bytes", what,
			     h->plan->address, strerror(e),
			     (unsigned long long)frame_rd_bytes(&v->rd));
			return -1;
		}
		if (n == 0) {
			if (frame_rd_bytes(&v->rd) == 0)
				fail(h, v, ERR_RESET,
				     "%s from %s: the server closed the connection "
				     "without replying",
				     what, h->plan->address);
			else
				fail(h, v, ERR_RESET,
				     "%s from %s: the server closed the connection "
				     "in the middle of a frame (%llu of %llu bytes)",
				     what, h->plan->address,
				     (unsigned long long)frame_rd_bytes(&v->rd),
				     v->rd.nhdr < FRAME_HDR
				         ? (unsigned long long)FRAME_HDR
				         : (unsigned long long)(FRAME_HDR + v->rd.len));
			return -1;
		}
		fs = frame_rd_feed(&v->rd, h->scratch, (size_t)n, &used);
		if (fs == FRAME_DONE)
			return 1;
		if (fs == FRAME_BAD_TYPE) {
			fail(h, v, ERR_PROTOCOL, "%s from %s: frame type %u, expected %u", what,
			     h->plan->address, v->rd.type, v->rd.want_type);
			return -1;
		}
		if (fs == FRAME_TOO_LONG) {
			fail(h, v, ERR_PROTOCOL,
			     "%s from %s: frame length %lu is over max_frame %lu", what,
			     h->plan->address, (unsigned long)v->rd.len,
			     (unsigned long)v->rd.max_len);
			return -1;
		}
	}
}

/* Runs v's state machine as far as it goes without waiting. */
static void advance(struct tthread *h, struct tvu *v)
{
	const struct plan *s = h->plan;
	int rc;

	for (;;) {
		switch (v->state) {
		case TF_HS_SEND:
			if ((rc = send_some(h, v)) <= 0)
				return;
			frame_rd_start(&v->rd, (unsigned)s->handshake.type, (uint32_t)s->max_frame,
			               v->keep, v->keep ? KEEP_CAP : 0);
			v->state = TF_HS_READ;
			break;
		case TF_HS_READ:
			if ((rc = read_some(h, v)) <= 0)
				return;
			v->bytes += (int64_t)frame_rd_bytes(&v->rd);
			if (s->handshake_expect &&
			    pcre2_match(s->handshake_expect, (PCRE2_SPTR)v->keep, v->rd.kept, 0, 0,
			                h->md, NULL) < 0) {
				for (char *q = v->keep; *q; q++)
					if (*q == '\n' || *q == '\r')
						*q = ' ';
				v->state = TF_IDLE; /* bytes are counted already */
				fail(h, v, ERR_BODY_MISMATCH,
				     "handshake reply from %s does not match expect: %.120s",
				     s->address, v->keep);
				return;
			}
			v->ttfb_us = clock_mono_us() - v->t_hs_us;
			expand_frames(h, v);
			v->t_iter_us = clock_mono_us();
			dl_arm(h, v, v->t_iter_us);
			next_group(h, v);
			break;
		case TF_SEND:
			if ((rc = send_some(h, v)) <= 0)
				return;
			if (!s->frames[v->group_last].expect_reply) {
				succeed(h, v);
				return;
			}
			frame_rd_start(&v->rd, (unsigned)s->frames[v->group_last].type,
			               (uint32_t)s->max_frame, NULL, 0);
			v->state = TF_READ;
			break;
		case TF_READ:
			if ((rc = read_some(h, v)) <= 0)
				return;
			v->bytes += (int64_t)frame_rd_bytes(&v->rd);
			if (v->group_last == s->nframes - 1) {
				succeed(h, v);
				return;
			}
			next_group(h, v);
			break;
		default:
			return;
		}
	}
}

/* The connection is up: count it, then the handshake or the frames. */
static void connected(struct tthread *h, struct tvu *v)
{
	int64_t now = clock_mono_us();

	v->connect_us = now - v->t_conn_us;
	dl_arm(h, v, now);
	if (h->plan->has_handshake) {
		expand_handshake(h, v);
		v->t_hs_us = now;
		v->state = TF_HS_SEND;
	} else {
		expand_frames(h, v);
		v->t_iter_us = now;
		next_group(h, v);
	}
	advance(h, v);
}

/* Opens v's connection; the rest follows from events. */
static void start_connect(struct tthread *h, struct tvu *v)
{
	const char *what = NULL;
	int e = 0;

	v->t_conn_us = clock_mono_us();
	v->state = TF_CONNECTING;
	dl_arm(h, v, v->t_conn_us);
	/* Frames go out whole (one send per group): TCP_NODELAY. */
	switch (conn_open(&v->c, &h->cs, v->j, &h->addr, &e, &what)) {
	case CONN_UP:
		connected(h, v);
		return;
	case CONN_PENDING:
		return;
	case CONN_FAILED:
		fail(h, v, connect_class(e), "connect to %s: %s", h->plan->address, strerror(e));
		return;
	case CONN_LOCAL:
		fail(h, v, ERR_OTHER, "%s: %s", what, strerror(e));
		return;
	}
}

/* Starts slot j's next iteration (driver contract). */
static void tf_start(struct ethread *t, int j)
{
	struct tthread *h = t->drv;
	struct tvu *v = &h->vus[j];

	v->seq = t->ctx.seq;
	v->iter = t->ctx.iter;
	v->connect_us = v->ttfb_us = -1;
	v->bytes = 0;
	if (!v->buf) {
		v->buf = malloc(h->buf_cap);
		if (h->plan->handshake_expect && !v->keep)
			v->keep = malloc(KEEP_CAP);
		if (!v->buf || (h->plan->handshake_expect && !v->keep)) {
			fail(h, v, ERR_OTHER, "out of memory creating a virtual user");
			return;
		}
	}
	if (v->c.fd < 0) {
		start_connect(h, v);
		return;
	}
	expand_frames(h, v);
	v->t_iter_us = clock_mono_us();
	dl_arm(h, v, v->t_iter_us);
	next_group(h, v);
	advance(h, v);
}

/* An epoll event for VU j's connection. */
static void on_event(struct tthread *h, struct tvu *v, uint32_t evs)
{
	if (v->state == TF_CONNECTING) {
		int e, up = conn_finish(&v->c, evs, &e);
		if (up > 0)
			connected(h, v);
		else if (up < 0)
			fail(h, v, connect_class(e), "connect to %s: %s", h->plan->address,
			     strerror(e));
		return;
	}
	if (v->state == TF_IDLE) {
		/* An idle kept connection the server closed: the next iteration reconnects. */
		if (evs & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_close(&v->c);
		return;
	}
	advance(h, v);
}

/* --- worker setup --------------------------------------------------------------------- */

/* The address's host and port as text; 0, or -1 with err. */
static int split(const char *address, char *host, size_t hostlen, char port[16], char *err,
                 size_t errlen)
{
	int p;

	if (plan_address_split(address, host, hostlen, &p, err, errlen) < 0)
		return -1;
	snprintf(port, 16, "%d", p);
	return 0;
}

static int resolve(const char *address, struct conn_addr *out, char *err, size_t errlen)
{
	char host[256], port[16];
	int g;

	if (split(address, host, sizeof host, port, err, errlen) < 0)
		return -1;
	if (conn_resolve(host, port, out, 1, &g) == 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(g));
		return -1;
	}
	return 0;
}

static int tcpframe_preflight(const struct plan *s, char *err, size_t errlen)
{
	char host[256], port[16];
	int e;

	if (split(s->address, host, sizeof host, port, err, errlen) < 0)
		return -1;
	e = conn_try(host, port, PREFLIGHT_TIMEOUT_MS, err, errlen);
	if (e > 0)
		snprintf(err, errlen, "cannot reach the target %s: %s", s->address, strerror(e));
	return e ? -1 : 0;
}

static int tf_init(struct ethread *t, char *err, size_t errlen)
{
	struct tthread *h = calloc(1, sizeof *h);
	struct engine *e = t->eng;
	const struct plan *s = e->o.plan;
	int n = t->max_slots > 0 ? t->max_slots : 1;
	size_t hs = 0, fr = 0;

	if (!h)
		goto oom;
	t->drv = h;
	h->t = t;
	h->plan = s;
	conn_set_none(&h->cs);
	h->timeout_ms = s->nreqs > 0 ? s->reqs[0].timeout_ms : 30000;
	h->ctx = &t->ctx;
	if (!s->address || resolve(s->address, &h->addr, err, errlen) < 0) {
		if (!s->address)
			snprintf(err, errlen, "tcp-frame scenario without an address");
		return -1;
	}
	h->vus = calloc((size_t)n, sizeof *h->vus);
	h->scratch = malloc(READ_CHUNK);
	h->md = pcre2_match_data_create(1, NULL);
	if (!h->vus || !h->scratch || !h->md)
		goto oom;
	for (int j = 0; j < n; j++) {
		h->vus[j].j = j;
		h->vus[j].c.fd = -1;
	}
	/* One buffer per VU holds either the handshake or every frame of an iteration. */
	if (s->has_handshake)
		hs = FRAME_HDR + tpl_max_len(&s->handshake.text, h->ctx) + 1;
	for (int i = 0; i < s->nframes; i++)
		fr += FRAME_HDR + tpl_max_len(&s->frames[i].text, h->ctx) + 1;
	h->buf_cap = hs > fr ? hs : fr;
	return conn_set_init(&h->cs, n, err, errlen);
oom:
	snprintf(err, errlen, "out of memory setting up a worker");
	return -1;
}

static void tf_release(struct ethread *t)
{
	struct tthread *h = t->drv;
	if (!h)
		return;
	for (int j = 0; h->vus && j < t->max_slots; j++) {
		conn_close(&h->vus[j].c);
		free(h->vus[j].buf);
		free(h->vus[j].keep);
	}
	pcre2_match_data_free(h->md);
	conn_set_release(&h->cs);
	free(h->vus);
	free(h->scratch);
	free(h);
	t->drv = NULL;
}

static void tf_wake(struct ethread *t)
{
	struct tthread *h = t->drv;
	if (h)
		evloop_wake(&h->cs.loop);
}

/* --- the loop ------------------------------------------------------------------------- */

/* Drops slot j's iteration at once (abort); the scheduler counts it. */
static void tf_cancel(struct ethread *t, int j)
{
	struct tthread *h = t->drv;
	struct tvu *v = &h->vus[j];
	conn_close(&v->c);
	iteration_over(h, v);
}

/* Slot j leaves: its kept connection goes. */
static void tf_idle(struct ethread *t, int j)
{
	struct tthread *h = t->drv;
	if (h && j < t->max_slots && h->vus[j].state == TF_IDLE)
		conn_close(&h->vus[j].c);
}

/* Fails the iterations whose deadline has passed. */
static void expire(struct tthread *h)
{
	int64_t now = clock_mono_us();
	char a[32];
	int j;

	while ((j = conn_expired(&h->cs, now)) >= 0) {
		struct tvu *v = &h->vus[j];
		dur_format(h->timeout_ms, a, sizeof a);
		switch (v->state) {
		case TF_CONNECTING:
			fail(h, v, ERR_CONNECT_TIMEOUT, "connect to %s: no answer within %s",
			     h->plan->address, a);
			break;
		case TF_HS_SEND:
		case TF_HS_READ:
			fail(h, v, ERR_TIMEOUT, "handshake with %s: not done within %s",
			     h->plan->address, a);
			break;
		default:
			fail(h, v, ERR_TIMEOUT, "frames to %s: iteration not done within %s (%s)",
			     h->plan->address, a,
			     v->state == TF_READ ? "waiting for a reply" : "writing");
			break;
		}
	}
}

static struct conn *vu_conn(void *arg, int j)
{
	return &((struct tthread *)arg)->vus[j].c;
}

static void vu_event(void *arg, int j, uint32_t evs)
{
	struct tthread *h = arg;
	on_event(h, &h->vus[j], evs);
}

static void tf_poll(struct ethread *t, int64_t wait_us)
{
	struct tthread *h = t->drv;

	conn_poll(&h->cs, wait_us, h, vu_conn, vu_event);
	expire(h);
}

const struct driver tcpframe_driver = {
    .name = "tcp-frame",
    .init = tf_init,
    .start = tf_start,
    .cancel = tf_cancel,
    .idle = tf_idle,
    .poll = tf_poll,
    .wake = tf_wake,
    .release = tf_release,
    .preflight = tcpframe_preflight,
};
