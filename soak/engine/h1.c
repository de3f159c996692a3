/*
 * HTTP/1.1 requests and responses without sockets (h1.h).
 */
#include "h1.h"

#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { H1P_LIT, H1P_TPL, H1P_PATH, H1P_CLEN };

#define CLEN_DIGITS 20 /* a 64-bit length */

/* --- URLs ------------------------------------------------------------------------------ */

int h1_url_split(const char *text, struct h1_url *u, char *why, size_t whylen)
{
	struct http_parser_url pu;
	char auth[300];
	size_t alen, skip;
	const char *a, *dport;

	memset(u, 0, sizeof *u);
	if (strncmp(text, "https://", 8) == 0) {
		u->tls = 1;
		skip = 8;
		dport = "443";
	} else if (strncmp(text, "http://", 7) == 0) {
		skip = 7;
		dport = "80";
	} else {
		snprintf(why, whylen, "not an http:// or https:// URL");
		return -1;
	}
	a = text + skip;
	alen = strcspn(a, "/?#");
	if (memchr(a, '$', alen)) {
		snprintf(why, whylen, "a placeholder in the host or port");
		return -1;
	}
	if (memchr(a, '@', alen)) {
		snprintf(why, whylen, "user:password in the URL (authentication)");
		return -1;
	}
	if (alen == 0 || alen >= sizeof u->authority - 8) {
		snprintf(why, whylen, "no usable host in the URL");
		return -1;
	}
	/* Let http-parser judge the authority (IPv6 brackets, port range). */
	snprintf(auth, sizeof auth, "http://%.*s/", (int)alen, a);
	http_parser_url_init(&pu);
	if (http_parser_parse_url(auth, strlen(auth), 0, &pu) != 0 ||
	    !(pu.field_set & (1 << UF_HOST))) {
		snprintf(why, whylen, "a host http-parser does not accept");
		return -1;
	}
	snprintf(u->host, sizeof u->host, "%.*s", (int)pu.field_data[UF_HOST].len,
	         auth + pu.field_data[UF_HOST].off);
	if (pu.field_set & (1 << UF_PORT)) {
		if (pu.port == 0) {
			snprintf(why, whylen, "port 0");
			return -1;
		}
		snprintf(u->port, sizeof u->port, "%u", pu.port);
	} else {
		snprintf(u->port, sizeof u->port, "%s", dport);
	}
	/* libcurl leaves the scheme's default port out of Host. */
	if (strchr(u->host, ':'))
		snprintf(u->authority, sizeof u->authority, "[%s]", u->host);
	else
		snprintf(u->authority, sizeof u->authority, "%s", u->host);
	if (strcmp(u->port, dport) != 0)
		snprintf(u->authority + strlen(u->authority),
		         sizeof u->authority - strlen(u->authority), ":%s", u->port);
	u->path_off = skip + alen;
	return 0;
}

int h1_header_is(const char *line, const char *name)
{
	size_t n = strlen(name);
	return strncasecmp(line, name, n) == 0 && line[n] == ':';
}

int h1_header_empty(const struct tpl *t)
{
	const char *c;
	if (t->dynamic)
		return 0;
	c = strchr(t->text, ':');
	return c && c[1 + strspn(c + 1, " \t")] == '\0';
}

int h1_plan_supported(const struct plan *p, char *why, size_t whylen)
{
	char w[128];
	struct h1_url u;

	if (p->protocol != PLAN_HTTP) {
		snprintf(why, whylen, "not an HTTP plan");
		return -1;
	}
	for (int i = 0; i < p->nreqs; i++) {
		const struct plan_request *r = &p->reqs[i];
		struct h1_url first;
		if (h1_url_split(r->url.text, &u, w, sizeof w) < 0) {
			snprintf(why, whylen, "request '%s': %s", r->name, w);
			return -1;
		}
		/* HTTP/2's connections are shared by every request: one host for all. */
		if (p->http == PLAN_HTTP2 && i > 0 &&
		    h1_url_split(p->reqs[0].url.text, &first, w, sizeof w) == 0 &&
		    (first.tls != u.tls || strcmp(first.host, u.host) ||
		     strcmp(first.port, u.port))) {
			snprintf(why, whylen,
			         "request '%s': HTTP/2 to another host than request '%s' (the lean "
			         "driver's connections go to one)",
			         r->name, p->reqs[0].name);
			return -1;
		}
		for (int h = 0; h < r->nheaders; h++)
			if (h1_header_is(r->headers[h].text, "Transfer-Encoding")) {
				/* libcurl would send the body chunked. */
				snprintf(why, whylen, "request '%s': a Transfer-Encoding header",
				         r->name);
				return -1;
			}
	}
	return 0;
}

