/* Night over night (soak/history/; the points: soak/report/report_history.c): runs grouped
 * into series by label, scenario name and load shape, runs left out, the figures of a
 * point (CPU per request, heap after GC), change points with what changed in run_env (a
 * fact that moved with the figure, one that varies anyway, a command line's changed
 * tokens, a fact that appeared), and when a report gets a history. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonw.h"
#include "report/report_int.h"
#include "report/report_history.h"
#include "report/judge/report_drift.h"
#include "history/history.h"
#include "testrng.h"

#define MAXR 64

/* A model of runs built by hand: what rpt_read would have filled. */
struct fake {
	struct report r;
	struct rpt_label labels[4];
	struct rpt_run runs[MAXR];
	struct rpt_step steps[MAXR][2];
	double cpu[MAXR][2][2];           /* per run, step, source */
	struct rpt_source src[MAXR][2];   /* app (a JVM with GC points), host */
	struct gca_point points[MAXR][3]; /* heap after GC */
	struct rpt_env_fact env[MAXR][4]; /* kernel, host, app cmdline, server_banner */
	char envval[MAXR][4][128];
};

static struct fake *fake_new(void)
{
	struct fake *x = calloc(1, sizeof *x);
	assert_non_null(x);
	x->r.labels = x->labels;
	x->r.runs = x->runs;
	x->labels[0].name = (char *)"tomcat";
	x->labels[1].name = (char *)"jetty";
	x->r.nlabels = 2;
	x->r.dbs[0] = (char *)"nightly.db";
	x->r.ndbs = 1;
	return x;
}

/* Run i: label l, scenario name, fixed at `users` (or a sweep of 10 and 20), TPS and p99,
 * the app's CPU % and heap after GC, and its facts. */
static struct rpt_run *add(struct fake *x, int l, const char *name, int users, int sweep,
                           double tps, double p99_ms, double cpu_pct, double heap_mb,
                           const char *kernel, const char *host, const char *cmdline,
                           const char *banner)
{
	int i = x->r.nruns++;
	struct rpt_run *run = &x->runs[i];
	run->id = i + 1;
	snprintf(run->key, sizeof run->key, "%d", i + 1);
	run->label = l;
	run->name = (char *)name;
	run->mode = (char *)(sweep ? "sweep" : "fixed");
	run->status = (char *)"done";
	run->started_ms = 1700000000000LL + (int64_t)i * 86400000;
	run->steps = x->steps[i];
	run->nsteps = sweep ? 2 : 1;
	run->study = -1;
	for (int k = 0; k < run->nsteps; k++) {
		struct rpt_step *s = &x->steps[i][k];
		s->idx = k;
		s->concurrency = sweep ? 10 * (k + 1) : users;
		s->planned_ms = 600000;
		s->nintervals = 60;
		s->f.tps = tps * (k + 1);
		s->f.requests = 1000;
		s->f.p50_us = s->f.max_us = s->f.p99_us = (int64_t)(p99_ms * 1000);
		s->cpu_mean = x->cpu[i][k];
		x->cpu[i][k][0] = cpu_pct;
		x->cpu[i][k][1] = 40; /* the host: never a cost per request */
	}
	run->src = x->src[i];
	run->nsrc = 2;
	snprintf(x->src[i][0].name, RPT_NAME_MAX, "app");
	snprintf(x->src[i][1].name, RPT_NAME_MAX, "host");
	if (!isnan(heap_mb)) {
		x->src[i][0].gc_events = 30;
		x->src[i][0].gc.points = x->points[i];
		x->src[i][0].gc.npoints = 3;
		for (int k = 0; k < 3; k++)
			x->points[i][k].heap_mb = heap_mb + (k - 1) * 2.0;
	}
	run->drift.judged = 1;
	run->drift.verdict = RPT_DRIFT_STABLE;
	const char *src[4] = {"", "", "app", ""},
	           *key[4] = {"kernel", "host", "cmdline", "server_banner"};
	const char *val[4] = {kernel, host, cmdline, banner};
	run->env = x->env[i];
	for (int k = 0; k < 4; k++) {
		if (!val[k])
			continue;
		struct rpt_env_fact *f = &x->env[i][run->nenv++];
		snprintf(x->envval[i][k], sizeof x->envval[i][k], "%s", val[k]);
		f->source = (char *)src[k];
		f->key = (char *)key[k];
		f->value = x->envval[i][k];
	}
	return run;
}

static struct rpt_history *history_of(struct fake *x)
{
	char err[256];
	struct rpt_history *h = rpt_hist_new((const char *const *)x->r.dbs, 1);
	assert_non_null(h);
	for (int i = 0; i < x->r.nruns; i++)
		assert_int_equal(
		    rpt_hist_add(h, &x->r, &x->runs[i], 0, x->runs[i].key, err, sizeof err), 0);
	assert_int_equal(rpt_hist_analyse(h, err, sizeof err), 0);
	return h;
}

