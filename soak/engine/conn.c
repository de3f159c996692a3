/*
 * The connection core of the socket drivers (conn.h).
 */
#include "conn.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

void conn_set_none(struct conn_set *s)
{
	evloop_none(&s->loop);
	memset(&s->dl, 0, sizeof s->dl);
}

int conn_set_init(struct conn_set *s, int nslots, char *err, size_t errlen)
{
	if (dlist_init(&s->dl, nslots) < 0) {
		snprintf(err, errlen, "out of memory setting up a worker");
		return -1;
	}
	return evloop_init(&s->loop, err, errlen);
}

void conn_set_release(struct conn_set *s)
{
	dlist_release(&s->dl);
	evloop_release(&s->loop);
}

int conn_resolve(const char *host, const char *port, struct conn_addr *out, int max, int *gai_err)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV},
	                *ai = NULL;
	int n = 0, rc = getaddrinfo(host, port, &hints, &ai);

	*gai_err = rc;
	if (rc != 0)
		return 0;
	for (struct addrinfo *a = ai; a && n < max; a = a->ai_next) {
		memcpy(&out[n].sa, a->ai_addr, a->ai_addrlen);
		out[n++].len = a->ai_addrlen;
	}
	freeaddrinfo(ai);
	return n;
}

int conn_target_ready(struct conn_target *t)
{
	int rc;

	if (t->naddr > 0)
		return 1;
	if (clock_mono_us() < t->retry_us)
		return 0;
	t->naddr = conn_resolve(t->host, t->port, t->addr, CONN_MAX_ADDRS, &rc);
	t->cur = 0;
	if (t->naddr == 0) {
		snprintf(t->dns_err, sizeof t->dns_err, "Could not resolve host: %s (%s)", t->host,
		         gai_strerror(rc));
		t->retry_us = clock_mono_us() + CONN_RESOLVE_RETRY_US;
	}
	return t->naddr > 0;
}

/* One bounded connect to address a: 0, or the errno it failed with. */
static int try_addr(const struct conn_addr *a, int timeout_ms)
{
	int e = 0, fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		e = errno;
	} else if (connect(fd, (const struct sockaddr *)&a->sa, a->len) < 0) {
		e = errno;
		if (e == EINPROGRESS) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			socklen_t l = sizeof e;
			e = 0;
			if (poll(&p, 1, timeout_ms) <= 0)
				e = ETIMEDOUT;
			else
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
		}
	}
	if (fd >= 0)
		close(fd);
	return e;
}

/* Each of the name's addresses in turn, as the workers try them (localhost is ::1 and
 * 127.0.0.1 on a stock Debian, and a server may listen on one): 0 at the first that
 * connects, else the first one's error. */
int conn_try(const char *host, const char *port, int timeout_ms, char *err, size_t errlen)
{
	struct conn_addr a[CONN_MAX_ADDRS];
	int g, first = 0, n = conn_resolve(host, port, a, CONN_MAX_ADDRS, &g);

	if (n == 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(g));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int e = try_addr(&a[i], timeout_ms);
		if (e == 0)
			return 0;
		first = first ? first : e;
	}
	return first;
}
