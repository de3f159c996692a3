/*
 * The HTTP driver: one libcurl multi handle per worker, one easy handle per (VU, request
 * kind), configured once and re-added for every request.  What changes per request is
 * written into buffers sized once (URL, body and header values from templates), so the
 * request path allocates nothing of ours.  Two event loops: curl_multi_poll, or epoll with
 * curl_multi_socket_action (engine.h, LOOP_*).
 */
#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "conn.h"
#include "engine_int.h"
#include "evloop.h"
#include "log.h"
#include "redact.h"
#include "tls.h"

#define RESP_CAP    HTTP_BODY_KEEP /* bytes of a response body kept for expect_body */
#define EPOLL_BATCH 256

struct hthread;

/* A dynamic header line: its list node (whose data we rewrite) and its template. */
struct dynhdr {
	struct curl_slist *node; /* node in the VU's list; data has room for the expansion */
	const struct tpl *t;
	size_t cap; /* bytes available at node->data */
};

/* One slot (a VU, or an open-model slot): its easy handles and buffers. */
struct hvu {
	struct hthread *ht;
	int j;                                      /* slot index in the worker */
	struct hmulti *mu;                          /* the multi this slot's transfers run in */
	int busy;                                   /* a transfer of this slot is in its multi */
	int req;                                    /* request kind in flight */
	CURL *easy[PLAN_MAX_REQUESTS];              /* created on the VU's first start */
	struct curl_slist *hdrs[PLAN_MAX_REQUESTS]; /* own list when a header is dynamic */
	struct dynhdr *dyn;                         /* dynamic headers of all kinds */
	int ndyn;
	char *url; /* expansion buffers, NULL when not needed */
	char *body;
	char *resp; /* first RESP_CAP bytes of the body, when checked */
	size_t resp_len;
	int64_t resp_bytes; /* body bytes of the current response */
	int tls_started;    /* https: the current request's TLS handshake began */
	int tls_resumed;    /* ... and resumed a session */
	char errbuf[CURL_ERROR_SIZE];
};

/* Per-request-kind data shared by a worker's VUs. */
struct hkind {
	struct curl_slist *hdrs; /* static header list (NULL when none) */
	int dynamic_hdrs;        /* some header has placeholders: VUs build their own list */
	char *body;              /* static body, expanded once */
	size_t body_len;
	char *url; /* static URL, expanded once */
	size_t url_cap, body_cap;
};

/* One libcurl multi handle and its timer.  libcurl walks a multi's handles and its
 * connection cache linearly on every transfer, so at thousands of VUs one multi costs
 * O(VUs) per request; a worker in epoll mode therefore splits its VUs over several multis
 * of at most MULTI_VUS each, all served by one epoll set. */
struct hmulti {
	CURLM *m;
	struct hthread *h;
	int idx;          /* index in hthread.multis */
	int64_t deadline; /* libcurl's timer for this multi (mono ms), -1 = none */
};

#define MULTI_VUS 128

/* What epoll and libcurl know of one socket (epoll mode). */
struct fdreg {
	uint16_t owner;   /* index of the multi whose connection this is */
	uint8_t in_epoll; /* registered in the epoll set */
	uint8_t mask;     /* events registered (EPOLLIN/EPOLLOUT bits, folded to 2 bits) */
	uint8_t wanted;   /* events libcurl wants now; 0 = not watching */
};

#define FD_MAX (1 << 20) /* sockets above this fd are refused (a runaway, not a test) */

