/*
 * monitor — a monitor server for the agents' framed protocol (soak/frame.h): the target of
 * the long vs short connection study (scenarios/tcp-long-vs-short.ini).
 *
 * One thread, epoll (edge-triggered) over non-blocking sockets.  Each connection reads
 * frames (2-byte type, 4-byte length, payload), checks them (type 1 only, length capped
 * by --max-frame: a bad frame closes that connection with a logged reason), parses the
 * payload's JSON with jansson and acts on its "T":
 *   Connect          opens a session (session.h), answers {"T":"ConnectAck","S":1,
 *                    "CLIENT_SESSION":"<id>"}
 *   anything else    needs a session on the connection; stored as a message row, its "D"
 *                    object's entries as item rows (store.h, batched transactions);
 *                    with --ack answered {"T":"Ack","MID":<MID>}
 * --latency MS holds each message MS before acting on it, without blocking the loop: the
 * connection stops reading until a timer (a FIFO: every wait is the same length) fires.
 *
 * Memory is bounded per connection (a read buffer that grows to the frame being read and
 * shrinks back, a reply buffer capped at OUT_MAX) and counted, with the sessions', so a
 * short-connection storm shows its cost in the --stats-every lines and the exit line.
 * SIGTERM/SIGINT: stop accepting, read and act on what clients already sent (until none
 * has sent any for 200 ms, 5 s at most), commit the batch, print the counts on stdout,
 * exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "clock.h"
#include "session.h"
#include "store.h"

#define IN_INIT        4096  /* a connection's first read buffer */
#define IN_KEEP        65536 /* larger buffers shrink back to IN_INIT once drained */
#define OUT_MAX        65536 /* unsent replies past this: the client does not read them */
#define HDR            6
#define EPOLL_BATCH    256
#define LOG_BAD_MAX    100  /* bad-frame reasons logged one by one, then every 1000th */
#define EXPIRE_BUDGET  4096 /* sessions looked at per loop turn */
#define READS_PER_TURN 16   /* recv calls for one connection per loop turn, then the others */
#define LISTEN_TAG     UINT64_MAX
#define SIGNAL_TAG     (UINT64_MAX - 1)

struct conn {
	int fd;
	char peer[64]; /* ADDRESS:PORT, for log lines */
	uint8_t *in;   /* received bytes; [in_off, in_len) not yet acted on */
	size_t in_cap, in_off, in_len;
	uint8_t *out; /* replies not yet sent: [out_off, out_len) */
	size_t out_cap, out_off, out_len;
	struct session *sess;       /* after Connect, else NULL */
	int waiting;                /* the frame at in_off is held by --latency */
	int waited;                 /* ... and its time is up: act on it */
	int64_t due_ms;             /* when the hold ends */
	struct conn *tprev, *tnext; /* the hold FIFO */
	int ready;                  /* on the ready FIFO: more to read, its turn was up */
	struct conn *rprev, *rnext; /* the ready FIFO */
	struct conn *prev, *next;   /* every open connection */
	size_t mem;                 /* memory counted for it */
};

struct opts {
	const char *bind, *db;
	int port;
	int ack;
	int64_t latency_ms;
	long max_frame;
	int batch;
	int64_t flush_ms;
	int items;
	long max_conns;
	int64_t session_ttl_ms;
	long max_sessions;
	int64_t stats_every_ms;
};

struct server {
	struct opts o;
	int lfd, epfd, sigfd;
	struct conn *conns; /* open connections */
	int64_t nconns, peak_conns;
	size_t conn_mem, peak_conn_mem;
	struct conn *thead, *ttail; /* held connections, earliest due first */
	struct conn *rhead, *rtail; /* connections with input left over from their turn */
	struct store st;
	struct sessions ss;
	int64_t accepted, closed, messages, items, bad_frames, connects, acks, truncated;
	int64_t refused; /* connections refused at --max-conns */
	int64_t next_stats_ms;
	int stopping;
	int failed; /* the store failed: exit 3 */
};

static size_t msize(void *p)
{
	return p ? malloc_usable_size(p) : 0;
}

static void account(struct server *sv, struct conn *c)
{
	size_t m = msize(c) + msize(c->in) + msize(c->out);
	sv->conn_mem = sv->conn_mem - c->mem + m;
	c->mem = m;
	if (sv->conn_mem > sv->peak_conn_mem)
		sv->peak_conn_mem = sv->conn_mem;
}