enum plan_client h1_client_for(const struct plan *p, char *why, size_t whylen)
{
	char w[256];

	if (why && whylen)
		why[0] = '\0';
	if (p->client == PLAN_CLIENT_CURL)
		return PLAN_CLIENT_CURL;
	if (h1_plan_supported(p, w, sizeof w) == 0)
		return PLAN_CLIENT_LEAN;
	if (why && whylen)
		snprintf(why, whylen, "%s", w);
	return p->client == PLAN_CLIENT_LEAN ? PLAN_CLIENT_LEAN : PLAN_CLIENT_CURL;
}

/* --- building requests ------------------------------------------------------------------ */

/* Appends a piece; literal pieces next to each other are merged. */
static int piece_add(struct h1_req *q, size_t *cap, int kind, const struct buf *l, size_t from,
                     const struct tpl *t)
{
	struct h1_piece *last = q->npieces ? &q->pieces[q->npieces - 1] : NULL;
	if (kind == H1P_LIT) {
		if (l->n == from)
			return 0;
		if (last && last->kind == H1P_LIT && last->off + last->len == from) {
			last->len += (uint32_t)(l->n - from);
			return 0;
		}
	}
	if (buf_grow(&q->pieces, cap, (size_t)q->npieces + 1, sizeof *q->pieces, 16) < 0)
		return -1;
	q->pieces[q->npieces++] = (struct h1_piece){
	    .kind = (uint8_t)kind, .off = (uint32_t)from, .len = (uint32_t)(l->n - from), .t = t};
	return 0;
}

int h1_path_compile(struct tpl *path, const struct h1_url *u, const char *url,
                    const struct tpl_csv *csv, char *err, size_t errlen)
{
	const char *p = url + u->path_off;
	size_t n = strcspn(p, "#");
	char *text = malloc(n + 2);
	int rc;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(text, n + 2, "%s%.*s", p[0] == '/' ? "" : "/", (int)n, p);
	rc = tpl_compile(path, text, csv, err, errlen);
	free(text);
	return rc;
}

int h1_msg_init(struct h1_msg *m, const struct plan_request *r, const struct tpl_ctx *ctx,
                const struct tpl_csv *csv, char *err, size_t errlen)
{
	char why[128];

	memset(m, 0, sizeof *m);
	if (h1_url_split(r->url.text, &m->url, why, sizeof why) < 0) {
		snprintf(err, errlen, "request '%s' needs libcurl: %s", r->name, why);
		return -1;
	}
	if (h1_path_compile(&m->path, &m->url, r->url.text, csv, err, errlen) < 0)
		return -1;
	m->head = strcmp(r->method, "HEAD") == 0;
	if (!r->has_body)
		return 0;
	if (r->body.dynamic) {
		m->body = &r->body;
		m->body_cap = tpl_max_len(&r->body, ctx);
		return 0;
	}
	size_t cap = tpl_max_len(&r->body, ctx);
	struct tpl_ctx c = *ctx; /* ${random} draws move its rng; the caller's stays */
	long n;
	if (!(m->body_fixed = malloc(cap)) ||
	    (n = tpl_expand(&r->body, &c, m->body_fixed, cap)) < 0) {
		snprintf(err, errlen, "out of memory building request '%s'", r->name);
		return -1;
	}
	m->body_len = (size_t)n;
	return 0;
}

void h1_msg_release(struct h1_msg *m)
{
	tpl_release(&m->path);
	free(m->body_fixed);
	memset(m, 0, sizeof *m);
}