struct hthread {
	struct ethread *t;
	const struct plan *plan;
	struct hmulti *multis; /* epoll mode: one per MULTI_VUS VUs; poll mode: one */
	int nmulti;
	struct hvu *vus; /* max_slots of them */
	struct hkind kinds[PLAN_MAX_REQUESTS];
	struct tpl_ctx *ctx; /* the worker's template context (engine_int.h) */
	pcre2_match_data *md;
	size_t url_cap, body_cap; /* per-VU buffer sizes (max over kinds) */
	int epoll;                /* LOOP_EPOLL */
	int tls;                  /* some URL is https: TLS options and figures */
	struct evloop loop;       /* epoll mode: the epoll set and its wake-up */
	/* epoll registrations by fd, kept lazily: libcurl stops watching a keep-alive socket
	 * between requests and watches it again on reuse; leaving it registered saves an
	 * epoll_ctl DEL + ADD per request.  An event on a socket libcurl does not want
	 * removes it then; a socket's close (our close-socket callback) forgets it. */
	struct fdreg *fds;
	size_t nfds; /* entries in fds */
};

/* --- libcurl callbacks ---------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t n, void *userp)
{
	struct hvu *v = userp;
	size_t len = size * n;
	v->resp_bytes += (int64_t)len;
	if (v->resp && v->resp_len < RESP_CAP - 1) {
		size_t room = RESP_CAP - 1 - v->resp_len;
		size_t k = len < room ? len : room;
		memcpy(v->resp + v->resp_len, data, k);
		v->resp_len += k;
	}
	return len;
}

/* The fdreg of fd, growing the table when needed; NULL past FD_MAX or out of memory. */
static struct fdreg *fdreg_of(struct hthread *h, int fd)
{
	if (fd < 0 || fd >= FD_MAX)
		return NULL;
	if ((size_t)fd >= h->nfds) {
		size_t was = h->nfds;
		if (buf_grow(&h->fds, &h->nfds, (size_t)fd + 1, sizeof *h->fds, 1024) < 0)
			return NULL;
		memset(h->fds + was, 0, (h->nfds - was) * sizeof *h->fds);
	}
	return &h->fds[fd];
}

static uint32_t epoll_bits(uint8_t mask)
{
	return ((mask & 1) ? EPOLLIN : 0) | ((mask & 2) ? EPOLLOUT : 0);
}

static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct hmulti *mu = userp;
	struct hthread *h = mu->h;
	struct fdreg *r = fdreg_of(h, s);
	struct epoll_event ev = {0};
	(void)easy;
	(void)socketp;

	if (!r)
		return -1;
	if (what == CURL_POLL_REMOVE) {
		r->wanted = 0; /* lazily: see struct hthread */
		return 0;
	}
	r->owner = (uint16_t)mu->idx;
	r->wanted = (uint8_t)(((what & CURL_POLL_IN) ? 1 : 0) | ((what & CURL_POLL_OUT) ? 2 : 0));
	if (r->in_epoll && r->mask == r->wanted)
		return 0;
	ev.events = epoll_bits(r->wanted);
	ev.data.fd = s;
	if (r->in_epoll) {
		if (epoll_ctl(h->loop.epfd, EPOLL_CTL_MOD, s, &ev) < 0 && errno == ENOENT)
			epoll_ctl(h->loop.epfd, EPOLL_CTL_ADD, s, &ev);
	} else if (epoll_ctl(h->loop.epfd, EPOLL_CTL_ADD, s, &ev) < 0 && errno == EEXIST) {
		epoll_ctl(h->loop.epfd, EPOLL_CTL_MOD, s, &ev);
	}
	r->in_epoll = 1;
	r->mask = r->wanted;
	return 0;
}

/* libcurl closes a socket: the kernel drops it from the epoll set; so do we. */
static int on_close_socket(void *userp, curl_socket_t s)
{
	struct hthread *h = userp;
	struct fdreg *r = fdreg_of(h, s);
	if (r)
		memset(r, 0, sizeof *r);
	return close(s);
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct hmulti *mu = userp;
	(void)multi;
	mu->deadline = timeout_ms < 0 ? -1 : clock_mono_ms() + timeout_ms;
	return 0;
}

/* OpenSSL's progress on a connection libcurl opens: the handshake began (so TCP was up:
 * a time-out from here on is the handshake's), and once it is done, whether it resumed a
 * session and, the first time, what it negotiated (run_env). */