/* --- the hold FIFO (--latency) ------------------------------------------------------- */

static void hold_remove(struct server *sv, struct conn *c)
{
	if (!c->waiting)
		return;
	if (c->tprev)
		c->tprev->tnext = c->tnext;
	else
		sv->thead = c->tnext;
	if (c->tnext)
		c->tnext->tprev = c->tprev;
	else
		sv->ttail = c->tprev;
	c->tprev = c->tnext = NULL;
	c->waiting = 0;
}

static void hold_add(struct server *sv, struct conn *c)
{
	c->waiting = 1;
	c->due_ms = clock_mono_ms() + sv->o.latency_ms;
	c->tprev = sv->ttail;
	c->tnext = NULL;
	if (sv->ttail)
		sv->ttail->tnext = c;
	else
		sv->thead = c;
	sv->ttail = c;
}

/* --- the ready FIFO: fairness under edge-triggered epoll -------------------------------- */
/* A client that writes as fast as the server reads would keep a read-until-EAGAIN loop on
 * its connection forever and starve the others; a connection gets READS_PER_TURN reads,
 * then waits here for its next turn (no new edge will come for the bytes already there). */

static void ready_remove(struct server *sv, struct conn *c)
{
	if (!c->ready)
		return;
	if (c->rprev)
		c->rprev->rnext = c->rnext;
	else
		sv->rhead = c->rnext;
	if (c->rnext)
		c->rnext->rprev = c->rprev;
	else
		sv->rtail = c->rprev;
	c->rprev = c->rnext = NULL;
	c->ready = 0;
}

static void ready_add(struct server *sv, struct conn *c)
{
	if (c->ready)
		return;
	c->ready = 1;
	c->rprev = sv->rtail;
	c->rnext = NULL;
	if (sv->rtail)
		sv->rtail->rnext = c;
	else
		sv->rhead = c;
	sv->rtail = c;
}

/* --- connections ---------------------------------------------------------------------- */

static void conn_close(struct server *sv, struct conn *c)
{
	hold_remove(sv, c);
	ready_remove(sv, c);
	if (c->sess)
		c->sess->conns--;
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		sv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	sv->conn_mem -= c->mem;
	sv->nconns--;
	sv->closed++;
	free(c->in);
	free(c->out);
	free(c);
}

static void bad_frame(struct server *sv, struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void bad_frame(struct server *sv, struct conn *c, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	sv->bad_frames++;
	if (sv->bad_frames <= LOG_BAD_MAX || sv->bad_frames % 1000 == 0) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		fprintf(stderr, "monitor: %s: bad frame, closing: %s%s\n", c->peer, msg,
		        sv->bad_frames == LOG_BAD_MAX ? " (further ones: every 1000th)" : "");
	}
	conn_close(sv, c);
}

/* Sends what is queued; 0, or -1 when the connection is gone (closed here). */
static int conn_flush(struct server *sv, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		conn_close(sv, c);
		return -1;
	}
	c->out_off = c->out_len = 0;
	return 0;
}

/* Queues one reply frame carrying text; -1 when the connection was closed. */
static int reply(struct server *sv, struct conn *c, const char *text, size_t len)
{
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + HDR + len > OUT_MAX) {
		fprintf(stderr, "monitor: %s: %zu bytes of replies unread, closing\n", c->peer,
		        c->out_len - c->out_off);
		conn_close(sv, c);
		return -1;
	}
	if (c->out_len + HDR + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 512;
		while (cap < c->out_len + HDR + len)
			cap *= 2;
		uint8_t *o = realloc(c->out, cap);
		if (!o) {
			conn_close(sv, c);
			return -1;
		}
		c->out = o;
		c->out_cap = cap;
		account(sv, c);
	}
	uint8_t *h = c->out + c->out_len;
	h[0] = 0;
	h[1] = 1;
	h[2] = (uint8_t)(len >> 24);
	h[3] = (uint8_t)(len >> 16);
	h[4] = (uint8_t)(len >> 8);
	h[5] = (uint8_t)len;
	memcpy(h + HDR, text, len);
	c->out_len += HDR + len;
	return conn_flush(sv, c);
}

static int64_t int_of(json_t *v)
{
	return json_is_integer(v) ? (int64_t)json_integer_value(v)
	       : json_is_real(v)  ? (int64_t)json_real_value(v)
	                          : 0;
}