/* Series: one per label, scenario name and load shape; a sweep one per level; oldest
 * first; runs not done and warm-ups left out and counted. */
static void grouping(void **state)
{
	struct fake *x = fake_new();
	(void)state;
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 1, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 0, "soak", 50, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL); /* other users */
	add(x, 0, "other", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 0, "sweep", 0, 1, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL)->status =
	    (char *)"crashed";
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL)->warmup = 1;
	/* Read in another order than time: a series is still oldest first. */
	x->runs[2].started_ms = x->runs[0].started_ms - 1000;
	struct rpt_history *h = history_of(x);
	assert_int_equal(h->not_done, 1);
	assert_int_equal(h->warmups, 1);
	/* jetty/soak/30; tomcat/other/30; tomcat/soak/30 (2); tomcat/soak/50; tomcat/sweep 10,
	 * 20 */
	assert_int_equal(h->nseries, 6);
	assert_string_equal(h->series[0].runs[0].label, "jetty");
	assert_string_equal(h->series[1].runs[0].name, "other");
	assert_int_equal(h->series[2].nruns, 2);
	assert_int_equal(h->series[2].runs[0].id, 3);
	assert_int_equal(h->series[2].runs[1].id, 1);
	assert_int_equal(h->series[3].runs[0].concurrency, 50);
	assert_int_equal(h->series[4].runs[0].sweep, 1);
	assert_int_equal(h->series[4].runs[0].concurrency, 10);
	assert_int_equal(h->series[5].runs[0].concurrency, 20);
	assert_true(fabs(h->series[5].runs[0].tps - 200) < 1e-9);
	for (int i = 0; i < h->nseries; i++)
		assert_int_equal(h->series[i].analysed, 0);
	rpt_hist_free(h);
	free(x);
}

/* The figures of a point: CPU per request of a process source (the host series is not
 * one), heap after GC as the mean of the regression points, a p99 without answers. */
static void point_figures(void **state)
{
	struct fake *x = fake_new();
	(void)state;
	add(x, 0, "soak", 30, 0, 200, 10, 50, 300, "6.1", "a", "java", NULL);
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	x->steps[1][0].f.p50_us = x->steps[1][0].f.max_us = 0; /* nothing answered */
	struct rpt_history *h = history_of(x);
	const struct rpt_hist_series *s = &h->series[0];
	assert_int_equal(s->nfigs, 5); /* TPS, p99, error %, CPU/request app, heap app */
	assert_int_equal(s->figs[3].kind, RPT_HK_CPU_REQ);
	assert_string_equal(s->figs[3].source, "app");
	assert_true(fabs(s->figs[3].v[0] - 2.5) < 1e-9); /* 50 % of a core / 200 per s */
	assert_true(fabs(s->figs[3].v[1] - 5.0) < 1e-9);
	assert_int_equal(s->figs[4].kind, RPT_HK_HEAP);
	assert_true(fabs(s->figs[4].v[0] - 300) < 1e-9);
	assert_true(isnan(s->figs[4].v[1]));
	assert_true(isnan(s->figs[1].v[1]));
	assert_string_equal(s->runs[0].drift, rpt_drift_name(RPT_DRIFT_STABLE));
	rpt_hist_free(h);
	free(x);
}

/* Twelve nights; at night 7 the JVM got -Xmx1g for -Xmx512m, the kernel was updated and
 * a Server banner appeared, while the host alternates every night: TPS and heap shift
 * there, and what changed lists the facts that moved with them first, the alternating
 * host as varying. */