static void on_tls_info(const SSL *ssl, int where, int ret)
{
	struct hvu *v = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	struct ethread *t;
	(void)ret;

	if (!v)
		return;
	if (where & SSL_CB_HANDSHAKE_START)
		v->tls_started = 1;
	if (!(where & SSL_CB_HANDSHAKE_DONE))
		return;
	v->tls_resumed = SSL_session_reused((SSL *)ssl);
	t = v->ht->t;
	if (!atomic_load_explicit(&t->facts_tls, memory_order_relaxed)) {
		tls_describe(ssl, t->facts.tls, sizeof t->facts.tls);
		atomic_store_explicit(&t->facts_tls, 1, memory_order_release);
	}
}

/* libcurl made an SSL_CTX for a new connection: watch its handshakes for slot v. */
static CURLcode on_ssl_ctx(CURL *e, void *ctx, void *userp)
{
	(void)e;
	SSL_CTX_set_app_data(ctx, userp);
	SSL_CTX_set_info_callback(ctx, on_tls_info);
	return CURLE_OK;
}

int http_plan_supported(const struct plan *p, const char **key, char *why, size_t whylen)
{
	const struct plan_tls *t = &p->tls;
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	*key = NULL;
	if (!plan_uses_tls(p) && p->http == PLAN_HTTP2 && v->version_num < 0x080000) {
		*key = "http_version";
		snprintf(why, whylen,
		         "libcurl %s cannot send h2c (HTTP/2 without TLS) on a reused connection "
		         "(fixed in 8.0)",
		         v->version);
	} else if (plan_uses_tls(p) && t->sni && *t->sni) {
		*key = "sni";
		snprintf(why, whylen, "libcurl cannot send an SNI other than the URL's host");
	} else if (plan_uses_tls(p) && t->alpn && *t->alpn && strcmp(t->alpn, TLS_ALPN_H1) != 0 &&
	           !(p->http == PLAN_HTTP2 && !strcmp(t->alpn, "h2"))) {
		*key = "alpn";
		snprintf(why, whylen, "libcurl cannot offer an ALPN list of its own");
	}
	return *key ? -1 : 0;
}