/* A request's head while it is compiled: literal text, and the pieces cut from it where a
 * template goes. */
struct head {
	struct h1_req *q;
	struct buf l;     /* the literal text so far */
	size_t cap;       /* q->pieces allocated */
	size_t from;      /* where in l the literal piece being written began */
	struct tpl_ctx c; /* for the templates' longest expansions */
};

/* Ends the literal piece being written and adds a piece of `kind` (t: its template) after
 * it; the next literal piece begins there.  -1 out of memory. */
static int cut(struct head *h, int kind, const struct tpl *t)
{
	if (piece_add(h->q, &h->cap, H1P_LIT, &h->l, h->from, NULL) < 0 ||
	    piece_add(h->q, &h->cap, kind, &h->l, h->l.n, t) < 0)
		return -1;
	h->from = h->l.n;
	return 0;
}

/* "METHOD PATH HTTP/1.1". */
static int request_line(struct head *h, const struct plan_request *r)
{
	struct h1_req *q = h->q;

	buf_puts(&h->l, r->method);
	buf_puts(&h->l, " ");
	if (!q->m.path.dynamic) {
		buf_puts(&h->l, q->m.path.text);
	} else {
		if (cut(h, H1P_PATH, &q->m.path) < 0)
			return -1;
		q->head_cap += 3 * tpl_max_len(&q->m.path, &h->c); /* room to %-encode every byte */
	}
	buf_puts(&h->l, " HTTP/1.1\r\n");
	return 0;
}

/* Host, User-Agent and Accept unless the request has them (has[0..2]), the request's own
 * headers, and Connection: close in that mode. */
static int headers(struct head *h, const struct plan_request *r, int close_mode, const int *has)
{
	struct buf *l = &h->l;

	if (!has[0]) {
		buf_puts(l, "Host: ");
		buf_puts(l, h->q->m.url.authority);
		buf_puts(l, "\r\n");
	}
	if (!has[1])
		buf_puts(l, "User-Agent: soak/" SOAK_VERSION "\r\n");
	if (!has[2])
		buf_puts(l, "Accept: */*\r\n");
	for (int i = 0; i < r->nheaders; i++) {
		const struct tpl *t = &r->headers[i];
		if (h1_header_empty(t))
			continue;
		if (!t->dynamic) {
			buf_puts(l, t->text);
			buf_puts(l, "\r\n");
			continue;
		}
		if (cut(h, H1P_TPL, t) < 0)
			return -1;
		h->q->head_cap += tpl_max_len(t, &h->c);
		buf_puts(l, "\r\n");
	}
	if (close_mode == PLAN_CLOSE)
		buf_puts(l, "Connection: close\r\n");
	return 0;
}

/* The body's Content-Length and Content-Type unless the request has them (has[3], has[4]). */
static int body(struct head *h, const struct plan_request *r, const int *has)
{
	struct h1_req *q = h->q;

	if (!r->has_body)
		return 0;
	if (!has[3] && q->m.body) {
		buf_puts(&h->l, "Content-Length: ");
		if (cut(h, H1P_CLEN, NULL) < 0)
			return -1;
		q->head_cap += CLEN_DIGITS;
		buf_puts(&h->l, "\r\n");
	} else if (!has[3]) {
		char cl[48];
		snprintf(cl, sizeof cl, "Content-Length: %zu\r\n", q->m.body_len);
		buf_puts(&h->l, cl);
	}
	if (!has[4])
		buf_puts(&h->l, "Content-Type: " H1_DEFAULT_CTYPE "\r\n");
	return 0;
}

/* Nothing changes between requests: build it once, body included. */
static int build_fixed(struct h1_req *q)
{
	if (q->npieces != 1 || q->m.body)
		return 0;
	q->fixed_len = q->pieces[0].len + q->m.body_len;
	q->fixed = malloc(q->fixed_len + 1);
	if (!q->fixed)
		return -1;
	memcpy(q->fixed, q->lit + q->pieces[0].off, q->pieces[0].len);
	if (q->m.body_len)
		memcpy(q->fixed + q->pieces[0].len, q->m.body_fixed, q->m.body_len);
	q->fixed[q->fixed_len] = '\0';
	return 0;
}

