/*
 * conn — the connection core under the engine's socket drivers (lean.c for HTTP/1.1,
 * h2conn.c for HTTP/2, tcpframe.c for framed TCP): what wrk keeps under its `struct
 * sock`, written once.  Bringing an HTTP connection up (the next address, TLS) is up.h's,
 * on top of this.
 *
 *   conn_resolve  a name's addresses, once per worker
 *   conn_open     a non-blocking TCP connection, registered with the worker's epoll set
 *                 (edge-triggered, in and out) under its slot and generation, connecting
 *   conn_finish   the connect's outcome when its first event comes
 *   conn_close    closes it (which also takes it out of the epoll set)
 *   conn_poll     one wait of the loop: until the next event or deadline, then each event
 *                 of a slot's current connection handed to the driver
 *   conn_expired  the slots whose deadline has passed, one by one
 *   conn_send     writes what the socket takes now
 *   conn_try      the preflight: one blocking-bounded connect to a host and port
 *
 * A slot owns at most one connection at a time; its generation goes up with each one, so
 * an event of a connection closed earlier in the same batch is told apart from one of
 * the connection that now has the slot (evloop_tag).  Deadlines are µs of the monotonic
 * clock, one dlist per set (dlist.h): a driver arms a slot when its request starts and
 * removes it when the request ends.  What the bytes mean, how failures are worded and
 * counted, stays with the driver.
 *
 * What runs per request (conn_open, conn_finish, conn_close, conn_poll, conn_expired) is
 * inline: the drivers cost what they cost when each had its own copy.
 *
 * Threads: a set and its connections belong to one worker; conn_try and conn_resolve to
 * any thread.
 */
#ifndef SOAK_CONN_H
#define SOAK_CONN_H

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "dlist.h"
#include "evloop.h"

#define CONN_BATCH 256 /* events taken from epoll per wait */

/* A resolved address. */
struct conn_addr {
	struct sockaddr_storage sa; /* the address */
	socklen_t len;              /* its length */
};

#define CONN_MAX_ADDRS        4       /* addresses of a name tried in turn (IPv6, IPv4...) */
#define CONN_RESOLVE_RETRY_US 1000000 /* a name that did not resolve is asked again after this */

/* A host:port connections go to, resolved once per worker (and, while it does not
 * resolve, asked again at most once per CONN_RESOLVE_RETRY_US); connects go to the last
 * address that worked, and on to the next when one is refused or unreachable. */
struct conn_target {
	struct conn_addr addr[CONN_MAX_ADDRS]; /* resolved addresses */
	int naddr;                             /* 0 when the name did not resolve (yet) */
	int cur;                               /* the address that worked last */
	int64_t retry_us;                      /* when to ask the resolver again (naddr == 0) */
	char dns_err[320];                     /* why it did not resolve */
	const char *host, *port;               /* the name and (numeric) port, the caller's */
};

/* Resolves t when due: 1 when it has addresses, 0 when not (t->dns_err says why). */
int conn_target_ready(struct conn_target *t);
/* A connect starts at the address that worked last and remembers which one it tries
 * (`at`): others may move t->cur meanwhile (at the start every slot connects at once, and
 * the first to find the working address would send the others back to the refused one). */
static inline int conn_target_first(const struct conn_target *t)
{
	return t->cur;
}
/* The address at index `at`. */
static inline const struct conn_addr *conn_target_addr(const struct conn_target *t, int at)
{
	return &t->addr[at % t->naddr];
}
/* The address after `at`, for the connect's next try. */
static inline int conn_target_after(const struct conn_target *t, int at)
{
	return (at + 1) % t->naddr;
}
/* The connect to address `at` worked: the next ones start there. */
static inline void conn_target_worked(struct conn_target *t, int at)
{
	t->cur = at % t->naddr;
}
/* Whether a connect that failed with e, after `tries` failed ones, goes on to another
 * address of the name. */
static inline int conn_target_next(const struct conn_target *t, int e, int tries)
{
	return (e == ECONNREFUSED || e == ENETUNREACH || e == EHOSTUNREACH || e == EAFNOSUPPORT) &&
	       tries + 1 < t->naddr;
}

/* Sends buf[*off..len) on fd as far as the socket takes it now (MSG_NOSIGNAL: a closed
 * peer is an error, not SIGPIPE), *off moved past what went out: 1 all of it is out, 0 the
 * socket is full (EPOLLOUT will say when to go on), or -errno (a send of 0: -EPIPE). */
static inline int conn_send(int fd, const char *buf, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(fd, buf + *off, len - *off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			*off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return n < 0 ? -errno : -EPIPE;
	}
	return 1;
}

/* A slot's connection. */
struct conn {
	int fd;       /* the socket, -1 when none */
	uint32_t gen; /* bumped per connection: events of an earlier one are dropped */
};

/* A worker's connections: its epoll set and the deadlines of its slots. */
struct conn_set {
	struct evloop loop; /* the epoll set and its wake-up */
	struct dlist dl;    /* slots with a request in flight, by deadline (mono µs) */
};