void http_tls_setopt(CURL *e, const struct plan_tls *o)
{
	long v = o->min_version == PLAN_TLS_1_3   ? CURL_SSLVERSION_TLSv1_3
	         : o->min_version == PLAN_TLS_1_2 ? CURL_SSLVERSION_TLSv1_2
	                                          : CURL_SSLVERSION_DEFAULT;

	v |= o->max_version == PLAN_TLS_1_2   ? CURL_SSLVERSION_MAX_TLSv1_2
	     : o->max_version == PLAN_TLS_1_3 ? CURL_SSLVERSION_MAX_TLSv1_3
	                                      : CURL_SSLVERSION_MAX_DEFAULT;
	curl_easy_setopt(e, CURLOPT_SSLVERSION, v);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	if (o->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
	if (o->ca_dir)
		curl_easy_setopt(e, CURLOPT_CAPATH, o->ca_dir);
	if (o->ca_dir && !o->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, NULL); /* the directory alone, as with lean */
	/* The system's CAs: OpenSSL's variables say where, for libcurl as for the lean driver
	 * (OpenSSL reads them itself there; libcurl has its own built-in path). */
	if (!o->ca_file && !o->ca_dir && getenv("SSL_CERT_FILE"))
		curl_easy_setopt(e, CURLOPT_CAINFO, getenv("SSL_CERT_FILE"));
	if (!o->ca_file && !o->ca_dir && getenv("SSL_CERT_DIR"))
		curl_easy_setopt(e, CURLOPT_CAPATH, getenv("SSL_CERT_DIR"));
	if (o->cert)
		curl_easy_setopt(e, CURLOPT_SSLCERT, o->cert);
	if (o->key)
		curl_easy_setopt(e, CURLOPT_SSLKEY, o->key);
	if (o->ciphers)
		curl_easy_setopt(e, CURLOPT_SSL_CIPHER_LIST, o->ciphers);
	if (o->ciphersuites)
		curl_easy_setopt(e, CURLOPT_TLS13_CIPHERS, o->ciphersuites);
	if (o->alpn && !*o->alpn)
		curl_easy_setopt(e, CURLOPT_SSL_ENABLE_ALPN, 0L);
	curl_easy_setopt(e, CURLOPT_SSL_SESSIONID_CACHE, o->no_resume ? 0L : 1L);
}

/* --- set-up ----------------------------------------------------------------------------- */

/* Builds a header list: the request's headers (static ones as text, dynamic ones as
 * placeholders of their maximum length, recorded in dyn), then our own. */
static struct curl_slist *build_headers(struct hthread *h, const struct plan_request *r,
                                        struct dynhdr *dyn, int *ndyn, int with_dynamic)
{
	struct curl_slist *list = NULL, *n;
	char buf[8192];

	for (int i = 0; i < r->nheaders; i++) {
		const struct tpl *t = &r->headers[i];
		if (t->dynamic && !with_dynamic)
			continue;
		if (t->dynamic) {
			size_t cap = tpl_max_len(t, h->ctx);
			char *fill = malloc(cap);
			if (!fill)
				goto fail;
			memset(fill, 'x', cap - 1);
			fill[cap - 1] = '\0';
			fill[0] = 'X';
			fill[1] = ':'; /* a valid line until the first expansion */
			n = curl_slist_append(list, fill);
			free(fill);
		} else {
			if (tpl_expand(t, h->ctx, buf, sizeof buf) < 0)
				goto fail;
			n = curl_slist_append(list, buf);
		}
		if (!n)
			goto fail;
		list = n;
		if (t->dynamic) {
			struct curl_slist *last = list;
			while (last->next)
				last = last->next;
			dyn[*ndyn].node = last;
			dyn[*ndyn].t = t;
			dyn[*ndyn].cap = tpl_max_len(t, h->ctx);
			(*ndyn)++;
		}
	}
	/* libcurl would send "Expect: 100-continue" for large bodies: a round trip more. */
	if (r->has_body) {
		if (!(n = curl_slist_append(list, "Expect:")))
			goto fail;
		list = n;
	}
	if (h->plan->connection == PLAN_CLOSE) {
		/* The server closes first, as with browsers and JMeter: TIME_WAIT lands on the
		 * server, where it would in production, not on the generator's ports. */
		if (!(n = curl_slist_append(list, "Connection: close")))
			goto fail;
		list = n;
	}
	return list;
fail:
	curl_slist_free_all(list);
	return NULL;
}

static int kinds_init(struct hthread *h, char *err, size_t errlen)
{
	const struct plan *s = h->plan;
	for (int k = 0; k < s->nreqs; k++) {
		const struct plan_request *r = &s->reqs[k];
		struct hkind *kd = &h->kinds[k];
		int ndyn = 0;
		for (int i = 0; i < r->nheaders; i++)
			kd->dynamic_hdrs |= r->headers[i].dynamic;
		if (!kd->dynamic_hdrs) {
			kd->hdrs = build_headers(h, r, NULL, &ndyn, 0);
			if (!kd->hdrs &&
			    (r->nheaders || r->has_body || s->connection == PLAN_CLOSE))
				goto oom;
		}
		kd->url_cap = tpl_max_len(&r->url, h->ctx);
		kd->body_cap = r->has_body ? tpl_max_len(&r->body, h->ctx) : 0;
		if (!r->url.dynamic) {
			kd->url = malloc(kd->url_cap);
			if (!kd->url || tpl_expand(&r->url, h->ctx, kd->url, kd->url_cap) < 0)
				goto oom;
		} else if (kd->url_cap > h->url_cap) {
			h->url_cap = kd->url_cap;
		}
		if (r->has_body && !r->body.dynamic) {
			kd->body = malloc(kd->body_cap);
			long n;
			if (!kd->body ||
			    (n = tpl_expand(&r->body, h->ctx, kd->body, kd->body_cap)) < 0)
				goto oom;
			kd->body_len = (size_t)n;
		} else if (kd->body_cap > h->body_cap) {
			h->body_cap = kd->body_cap;
		}
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory setting up requests");
	return -1;
}

/* Creates and configures a VU's easy handles on its first start. */
static int vu_create(struct hthread *h, struct hvu *v)
{
	const struct plan *s = h->plan;
	int need_resp = 0, ndyn_max = 0;

	for (int k = 0; k < s->nreqs; k++) {
		need_resp |= s->reqs[k].expect_body != NULL;
		for (int i = 0; i < s->reqs[k].nheaders; i++)
			ndyn_max += s->reqs[k].headers[i].dynamic;
	}
	if (h->url_cap && !(v->url = malloc(h->url_cap)))
		return -1;
	if (h->body_cap && !(v->body = malloc(h->body_cap)))
		return -1;
	if (need_resp && !(v->resp = malloc(RESP_CAP)))
		return -1;
	if (ndyn_max && !(v->dyn = calloc((size_t)ndyn_max, sizeof *v->dyn)))
		return -1;
	for (int k = 0; k < s->nreqs; k++) {
		const struct plan_request *r = &s->reqs[k];
		struct hkind *kd = &h->kinds[k];
		CURL *e = curl_easy_init();
		struct curl_slist *hdrs = kd->hdrs;

		if (!e)
			return -1;
		v->easy[k] = e;
		if (kd->dynamic_hdrs) {
			v->hdrs[k] = build_headers(h, r, v->dyn, &v->ndyn, 1);
			if (!v->hdrs[k])
				return -1;
			hdrs = v->hdrs[k];
		}
		curl_easy_setopt(e, CURLOPT_PRIVATE, v);
		curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(e, CURLOPT_PROXY,
		                 ""); /* no proxy environment lookups per request */
		/* HTTP/2: by ALPN over TLS, with prior knowledge over plain TCP. */
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
		                 s->http != PLAN_HTTP2 ? (long)CURL_HTTP_VERSION_1_1
		                 : strncmp(r->url.text, "https://", 8) == 0
		                     ? (long)CURL_HTTP_VERSION_2TLS
		                     : (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
		/* HTTP/2: wait for a connection to multiplex on rather than open one per user. */
		if (s->http == PLAN_HTTP2)
			curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(e, CURLOPT_WRITEDATA, v);
		curl_easy_setopt(e, CURLOPT_ERRORBUFFER, v->errbuf);
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(e, CURLOPT_USERAGENT, "soak/" SOAK_VERSION);
		if (h->epoll) {
			curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
			curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, h);
		}
		if (hdrs)
			curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
		if (!r->url.dynamic)
			curl_easy_setopt(e, CURLOPT_URL, kd->url);
		if (r->has_body) {
			curl_easy_setopt(e, CURLOPT_POSTFIELDS,
			                 r->body.dynamic ? v->body : kd->body);
			curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)kd->body_len);
			if (strcmp(r->method, "POST") != 0)
				curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
		} else if (strcmp(r->method, "HEAD") == 0) {
			curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
		} else if (strcmp(r->method, "GET") != 0) {
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
		}
		if (s->connection == PLAN_CLOSE) {
			curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
			curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
		}
		if (h->tls) {
			http_tls_setopt(e, &s->tls);
			curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
			curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, v);
		}
	}
	return 0;
}

