/* Change points by e-divisive means (common/changepoint.c) on synthetic series whose
 * answer is known: one step of a known size at a known run, flat series at realistic
 * noise (Gaussian, and with heavy tails), two steps, and the edges (constant, short, NAN,
 * the cap on the analysed points, the bound on the work, determinism).  The rates over
 * many seeded series are printed as TAP comments with their 95 % Wilson intervals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "changepoint.h"
#include "testrng.h"

#define RUNS   30    /* runs of a nightly series in these tests */
#define SERIES 1000  /* seeded series per rate */
#define LEVEL  100.0 /* TPS of the flat part */
#define NOISE                                                                                      \
	3.0 /* run-to-run standard deviation: 3 %, what nightly runs of one                        \
	     * system on a quiet machine show */

/* The 95 % Wilson score interval of k successes in n. */
static void wilson(int k, int n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / n, d = 1 + z * z / n;
	double c = (p + z * z / (2.0 * n)) / d;
	double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

static void rate(const char *what, int k, int n)
{
	double lo, hi;
	wilson(k, n, &lo, &hi);
	printf("# %s: %d of %d = %.1f%% (95%% CI %.1f-%.1f%%)\n", what, k, n, 100.0 * k / n,
	       100 * lo, 100 * hi);
}

static struct cp_result detect(const double *x, size_t n)
{
	struct cp_opts o;
	struct cp_result r;
	cp_defaults(&o);
	assert_int_equal(cp_detect(x, n, &o, &r), 0);
	return r;
}

/* Whether a change point lies within one run of `at`. */
static int near(const struct cp_result *r, size_t at)
{
	for (int i = 0; i < r->n; i++)
		if (r->cp[i].at + 1 >= at && r->cp[i].at <= at + 1)
			return 1;
	return 0;
}

/* 30 runs, TPS falls by 10 % (3.3 sd) at a run between 8 and 22: found there (+-1) in
 * nearly every series, its size measured, and rarely anything else. */
static void one_step(void **state)
{
	int hit = 0, exact = 0, extra = 0;
	double size_sum = 0;
	(void)state;
	for (int s = 0; s < SERIES; s++) {
		struct rng g = {.s = 0x9e3779b97f4a7c15ULL + (uint64_t)s * 7919};
		size_t at = 8 + (size_t)(uniform(&g) * 15);
		double x[RUNS];
		for (size_t i = 0; i < RUNS; i++)
			x[i] = normal(&g, i < at ? LEVEL : 0.9 * LEVEL, NOISE);
		struct cp_result r = detect(x, RUNS);
		if (near(&r, at)) {
			hit++;
			for (int i = 0; i < r.n; i++)
				if (r.cp[i].at + 1 >= at && r.cp[i].at <= at + 1) {
					size_sum += r.cp[i].change_pct;
					exact += r.cp[i].at == at;
				}
		}
		extra += r.n - near(&r, at);
	}
	rate("step of -10% (3.3 sd) at run 8..22 of 30, found at that run +-1", hit, SERIES);
	rate("... found at exactly that run", exact, SERIES);
	printf("# ... mean size measured %.2f%% (true -10%%); other change points: %d in %d "
	       "series\n",
	       size_sum / hit, extra, SERIES);
	assert_true(hit >= 950);
	assert_true(fabs(size_sum / hit + 10) < 1.0);
	assert_true(extra <= 50);
}

/* Flat series: the share with any change point is the false alarm rate. */
static int false_alarms(int heavy)
{
	int any = 0;
	for (int s = 0; s < SERIES; s++) {
		struct rng g = {.s = 0x2545f4914f6cdd1dULL + (uint64_t)s * 104729};
		double x[RUNS];
		for (size_t i = 0; i < RUNS; i++) {
			/* Heavy tails: one night in ten three times as noisy (a neighbour's
			 * backup, a slow disk). */
			double sd = heavy && uniform(&g) < 0.1 ? 3 * NOISE : NOISE;
			x[i] = normal(&g, LEVEL, sd);
		}
		struct cp_result r = detect(x, RUNS);
		any += r.n > 0;
	}
	return any;
}

static void flat_gaussian(void **state)
{
	double lo, hi;
	int k = false_alarms(0);
	(void)state;
	rate("flat series of 30 runs, Gaussian noise 3%: any change point", k, SERIES);
	wilson(k, SERIES, &lo, &hi);
	assert_true(hi < 0.05); /* no change point in at least 95 %, with 95 % confidence */
}

static void flat_heavy_tails(void **state)
{
	double lo, hi;
	int k = false_alarms(1);
	(void)state;
	rate("flat series of 30 runs, 3% noise with one night in ten at 9%: any change point", k,
	     SERIES);
	wilson(k, SERIES, &lo, &hi);
	assert_true(hi < 0.05);
}

/* How the chance of finding a step grows with its size (in standard deviations of the
 * run-to-run noise), at run 15 of 30. */
static void power(void **state)
{
	static const double sizes[] = {1, 1.5, 2, 3, 4};
	int hits[5];
	(void)state;
	for (size_t z = 0; z < 5; z++) {
		char what[96];
		hits[z] = 0;
		for (int s = 0; s < 100; s++) {
			struct rng g = {.s = 0xda942042e4dd58b5ULL + (uint64_t)s * 31337};
			double x[RUNS];
			for (size_t i = 0; i < RUNS; i++)
				x[i] = normal(&g, i < 15 ? LEVEL : LEVEL - sizes[z] * NOISE, NOISE);
			struct cp_result r = detect(x, RUNS);
			hits[z] += near(&r, 15);
		}
		snprintf(what, sizeof what, "step of %.1f sd at run 15 of 30, found +-1", sizes[z]);
		rate(what, hits[z], 100);
	}
	assert_true(hits[0] <= hits[2] && hits[2] <= hits[3] && hits[3] <= hits[4]);
	assert_true(hits[4] >= 95);
}

/* Two steps, up then down (a regression that was fixed): both found. */
static void two_steps(void **state)
{
	int both = 0;
	(void)state;
	for (int s = 0; s < 200; s++) {
		struct rng g = {.s = 0x1234567ULL + (uint64_t)s * 65537};
		double x[40];
		for (size_t i = 0; i < 40; i++)
			x[i] = normal(&g, i >= 12 && i < 28 ? 1.15 * LEVEL : LEVEL, NOISE);
		struct cp_result r = detect(x, 40);
		both += near(&r, 12) && near(&r, 28);
	}
	rate("steps of +15% at run 12 and back at run 28 of 40, both found +-1", both, 200);
	assert_true(both >= 190);
}

/* The figures of one change point: segments, means, size, p-value and its resolution. */
static void figures(void **state)
{
	double x[20];
	(void)state;
	for (size_t i = 0; i < 20; i++)
		x[i] = (i < 10 ? 10.0 : 20.0) + (i % 2 ? 0.5 : -0.5);
	struct cp_result r = detect(x, 20);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.cp[0].at, 10);
	assert_int_equal(r.cp[0].n_before, 10);
	assert_int_equal(r.cp[0].n_after, 10);
	assert_true(fabs(r.cp[0].mean_before - 10) < 1e-9);
	assert_true(fabs(r.cp[0].mean_after - 20) < 1e-9);
	assert_true(fabs(r.cp[0].change_pct - 100) < 1e-9);
	assert_true(fabs(r.cp[0].sd_before - sqrt(0.25 * 10 / 9)) < 1e-9);
	/* A perfect split is rarely matched by a permutation: p at its floor. */
	assert_int_equal(r.cp[0].perms, CP_PERMUTATIONS);
	assert_true(r.cp[0].p <= 2.0 / (CP_PERMUTATIONS + 1) + 1e-12);
	assert_true(r.cp[0].qhat > 0);
	assert_int_equal(r.from, 0);
	assert_int_equal(r.analysed, 20);
}

