/*
 * h1: requests built byte for byte as libcurl sends them, and responses recorded from
 * regserver, nginx, Tomcat 10 and Jetty 9 (tests/data/http/, see record.py there) parsed
 * to the same status, header and body byte counts libcurl reports for the same bytes,
 * whatever the pieces they arrive in: split in two at every byte boundary, and one byte
 * at a time.  Failures are classed as http_transport_class classes libcurl's exit code
 * for the same bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "engine/h1.h"
#include "engine/httpclass.h"
#include "rqtest.h"

#define MAX_FILE (64 * 1024)

/* Where the lean parser deliberately differs from libcurl on broken bytes: it is strict
 * where libcurl is lenient, and calls a broken chunk a protocol error, not a reset. */
static const struct {
	const char *name;
	enum err_class cls;
} differs[] = {
    {"synth-cut-headers", ERR_RESET},   /* libcurl: 200 from half a header line */
    {"synth-bad-length", ERR_PROTOCOL}, /* libcurl reads "12x" as 12 */
    {"synth-bad-chunk", ERR_PROTOCOL},  /* libcurl: CURLE_RECV_ERROR, errno 0: reset */
};

/* One expected response (a MANIFEST line). */
struct want {
	char name[64];
	char method[8];
	char status[8]; /* "200", or "xN": curl failed with exit code N */
	long hdr, body;
	int keep, eof;
};

static void data_path(char *buf, size_t len, const char *name)
{
	const char *top = getenv("SOAK_TOP");
	snprintf(buf, len, "%s/tests/data/http/%s", top ? top : ".", name);
}

static size_t read_data(const char *name, char *buf, size_t cap)
{
	char path[1024], file[128];
	snprintf(file, sizeof file, "%s.http", name);
	data_path(path, sizeof path, file);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open '%s'", path);
	size_t n = fread(buf, 1, cap, f);
	assert_true(n < cap);
	fclose(f);
	return n;
}

/* Reads a manifest; returns the number of lines. */
static int read_manifest(const char *file, struct want *w, int cap)
{
	char path[1024], line[512];
	int n = 0;
	data_path(path, sizeof path, file);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open '%s'", path);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_true(n < cap);
		assert_int_equal(sscanf(line, "%63s %7s %7s %ld %ld %d %d", w[n].name, w[n].method,
		                        w[n].status, &w[n].hdr, &w[n].body, &w[n].keep, &w[n].eof),
		                 7);
		n++;
	}
	fclose(f);
	return n;
}

/* Feeds data[0..n) to r in pieces (split at `cut`, then `step` bytes at a time when step
 * > 0), and EOF after it when eof; returns the status and the bytes consumed. */
static enum h1_status feed(struct h1_resp *r, const char *data, size_t n, size_t cut, size_t step,
                           int eof, size_t *consumed)
{
	size_t off = 0;
	enum h1_status st = H1_MORE;

	while (off < n && st == H1_MORE) {
		size_t end = off < cut ? cut : n;
		if (step && off + step < end)
			end = off + step;
		size_t used;
		st = h1_resp_feed(r, data + off, end - off, &used);
		assert_true(used <= end - off);
		if (st == H1_MORE)
			assert_int_equal(used, end - off); /* MORE always takes everything */
		off += used;
	}
	if (st == H1_MORE && eof) {
		size_t used;
		st = h1_resp_feed(r, data + n, 0, &used);
		assert_int_equal(used, 0);
	}
	*consumed = off;
	return st;
}

static enum err_class failure_class(const struct h1_resp *r)
{
	return http_fail_class(r->closed ? HTTP_FAIL_CLOSED : HTTP_FAIL_PROTOCOL, 0, 1);
}