static void vu_release(struct hvu *v, int nreqs)
{
	for (int k = 0; k < nreqs; k++) {
		if (v->easy[k])
			curl_easy_cleanup(v->easy[k]);
		curl_slist_free_all(v->hdrs[k]);
	}
	free(v->dyn);
	free(v->url);
	free(v->body);
	free(v->resp);
}

static int http_init(struct ethread *t, char *err, size_t errlen)
{
	struct hthread *h = calloc(1, sizeof *h);
	struct engine *e = t->eng;

	if (!h)
		goto oom;
	t->drv = h;
	h->t = t;
	h->plan = e->o.plan;
	evloop_none(&h->loop);
	h->epoll = e->loop == LOOP_EPOLL;
	h->tls = plan_uses_tls(h->plan);
	h->ctx = &t->ctx;
	h->vus = calloc((size_t)(t->max_slots > 0 ? t->max_slots : 1), sizeof *h->vus);
	h->md = pcre2_match_data_create(1, NULL);
	h->nmulti = h->epoll ? (t->max_slots + MULTI_VUS - 1) / MULTI_VUS : 1;
	if (h->nmulti < 1)
		h->nmulti = 1;
	h->multis = calloc((size_t)h->nmulti, sizeof *h->multis);
	if (!h->vus || !h->md || !h->multis)
		goto oom;
	for (int i = 0; i < h->nmulti; i++) {
		struct hmulti *mu = &h->multis[i];
		int vus = h->epoll ? MULTI_VUS : t->max_slots;
		mu->h = h;
		mu->idx = i;
		mu->deadline = -1;
		if (!(mu->m = curl_multi_init()))
			goto oom;
		/* Keep every VU's connection in the cache (keep-alive must really hold). */
		curl_multi_setopt(mu->m, CURLMOPT_MAXCONNECTS, (long)vus + 8);
		if (h->epoll) {
			curl_multi_setopt(mu->m, CURLMOPT_SOCKETFUNCTION, on_socket);
			curl_multi_setopt(mu->m, CURLMOPT_SOCKETDATA, mu);
			curl_multi_setopt(mu->m, CURLMOPT_TIMERFUNCTION, on_timer);
			curl_multi_setopt(mu->m, CURLMOPT_TIMERDATA, mu);
		}
	}
	for (int j = 0; j < t->max_slots; j++) {
		h->vus[j].ht = h;
		h->vus[j].j = j;
		h->vus[j].mu = &h->multis[h->epoll ? j / MULTI_VUS : 0];
	}
	if (h->epoll && evloop_init(&h->loop, err, errlen) < 0)
		return -1;
	return kinds_init(h, err, errlen);
oom:
	snprintf(err, errlen, "out of memory setting up a worker");
	return -1;
}

