/*
 * HTTP/2 requests without sockets (h2msg.h).
 */
#include "h2msg.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLEN_DIGITS 24 /* a 64-bit length and a NUL */

/* Headers HTTP/2 forbids in a request (RFC 9113 8.2.2); "te" is let through only as
 * "trailers". */
static int forbidden(const char *name, size_t n, const char *value)
{
	static const char *const names[] = {"connection", "keep-alive", "proxy-connection",
	                                    "transfer-encoding", "upgrade"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && !strncasecmp(name, names[i], n))
			return 1;
	return n == 2 && !strncasecmp(name, "te", 2) && strcasecmp(value, "trailers") != 0;
}

/* A request kind's fixed texts, appended into one buffer sized once (never moved). */
struct lit {
	char *buf;
	size_t len, cap;
};

static const char *lit_put(struct lit *l, const char *s, size_t n, int lower)
{
	char *at = l->buf + l->len;
	for (size_t i = 0; i < n; i++)
		at[i] = lower ? (char)tolower((unsigned char)s[i]) : s[i];
	at[n] = '\0';
	l->len += n + 1;
	return at;
}

/* Adds a fixed header. */
static void fixed(struct h2_req *q, struct lit *l, const char *name, size_t nl, const char *value,
                  size_t vl)
{
	struct h2_hdr *h = &q->hdr[q->nhdr++];
	h->name = lit_put(l, name, nl, 1);
	h->namelen = nl;
	h->value = lit_put(l, value, vl, 0);
	h->valuelen = vl;
}

/* Splits "Name: value" (value trimmed); 0, or -1 without a colon. */
static int split(const char *line, size_t *nl, const char **v, size_t *vl)
{
	const char *c = strchr(line, ':');
	if (!c)
		return -1;
	*nl = (size_t)(c - line);
	c++;
	while (*c == ' ' || *c == '\t')
		c++;
	*v = c;
	*vl = strlen(c);
	while (*vl && (c[*vl - 1] == ' ' || c[*vl - 1] == '\t'))
		(*vl)--;
	return 0;
}

/* The plan's Host header, when it has one (it becomes :authority). */
static const struct tpl *host_of(const struct plan_request *r)
{
	for (int i = 0; i < r->nheaders; i++)
		if (h1_header_is(r->headers[i].text, "Host") && !h1_header_empty(&r->headers[i]))
			return &r->headers[i];
	return NULL;
}

/* :method, :scheme, :authority, :path. */
static void pseudo(struct h2_req *q, struct lit *l, const struct plan_request *r,
                   const struct tpl_ctx *c)
{
	const struct tpl *host = host_of(r);
	const char *v;
	size_t nl, vl;

	fixed(q, l, ":method", 7, r->method, strlen(r->method));
	fixed(q, l, ":scheme", 7, q->m.url.tls ? "https" : "http", q->m.url.tls ? 5 : 4);
	if (host && host->dynamic) {
		q->hdr[q->nhdr++] = (struct h2_hdr){.t = host};
		q->scratch_cap += tpl_max_len(host, c);
	} else if (host && split(host->text, &nl, &v, &vl) == 0) {
		fixed(q, l, ":authority", 10, v, vl);
	} else {
		fixed(q, l, ":authority", 10, q->m.url.authority, strlen(q->m.url.authority));
	}
	if (q->m.path.dynamic) {
		q->hdr[q->nhdr++] = (struct h2_hdr){.t = &q->m.path, .path = 1};
		q->scratch_cap += 3 * tpl_max_len(&q->m.path, c); /* room to %-encode every byte */
	} else {
		fixed(q, l, ":path", 5, q->m.path.text, strlen(q->m.path.text));
	}
}

/* user-agent and accept unless the plan has them (has[0..1]), then the plan's headers. */
static void headers(struct h2_req *q, struct lit *l, const struct plan_request *r,
                    const struct tpl_ctx *c, const int *has)
{
	const char *v;
	size_t nl, vl;

	if (!has[0])
		fixed(q, l, "user-agent", 10, "soak/" SOAK_VERSION, strlen("soak/" SOAK_VERSION));
	if (!has[1])
		fixed(q, l, "accept", 6, "*/*", 3);
	for (int i = 0; i < r->nheaders; i++) {
		const struct tpl *t = &r->headers[i];
		if (h1_header_is(t->text, "Host") || h1_header_empty(t) ||
		    split(t->text, &nl, &v, &vl) < 0 || forbidden(t->text, nl, v))
			continue;
		if (!t->dynamic) {
			fixed(q, l, t->text, nl, v, vl);
			continue;
		}
		q->hdr[q->nhdr++] = (struct h2_hdr){.t = t};
		q->scratch_cap += tpl_max_len(t, c);
	}
}