static void change_points(void **state)
{
	struct fake *x = fake_new();
	struct rng g = {.s = 77};
	(void)state;
	for (int i = 0; i < 12; i++) {
		int after = i >= 6;
		add(x, 0, "soak", 30, 0, normal(&g, after ? 80 : 100, 1.5), normal(&g, 20, 1), 50,
		    after ? 900 : 400, after ? "6.1.0-18" : "6.1.0-17", i % 2 ? "b" : "a",
		    after ? "java -Xms256m -Xmx1g -jar app.jar"
		          : "java -Xms256m -Xmx512m -jar app.jar",
		    after ? "Jetty(12)" : NULL);
	}
	struct rpt_history *h = history_of(x);
	const struct rpt_hist_series *s = &h->series[0];
	assert_int_equal(h->nseries, 1);
	assert_int_equal(s->analysed, 1);
	int tps = -1, heap = -1;
	for (int k = 0; k < s->ncps; k++) {
		if (s->figs[s->cps[k].fig].kind == RPT_HK_TPS)
			tps = k;
		if (s->figs[s->cps[k].fig].kind == RPT_HK_HEAP)
			heap = k;
		assert_int_equal(s->cps[k].at, 6); /* nothing else moved */
	}
	assert_true(tps >= 0 && heap >= 0);
	const struct rpt_hist_cp *c = &s->cps[tps];
	assert_int_equal(c->worse, 1);
	assert_true(c->change_pct < -15 && c->change_pct > -25);
	assert_true(c->p <= 0.01);
	assert_int_equal(c->n_before, 6);
	assert_int_equal(c->n_after, 6);
	assert_int_equal(s->cps[heap].worse, 1);
	assert_int_equal(c->nchg, 4);
	int seen = 0;
	for (int i = 0; i < c->nchg; i++) {
		const struct rpt_hist_change *d = &c->chg[i];
		if (!strcmp(d->key, "kernel")) {
			assert_string_equal(d->diff, "6.1.0-17 → 6.1.0-18");
			assert_int_equal(d->steady, 1);
			seen |= 1;
		} else if (!strcmp(d->key, "host")) {
			assert_string_equal(d->before, "b");
			assert_string_equal(d->after, "a");
			assert_int_equal(d->steady, 0);
			seen |= 2;
		} else if (!strcmp(d->key, "cmdline")) {
			assert_string_equal(d->source, "app");
			assert_string_equal(d->diff, "-Xmx512m → -Xmx1g");
			assert_int_equal(d->steady, 1);
			seen |= 4;
		} else if (!strcmp(d->key, "server_banner")) {
			assert_string_equal(d->before, "");
			assert_string_equal(d->diff, "(not recorded) → Jetty(12)");
			seen |= 8;
		}
	}
	assert_int_equal(seen, 15);
	/* The writers say it. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpt_hist_write_text(h, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "History: tomcat · soak (fixed, 30 users, 10m): 12 runs"));
	assert_non_null(strstr(buf, "app cmdline: -Xmx512m → -Xmx1g"));
	assert_non_null(strstr(buf, "host: b → a (varies within the segments)"));
	free(buf);
	f = open_memstream(&buf, &len);
	struct jsonw w;
	jsonw_init(&w, f);
	assert_int_equal(rpt_hist_write_json(h, 1, "", &w), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"figure\": \"tps\", \"source\": null, \"run\": \"7\", "
	                            "\"previous_run\": \"6\""));
	assert_non_null(strstr(buf, "\"key\": \"cmdline\""));
	free(buf);
	rpt_hist_free(h);
	free(x);
}

/* A command line whose changed token is an option's value keeps the option. */
static void cmdline_value(void **state)
{
	struct fake *x = fake_new();
	(void)state;
	for (int i = 0; i < 12; i++)
		add(x, 0, "soak", 30, 0, i < 6 ? 100 : 10, 10, 50, NAN, "6.1", "a",
		    i < 6 ? "regserver --port 0 --latency 1 --threads 2"
		          : "regserver --port 0 --latency 20 --threads 2",
		    NULL);
	struct rpt_history *h = history_of(x);
	const struct rpt_hist_series *s = &h->series[0];
	assert_true(s->ncps >= 1);
	assert_int_equal(s->cps[0].at, 6);
	assert_int_equal(s->cps[0].nchg, 1);
	assert_string_equal(s->cps[0].chg[0].diff, "--latency 1 → --latency 20");
	rpt_hist_free(h);
	free(x);
}

/* A report gets a history only when a label and scenario have RPT_HIST_MIN_RUNS runs. */
static void report_threshold(void **state)
{
	struct fake *x = fake_new();
	char err[128];
	(void)state;
	for (int i = 0; i < RPT_HIST_MIN_RUNS - 1; i++)
		add(x, 0, "soak", 30, 0, 100 + i % 3, 10, 50, NAN, "6.1", "a", "java", NULL);
	add(x, 1, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	assert_int_equal(rpt_hist_from_report(&x->r, err, sizeof err), 0);
	assert_null(x->r.history);
	add(x, 0, "soak", 30, 0, 100, 10, 50, NAN, "6.1", "a", "java", NULL);
	assert_int_equal(rpt_hist_from_report(&x->r, err, sizeof err), 0);
	assert_non_null(x->r.history);
	assert_int_equal(x->r.history->nseries, 2);
	struct rpt_table *t = NULL;
	int n = 0;
	assert_int_equal(rpt_hist_tables(x->r.history, &t, &n, err, sizeof err), 0);
	assert_int_equal(n, 1); /* the analysed series' runs; no change point, no second */
	assert_int_equal(t[0].nrows, RPT_HIST_MIN_RUNS);
	rpt_tables_free(t, n);
	rpt_hist_free(x->r.history);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(grouping),         cmocka_unit_test(point_figures),
	    cmocka_unit_test(change_points),    cmocka_unit_test(cmdline_value),
	    cmocka_unit_test(report_threshold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