static void http_release(struct ethread *t)
{
	struct hthread *h = t->drv;
	if (!h)
		return;
	for (int j = 0; h->vus && j < t->max_slots; j++)
		vu_release(&h->vus[j], h->plan->nreqs);
	for (int k = 0; k < h->plan->nreqs; k++) {
		curl_slist_free_all(h->kinds[k].hdrs);
		free(h->kinds[k].url);
		free(h->kinds[k].body);
	}
	for (int i = 0; h->multis && i < h->nmulti; i++)
		if (h->multis[i].m)
			curl_multi_cleanup(h->multis[i].m);
	free(h->multis);
	pcre2_match_data_free(h->md);
	evloop_release(&h->loop);
	free(h->vus);
	free(h->fds);
	free(h);
	t->drv = NULL;
}

static void http_wake(struct ethread *t)
{
	struct hthread *h = t->drv;
	if (!h)
		return;
	if (h->epoll)
		evloop_wake(&h->loop);
	else if (h->multis && h->multis[0].m) {
		curl_multi_wakeup(h->multis[0].m);
	}
}

/* --- the request path ------------------------------------------------------------------- */

/* A request that failed before libcurl had it. */
static void fail_now(struct ethread *t, int j, const char *why)
{
	struct outcome o = {.cls = ERR_OTHER, .connect_us = -1, .ttfb_us = -1, .detail = why};
	sched_finish(t, j, &o);
}

