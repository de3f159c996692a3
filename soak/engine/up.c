/* up: a connection brought up the one way (up.h): address, connect, TLS handshake, each
 * step timed and each failure worded once.  A failed bring-up leaves no socket open; a
 * refused connect goes on to the name's next address before it fails. */
#include "up.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "engine_int.h"

__attribute__((format(printf, 4, 5))) static int failed(struct up_fail *why, enum http_fail f,
                                                         int e, const char *fmt, ...)
{
	va_list ap;

	why->f = f;
	why->e = e;
	why->in_handshake = 0;
	va_start(ap, fmt);
	vsnprintf(why->what, sizeof why->what, fmt, ap);
	va_end(ap);
	return UP_FAILED;
}

/* The worker's first handshake: what it negotiated goes to run_env. */
static void note_tls(const struct up_worker *w, const struct up *u)
{
	struct ethread *t = w->t;

	if (atomic_load_explicit(&t->facts_tls, memory_order_relaxed))
		return;
	tls_describe(u->tls.ssl, t->facts.tls, sizeof t->facts.tls);
	atomic_store_explicit(&t->facts_tls, 1, memory_order_release);
}

/* One step of the handshake. */
static int handshake(struct up *u, const struct up_worker *w, struct up_fail *why)
{
	int r = tls_handshake(&u->tls);

	if (r == TLS_AGAIN)
		return UP_WAIT;
	if (r == TLS_FAILED) {
		why->f = tls_failure(&u->tls, &why->e, why->what, sizeof why->what);
		why->in_handshake = 1;
		return UP_FAILED;
	}
	u->tls_us = clock_mono_us() - u->t_tls_us;
	if (u->tls_us < 1)
		u->tls_us = 1; /* 0 means "no handshake" */
	u->tls_resumed = (uint8_t)tls_resumed(&u->tls);
	note_tls(w, u);
	u->phase = UP_UP;
	return UP_READY;
}

/* The TCP connection is up: timed, then the TLS handshake (https) or ready. */
static int connected(struct up *u, const struct up_worker *w, struct up_target *g,
                     struct up_fail *why)
{
	int64_t now = clock_mono_us();

	u->connect_us = now - u->t_conn_us;
	u->made = 1;
	conn_target_worked(&g->net, u->at);
	u->tries = 0;
	if (!g->url->tls) {
		u->phase = UP_UP;
		return UP_READY;
	}
	if (tls_conn_begin(&u->tls, w->tls, u->c.fd, g->url->host, &g->resume) < 0)
		return failed(why, HTTP_FAIL_OTHER, 0, "out of memory starting TLS");
	u->phase = UP_HANDSHAKE;
	u->t_tls_us = now;
	return handshake(u, w, why);
}

static int open_at(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
                   struct up_fail *why);

/* A connect failed with e: the name's next address, or the bring-up fails. */
static int connect_failed(struct up *u, const struct up_worker *w, int tag,
                          struct up_target *g, int e, struct up_fail *why)
{
	up_drop(u);
	if (conn_target_next(&g->net, e, u->tries)) {
		u->tries++;
		u->at = (uint8_t)conn_target_after(&g->net, u->at);
		return open_at(u, w, tag, g, why);
	}
	u->tries = 0;
	return failed(why, HTTP_FAIL_CONNECT, e, "Failed to connect to %s port %s: %s",
	              g->url->host, g->url->port, strerror(e));
}

/* Connects to address u->at of g. */
static int open_at(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
                   struct up_fail *why)
{
	const char *what = NULL;
	int e = 0;

	u->phase = UP_CONNECTING;
	if (!conn_target_ready(&g->net)) {
		u->phase = UP_DOWN;
		return failed(why, HTTP_FAIL_DNS, 0, "%s", g->net.dns_err);
	}
	u->t_conn_us = clock_mono_us();
	if (u->tries == 0)
		u->at = (uint8_t)conn_target_first(&g->net);
	switch (conn_open(&u->c, w->cs, tag, conn_target_addr(&g->net, u->at), &e, &what)) {
	case CONN_UP:
		return connected(u, w, g, why);
	case CONN_PENDING:
		return UP_WAIT;
	case CONN_FAILED:
		return connect_failed(u, w, tag, g, e, why);
	case CONN_LOCAL:
		break;
	}
	u->phase = UP_DOWN;
	return failed(why, HTTP_FAIL_OTHER, e, "%s: %s", what, strerror(e));
}

int up_start(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
             struct up_fail *why)
{
	u->made = 0;
	return open_at(u, w, tag, g, why);
}

int up_event(struct up *u, const struct up_worker *w, int tag, struct up_target *g,
             uint32_t evs, struct up_fail *why)
{
	int e = 0, r;

	if (u->phase == UP_HANDSHAKE)
		return handshake(u, w, why);
	r = conn_finish(&u->c, evs, &e);
	if (r > 0)
		return connected(u, w, g, why);
	if (r < 0)
		return connect_failed(u, w, tag, g, e, why);
	return UP_WAIT;
}

const char *up_timeout_what(const struct up *u)
{
	return u->phase == UP_HANDSHAKE ? "TLS handshake" : "Connection";
}

void up_drop(struct up *u)
{
	if (u->c.fd >= 0 && u->tls.up)
		tls_conn_end(&u->tls);
	conn_close(&u->c);
	u->phase = UP_DOWN;
}

void up_release(struct up *u)
{
	tls_conn_release(&u->tls);
}