static void check_one(const struct want *w, const char *data, size_t n, size_t cut, size_t step,
                      size_t *consumed)
{
	struct h1_resp r;
	char keep[HTTP_BODY_KEEP];
	enum h1_status st;

	h1_resp_start(&r, strcmp(w->method, "HEAD") == 0, keep, sizeof keep);
	/* A failure is what was left when the server closed: EOF after the bytes. */
	st = feed(&r, data, n, cut, step, w->eof || w->status[0] == 'x', consumed);
	if (w->status[0] == 'x') {
		enum err_class want = http_transport_class(atoi(w->status + 1), 0, 1, NULL);
		for (size_t i = 0; i < sizeof differs / sizeof differs[0]; i++)
			if (strcmp(differs[i].name, w->name) == 0)
				want = differs[i].cls;
		if (st != H1_BAD)
			fail_msg("%s (cut %zu step %zu): status %d, want a failure", w->name, cut,
			         step, st);
		assert_int_equal(failure_class(&r), want);
		assert_non_null(h1_resp_error(&r));
		return;
	}
	if (st != H1_DONE)
		fail_msg("%s (cut %zu step %zu): status %d (%s), want done", w->name, cut, step, st,
		         st == H1_BAD ? h1_resp_error(&r) : "more");
	assert_int_equal(r.status, atoi(w->status));
	if (r.hdr_bytes != w->hdr)
		fail_msg("%s (cut %zu step %zu): %lld header bytes, want %ld", w->name, cut, step,
		         (long long)r.hdr_bytes, w->hdr);
	assert_int_equal(r.body_bytes, w->body);
	assert_int_equal(r.keep_alive, w->keep);
	assert_true(r.headers_done);
	/* The kept prefix is the body's start (the last body bytes of the file when it is
	 * not chunked, gzipped or cut). */
	assert_int_equal(r.kept,
	                 (size_t)(w->body < HTTP_BODY_KEEP - 1 ? w->body : HTTP_BODY_KEEP - 1));
	assert_int_equal(keep[r.kept], '\0');
}

static int is_differs(const char *name)
{
	for (size_t i = 0; i < sizeof differs / sizeof differs[0]; i++)
		if (strcmp(differs[i].name, name) == 0)
			return 1;
	return 0;
}

/* Every recorded response, split at every byte boundary and fed a byte at a time. */
static void recorded_responses(void **state)
{
	static struct want w[128];
	static char data[MAX_FILE];
	int n = read_manifest("MANIFEST", w, 128);
	(void)state;

	assert_true(n >= 40);
	for (int i = 0; i < n; i++) {
		size_t len = read_data(w[i].name, data, sizeof data), used;
		struct want one = w[i];
		if (w[i].status[0] != 'x' && is_differs(w[i].name)) {
			/* libcurl took it as an answer; we do not. */
			snprintf(one.status, sizeof one.status, "x0");
		}
		/* Whole, then cut in two everywhere (every 97th cut of the big ones). */
		size_t stride = len > 4096 ? 97 : 1;
		for (size_t cut = 0; cut <= len; cut += stride) {
			check_one(&one, data, len, cut, 0, &used);
			if (one.status[0] != 'x')
				assert_int_equal(used, len); /* nothing after the response */
		}
		check_one(&one, data, len, 0, 1, &used);
		check_one(&one, data, len, 0, 7, &used);
	}
}

/* Several responses on one connection: each starts where the last one ended. */
static void keepalive_sequences(void **state)
{
	static struct want w[32];
	static char data[MAX_FILE];
	int n = read_manifest("MANIFEST.extra", w, 32);
	(void)state;

	assert_true(n >= 6);
	for (size_t step = 0; step <= 3; step += 3) {
		for (int i = 0; i < n;) {
			size_t len = read_data(w[i].name, data, sizeof data), off = 0, used;
			int j = i;
			for (; j < n && strcmp(w[j].name, w[i].name) == 0; j++) {
				check_one(&w[j], data + off, len - off, 0, step, &used);
				off += used;
			}
			assert_int_equal(off, len);
			i = j;
		}
	}
}

static void keep_is_the_body(void **state)
{
	static char data[MAX_FILE];
	size_t len = read_data("nginx-big", data, sizeof data), used;
	char keep[HTTP_BODY_KEEP];
	struct h1_resp r;
	(void)state;

	h1_resp_start(&r, 0, keep, sizeof keep);
	assert_int_equal(feed(&r, data, len, 1000, 0, 0, &used), H1_DONE);
	const char *body = strstr(data, "\r\n\r\n") + 4;
	assert_int_equal(r.kept, HTTP_BODY_KEEP - 1);
	assert_memory_equal(keep, body, r.kept);
	/* Without a keep buffer nothing is kept, everything counted. */
	h1_resp_start(&r, 0, NULL, 0);
	assert_int_equal(feed(&r, data, len, 0, 0, 0, &used), H1_DONE);
	assert_int_equal(r.kept, 0);
	assert_int_equal(r.body_bytes, 20800);
}

/* The EOF of a connection closed after a complete answer changes nothing; a new answer
 * that never starts is "Empty reply from server". */