/* Starts slot j's next request (driver contract). */
static void http_start(struct ethread *t, int j)
{
	struct hthread *h = t->drv;
	const struct plan *s = h->plan;
	struct hvu *v = &h->vus[j];
	int k = plan_pick_kind(h->plan, &h->ctx->rng);
	const struct plan_request *r = &s->reqs[k];
	CURL *e;
	CURLMcode mc;

	if (!v->easy[0] && vu_create(h, v) < 0) {
		fail_now(t, j, "out of memory creating a virtual user");
		return;
	}
	e = v->easy[k];
	if (r->url.dynamic) {
		tpl_expand(&r->url, h->ctx, v->url, h->url_cap);
		curl_easy_setopt(e, CURLOPT_URL, v->url);
	}
	if (r->has_body && r->body.dynamic) {
		long n = tpl_expand(&r->body, h->ctx, v->body, h->body_cap);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(n < 0 ? 0 : n));
	}
	for (int i = 0; i < v->ndyn; i++)
		if (v->dyn[i].t >= r->headers && v->dyn[i].t < r->headers + r->nheaders)
			tpl_expand(v->dyn[i].t, h->ctx, v->dyn[i].node->data, v->dyn[i].cap);
	v->req = k;
	v->tls_started = v->tls_resumed = 0;
	v->resp_len = 0;
	v->resp_bytes = 0;
	v->errbuf[0] = '\0';
	mc = curl_multi_add_handle(v->mu->m, e);
	if (mc != CURLM_OK) {
		fail_now(t, j, curl_multi_strerror(mc));
		return;
	}
	v->busy = 1;
}

/* Reports a finished transfer to the scheduler. */
static void finish(struct hthread *h, struct hvu *v, CURL *e, CURLcode rc)
{
	const struct plan_request *r = &h->plan->reqs[v->req];
	struct outcome o = {.cls = -1, .connect_us = -1, .ttfb_us = -1};
	curl_off_t total = 0, connect = 0, ttfb = 0, app = 0;
	long status = 0, nconn = 0, hsize = 0, oserr = 0;
	char msg[ERR_SAMPLE_LEN];
	int phase;

	curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &nconn);
	if (nconn > 0) {
		curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect);
		o.connect_us = connect;
	}
	phase = connect > 0 || nconn == 0 ? HTTP_PHASE_REQUEST : HTTP_PHASE_CONNECT;
	if (h->tls && nconn > 0) {
		/* APPCONNECT: the TLS handshake done (0 for http://, or when it never was). */
		curl_easy_getinfo(e, CURLINFO_APPCONNECT_TIME_T, &app);
		if (app > connect && connect > 0) {
			o.tls_us = app - connect;
			o.tls_resumed = v->tls_resumed;
		} else if (v->tls_started) {
			phase = HTTP_PHASE_TLS; /* libcurl reports no connect time then */
		}
	}
	if (rc == CURLE_OK) {
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &total);
		curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
		curl_easy_getinfo(e, CURLINFO_HEADER_SIZE, &hsize);
		o.answered = 1;
		o.service_us = total;
		o.ttfb_us = ttfb;
		o.bytes = hsize + v->resp_bytes;
		o.cls = http_judge(r, status, v->resp, v->resp_len, h->md, msg, sizeof msg);
		o.detail = msg;
	} else {
		curl_easy_getinfo(e, CURLINFO_OS_ERRNO, &oserr);
		o.cls = http_transport_class(rc, oserr, phase, v->errbuf);
		snprintf(msg, sizeof msg, "%s %s: %.170s", r->method, r->name,
		         v->errbuf[0] ? v->errbuf : curl_easy_strerror(rc));
		o.detail = msg;
		o.bytes = v->resp_bytes;
	}
	sched_finish(h->t, v->j, &o);
}

static void drain_multi(struct hthread *h, CURLM *multi)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(multi, &left))) {
		struct hvu *v = NULL;
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode rc = m->data.result;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&v);
		curl_multi_remove_handle(multi, e);
		v->busy = 0;
		finish(h, v, e, rc);
	}
}

static void drain_messages(struct hthread *h)
{
	for (int i = 0; i < h->nmulti; i++)
		drain_multi(h, h->multis[i].m);
}

static void http_cancel(struct ethread *t, int j)
{
	struct hthread *h = t->drv;
	struct hvu *v = &h->vus[j];
	if (v->busy) {
		curl_multi_remove_handle(v->mu->m, v->easy[v->req]);
		v->busy = 0;
	}
}