/* Stores a data message; 0, or -1 when the store failed (the server stops). */
static int store_data(struct server *sv, struct conn *c, json_t *root, const char *kind,
                      size_t bytes)
{
	json_t *d = json_object_get(root, "D"), *val;
	const char *key;
	int64_t id;
	char err[512];
	int n = json_is_object(d) ? (int)json_object_size(d) : 0;

	if (store_message(&sv->st, (int64_t)c->sess->id, kind, int_of(json_object_get(root, "S")),
	                  int_of(json_object_get(root, "MID")), int_of(json_object_get(root, "TS")),
	                  n, (int64_t)bytes, &id, err, sizeof err) < 0)
		goto fail;
	if (n > 0)
		json_object_foreach(d, key, val)
		{
			int rc;
			if (json_is_number(val)) {
				rc = store_item(&sv->st, id, key, 1, json_number_value(val), NULL,
				                err, sizeof err);
			} else if (json_is_string(val)) {
				rc = store_item(&sv->st, id, key, 0, 0, json_string_value(val), err,
				                sizeof err);
			} else {
				char *text = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);
				rc = store_item(&sv->st, id, key, 0, 0, text, err, sizeof err);
				free(text);
			}
			if (rc < 0)
				goto fail;
		}
	if (store_message_done(&sv->st, err, sizeof err) < 0)
		goto fail;
	sv->messages++;
	sv->items += n;
	return 0;
fail:
	fprintf(stderr, "monitor: %s\n", err);
	sv->failed = 1;
	return -1;
}

/* Acts on one message; 0, or -1 when the connection was closed. */
static int on_message(struct server *sv, struct conn *c, const uint8_t *p, size_t len)
{
	json_error_t je;
	json_t *root = json_loadb((const char *)p, len, 0, &je);
	const char *kind;
	char buf[160];
	int rc = 0;

	if (!root || !json_is_object(root)) {
		if (root)
			json_decref(root);
		bad_frame(sv, c, "payload is not a JSON object (%s at line %d column %d)",
		          root ? "another JSON value" : je.text, je.line, je.column);
		return -1;
	}
	kind = json_string_value(json_object_get(root, "T"));
	if (!kind) {
		json_decref(root);
		bad_frame(sv, c, "message without a \"T\" string");
		return -1;
	}
	int64_t now = clock_mono_ms();
	if (strcmp(kind, "Connect") == 0) {
		if (c->sess)
			c->sess->conns--;
		c->sess = session_open(&sv->ss, root, now);
		json_decref(root);
		if (!c->sess) {
			fprintf(stderr, "monitor: out of memory opening a session\n");
			conn_close(sv, c);
			return -1;
		}
		c->sess->conns++;
		sv->connects++;
		int n = snprintf(buf, sizeof buf,
		                 "{\"T\":\"ConnectAck\",\"S\":1,\"CLIENT_SESSION\":\"%llu\"}",
		                 (unsigned long long)c->sess->id);
		return reply(sv, c, buf, (size_t)n);
	}
	if (!c->sess) {
		bad_frame(sv, c, "a \"%.40s\" message before Connect", kind);
		json_decref(root);
		return -1;
	}
	session_touch(&sv->ss, c->sess, now);
	int64_t mid = int_of(json_object_get(root, "MID"));
	if (store_data(sv, c, root, kind, len) < 0) {
		json_decref(root);
		return -1;
	}
	json_decref(root);
	if (sv->o.ack) {
		int n = snprintf(buf, sizeof buf, "{\"T\":\"Ack\",\"MID\":%lld}", (long long)mid);
		sv->acks++;
		rc = reply(sv, c, buf, (size_t)n);
	}
	return rc;
}

/* Acts on the complete frames in c->in (one at a time under --latency); 1 when more bytes
 * are needed, 0 when held, -1 when the connection was closed. */
