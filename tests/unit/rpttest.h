/*
 * rpttest — what the unit tests that judge synthetic studies (test_compare, test_calibrate)
 * build a report model with, as rpt_read would leave it: two labels "a" and "b", one
 * database, the arrays rpt_free releases.  Every allocation is checked with cmocka.
 */
#ifndef SOAK_RPTTEST_H
#define SOAK_RPTTEST_H

#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

/* Appends x to v, growing it. */
static inline void rpttest_push(struct rpt_values *v, double x)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 16;
		v->v = realloc(v->v, v->cap * sizeof *v->v);
		assert_non_null(v->v);
	}
	v->v[v->n++] = x;
}

/* An empty model of labels "a" and "b" from one database, with room for max_runs runs
 * (at most RPT_MAX_RUNS: a run is large, and a test that builds thousands of reports
 * zeroes only what it uses); its studies' array is there, with none in it. */
static inline void rpttest_report(struct report *r, int max_runs)
{
	memset(r, 0, sizeof *r);
	r->labels = calloc(RPT_MAX_LABELS, sizeof *r->labels);
	r->runs = calloc((size_t)max_runs, sizeof *r->runs);
	r->studies = calloc(RPT_MAX_STUDIES, sizeof *r->studies);
	assert_true(r->labels && r->runs && r->studies);
	r->labels[0].name = strdup("a");
	r->labels[1].name = strdup("b");
	r->nlabels = 2;
	r->dbs[0] = strdup("fake.db");
	r->ndbs = 1;
}

/* A run's texts: a fixed keep-alive HTTP run of scenario `name` that is done. */
static inline void rpttest_run_texts(struct rpt_run *run, const char *name)
{
	run->name = strdup(name);
	run->mode = strdup("fixed");
	run->connection = strdup("keepalive");
	run->protocol = strdup("http");
	run->status = strdup("done");
	run->reason = strdup("");
}

#endif