/* conn_open's outcome. */
enum conn_status {
	CONN_UP,      /* connected at once (a local peer may answer that fast) */
	CONN_PENDING, /* connecting: conn_finish on its first event */
	CONN_FAILED,  /* connect() failed: *e says why (refused, no port left, ...) */
	CONN_LOCAL,   /* the generator's own failure: *what (socket, epoll) and *e */
};

/* A set that holds nothing yet: conn_set_release is safe on it. */
void conn_set_none(struct conn_set *s);
/* The epoll set and deadlines for nslots slots; 0, or -1 with err. */
int conn_set_init(struct conn_set *s, int nslots, char *err, size_t errlen);
void conn_set_release(struct conn_set *s);

/* Up to max addresses of host and (numeric) port into out; returns how many (>= 1), or 0
 * with *gai_err (getaddrinfo's code, for gai_strerror) when the name does not resolve. */
int conn_resolve(const char *host, const char *port, struct conn_addr *out, int max, int *gai_err);

/* Opens slot's connection to a (c->fd must be -1): a non-blocking socket with TCP_NODELAY
 * (a request goes out in one write: Nagle would only add delayed-ACK waits), registered
 * with s's epoll set, connecting.  On CONN_FAILED and CONN_LOCAL, *e is the errno; on
 * CONN_LOCAL *what names the step ("cannot open a socket", "epoll_ctl").  c->fd may be
 * open after a failure: the caller closes it. */
static inline enum conn_status conn_open(struct conn *c, struct conn_set *s, int slot,
                                         const struct conn_addr *a, int *e, const char **what)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET};
	int one = 1;

	c->fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (c->fd < 0) {
		*e = errno;
		*what = "cannot open a socket";
		return CONN_LOCAL;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->gen++;
	ev.data.u64 = evloop_tag(slot, c->gen);
	if (epoll_ctl(s->loop.epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		*e = errno;
		*what = "epoll_ctl";
		return CONN_LOCAL;
	}
	if (connect(c->fd, (const struct sockaddr *)&a->sa, a->len) == 0)
		return CONN_UP;
	if (errno == EINPROGRESS)
		return CONN_PENDING;
	*e = errno;
	return CONN_FAILED;
}

/* A connecting connection's event: 1 connected, 0 not yet (nothing said about the
 * connect), -1 failed with *e. */
static inline int conn_finish(const struct conn *c, uint32_t events, int *e)
{
	socklen_t l = sizeof *e;

	if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
		return 0;
	*e = 0;
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, e, &l) < 0)
		*e = errno;
	return *e == 0 ? 1 : -1;
}

static inline void conn_close(struct conn *c)
{
	if (c->fd >= 0) {
		close(c->fd); /* also leaves the epoll set */
		c->fd = -1;
	}
}

/*
 * One wait of a driver's loop: at most wait_us, less when the earliest deadline of s is
 * sooner; then each event of a slot's current connection goes to on_event(arg, slot,
 * events) in the order epoll gave them.  conn_of(arg, slot) is the slot's connection.
 * Always inline, so that the driver's handlers are called directly (and inlined in
 * turn, as when each driver had its own loop).
 */
__attribute__((always_inline)) static inline void
conn_poll(struct conn_set *s, int64_t wait_us, void *arg,
          struct conn *(*conn_of)(void *arg, int slot),
          void (*on_event)(void *arg, int slot, uint32_t events))
{
	struct epoll_event evs[CONN_BATCH];
	int first = dlist_first(&s->dl);

	if (first >= 0) {
		int64_t until = dlist_due(&s->dl, first) - clock_mono_us();
		if (until < wait_us)
			wait_us = until < 0 ? 0 : until;
	}
	int n = evloop_wait(&s->loop, evs, CONN_BATCH, wait_us);
	for (int i = 0; i < n; i++) {
		int j = evloop_slot(evs[i].data.u64);
		const struct conn *c = conn_of(arg, j);
		if (evloop_gen(evs[i].data.u64) != c->gen || c->fd < 0)
			continue; /* an event of a connection closed earlier in this batch */
		on_event(arg, j, evs[i].events);
	}
}

/* The slot whose deadline is earliest when it is not after now_us, else -1.  The caller
 * ends its request (which takes it off the list) before asking again. */
static inline int conn_expired(const struct conn_set *s, int64_t now_us)
{
	int j = dlist_first(&s->dl);
	return j >= 0 && dlist_due(&s->dl, j) <= now_us ? j : -1;
}

/*
 * The preflight: connects once to host and (numeric) port, waiting timeout_ms at most,
 * then closes.  0 when it connected; -1 with err ("cannot resolve 'HOST': ...") when the
 * name did not resolve; else the errno the connect failed with (ETIMEDOUT past the
 * timeout), for the caller to word.
 */
int conn_try(const char *host, const char *port, int timeout_ms, char *err, size_t errlen);

#endif
