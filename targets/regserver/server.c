/* server: regserver's HTTP side (server.h): the routes, the fault knobs drawn from a seed
 * so a run can be repeated, the capacity queue kept as deadlines, and delayed answers
 * that hold no worker. */
#include "server.h"

#include "clock.h"
#include "burn.h"
#include "delay.h"
#include "log.h"
#include "regform.h"
#include "store.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Bodies up to this size stay in the connection's own buffer: no allocation per request. */
#define CONN_INLINE_BODY 1024
#define CONN_LIMIT_MAX   65536u /* connections, whatever RLIMIT_NOFILE allows */
#define FD_RESERVE       64u    /* descriptors kept for the database, epoll and eventfds */

/* Answers that never change, built once and shared by every connection. */
enum canned {
	C_HEALTH,
	C_NOT_FOUND,
	C_405_REGISTER,
	C_405_HEALTH,
	C_415,
	C_413,
	C_503,
	C_409,
	C_BAD_USERNAME,
	C_BAD_EMAIL,
	C_BAD_PASSWORD,
	C_BAD_BODY,
	C_500,
	C_COUNT
};

static const struct canned_def {
	unsigned status;      /* HTTP status */
	enum srv_count count; /* the counter it bumps */
	const char *body;     /* the whole body */
	const char *type;     /* Content-Type */
	const char *allow;    /* Allow header for 405s, else NULL */
} canned_defs[C_COUNT] = {
    [C_HEALTH] = {200, SRV_N_200, "ok", "text/plain", NULL},
    [C_NOT_FOUND] = {404, SRV_N_404, "{\"error\":\"not found\"}", "application/json", NULL},
    [C_405_REGISTER] = {405, SRV_N_405, "{\"error\":\"method not allowed\"}", "application/json",
                        "POST"},
    [C_405_HEALTH] = {405, SRV_N_405, "{\"error\":\"method not allowed\"}", "application/json",
                      "GET, HEAD"},
    [C_415] = {415, SRV_N_415,
               "{\"error\":\"unsupported content type: use application/x-www-form-urlencoded "
               "or application/json\"}",
               "application/json", NULL},
    [C_413] = {413, SRV_N_413, "{\"error\":\"body too large\"}", "application/json", NULL},
    [C_503] = {503, SRV_N_503, "{\"error\":\"unavailable (injected)\"}", "application/json", NULL},
    [C_409] = {409, SRV_N_409, "{\"error\":\"username taken\"}", "application/json", NULL},
    [C_BAD_USERNAME] = {400, SRV_N_400, "{\"error\":\"bad field: username\"}", "application/json",
                        NULL},
    [C_BAD_EMAIL] = {400, SRV_N_400, "{\"error\":\"bad field: email\"}", "application/json", NULL},
    [C_BAD_PASSWORD] = {400, SRV_N_400, "{\"error\":\"bad field: password\"}", "application/json",
                        NULL},
    [C_BAD_BODY] = {400, SRV_N_400, "{\"error\":\"malformed body\"}", "application/json", NULL},
    [C_500] = {500, SRV_N_500, "{\"error\":\"store failure\"}", "application/json", NULL},
};

enum route {
	ROUTE_NONE,     /* answered by a canned verdict */
	ROUTE_HEALTH,   /* GET/HEAD /health */
	ROUTE_REGISTER, /* POST /register with a supported content type */
};

struct srv {
	struct srv_config cfg;                          /* as given; cfg.db_path is the caller's */
	struct MHD_Daemon *daemon;                      /* NULL until started and after srv_stop */
	struct delay *delay;                            /* timer for delayed answers; NULL when
	                                                 * no knob delays anything */
	struct store *store;                            /* the users */
	struct MHD_Response *canned[C_COUNT];           /* shared answers, freed last */
	unsigned port;                                  /* bound port */
	unsigned conn_limit;                            /* MHD_OPTION_CONNECTION_LIMIT */
	_Atomic unsigned long long counts[SRV_N_COUNT]; /* relaxed: totals, read at exit */
	pthread_mutex_t slots_lock;                     /* guards slot_free (capacity > 0) and
	                                                 * arrivals */
	FILE *arrivals;                                 /* cfg.arrivals, open, or NULL */
	int64_t *slot_free;                             /* nslots entries: when each service
	                                                 * slot is next free (CLOCK_MONOTONIC) */
	unsigned nslots;                                /* max(capacity, capacity_after) */
	int64_t switch_ns;                              /* CLOCK_MONOTONIC when capacity_after
	                                                 * takes over (0: never) */
};