/* The body's content-length and content-type unless the plan has them (has[2], has[3]). */
static void body(struct h2_req *q, struct lit *l, const struct plan_request *r, const int *has)
{
	char cl[CLEN_DIGITS];

	if (!r->has_body)
		return;
	if (!has[2] && q->m.body) {
		q->hdr[q->nhdr++] =
		    (struct h2_hdr){.name = "content-length", .namelen = 14, .clen = 1};
		q->scratch_cap += CLEN_DIGITS;
	} else if (!has[2]) {
		int k = snprintf(cl, sizeof cl, "%zu", q->m.body_len);
		fixed(q, l, "content-length", 14, cl, (size_t)k);
	}
	if (!has[3])
		fixed(q, l, "content-type", 12, H1_DEFAULT_CTYPE, strlen(H1_DEFAULT_CTYPE));
}

int h2_req_init(struct h2_req *q, const struct plan_request *r, const struct tpl_ctx *ctx,
                const struct tpl_csv *csv, char *err, size_t errlen)
{
	static const char *const ours[4] = {"User-Agent", "Accept", "Content-Length",
	                                    "Content-Type"};
	int has[4] = {0};
	struct lit l = {0};

	memset(q, 0, sizeof *q);
	if (h1_msg_init(&q->m, r, ctx, csv, err, errlen) < 0)
		goto fail;
	l.cap = strlen(r->method) + sizeof q->m.url.authority + strlen(q->m.path.text) + 256;
	for (int i = 0; i < r->nheaders; i++) {
		l.cap += strlen(r->headers[i].text) + 2;
		for (int k = 0; k < 4; k++)
			has[k] |= h1_header_is(r->headers[i].text, ours[k]);
	}
	if (!(q->lit = l.buf = malloc(l.cap)))
		goto oom;
	pseudo(q, &l, r, ctx);
	headers(q, &l, r, ctx, has);
	body(q, &l, r, has);
	q->scratch_cap += 1;
	return 0;
oom:
	snprintf(err, errlen, "out of memory building request '%s'", r->name);
fail:
	h2_req_release(q);
	return -1;
}

void h2_req_release(struct h2_req *q)
{
	h1_msg_release(&q->m);
	free(q->lit);
	memset(q, 0, sizeof *q);
}

/* Expands a dynamic header into w: the nv pair points at its name (lower-cased) and value;
 * returns the bytes used. */
static size_t expand(const struct h2_hdr *h, struct tpl_ctx *ctx, char *w, size_t room,
                     nghttp2_nv *nv)
{
	long n = tpl_expand(h->t, ctx, w, room);
	const char *v;
	size_t nl, vl;

	if (n < 0)
		n = 0;
	if (h->path) {
		nv->name = (uint8_t *)":path";
		nv->namelen = 5;
		nv->value = (uint8_t *)w;
		nv->valuelen = h1_path_encode(w, (size_t)n);
		return nv->valuelen;
	}
	w[n] = '\0';
	if (split(w, &nl, &v, &vl) < 0)
		nl = vl = 0, v = w;
	for (size_t i = 0; i < nl; i++)
		w[i] = (char)tolower((unsigned char)w[i]);
	nv->name = (uint8_t *)w;
	nv->namelen = nl;
	if (nl == 4 && !memcmp(w, "host", 4)) {
		nv->name = (uint8_t *)":authority";
		nv->namelen = 10;
	}
	nv->value = (uint8_t *)v;
	nv->valuelen = vl;
	return (size_t)n + 1;
}

void h2_req_build(const struct h2_req *q, struct tpl_ctx *ctx, char *scratch, char *bodybuf,
                  nghttp2_nv *nv, size_t *nnv, const char **body, size_t *blen)
{
	char *w = scratch, *end = scratch + q->scratch_cap;

	*body = q->m.body_fixed;
	*blen = q->m.body_len;
	if (q->m.body) {
		long n = tpl_expand(q->m.body, ctx, bodybuf, q->m.body_cap);
		*body = bodybuf;
		*blen = n < 0 ? 0 : (size_t)n;
	}
	for (int i = 0; i < q->nhdr; i++) {
		const struct h2_hdr *h = &q->hdr[i];
		nghttp2_nv *o = &nv[i];
		o->flags = NGHTTP2_NV_FLAG_NONE;
		if (h->t) {
			w += expand(h, ctx, w, (size_t)(end - w), o);
		} else if (h->clen) {
			o->name = (uint8_t *)h->name;
			o->namelen = h->namelen;
			o->value = (uint8_t *)w;
			o->valuelen = (size_t)snprintf(w, CLEN_DIGITS, "%zu", *blen);
			w += o->valuelen + 1;
		} else {
			/* Fixed: nghttp2 need not copy what lives as long as the request kind. */
			o->name = (uint8_t *)h->name;
			o->namelen = h->namelen;
			o->value = (uint8_t *)h->value;
			o->valuelen = h->valuelen;
			o->flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
		}
	}
	*nnv = (size_t)q->nhdr;
	if (!*blen)
		*body = NULL;
}
