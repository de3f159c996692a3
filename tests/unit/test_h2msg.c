/*
 * h2msg: HTTP/2 requests carry what the HTTP/1.1 ones do, as HTTP/2 says it: the
 * pseudo-headers first, names lower-cased, the headers HTTP/2 forbids left out, templates
 * expanded per request (a dynamic path %-encoded, a dynamic body's length), and the body.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/h2msg.h"
#include "rqtest.h"

/* Builds once and compares the pairs, as "name: value\n" lines, and the body. */
static void built_is(struct rq *q, struct tpl_ctx *ctx, const char *want, const char *want_body)
{
	struct h2_req h;
	nghttp2_nv nv[H2_MAX_NV];
	char err[256], out[8192];
	const char *body;
	size_t nnv, blen, n = 0;

	if (h2_req_init(&h, &q->r, ctx, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	char *scratch = malloc(h.scratch_cap), *bodybuf = malloc(h.m.body_cap + 1);
	h2_req_build(&h, ctx, scratch, bodybuf, nv, &nnv, &body, &blen);
	for (size_t i = 0; i < nnv; i++)
		n += (size_t)snprintf(out + n, sizeof out - n, "%.*s: %.*s\n", (int)nv[i].namelen,
		                      nv[i].name, (int)nv[i].valuelen, nv[i].value);
	assert_string_equal(out, want);
	if (want_body) {
		assert_int_equal(blen, strlen(want_body));
		assert_memory_equal(body, want_body, blen);
	} else {
		assert_null(body);
	}
	free(scratch);
	free(bodybuf);
	h2_req_release(&h);
}

static void a_get(void **state)
{
	struct tpl_ctx ctx = {.seq = 42, .nonce = "n0", .rng = 1};
	struct rq q;
	(void)state;

	rq_init(&q, "GET", "https://app.example/a?b=1#frag", NULL, NULL);
	built_is(&q, &ctx,
	         ":method: GET\n:scheme: https\n:authority: app.example\n:path: /a?b=1\n"
	         "user-agent: soak/" SOAK_VERSION "\naccept: */*\n",
	         NULL);
	rq_release(&q);
	rq_init(&q, "GET", "http://127.0.0.1:8080", NULL, NULL);
	built_is(&q, &ctx,
	         ":method: GET\n:scheme: http\n:authority: 127.0.0.1:8080\n:path: /\n"
	         "user-agent: soak/" SOAK_VERSION "\naccept: */*\n",
	         NULL);
	rq_release(&q);
}

static void headers_as_http2_wants_them(void **state)
{
	static const char *const hdrs[] = {
	    "X-Trace-Id: t${seq}", "Connection: keep-alive",         "Transfer-Encoding: chunked",
	    "TE: trailers",        "Host: other.example:8443",       "Accept:",
	    "User-Agent: JMeter",  "Content-Type: application/json", NULL};
	struct tpl_ctx ctx = {.seq = 7, .nonce = "n0", .rng = 1};
	struct rq q;
	(void)state;

	rq_init(&q, "POST", "https://h/users/${seq} x", "{\"n\":${seq}}", hdrs);
	built_is(&q, &ctx,
	         ":method: POST\n:scheme: https\n:authority: other.example:8443\n"
	         ":path: /users/7%20x\nx-trace-id: t7\nte: trailers\nuser-agent: JMeter\n"
	         "content-type: application/json\ncontent-length: 7\n",
	         "{\"n\":7}");
	rq_release(&q);
}

static void fixed_bodies_and_dynamic_hosts(void **state)
{
	static const char *const hdrs[] = {"Host: vu${vu}.example", NULL};
	struct tpl_ctx ctx = {.seq = 1, .vu = 12, .nonce = "n0", .rng = 1};
	struct rq q;
	(void)state;

	rq_init(&q, "PUT", "http://h/x", "a=1", hdrs);
	built_is(&q, &ctx,
	         ":method: PUT\n:scheme: http\n:authority: vu12.example\n:path: /x\n"
	         "user-agent: soak/" SOAK_VERSION "\naccept: */*\ncontent-length: 3\n"
	         "content-type: application/x-www-form-urlencoded\n",
	         "a=1");
	rq_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_get),
	    cmocka_unit_test(headers_as_http2_wants_them),
	    cmocka_unit_test(fixed_bodies_and_dynamic_hosts),
	};
	return cmocka_run_group_tests_name("tests", tests, NULL, NULL);
}