/* Per connection (libmicrohttpd's socket context), reused by each request on it. */
struct conn {
	struct srv *srv;            /* the server */
	struct MHD_Connection *mc;  /* to resume it from the timer thread */
	int64_t due_ns;             /* the answer leaves no earlier (CLOCK_MONOTONIC); 0: at
	                             * once */
	int verdict;                /* canned answer decided before the body, or -1 */
	enum route route;           /* what the request asked for */
	enum regform_kind kind;     /* body encoding, for ROUTE_REGISTER */
	char *body;                 /* inline_body or a heap buffer of cap bytes */
	size_t len;                 /* body bytes kept, <= SRV_MAX_BODY */
	size_t cap;                 /* size of body */
	size_t dropped;             /* body bytes read and dropped (unwanted or past the cap) */
	struct MHD_Response *reply; /* answer waiting for due_ns while suspended, or NULL */
	unsigned reply_status;      /* its HTTP status */
	enum srv_count reply_count; /* its counter */
	int reply_owned;            /* we hold a reference to reply (not a canned one) */
	char inline_body[CONN_INLINE_BODY]; /* the body of small requests */
};

static void count(struct srv *s, enum srv_count i)
{
	atomic_fetch_add_explicit(&s->counts[i], 1, memory_order_relaxed);
}

/* splitmix64's finalizer: a good 64-bit mix, so consecutive request numbers give
 * independent draws. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* A uniform double in [0, 1). */