int h1_req_init(struct h1_req *q, const struct plan_request *r, int close_mode,
                const struct tpl_ctx *ctx, const struct tpl_csv *csv, char *err, size_t errlen)
{
	struct head h = {.q = q, .c = *ctx};
	int has[5] = {0};
	static const char *const ours[5] = {"Host", "User-Agent", "Accept", "Content-Length",
	                                    "Content-Type"};

	memset(q, 0, sizeof *q);
	if (h1_msg_init(&q->m, r, ctx, csv, err, errlen) < 0)
		goto fail;
	for (int i = 0; i < r->nheaders; i++)
		for (int k = 0; k < 5; k++)
			has[k] |= h1_header_is(r->headers[i].text, ours[k]);
	if (request_line(&h, r) < 0 || headers(&h, r, close_mode, has) < 0 || body(&h, r, has) < 0)
		goto oom;
	buf_puts(&h.l, "\r\n");
	if (piece_add(q, &h.cap, H1P_LIT, &h.l, h.from, NULL) < 0 || h.l.oom)
		goto oom;
	q->lit = h.l.p;
	h.l.p = NULL;
	for (int i = 0; i < q->npieces; i++)
		if (q->pieces[i].kind == H1P_LIT)
			q->head_cap += q->pieces[i].len;
	q->head_cap += 1; /* the NUL a template expansion writes */
	if (build_fixed(q) < 0)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory building request '%s'", r->name);
fail:
	free(h.l.p);
	h1_req_release(q);
	return -1;
}

void h1_req_release(struct h1_req *q)
{
	h1_msg_release(&q->m);
	free(q->lit);
	free(q->pieces);
	free(q->fixed);
	memset(q, 0, sizeof *q);
}

size_t h1_req_scratch(const struct h1_req *q)
{
	return q->fixed ? 0 : q->head_cap + q->m.body_cap;
}

/* Whether byte c may appear in a request line's target as it is. */
static int path_plain(unsigned char c)
{
	return c > 0x20 && c < 0x7f;
}

size_t h1_path_encode(char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += !path_plain((unsigned char)s[i]);
	if (!bad)
		return n;
	/* Right to left, so each byte moves once. */
	size_t w = n + 2 * bad;
	for (size_t i = n; i-- > 0;) {
		unsigned char c = (unsigned char)s[i];
		if (path_plain(c)) {
			s[--w] = (char)c;
		} else {
			s[--w] = hex[c & 15];
			s[--w] = hex[c >> 4];
			s[--w] = '%';
		}
	}
	return n + 2 * bad;
}

int h1_req_build(const struct h1_req *q, struct tpl_ctx *ctx, char *scratch, struct iovec iov[2])
{
	char *w = scratch, *end = scratch + q->head_cap;
	const char *body = q->m.body_fixed;
	size_t blen = q->m.body_len;

	if (q->fixed) {
		iov[0].iov_base = q->fixed;
		iov[0].iov_len = q->fixed_len;
		return 1;
	}
	if (q->m.body) {
		long n = tpl_expand(q->m.body, ctx, scratch + q->head_cap, q->m.body_cap);
		body = scratch + q->head_cap;
		blen = n < 0 ? 0 : (size_t)n; /* cannot fail: body_cap is tpl_max_len */
	}
	for (int i = 0; i < q->npieces; i++) {
		const struct h1_piece *p = &q->pieces[i];
		long n;
		switch (p->kind) {
		case H1P_LIT:
			memcpy(w, q->lit + p->off, p->len);
			w += p->len;
			break;
		case H1P_PATH:
			n = tpl_expand(p->t, ctx, w, (size_t)(end - w));
			if (n > 0)
				w += h1_path_encode(w, (size_t)n);
			break;
		case H1P_TPL:
			n = tpl_expand(p->t, ctx, w, (size_t)(end - w));
			if (n > 0)
				w += n;
			break;
		case H1P_CLEN: {
			char d[CLEN_DIGITS];
			int k = 0;
			size_t v = blen;
			do
				d[k++] = (char)('0' + v % 10);
			while ((v /= 10) && k < CLEN_DIGITS);
			while (k > 0)
				*w++ = d[--k];
			break;
		}
		}
	}
	iov[0].iov_base = scratch;
	iov[0].iov_len = (size_t)(w - scratch);
	if (blen == 0)
		return 1;
	iov[1].iov_base = (void *)body;
	iov[1].iov_len = blen;
	return 2;
}