/* Edges: a constant series, a short one, NAN left out with indices kept, bad options. */
static void edges(void **state)
{
	double flat[30], shortx[5] = {1, 2, 100, 101, 102}, gappy[24];
	struct cp_opts o;
	struct cp_result r;
	(void)state;
	for (size_t i = 0; i < 30; i++)
		flat[i] = 42;
	r = detect(flat, 30);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.tests, 0); /* nothing diverges: no test needed */
	r = detect(shortx, 5);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.tests, 0);
	assert_true(isnan(r.p_stop));
	/* Every third run missing (a collector that was not running): indices are x's. */
	for (size_t i = 0; i < 24; i++)
		gappy[i] = i % 3 == 1 ? NAN : (i < 12 ? 50.0 : 80.0) + (double)(i % 4);
	r = detect(gappy, 24);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.cp[0].at, 12);
	assert_int_equal(r.cp[0].n_before + r.cp[0].n_after, 16);
	cp_defaults(&o);
	o.min_size = 1;
	assert_int_equal(cp_detect(flat, 30, &o, &r), -1);
	cp_defaults(&o);
	o.alpha = 0;
	assert_int_equal(cp_detect(flat, 30, &o, &r), -1);
	cp_defaults(&o);
	o.max_points = CP_MAX_POINTS + 1;
	assert_int_equal(cp_detect(flat, 30, &o, &r), -1);
}