static double unit(uint64_t r)
{
	return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* Drops the request's state; the connection stays ready for the next one. */
static void conn_reset(struct conn *c)
{
	if (c->body != c->inline_body)
		free(c->body);
	if (c->reply && c->reply_owned)
		MHD_destroy_response(c->reply);
	c->body = c->inline_body;
	c->cap = sizeof c->inline_body;
	c->len = 0;
	c->dropped = 0;
	c->reply = NULL;
	c->reply_owned = 0;
	c->verdict = -1;
	c->route = ROUTE_NONE;
	c->due_ns = 0;
}

/* Queues r now.  Drops our reference when we owned it. */
static enum MHD_Result reply_queue(struct conn *c, unsigned status, enum srv_count n,
                                   struct MHD_Response *r, int owned)
{
	enum MHD_Result ret = MHD_queue_response(c->mc, status, r);

	if (owned)
		MHD_destroy_response(r);
	if (ret == MHD_YES)
		count(c->srv, n);
	return ret;
}

/* Sends r at c->due_ns: at once when that has passed, else after a suspension. */
static enum MHD_Result deliver(struct conn *c, unsigned status, enum srv_count n,
                               struct MHD_Response *r, int owned)
{
	struct srv *s = c->srv;

	if (!s->delay || c->due_ns <= clock_mono_ns())
		return reply_queue(c, status, n, r, owned);
	c->reply = r;
	c->reply_status = status;
	c->reply_count = n;
	c->reply_owned = owned;
	/* Suspend first: the timer may resume the connection as soon as it is added.  A full
	 * or closing timer resumes it right away and the answer leaves undelayed. */
	MHD_suspend_connection(c->mc);
	if (delay_add(s->delay, c->due_ns, c) < 0)
		MHD_resume_connection(c->mc);
	return MHD_YES;
}

static enum MHD_Result deliver_canned(struct conn *c, enum canned which)
{
	const struct canned_def *d = &canned_defs[which];

	return deliver(c, d->status, d->count, c->srv->canned[which], 0);
}

/* The timer's callback: the deadline of c's answer has come. */
static void on_due(void *cls, void *arg)
{
	struct conn *c = arg;

	(void)cls;
	MHD_resume_connection(c->mc);
}

static enum MHD_Result register_user(struct conn *c)
{
	static const enum canned bad[] = {
	    [REGFORM_BAD_USERNAME] = C_BAD_USERNAME,
	    [REGFORM_BAD_EMAIL] = C_BAD_EMAIL,
	    [REGFORM_BAD_PASSWORD] = C_BAD_PASSWORD,
	    [REGFORM_MALFORMED] = C_BAD_BODY,
	};
	struct srv *s = c->srv;
	struct regform f;
	enum regform_verdict v;
	struct MHD_Response *r;
	char err[512], json[48];
	long long id;
	int rc, n;

	v = regform_read(c->kind, c->body, c->len, &f);
	if (v != REGFORM_VALID)
		return deliver_canned(c, bad[v]);
	rc = store_add(s->store, f.username, f.username_len, f.email, f.email_len, &id, err,
	               sizeof err);
	if (rc == STORE_TAKEN)
		return deliver_canned(c, C_409);
	if (rc < 0) {
		/* Logged at the 1st, 2nd, 4th, 8th... failure: a broken disk must not flood. */
		unsigned long long k =
		    atomic_load_explicit(&s->counts[SRV_N_500], memory_order_relaxed) + 1;
		if ((k & (k - 1)) == 0)
			log_error("%s (%llu store failures so far)", err, k);
		return deliver_canned(c, C_500);
	}
	n = snprintf(json, sizeof json, "{\"id\":%lld}", id);
	r = MHD_create_response_from_buffer((size_t)n, json, MHD_RESPMEM_MUST_COPY);
	if (!r || MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json") !=
	              MHD_YES) {
		if (r)
			MHD_destroy_response(r);
		return MHD_NO;
	}
	return deliver(c, 201, SRV_N_201, r, 1);
}

/* With --capacity: the request is served in the slot that frees first, starting when it
 * frees (or now), for `delay`; returns when its answer is due.  A queue in arrival order,
 * kept as deadlines, so no worker waits.  After --capacity-after's moment only its first
 * slots serve (requests already given a later slot keep it). */
static int64_t take_slot(struct srv *s, int64_t delay)
{
	int64_t now = clock_mono_ns(), due;
	unsigned best = 0, cap;

	cap = s->switch_ns > 0 && now >= s->switch_ns ? s->cfg.capacity_after : s->cfg.capacity;
	if (cap == 0) /* unlimited until the switch */
		return now + delay;
	pthread_mutex_lock(&s->slots_lock);
	for (unsigned i = 1; i < cap; i++)
		if (s->slot_free[i] < s->slot_free[best])
			best = i;
	due = (s->slot_free[best] > now ? s->slot_free[best] : now) + delay;
	if (s->slot_free[best] > now)
		count(s, SRV_N_QUEUED);
	s->slot_free[best] = due;
	pthread_mutex_unlock(&s->slots_lock);
	return due;
}

/* First call of a request: its headers have arrived.  Draws the knobs, routes. */
static enum MHD_Result req_begin(struct srv *s, struct MHD_Connection *mc, const char *url,
                                 const char *method, void **req)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;
	const struct srv_config *cfg = &s->cfg;
	const char *clen;
	uint64_t seq, r;
	int64_t delay;

	if (!c)
		return MHD_NO; /* its context could not be allocated: drop it */
	*req = c;
	seq = atomic_fetch_add_explicit(&s->counts[SRV_N_REQUESTS], 1, memory_order_relaxed);
	if (s->arrivals) {
		pthread_mutex_lock(&s->slots_lock);
		fprintf(s->arrivals, "%lld\n", (long long)(clock_mono_ns() / 1000));
		pthread_mutex_unlock(&s->slots_lock);
	}
	clen = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (clen && strtoull(clen, NULL, 10) > SRV_MAX_BODY) {
		const struct canned_def *d = &canned_defs[C_413];
		return reply_queue(c, d->status, d->count, s->canned[C_413], 0);
	}
	r = mix64(cfg->seed ^ mix64(seq));
	delay = cfg->latency_ns;
	if (cfg->jitter_ns > 0)
		delay += (int64_t)(unit(mix64(r + 1)) * (double)cfg->jitter_ns);
	if (cfg->stall_rate > 0 && unit(mix64(r + 2)) < cfg->stall_rate && cfg->stall_ns > delay)
		delay = cfg->stall_ns;
	c->due_ns = delay > 0 ? clock_mono_ns() + delay : 0;
	if (s->slot_free && delay > 0)
		c->due_ns = take_slot(s, delay);
	if (cfg->error_rate > 0 && unit(r) < cfg->error_rate) {
		c->verdict = C_503;
	} else if (strcmp(url, "/health") == 0) {
		c->route = ROUTE_HEALTH;
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
			c->verdict = C_405_HEALTH;
	} else if (strcmp(url, "/register") == 0) {
		const char *ct =
		    MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
		if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
			c->verdict = C_405_REGISTER;
		else if (regform_kind_of(ct, &c->kind) < 0)
			c->verdict = C_415;
		else
			c->route = ROUTE_REGISTER;
	} else {
		c->verdict = C_NOT_FOUND;
	}
	return MHD_YES;
}