static int conn_frames(struct server *sv, struct conn *c)
{
	while (c->in_len - c->in_off >= HDR) {
		const uint8_t *h = c->in + c->in_off;
		unsigned type = (unsigned)h[0] << 8 | h[1];
		uint32_t len =
		    (uint32_t)h[2] << 24 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 8 | h[5];
		if (type != 1) {
			bad_frame(sv, c, "type %u (only 1, UTF-8 JSON text, is known)", type);
			return -1;
		}
		if (len > (uint32_t)sv->o.max_frame) {
			bad_frame(sv, c, "length %lu over the cap of %ld bytes", (unsigned long)len,
			          sv->o.max_frame);
			return -1;
		}
		if (c->in_len - c->in_off < HDR + (size_t)len) {
			/* Make room for the whole frame (bounded by the cap just checked). */
			if (c->in_off > 0) {
				memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
				c->in_len -= c->in_off;
				c->in_off = 0;
			}
			if (c->in_cap < HDR + (size_t)len) {
				uint8_t *b = realloc(c->in, HDR + (size_t)len);
				if (!b) {
					fprintf(stderr,
					        "monitor: %s: out of memory for a %lu-byte frame\n",
					        c->peer, (unsigned long)len);
					conn_close(sv, c);
					return -1;
				}
				c->in = b;
				c->in_cap = HDR + (size_t)len;
				account(sv, c);
			}
			return 1;
		}
		if (sv->o.latency_ms > 0 && !c->waited) {
			if (!c->waiting)
				hold_add(sv, c);
			return 0;
		}
		c->waited = 0;
		if (on_message(sv, c, h + HDR, len) < 0)
			return -1;
		c->in_off += HDR + (size_t)len;
	}
	return 1;
}

/* Reads and acts until EAGAIN, a hold, the end of its turn (then it is on the ready FIFO:
 * returns 1) or the connection's end (returns -1: c is gone); 0 otherwise. */
static int conn_input(struct server *sv, struct conn *c)
{
	ready_remove(sv, c);
	for (int reads = 0;; reads++) {
		int rc = conn_frames(sv, c);
		if (rc <= 0)
			return rc;
		if (c->in_off == c->in_len) {
			c->in_off = c->in_len = 0;
			if (c->in_cap > IN_KEEP) {
				uint8_t *b = realloc(c->in, IN_INIT);
				if (b) {
					c->in = b;
					c->in_cap = IN_INIT;
					account(sv, c);
				}
			}
		} else if (c->in_len == c->in_cap && c->in_off > 0) {
			memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
			c->in_len -= c->in_off;
			c->in_off = 0;
		}
		if (reads == READS_PER_TURN) {
			ready_add(sv, c);
			return 1;
		}
		ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (c->in_len > c->in_off) {
			sv->truncated++;
			fprintf(
			    stderr,
			    "monitor: %s: connection ended in the middle of a frame (%zu bytes)\n",
			    c->peer, c->in_len - c->in_off);
		}
		conn_close(sv, c);
		return -1;
	}
}

static void accept_all(struct server *sv)
{
	for (;;) {
		struct sockaddr_storage a;
		socklen_t al = sizeof a;
		int fd = accept4(sv->lfd, (struct sockaddr *)&a, &al, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				fprintf(stderr, "monitor: accept: %s\n", strerror(errno));
			return;
		}
		if (sv->nconns >= sv->o.max_conns) {
			sv->refused++;
			close(fd);
			continue;
		}
		struct conn *c = calloc(1, sizeof *c);
		if (c)
			c->in = malloc(IN_INIT);
		if (!c || !c->in) {
			if (c)
				free(c);
			close(fd);
			fprintf(stderr, "monitor: out of memory accepting a connection\n");
			continue;
		}
		c->fd = fd;
		c->in_cap = IN_INIT;
		if (a.ss_family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&a;
			char ip[INET_ADDRSTRLEN];
			inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof ip);
			snprintf(c->peer, sizeof c->peer, "%s:%u", ip, ntohs(s4->sin_port));
		} else {
			snprintf(c->peer, sizeof c->peer, "client");
		}
		c->next = sv->conns;
		if (sv->conns)
			sv->conns->prev = c;
		sv->conns = c;
		sv->nconns++;
		sv->accepted++;
		if (sv->nconns > sv->peak_conns)
			sv->peak_conns = sv->nconns;
		account(sv, c);
		struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		                         .data.ptr = c};
		if (epoll_ctl(sv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			fprintf(stderr, "monitor: epoll_ctl: %s\n", strerror(errno));
			conn_close(sv, c);
			continue;
		}
		conn_input(sv, c); /* data may have come with the connection */
	}
}

/* Ends the holds that are due and acts on their frames. */
static void holds_due(struct server *sv, int all)
{
	int64_t now = clock_mono_ms();
	while (sv->thead && (all || sv->thead->due_ms <= now)) {
		struct conn *c = sv->thead;
		hold_remove(sv, c);
		c->waited = 1;
		conn_input(sv, c);
	}
}