/* A leaving VU's connection stays in its multi's cache: libcurl closes what it no longer
 * needs, and a VU that comes back reuses it. */
static void http_idle(struct ethread *t, int j)
{
	(void)t;
	(void)j;
}

static void http_poll(struct ethread *t, int64_t wait_us)
{
	struct hthread *h = t->drv;
	struct epoll_event evs[EPOLL_BATCH];
	int running;
	int wait = (int)((wait_us + 999) / 1000); /* libcurl's timers are in ms */

	if (!h->epoll) {
		CURLM *m = h->multis[0].m;
		curl_multi_perform(m, &running);
		drain_messages(h);
		if (t->kick)
			return; /* VUs finished and are due again: start them first */
		curl_multi_poll(m, NULL, 0, wait, NULL);
		curl_multi_perform(m, &running);
		drain_messages(h);
		return;
	}
	int64_t mono = clock_mono_ms();
	for (int i = 0; i < h->nmulti; i++)
		if (h->multis[i].deadline >= 0 && h->multis[i].deadline - mono < wait)
			wait = h->multis[i].deadline - mono < 0
			           ? 0
			           : (int)(h->multis[i].deadline - mono);
	int n = evloop_wait(&h->loop, evs, EPOLL_BATCH,
	                    (int64_t)wait * 1000 < wait_us ? (int64_t)wait * 1000 : wait_us);
	for (int i = 0; i < n; i++) {
		struct fdreg *fr = fdreg_of(h, evs[i].data.fd);
		if (fr && !fr->wanted) {
			/* An idle socket libcurl does not watch (the server closed it, say): stop
			 * hearing about it until libcurl asks. */
			epoll_ctl(h->loop.epfd, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
			fr->in_epoll = 0;
			continue;
		}
		int flags = ((evs[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0) |
		            ((evs[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
		            ((evs[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
		if (fr && fr->owner < h->nmulti)
			curl_multi_socket_action(h->multis[fr->owner].m, evs[i].data.fd, flags,
			                         &running);
	}
	mono = clock_mono_ms();
	for (int i = 0; i < h->nmulti; i++) {
		struct hmulti *mu = &h->multis[i];
		if (mu->deadline >= 0 && mono >= mu->deadline) {
			mu->deadline = -1;
			curl_multi_socket_action(mu->m, CURL_SOCKET_TIMEOUT, 0, &running);
		}
	}
	drain_messages(h);
}

#define PREFLIGHT_TIMEOUT_MS 3000

/* Refuses to start when a target cannot even be connected to (exit 3, no run row). */
int http_preflight(const struct plan *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->nreqs; i++) {
		const struct plan_request *q = &s->reqs[i];
		char *host = NULL, *port = NULL;
		int rc;

		if (q->url.dynamic)
			continue;
		CURLU *u = curl_url();
		if (!u)
			continue;
		if (curl_url_set(u, CURLUPART_URL, q->url.text, 0) != CURLUE_OK ||
		    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
		    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
			curl_url_cleanup(u);
			continue;
		}
		/* IPv6 literals come back in brackets. */
		char h[256];
		snprintf(h, sizeof h, "%s", host[0] == '[' ? host + 1 : host);
		h[strcspn(h, "]")] = '\0';
		int e = conn_try(h, port, PREFLIGHT_TIMEOUT_MS, err, errlen);
		if (e > 0) {
			char *url = redact_text(NULL, q->url.text); /* no userinfo shown */
			snprintf(err, errlen, "cannot reach the target %s:%s (%s): %s", h, port,
			         url ? url : "", strerror(e));
			free(url);
		}
		rc = e ? -1 : 0;
		curl_free(host);
		curl_free(port);
		curl_url_cleanup(u);
		if (rc < 0)
			return -1;
	}
	return 0;
}

const struct driver http_driver = {
    .name = "curl",
    .init = http_init,
    .start = http_start,
    .cancel = http_cancel,
    .idle = http_idle,
    .poll = http_poll,
    .wake = http_wake,
    .release = http_release,
    .preflight = http_preflight,
};