/* A piece of the body.  Kept for registrations (up to the cap), dropped otherwise. */
static enum MHD_Result req_absorb(struct conn *c, const char *data, size_t n)
{
	size_t want;

	if (c->verdict < 0 && c->len + n > SRV_MAX_BODY) {
		c->verdict = C_413;
		c->dropped = c->len;
	}
	if (c->verdict >= 0 || c->route != ROUTE_REGISTER) {
		c->dropped += n;
		return c->dropped > SRV_MAX_DROP ? MHD_NO : MHD_YES;
	}
	want = c->len + n;
	if (want > c->cap) {
		size_t cap = c->cap * 2 < want ? want : c->cap * 2;
		char *nb;
		if (cap > SRV_MAX_BODY)
			cap = SRV_MAX_BODY;
		nb = c->body == c->inline_body ? malloc(cap) : realloc(c->body, cap);
		if (!nb)
			return MHD_NO;
		if (c->body == c->inline_body)
			memcpy(nb, c->body, c->len);
		c->body = nb;
		c->cap = cap;
	}
	memcpy(c->body + c->len, data, n);
	c->len += n;
	return MHD_YES;
}

/* The whole request is in: answer (now or at due_ns). */
static enum MHD_Result req_finish(struct conn *c)
{
	if (c->srv->cfg.burn_us > 0)
		regserver_burn(c->srv->cfg.burn_fn, c->srv->cfg.burn_us);
	if (c->verdict >= 0)
		return deliver_canned(c, (enum canned)c->verdict);
	if (c->route == ROUTE_HEALTH)
		return deliver_canned(c, C_HEALTH);
	return register_user(c);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req)
{
	struct conn *c = *req;
	enum MHD_Result ret;

	(void)version;
	if (!c)
		return req_begin(cls, mc, url, method, req);
	if (*upload_size > 0) {
		ret = req_absorb(c, upload, *upload_size);
		*upload_size = 0;
		return ret;
	}
	if (c->reply) {
		/* Resumed: the deadline has come. */
		struct MHD_Response *r = c->reply;
		c->reply = NULL;
		return reply_queue(c, c->reply_status, c->reply_count, r, c->reply_owned);
	}
	return req_finish(c);
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req,
                         enum MHD_RequestTerminationCode toe)
{
	struct conn *c = *req;

	(void)cls, (void)mc, (void)toe;
	if (c)
		conn_reset(c);
	*req = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
	struct conn *c;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		c = malloc(sizeof *c);
		if (c) {
			c->srv = cls;
			c->mc = mc;
			c->body = c->inline_body;
			c->reply = NULL;
			conn_reset(c);
		}
		*socket_context = c;
		return;
	}
	c = *socket_context;
	if (c) {
		conn_reset(c);
		free(c);
	}
	*socket_context = NULL;
}

/* libmicrohttpd's own diagnostics (failed binds, accept errors) go to our log. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	log_vlib(LOG_WARN, "libmicrohttpd: ", fmt, ap);
}

/* Raises RLIMIT_NOFILE to its hard limit and derives how many connections fit. */
static unsigned pick_conn_limit(unsigned threads)
{
	struct rlimit rl;
	rlim_t avail;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1000;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY ? CONN_LIMIT_MAX + 1024 : rl.rlim_max;
		struct rlimit nl = {.rlim_cur = want, .rlim_max = rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &nl) == 0)
			rl.rlim_cur = want;
	}
	avail = rl.rlim_cur > FD_RESERVE + 3u * threads + 16
	            ? rl.rlim_cur - FD_RESERVE - 3u * threads
	            : 16;
	return avail > CONN_LIMIT_MAX ? CONN_LIMIT_MAX : (unsigned)avail;
}

