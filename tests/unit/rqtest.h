/*
 * rqtest — a plan request kind made from literal strings, for the unit tests of the
 * request builders (test_h1.c, test_h2msg.c).  Include after cmocka.h.
 */
#ifndef SOAK_RQTEST_H
#define SOAK_RQTEST_H

#include <string.h>

#include "engine/plan.h"

struct rq {
	struct plan_request r; /* its templates compiled; its strings the caller's */
};

/* METHOD, a URL template, a body template (NULL: none) and NULL-terminated header lines. */
static inline void rq_init(struct rq *q, const char *method, const char *url, const char *body,
                           const char *const *headers)
{
	char err[256];
	memset(q, 0, sizeof *q);
	q->r.name = (char *)"default";
	q->r.method = (char *)method;
	assert_int_equal(tpl_compile(&q->r.url, url, NULL, err, sizeof err), 0);
	if (body) {
		q->r.has_body = 1;
		assert_int_equal(tpl_compile(&q->r.body, body, NULL, err, sizeof err), 0);
	}
	for (int i = 0; headers && headers[i]; i++)
		assert_int_equal(
		    tpl_compile(&q->r.headers[q->r.nheaders++], headers[i], NULL, err, sizeof err),
		    0);
}

static inline void rq_release(struct rq *q)
{
	tpl_release(&q->r.url);
	tpl_release(&q->r.body);
	for (int i = 0; i < q->r.nheaders; i++)
		tpl_release(&q->r.headers[i]);
}

#endif