/* --- responses ------------------------------------------------------------------------- */

static int on_message_begin(http_parser *p)
{
	struct h1_resp *r = p->data;
	r->status = 0;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	struct h1_resp *r = p->data;
	r->status = (int)p->status_code;
	if (r->status < 100)
		return -1; /* "HTTP/1.1 00": not a status line libcurl would take either */
	/* Pause so that feed() learns where the headers end: libcurl counts header bytes,
	 * and http-parser reports positions only by returning from execute. */
	http_parser_pause(p, 1);
	/* No body, whatever the headers say: the answer to HEAD, an interim answer, 204 and
	 * 304 (RFC 9112 6.3; http-parser 2.9 would wait for a 304's Content-Length). */
	return r->head || r->status < 200 || r->status == 204 || r->status == 304;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	struct h1_resp *r = p->data;
	r->body_bytes += (int64_t)n;
	if (r->keep && r->kept < r->keep_cap - 1) {
		size_t room = r->keep_cap - 1 - r->kept;
		size_t k = n < room ? n : room;
		memcpy(r->keep + r->kept, at, k);
		r->kept += k;
		r->keep[r->kept] = '\0';
	}
	return 0;
}

/* An interim (1xx) response is skipped: the final one follows on the same connection.
 * 101 is final (a protocol switch we never ask for ends this exchange). */
static int interim(int status)
{
	return status >= 100 && status < 200 && status != 101;
}

static int on_message_complete(http_parser *p)
{
	struct h1_resp *r = p->data;
	if (interim(r->status)) {
		r->status = 0;
		return 0;
	}
	r->complete = 1;
	r->keep_alive = http_should_keep_alive(p) && !p->upgrade;
	http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings h1_settings = {
    .on_message_begin = on_message_begin,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

void h1_resp_start(struct h1_resp *r, int head, char *keep, size_t keep_cap)
{
	memset(r, 0, sizeof *r);
	http_parser_init(&r->p, HTTP_RESPONSE);
	r->p.data = r;
	r->head = head;
	r->keep = keep_cap ? keep : NULL;
	r->keep_cap = keep_cap;
	if (r->keep)
		r->keep[0] = '\0';
}

enum h1_status h1_resp_feed(struct h1_resp *r, const char *data, size_t n, size_t *used)
{
	size_t off = 0;

	*used = 0;
	if (r->complete)
		return H1_DONE;
	if (n == 0) {
		/* EOF: completes a body that runs to the close, anything else is cut short. */
		http_parser_execute(&r->p, &h1_settings, data, 0);
		if (r->complete)
			return H1_DONE;
		r->closed = 1;
		return H1_BAD;
	}
	r->started = 1;
	while (off < n) {
		size_t k = http_parser_execute(&r->p, &h1_settings, data + off, n - off);
		enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
		off += k;
		if (e == HPE_OK) {
			r->msg_bytes += (int64_t)k;
			continue; /* took everything */
		}
		if (e != HPE_PAUSED) {
			*used = off;
			return H1_BAD;
		}
		http_parser_pause(&r->p, 0);
		if (r->complete) {
			*used = off;
			return H1_DONE;
		}
		/* Paused at the end of a header block: the parser stops on its last LF and
		 * takes it when resumed. */
		r->hdr_bytes += r->msg_bytes + (int64_t)k + 1;
		r->msg_bytes = -1; /* that LF, taken by the next execute */
		if (!interim(r->status))
			r->headers_done = 1;
	}
	*used = off;
	return H1_MORE;
}

const char *h1_resp_error(const struct h1_resp *r)
{
	if (r->closed)
		return r->started ? "the connection closed before the response was complete"
		                  : "Empty reply from server";
	return http_errno_description(HTTP_PARSER_ERRNO(&r->p));
}