/* The work is bounded: 1,000 runs are analysed as the newest CP_MAX_N (a step among them
 * is found where it is), a test stops early when it cannot succeed, and no detection runs
 * more than (max_points + 1) * permutations permutations. */
static void bounded(void **state)
{
	enum { N = 1000 };
	double *x = malloc(N * sizeof *x);
	struct rng g = {.s = 99};
	struct cp_result r;
	struct cp_opts o;
	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < N; i++)
		x[i] = normal(&g, i < 950 ? LEVEL : 0.8 * LEVEL, NOISE);
	r = detect(x, N);
	assert_int_equal(r.from, N - CP_MAX_N);
	assert_int_equal(r.analysed, CP_MAX_N);
	assert_int_equal(r.n, 1);
	assert_true(r.cp[0].at >= 949 && r.cp[0].at <= 951);
	assert_int_equal(r.cp[0].n_before, 150);
	assert_true(r.tests <= CP_MAX_POINTS + 1);
	assert_true(r.perms <= (long)(CP_MAX_POINTS + 1) * CP_PERMUTATIONS);
	/* The test after the step (on a flat remainder) stopped early. */
	assert_int_equal(r.tests, 2);
	assert_true(r.perms < 2L * CP_PERMUTATIONS);
	printf("# 1000 runs, newest %d analysed: %d tests, %ld permutations\n", CP_MAX_N, r.tests,
	       r.perms);
	/* A series that is all steps stops at max_points. */
	for (size_t i = 0; i < N; i++)
		x[i] = (double)(i / 20) * 10;
	cp_defaults(&o);
	o.max_points = 3;
	assert_int_equal(cp_detect(x, N, &o, &r), 0);
	assert_int_equal(r.n, 3);
	assert_true(r.perms <= 3L * CP_PERMUTATIONS);
	free(x);
}

/* The same series gives the same answer (the report is reproducible byte for byte). */
static void deterministic(void **state)
{
	double x[RUNS];
	struct rng g = {.s = 5};
	(void)state;
	for (size_t i = 0; i < RUNS; i++)
		x[i] = normal(&g, i < 18 ? LEVEL : 1.06 * LEVEL, NOISE);
	struct cp_result a = detect(x, RUNS), b = detect(x, RUNS);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.perms, b.perms);
	for (int i = 0; i < a.n; i++) {
		assert_int_equal(a.cp[i].at, b.cp[i].at);
		assert_true(a.cp[i].p == b.cp[i].p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_step),
	    cmocka_unit_test(flat_gaussian),
	    cmocka_unit_test(flat_heavy_tails),
	    cmocka_unit_test(power),
	    cmocka_unit_test(two_steps),
	    cmocka_unit_test(figures),
	    cmocka_unit_test(edges),
	    cmocka_unit_test(bounded),
	    cmocka_unit_test(deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