static void eof_cases(void **state)
{
	struct h1_resp r;
	size_t used;
	(void)state;

	h1_resp_start(&r, 0, NULL, 0);
	assert_int_equal(h1_resp_feed(&r, "", 0, &used), H1_BAD);
	assert_string_equal(h1_resp_error(&r), "Empty reply from server");
	assert_int_equal(failure_class(&r), ERR_RESET);
	const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200";
	h1_resp_start(&r, 0, NULL, 0);
	assert_int_equal(h1_resp_feed(&r, ok, strlen(ok), &used), H1_DONE);
	assert_int_equal(used, strlen(ok) - 12); /* the next answer's bytes are left */
	assert_int_equal(h1_resp_feed(&r, "", 0, &used), H1_DONE);
}

/* --- requests ------------------------------------------------------------------------- */

/* A request kind built from text, as the scenario would. */
/* Builds once for ctx and compares with want. */
static void built_is(struct rq *q, int close_mode, struct tpl_ctx *ctx, const char *want)
{
	struct h1_req h;
	struct iovec iov[2];
	char err[256], out[8192];
	size_t n = 0;

	assert_int_equal(h1_req_init(&h, &q->r, close_mode, ctx, NULL, err, sizeof err), 0);
	size_t cap = h1_req_scratch(&h);
	char *scratch = cap ? malloc(cap) : NULL;
	int k = h1_req_build(&h, ctx, scratch, iov);
	assert_true(k == 1 || k == 2);
	for (int i = 0; i < k; i++) {
		memcpy(out + n, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	out[n] = '\0';
	assert_string_equal(out, want);
	free(scratch);
	h1_req_release(&h);
}

static void requests_as_libcurl_sends_them(void **state)
{
	struct tpl_ctx ctx = {.seq = 42, .vu = 3, .iter = 7, .run_id = 9, .nonce = "n0", .rng = 1};
	struct rq q;
	(void)state;

	/* What the curl driver sent for these (captured from bin/soak run). */
	static const char *const json[] = {"Content-Type: application/json", NULL};
	rq_init(&q, "POST", "http://127.0.0.1:18777/register?x=1", "{\"a\":1}", json);
	built_is(
	    &q, PLAN_CLOSE, &ctx,
	    "POST /register?x=1 HTTP/1.1\r\nHost: 127.0.0.1:18777\r\nUser-Agent: soak/" SOAK_VERSION
	    "\r\nAccept: */*\r\nContent-Type: application/json\r\nConnection: close\r\n"
	    "Content-Length: 7\r\n\r\n{\"a\":1}");
	rq_release(&q);
	static const char *const over[] = {"Accept: text/plain", "User-Agent:", NULL};
	rq_init(&q, "PUT", "http://127.0.0.1:18779/r#frag", "a=1", over);
	built_is(&q, PLAN_KEEPALIVE, &ctx,
	         "PUT /r HTTP/1.1\r\nHost: 127.0.0.1:18779\r\nAccept: text/plain\r\n"
	         "Content-Length: 3\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\na=1");
	rq_release(&q);
	/* Port 80 is left out of Host; an empty path is "/"; a query alone gets one. */
	rq_init(&q, "GET", "http://example.test:80", NULL, NULL);
	built_is(&q, PLAN_KEEPALIVE, &ctx,
	         "GET / HTTP/1.1\r\nHost: example.test\r\nUser-Agent: soak/" SOAK_VERSION
	         "\r\nAccept: */*\r\n\r\n");
	rq_release(&q);
	rq_init(&q, "HEAD", "http://[::1]:8080?q=1", NULL, NULL);
	built_is(&q, PLAN_KEEPALIVE, &ctx,
	         "HEAD /?q=1 HTTP/1.1\r\nHost: [::1]:8080\r\nUser-Agent: soak/" SOAK_VERSION
	         "\r\nAccept: */*\r\n\r\n");
	rq_release(&q);
}

static void requests_with_placeholders(void **state)
{
	struct tpl_ctx ctx = {.seq = 42, .vu = 3, .iter = 7, .run_id = 9, .nonce = "n0", .rng = 1};
	static const char *const hdrs[] = {"X-Seq: ${seq}", "Content-Type: text/plain",
	                                   "X-Iter: ${vu}/${iter}", NULL};
	struct rq q;
	(void)state;

	rq_init(&q, "POST", "http://h:81/u/${seq}?n=${nonce}", "user=${vu}&n=${seq}${seq}", hdrs);
	built_is(&q, PLAN_KEEPALIVE, &ctx,
	         "POST /u/42?n=n0 HTTP/1.1\r\nHost: h:81\r\nUser-Agent: soak/" SOAK_VERSION
	         "\r\nAccept: */*\r\nX-Seq: 42\r\nContent-Type: text/plain\r\nX-Iter: 3/7\r\n"
	         "Content-Length: 13\r\n\r\nuser=3&n=4242");
	ctx.seq = 1234567890123ULL;
	built_is(
	    &q, PLAN_CLOSE, &ctx,
	    "POST /u/1234567890123?n=n0 HTTP/1.1\r\nHost: h:81\r\nUser-Agent: soak/" SOAK_VERSION
	    "\r\nAccept: */*\r\nX-Seq: 1234567890123\r\nContent-Type: text/plain\r\nX-Iter: 3/7\r\n"
	    "Connection: close\r\nContent-Length: 35\r\n\r\nuser=3&n=12345678901231234567890123");
	rq_release(&q);
	/* An empty dynamic body still says Content-Length: 0. */
	ctx.nonce = "";
	rq_init(&q, "POST", "http://h/", "${nonce}", NULL);
	built_is(&q, PLAN_KEEPALIVE, &ctx,
	         "POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: soak/" SOAK_VERSION
	         "\r\nAccept: */*\r\nContent-Length: 0\r\nContent-Type: "
	         "application/x-www-form-urlencoded\r\n\r\n");
	rq_release(&q);
}

/* Bytes a request line cannot carry are %-encoded; the buffer is sized for the worst. */
static void paths_are_encoded(void **state)
{
	struct tpl_ctx ctx = {.seq = 1, .vu = 1, .iter = 1, .nonce = "a b\x01\xff", .rng = 1};
	struct rq q;
	(void)state;

	rq_init(&q, "GET", "http://h/x/${nonce}${nonce}", NULL, NULL);
	built_is(
	    &q, PLAN_KEEPALIVE, &ctx,
	    "GET /x/a%20b%01%FFa%20b%01%FF HTTP/1.1\r\nHost: h\r\nUser-Agent: soak/" SOAK_VERSION
	    "\r\nAccept: */*\r\n\r\n");
	rq_release(&q);
}

static void fixed_requests_need_no_scratch(void **state)
{
	struct tpl_ctx ctx = {.seq = 1, .nonce = "", .rng = 1};
	struct h1_req h;
	struct rq q;
	char err[128];
	(void)state;

	rq_init(&q, "POST", "http://h/", "a=1", NULL);
	assert_int_equal(h1_req_init(&h, &q.r, PLAN_KEEPALIVE, &ctx, NULL, err, sizeof err), 0);
	assert_int_equal(h1_req_scratch(&h), 0);
	assert_non_null(h.fixed);
	h1_req_release(&h);
	rq_release(&q);
}

static void urls_lean_cannot_take(void **state)
{
	static const struct {
		const char *url, *why;
	} cases[] = {
	    {"http://${csv:host}/x", "a placeholder in the host or port"},
	    {"http://h:${seq}/x", "a placeholder in the host or port"},
	    {"http://user:pw@h/x", "user:password in the URL (authentication)"},
	    {"http:///x", "no usable host in the URL"},
	    {"http://h:99999/", "a host http-parser does not accept"},
	    {"ftp://h/", "not an http:// or https:// URL"},
	    {"https://u:p@h/", "user:password in the URL (authentication)"},
	};
	struct h1_url u;
	char why[128];
	(void)state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(h1_url_split(cases[i].url, &u, why, sizeof why), -1);
		assert_string_equal(why, cases[i].why);
	}
	assert_int_equal(h1_url_split("http://127.0.0.1:8080/a/${seq}", &u, why, sizeof why), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_string_equal(u.port, "8080");
	assert_int_equal(u.path_off, strlen("http://127.0.0.1:8080"));
	assert_false(u.tls);
	/* https: port 443 by default, and left out of Host as libcurl does. */
	assert_int_equal(h1_url_split("https://app.example/x", &u, why, sizeof why), 0);
	assert_true(u.tls);
	assert_string_equal(u.port, "443");
	assert_string_equal(u.authority, "app.example");
	assert_int_equal(u.path_off, strlen("https://app.example"));
	assert_int_equal(h1_url_split("https://[::1]:8443/", &u, why, sizeof why), 0);
	assert_string_equal(u.host, "::1");
	assert_string_equal(u.authority, "[::1]:8443");
	assert_int_equal(h1_url_split("https://h:80/", &u, why, sizeof why), 0);
	assert_string_equal(u.authority, "h:80");
}

static void plans_lean_cannot_take(void **state)
{
	static struct plan p;
	static const char *const te[] = {"Transfer-Encoding: chunked", NULL};
	struct rq a, b;
	char why[256];
	(void)state;

	rq_init(&a, "GET", "http://h/", NULL, NULL);
	rq_init(&b, "POST", "http://h/", "x", te);
	b.r.name = (char *)"upload";
	memset(&p, 0, sizeof p);
	p.reqs[0] = a.r;
	p.nreqs = 1;
	assert_int_equal(h1_plan_supported(&p, why, sizeof why), 0);
	p.reqs[1] = b.r;
	p.nreqs = 2;
	assert_int_equal(h1_plan_supported(&p, why, sizeof why), -1);
	assert_string_equal(why, "request 'upload': a Transfer-Encoding header");
	p.protocol = PLAN_TCP_FRAME;
	assert_int_equal(h1_plan_supported(&p, why, sizeof why), -1);
	rq_release(&a);
	rq_release(&b);
}

/* --- outcomes ------------------------------------------------------------------------- */

static void failures_classed_as_libcurl(void **state)
{
	static const int errnos[] = {0,     ECONNREFUSED, EADDRNOTAVAIL, ETIMEDOUT, ECONNRESET,
	                             EPIPE, ENETUNREACH,  EHOSTUNREACH,  EMFILE};
	static const struct {
		enum http_fail f;
		int curl_code;
	} pairs[] = {
	    {HTTP_FAIL_CONNECT, CURLE_COULDNT_CONNECT},
	    {HTTP_FAIL_TIMEOUT, CURLE_OPERATION_TIMEDOUT},
	    {HTTP_FAIL_CLOSED, CURLE_GOT_NOTHING},
	    {HTTP_FAIL_CLOSED, CURLE_PARTIAL_FILE},
	    {HTTP_FAIL_IO, CURLE_SEND_ERROR},
	    {HTTP_FAIL_IO, CURLE_RECV_ERROR},
	    {HTTP_FAIL_PROTOCOL, CURLE_WEIRD_SERVER_REPLY},
	    {HTTP_FAIL_DNS, CURLE_COULDNT_RESOLVE_HOST},
	    {HTTP_FAIL_OTHER, CURLE_OUT_OF_MEMORY},
	    {HTTP_FAIL_TLS_CERT, CURLE_PEER_FAILED_VERIFICATION},
	    {HTTP_FAIL_PROTOCOL, CURLE_SSL_CONNECT_ERROR},
	};
	(void)state;

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		for (size_t e = 0; e < sizeof errnos / sizeof errnos[0]; e++)
			for (int phase = 0; phase <= 2; phase++)
				assert_int_equal(http_fail_class(pairs[i].f, errnos[e], phase),
				                 http_transport_class(pairs[i].curl_code, errnos[e],
				                                      phase, NULL));
	/* A TLS alert is told by libcurl's words, as OpenSSL gives them. */
	assert_int_equal(http_transport_class(CURLE_SSL_CONNECT_ERROR, 0, HTTP_PHASE_TLS,
	                                      "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 "
	                                      "alert handshake failure"),
	                 ERR_TLS_ALERT);
	assert_int_equal(
	    http_transport_class(CURLE_RECV_ERROR, 0, HTTP_PHASE_REQUEST,
	                         "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL "
	                         "routines::tlsv13 alert certificate required, errno 0"),
	    ERR_TLS_ALERT);
	assert_int_equal(http_fail_class(HTTP_FAIL_TIMEOUT, 0, HTTP_PHASE_TLS), ERR_TLS_TIMEOUT);
	assert_int_equal(http_fail_class(HTTP_FAIL_TLS_ALERT, 0, HTTP_PHASE_TLS), ERR_TLS_ALERT);
	/* The mapping itself, where it matters most. */
	assert_int_equal(http_fail_class(HTTP_FAIL_CONNECT, EADDRNOTAVAIL, 0), ERR_CLIENT_PORTS);
	assert_int_equal(http_fail_class(HTTP_FAIL_CONNECT, ECONNREFUSED, 0), ERR_CONNECT_REFUSED);
	assert_int_equal(http_fail_class(HTTP_FAIL_TIMEOUT, 0, 0), ERR_CONNECT_TIMEOUT);
	assert_int_equal(http_fail_class(HTTP_FAIL_TIMEOUT, 0, 1), ERR_TIMEOUT);
	assert_int_equal(http_fail_class(HTTP_FAIL_IO, EPIPE, 1), ERR_RESET);
	assert_int_equal(http_fail_class(HTTP_FAIL_IO, EMFILE, 1), ERR_OTHER);
}

static void judged_as_libcurl(void **state)
{
	static const char body201[] = "HTTP/1.1 201 Created\r\nContent-Length: 8\r\n\r\n{\"id\":7}";
	static const char body200[] = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nnope\r\n";
	char keep[HTTP_BODY_KEEP], detail[256], err[64];
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	struct plan_request r = {.method = (char *)"POST", .name = (char *)"default"};
	struct h1_resp resp;
	size_t used;
	int rc;
	PCRE2_SIZE off;
	(void)state;
	(void)err;

	r.expect_body = pcre2_compile((PCRE2_SPTR) "\"id\":\\s*\\d+", PCRE2_ZERO_TERMINATED, 0, &rc,
	                              &off, NULL);
	r.expect_body_src = (char *)"\"id\":\\s*\\d+";
	assert_non_null(r.expect_body);
	h1_resp_start(&resp, 0, keep, sizeof keep);
	assert_int_equal(h1_resp_feed(&resp, body201, strlen(body201), &used), H1_DONE);
	assert_int_equal(
	    http_judge(&r, resp.status, resp.keep, resp.kept, md, detail, sizeof detail), -1);
	r.expect_status = 201;
	assert_int_equal(
	    http_judge(&r, resp.status, resp.keep, resp.kept, md, detail, sizeof detail), -1);
	h1_resp_start(&resp, 0, keep, sizeof keep);
	assert_int_equal(h1_resp_feed(&resp, body200, strlen(body200), &used), H1_DONE);
	assert_int_equal(
	    http_judge(&r, resp.status, resp.keep, resp.kept, md, detail, sizeof detail),
	    ERR_STATUS_MISMATCH);
	assert_string_equal(detail, "POST default: HTTP 200 (expected 201)");
	r.expect_status = 0;
	assert_int_equal(
	    http_judge(&r, resp.status, resp.keep, resp.kept, md, detail, sizeof detail),
	    ERR_BODY_MISMATCH);
	assert_string_equal(detail,
	                    "POST default: body does not match /\"id\":\\s*\\d+/: nope\r\n");
	/* Every status as http_status_class says, with and without an expected one. */
	for (int status = 100; status < 600; status += 7)
		for (int expect = 0; expect <= 201; expect += 201) {
			char text[64];
			int n = snprintf(text, sizeof text,
			                 "HTTP/1.1 %d X\r\nContent-Length: 0\r\n\r\n", status);
			r.expect_status = expect;
			h1_resp_start(&resp, 0, keep, sizeof keep);
			enum h1_status st = h1_resp_feed(&resp, text, (size_t)n, &used);
			if (status < 200 && status != 101) {
				assert_int_equal(
				    st, H1_MORE); /* interim: the answer is still to come */
				continue;
			}
			assert_int_equal(st, H1_DONE);
			int want = http_status_class(status, expect);
			int got = http_judge(&r, resp.status, resp.keep, resp.kept, md, detail,
			                     sizeof detail);
			if (want < 0 && r.expect_body)
				want = ERR_BODY_MISMATCH; /* the empty body does not match */
			assert_int_equal(got, want);
		}
	pcre2_code_free(r.expect_body);
	pcre2_match_data_free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(recorded_responses),
	    cmocka_unit_test(keepalive_sequences),
	    cmocka_unit_test(keep_is_the_body),
	    cmocka_unit_test(eof_cases),
	    cmocka_unit_test(requests_as_libcurl_sends_them),
	    cmocka_unit_test(requests_with_placeholders),
	    cmocka_unit_test(paths_are_encoded),
	    cmocka_unit_test(fixed_requests_need_no_scratch),
	    cmocka_unit_test(urls_lean_cannot_take),
	    cmocka_unit_test(plans_lean_cannot_take),
	    cmocka_unit_test(failures_classed_as_libcurl),
	    cmocka_unit_test(judged_as_libcurl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