static void print_counts(const struct server *sv, FILE *f, const char *what)
{
	fprintf(f,
	        "%s: connections=%lld open=%lld peak_connections=%lld refused=%lld messages=%lld "
	        "items=%lld connects=%lld acks=%lld bad_frames=%lld truncated=%lld "
	        "conn_memory_kb=%zu peak_conn_memory_kb=%zu sessions=%lld peak_sessions=%lld "
	        "session_memory_kb=%zu peak_session_memory_kb=%zu sessions_expired=%lld "
	        "sessions_evicted=%lld commits=%lld\n",
	        what, (long long)sv->accepted, (long long)sv->nconns, (long long)sv->peak_conns,
	        (long long)sv->refused, (long long)sv->messages, (long long)sv->items,
	        (long long)sv->connects, (long long)sv->acks, (long long)sv->bad_frames,
	        (long long)sv->truncated, sv->conn_mem / 1024, sv->peak_conn_mem / 1024,
	        (long long)sv->ss.count, (long long)sv->ss.peak, sv->ss.bytes / 1024,
	        sv->ss.peak_bytes / 1024, (long long)sv->ss.expired, (long long)sv->ss.evicted,
	        (long long)sv->st.commits);
	fflush(f);
}

static int listen_on(struct server *sv, char *err, size_t errlen)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sv->o.port)};
	socklen_t al = sizeof a;
	int one = 1;

	if (inet_pton(AF_INET, sv->o.bind, &a.sin_addr) != 1) {
		snprintf(err, errlen, "--bind '%s' is not an IPv4 address", sv->o.bind);
		return -1;
	}
	sv->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sv->lfd < 0 || setsockopt(sv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(sv->lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(sv->lfd, 4096) < 0 ||
	    getsockname(sv->lfd, (struct sockaddr *)&a, &al) < 0) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", sv->o.bind, sv->o.port,
		         strerror(errno));
		return -1;
	}
	sv->o.port = ntohs(a.sin_port);
	return 0;
}

static int setup(struct server *sv, char *err, size_t errlen)
{
	sigset_t set;
	struct epoll_event ev = {.events = EPOLLIN};

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sv->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	sv->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sv->sigfd < 0 || sv->epfd < 0) {
		snprintf(err, errlen, "cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	if (store_open(&sv->st, sv->o.db, sv->o.items, sv->o.batch, sv->o.flush_ms, err, errlen) <
	        0 ||
	    listen_on(sv, err, errlen) < 0)
		return -1;
	ev.data.u64 = LISTEN_TAG;
	epoll_ctl(sv->epfd, EPOLL_CTL_ADD, sv->lfd, &ev);
	ev.data.u64 = SIGNAL_TAG;
	epoll_ctl(sv->epfd, EPOLL_CTL_ADD, sv->sigfd, &ev);
	sessions_init(&sv->ss, sv->o.session_ttl_ms, sv->o.max_sessions);
	return 0;
}