static int make_canned(struct srv *s, char *err, size_t errlen)
{
	for (int i = 0; i < C_COUNT; i++) {
		const struct canned_def *d = &canned_defs[i];
		struct MHD_Response *r = MHD_create_response_from_buffer(
		    strlen(d->body), (void *)(uintptr_t)d->body, MHD_RESPMEM_PERSISTENT);
		s->canned[i] = r;
		if (!r ||
		    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, d->type) != MHD_YES ||
		    (d->allow &&
		     MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, d->allow) != MHD_YES)) {
			snprintf(err, errlen, "cannot build the canned responses: out of memory");
			return -1;
		}
	}
	return 0;
}

int srv_start(const struct srv_config *cfg, struct srv **out, char *err, size_t errlen)
{
	struct srv *s;
	struct sockaddr_in sin;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO |
	                 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

	*out = NULL;
	s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->cfg = *cfg;
	s->conn_limit = pick_conn_limit(cfg->threads);
	pthread_mutex_init(&s->slots_lock, NULL);
	s->nslots = cfg->capacity > cfg->capacity_after ? cfg->capacity : cfg->capacity_after;
	if (cfg->capacity_after_ns > 0)
		s->switch_ns = clock_mono_ns() + cfg->capacity_after_ns;
	if (s->nslots > 0 && !(s->slot_free = calloc(s->nslots, sizeof *s->slot_free))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (cfg->arrivals && !(s->arrivals = fopen(cfg->arrivals, "w"))) {
		snprintf(err, errlen, "cannot write '%s': %s", cfg->arrivals, strerror(errno));
		goto fail;
	}
	if (make_canned(s, err, errlen) < 0 ||
	    store_open(cfg->db_path, cfg->max_users, &s->store, err, errlen) < 0)
		goto fail;
	if ((cfg->latency_ns > 0 || cfg->jitter_ns > 0 ||
	     (cfg->stall_rate > 0 && cfg->stall_ns > 0)) &&
	    delay_new(s->conn_limit, on_due, s, &s->delay, err, errlen) < 0)
		goto fail;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)cfg->port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* No connection timeout: idle keep-alive connections cost nothing under epoll, and a
	 * timeout list would be touched on every request.  The logger comes first so that it
	 * also catches what the other options report. */
	s->daemon = MHD_start_daemon(
	    flags, (uint16_t)cfg->port, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER,
	    on_mhd_log, s, MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_THREAD_POOL_SIZE,
	    cfg->threads > 1 ? cfg->threads : 0u, MHD_OPTION_CONNECTION_LIMIT, s->conn_limit,
	    MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
	    on_connection, s, MHD_OPTION_END);
	if (!s->daemon) {
		snprintf(err, errlen, "cannot listen on 127.0.0.1:%u (see the message above)",
		         cfg->port);
		goto fail;
	}
	info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info && info->port ? info->port : cfg->port;
	*out = s;
	return 0;
fail:
	srv_free(s);
	return -1;
}

unsigned srv_port(const struct srv *s)
{
	return s->port;
}
unsigned srv_conn_limit(const struct srv *s)
{
	return s->conn_limit;
}

void srv_stop(struct srv *s)
{
	MHD_socket lsock;

	if (!s || !s->daemon)
		return;
	/* Order matters: no new connections; then every suspended connection is resumed (and
	 * the timer refuses new delays, so none is suspended again); then libmicrohttpd,
	 * which must not stop with suspended connections, stops. */
	lsock = MHD_quiesce_daemon(s->daemon);
	delay_close(s->delay);
	MHD_stop_daemon(s->daemon);
	s->daemon = NULL;
	if (lsock != MHD_INVALID_SOCKET)
		close(lsock);
}

void srv_counts(struct srv *s, unsigned long long *out)
{
	for (int i = 0; i < SRV_N_COUNT; i++)
		out[i] = atomic_load_explicit(&s->counts[i], memory_order_relaxed);
	out[SRV_N_DELAYED_PEAK] = s->delay ? delay_peak(s->delay) : 0;
}

void srv_store_stats(struct srv *s, long long *users, long long *resets)
{
	store_stats(s->store, users, resets);
}

void srv_free(struct srv *s)
{
	if (!s)
		return;
	srv_stop(s);
	delay_free(s->delay);
	store_free(s->store);
	free(s->slot_free);
	if (s->arrivals)
		fclose(s->arrivals);
	pthread_mutex_destroy(&s->slots_lock);
	for (int i = 0; i < C_COUNT; i++)
		if (s->canned[i])
			MHD_destroy_response(s->canned[i]);
	free(s);
}