static void loop(struct server *sv)
{
	struct epoll_event evs[EPOLL_BATCH];
	char err[512];

	while (!sv->stopping && !sv->failed) {
		int64_t now = clock_mono_ms(), wait = sv->rhead ? 0 : 1000, d;
		if (sv->thead && (d = sv->thead->due_ms - now) < wait)
			wait = d;
		if ((d = store_due_in(&sv->st)) >= 0 && d < wait)
			wait = d;
		if (sv->o.stats_every_ms > 0 && (d = sv->next_stats_ms - now) < wait)
			wait = d;
		int n = epoll_wait(sv->epfd, evs, EPOLL_BATCH, (int)(wait < 0 ? 0 : wait));
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;
			if (tag == LISTEN_TAG) {
				accept_all(sv);
			} else if (tag == SIGNAL_TAG) {
				struct signalfd_siginfo si;
				while (read(sv->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
					sv->stopping = 1;
			} else {
				struct conn *c = evs[i].data.ptr;
				/* Only a connection's own event closes it, and each connection is
				 * reported once per batch: c is alive here. */
				if ((evs[i].events & EPOLLOUT) && c->out_len > c->out_off &&
				    conn_flush(sv, c) < 0)
					continue;
				if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
					conn_input(sv, c);
			}
		}
		/* Connections whose turn ended with input left: one more turn each. */
		for (struct conn *c = sv->rhead, *last = sv->rtail; c;) {
			struct conn *next = c->rnext;
			int end = c == last;
			conn_input(sv, c); /* may close c or queue it again at the tail */
			if (end)
				break;
			c = next;
		}
		holds_due(sv, 0);
		now = clock_mono_ms();
		sessions_expire(&sv->ss, now, EXPIRE_BUDGET);
		if (store_flush(&sv->st, 0, err, sizeof err) < 0) {
			fprintf(stderr, "monitor: %s\n", err);
			sv->failed = 1;
		}
		if (sv->o.stats_every_ms > 0 && now >= sv->next_stats_ms) {
			print_counts(sv, stderr, "monitor");
			sv->next_stats_ms = now + sv->o.stats_every_ms;
		}
	}
}

/* Reads and acts on c's input until EAGAIN or its end (c is then gone). */
static void drain(struct server *sv, struct conn *c)
{
	while (conn_input(sv, c) == 1 && !sv->failed)
		;
}

/* Stop: no new connections; act on whatever clients sent already, then close them.  What
 * a client sent before it closed may still be in its kernel, waiting for this side's
 * window: input is read until no connection has sent any for FINISH_QUIET_MS, or for
 * FINISH_MAX_MS in all (a client that never stops sending cannot hold the stop).  Closing
 * at each one's first EAGAIN lost a saturated client's last 4,539 iterations. */
#define FINISH_QUIET_MS 200
#define FINISH_MAX_MS   5000
static void finish(struct server *sv)
{
	struct epoll_event evs[EPOLL_BATCH];
	struct signalfd_siginfo si;
	int64_t end = clock_mono_ms() + FINISH_MAX_MS;
	int n;

	close(sv->lfd);
	sv->lfd = -1;
	sv->o.latency_ms = 0;
	holds_due(sv, 1);
	for (struct conn *c = sv->conns, *next; c && !sv->failed; c = next) {
		next = c->next;
		drain(sv, c);
	}
	while (sv->conns && !sv->failed && clock_mono_ms() < end &&
	       (n = epoll_wait(sv->epfd, evs, EPOLL_BATCH, FINISH_QUIET_MS)) > 0)
		for (int i = 0; i < n && !sv->failed; i++) {
			uint64_t tag = evs[i].data.u64;
			if (tag == SIGNAL_TAG)
				while (read(sv->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
					;
			else if (tag != LISTEN_TAG)
				drain(sv, evs[i].data.ptr); /* each connection once a batch */
		}
	while (sv->conns)
		conn_close(sv, sv->conns);
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: monitor [OPTIONS]\n"
	    "A monitor server for the agents' framed protocol (2-byte type, 4-byte length, JSON).\n"
	    "  --port N            TCP port (default 7000; 0: any, printed when ready)\n"
	    "  --bind ADDR         IPv4 address to listen on (default 127.0.0.1)\n"
	    "  --db FILE           SQLite file for messages and items (default monitor.db)\n"
	    "  --store WHAT        items (a row per item, default) or messages (rows per message)\n"
	    "  --batch N           messages per transaction (default 1000)\n"
	    "  --flush-ms MS       longest a batch stays uncommitted (default 100)\n"
	    "  --ack               reply {\"T\":\"Ack\",\"MID\":...} to every message\n"
	    "  --latency MS        hold every message MS before acting on it (default 0)\n"
	    "  --max-frame BYTES   longest frame accepted (default 1048576)\n"
	    "  --max-conns N       open connections at most (default 10000)\n"
	    "  --session-ttl MS    idle session lifetime (default 60000)\n"
	    "  --max-sessions N    live sessions at most (default 1000000)\n"
	    "  --stats-every MS    print the counts on stderr this often (default 0: never)\n"
	    "  --tag TEXT          ignored: a marker for process matching\n"
	    "Prints `listening on ADDR:PORT` on stdout when ready; on SIGTERM or SIGINT acts on\n"
	    "what was received, commits, prints the counts on stdout and exits 0.\n");
}

static int num(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (end == v || *end || errno || n < lo || n > hi) {
		fprintf(stderr, "monitor: %s: '%s' is not a number in %ld..%ld\n", opt, v, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {{"port", required_argument, NULL, 'p'},
	                                      {"bind", required_argument, NULL, 'b'},
	                                      {"db", required_argument, NULL, 'd'},
	                                      {"store", required_argument, NULL, 's'},
	                                      {"batch", required_argument, NULL, 'B'},
	                                      {"flush-ms", required_argument, NULL, 'F'},
	                                      {"ack", no_argument, NULL, 'a'},
	                                      {"latency", required_argument, NULL, 'l'},
	                                      {"max-frame", required_argument, NULL, 'm'},
	                                      {"max-conns", required_argument, NULL, 'c'},
	                                      {"session-ttl", required_argument, NULL, 't'},
	                                      {"max-sessions", required_argument, NULL, 'S'},
	                                      {"stats-every", required_argument, NULL, 'e'},
	                                      {"tag", required_argument, NULL, 'T'},
	                                      {"help", no_argument, NULL, 'h'},
	                                      {NULL, 0, NULL, 0}};
	struct server *sv = calloc(1, sizeof *sv);
	char err[512];
	long v;
	int opt, rc = 0;

	if (!sv) {
		fprintf(stderr, "monitor: out of memory\n");
		return 3;
	}
	sv->lfd = sv->epfd = sv->sigfd = -1;
	sv->o = (struct opts){.bind = "127.0.0.1",
	                      .db = "monitor.db",
	                      .port = 7000,
	                      .max_frame = 1 << 20,
	                      .batch = 1000,
	                      .flush_ms = 100,
	                      .items = 1,
	                      .max_conns = 10000,
	                      .session_ttl_ms = 60000,
	                      .max_sessions = 1000000};
	while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (num("--port", optarg, 0, 65535, &v) < 0)
				goto usage;
			sv->o.port = (int)v;
			break;
		case 'b':
			sv->o.bind = optarg;
			break;
		case 'd':
			sv->o.db = optarg;
			break;
		case 's':
			if (strcmp(optarg, "items") && strcmp(optarg, "messages")) {
				fprintf(stderr, "monitor: --store: items or messages, not '%s'\n",
				        optarg);
				goto usage;
			}
			sv->o.items = strcmp(optarg, "items") == 0;
			break;
		case 'B':
			if (num("--batch", optarg, 1, 1000000, &v) < 0)
				goto usage;
			sv->o.batch = (int)v;
			break;
		case 'F':
			if (num("--flush-ms", optarg, 1, 60000, &v) < 0)
				goto usage;
			sv->o.flush_ms = v;
			break;
		case 'a':
			sv->o.ack = 1;
			break;
		case 'l':
			if (num("--latency", optarg, 0, 600000, &v) < 0)
				goto usage;
			sv->o.latency_ms = v;
			break;
		case 'm':
			if (num("--max-frame", optarg, 1, 0x7fffffff, &v) < 0)
				goto usage;
			sv->o.max_frame = v;
			break;
		case 'c':
			if (num("--max-conns", optarg, 1, 10000000, &v) < 0)
				goto usage;
			sv->o.max_conns = v;
			break;
		case 't':
			if (num("--session-ttl", optarg, 0, 86400000, &v) < 0)
				goto usage;
			sv->o.session_ttl_ms = v;
			break;
		case 'S':
			if (num("--max-sessions", optarg, 1, 100000000, &v) < 0)
				goto usage;
			sv->o.max_sessions = v;
			break;
		case 'e':
			if (num("--stats-every", optarg, 0, 86400000, &v) < 0)
				goto usage;
			sv->o.stats_every_ms = v;
			break;
		case 'T':
			break;
		case 'h':
			usage(stdout);
			free(sv);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "monitor: unexpected argument '%s'\n", argv[optind]);
		goto usage;
	}
	if (setup(sv, err, sizeof err) < 0) {
		fprintf(stderr, "monitor: %s\n", err);
		rc = 3;
		goto out;
	}
	printf("listening on %s:%d\n", sv->o.bind, sv->o.port);
	fflush(stdout);
	sv->next_stats_ms = clock_mono_ms() + sv->o.stats_every_ms;
	loop(sv);
	finish(sv);
	if (store_close(&sv->st, err, sizeof err) < 0) {
		fprintf(stderr, "monitor: %s\n", err);
		sv->failed = 1;
	}
	print_counts(sv, stdout, "exit");
	rc = sv->failed ? 3 : 0;
out:
	store_close(&sv->st, err, sizeof err);
	sessions_release(&sv->ss);
	if (sv->lfd >= 0)
		close(sv->lfd);
	if (sv->epfd >= 0)
		close(sv->epfd);
	if (sv->sigfd >= 0)
		close(sv->sigfd);
	free(sv);
	return rc;
usage:
	usage(stderr);
	free(sv);
	return 2;
}
