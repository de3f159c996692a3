/* Memory verdicts on the JDK 17 corpus (every stable-* is normal, every leak-* a suspected
 * leak, for every collector and both log variants) and on synthetic heap series; pause
 * statistics and the regression itself. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcanalysis.h"
#include "gctest.h"

static void verdict_of(const char *const *files, enum gca_memory want)
{
	struct gct g;
	struct gca_result r;
	char err[128];

	gct_parse_anchored(&g, GCP_NONE, files);
	assert_int_equal(gca_analyze(g.ev, g.n, &r, err, sizeof err), 0);
	print_message("# %-40s %-14s %-12s slope %+9.1f MB/h rise %5.1f%% R2 %.2f tail %.2f: %s\n",
		      files[0], gca_memory_name(r.memory), r.basis, r.slope_mb_per_h,
		      r.rise_frac * 100, r.r2, r.tail_ratio, r.why);
	assert_int_equal(r.memory, want);
	assert_true(r.npoints >= GCA_MIN_POINTS);
	assert_non_null(r.points);
	assert_true(r.steady_from_ms > r.first_ms && r.steady_to_ms == r.last_ms);
	gca_result_free(&r);
	gct_free(&g);
}

static void jdk17_verdicts(void **state)
{
	static const char *const collectors[] = {"g1", "parallel", "serial", "zgc", "shenandoah"};
	static const char *const variants[] = {"gc", "gcstar"};
	(void)state;
	for (size_t c = 0; c < 5; c++)
		for (size_t v = 0; v < 2; v++) {
			char s[96], l[96];
			snprintf(s, sizeof s, "jdk17/stable-%s-%s.log", collectors[c], variants[v]);
			snprintf(l, sizeof l, "jdk17/leak-%s-%s.log", collectors[c], variants[v]);
			const char *fs[] = {s, NULL}, *fl[] = {l, NULL};
			verdict_of(fs, GCA_NORMAL);
			verdict_of(fl, GCA_SUSPECTED_LEAK);
		}
	const char *rot[] = {"jdk17/leak-g1-rotating.log.0", "jdk17/leak-g1-rotating.log.1",
			     "jdk17/leak-g1-rotating.log", NULL};
	verdict_of(rot, GCA_SUSPECTED_LEAK);
	const char *dec[] = {"jdk17/stable-g1-safepoint-decorations.log", NULL};
	verdict_of(dec, GCA_NORMAL);
	const char *killed[] = {"jdk17/killed-parallel-gcstar.log", NULL}; /* StableChurn */
	verdict_of(killed, GCA_NORMAL);
}

/* A synthetic log: one young GC every `step` s for `hours`, heap 1 GB, heap-after =
 * floor(t) plus a young-generation residue that cycles. */
static struct gcp_event *series(double hours, double step, double (*floor_mb)(double h),
				size_t *n)
{
	size_t cnt = (size_t)(hours * 3600 / step);
	struct gcp_event *ev = calloc(cnt, sizeof *ev);
	assert_non_null(ev);
	for (size_t i = 0; i < cnt; i++) {
		double h = (double)i * step / 3600.0;
		gcp_event_clear(&ev[i]);
		ev[i].kind = GCP_YOUNG;
		ev[i].t_ms = 1700000000000LL + (int64_t)(h * 3600000.0);
		ev[i].uptime_ms = (int64_t)(h * 3600000.0);
		ev[i].pause_us = 10000 + (int64_t)(i % 7) * 1000;
		double after = floor_mb(h) + (double)(i % 5) * 8.0; /* young residue 0..32 MB */
		ev[i].heap_after_kb = (int64_t)(after * 1024);
		ev[i].heap_before_kb = ev[i].heap_after_kb + 200 * 1024;
		ev[i].heap_total_kb = 1024 * 1024;
	}
	*n = cnt;
	return ev;
}

static double warmup_then_flat(double h) { return h < 0.5 ? 100 + 1000 * h : 600 + 5 * sin(h * 9); }
static double sawtooth(double h) { return 300 + 400 * fmod(h, 0.66) / 0.66; }
static double rising(double h) { return 200 + 50 * h; }
static double slow_rise(double h) { return 500 + 4 * h; } /* 24 MB in 6 h of a 1 GB heap */

static enum gca_memory judge(double hours, double (*f)(double), struct gca_result *r)
{
	size_t n;
	char err[128];
	struct gcp_event *ev = series(hours, 10, f, &n);
	assert_int_equal(gca_analyze(ev, n, r, err, sizeof err), 0);
	free(ev);
	print_message("# %s (%s): %s\n", gca_memory_name(r->memory), r->basis, r->why);
	return r->memory;
}

static void synthetic(void **state)
{
	struct gca_result r;
	(void)state;
	assert_int_equal(judge(4, warmup_then_flat, &r), GCA_NORMAL);
	gca_result_free(&r);
	assert_int_equal(judge(4, sawtooth, &r), GCA_NORMAL);
	gca_result_free(&r);
	assert_int_equal(judge(6, slow_rise, &r), GCA_NORMAL);
	assert_true(r.slope_mb_per_h > 2 && r.slope_mb_per_h < 6);
	gca_result_free(&r);
	assert_int_equal(judge(6, rising, &r), GCA_SUSPECTED_LEAK);
	/* the floor of each window is the residue-free value: exactly 50 MB/h */
	assert_true(fabs(r.slope_mb_per_h - 50) < 1.5);
	assert_true(r.r2 > 0.99);
	assert_int_equal(r.npoints, GCA_WINDOWS);
	gca_result_free(&r);
}

/* Three full GCs or more: their post-full heap is the series. */
static void post_full(void **state)
{
	size_t n;
	char err[128];
	struct gca_result r;
	(void)state;
	struct gcp_event *ev = series(10, 60, rising, &n);
	for (size_t i = 0; i < n; i += 60) /* a full GC every hour, down to the floor */
		ev[i].kind = GCP_FULL, ev[i].heap_after_kb = (int64_t)(rising(i / 60.0) * 1024);
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	assert_string_equal(r.basis, "post-full");
	assert_int_equal(r.memory, GCA_SUSPECTED_LEAK);
	assert_true(fabs(r.slope_mb_per_h - 50) < 0.5);
	gca_result_free(&r);
	free(ev);
}

static void pauses_and_edges(void **state)
{
	struct gcp_event ev[200];
	struct gca_result r;
	char err[128];
	(void)state;
	for (int i = 0; i < 200; i++) {
		gcp_event_clear(&ev[i]);
		ev[i].kind = i % 2 ? GCP_YOUNG : GCP_SAFEPOINT;
		ev[i].t_ms = 1000 * i;
		ev[i].pause_us = (i + 1) * 1000; /* safepoints are not pauses */
	}
	assert_int_equal(gca_analyze(ev, 200, &r, err, sizeof err), 0);
	assert_int_equal(r.pauses, 100);
	assert_true(fabs(r.pause_total_ms - 10100.0) < 1e-9); /* 2+4+...+200 ms */
	assert_true(fabs(r.pause_max_ms - 200.0) < 1e-9);
	assert_true(fabs(r.pause_p99_ms - 198.0) < 1e-9); /* rank 99 of 100 */
	assert_int_equal(r.count[GCP_SAFEPOINT], 100);
	/* span 0 .. 199 s + 200 ms */
	assert_true(fabs(r.gc_time_pct - 10100.0 * 100 / 199200.0) < 1e-9);
	assert_int_equal(r.memory, GCA_UNKNOWN); /* no heap figures */
	gca_result_free(&r);
	assert_int_equal(gca_analyze(ev, 0, &r, err, sizeof err), 0);
	assert_int_equal(r.events, 0);
	gca_result_free(&r);

	double x[] = {0, 1, 2, 3}, y[] = {1, 3, 5, 7}, s, i, r2;
	assert_int_equal(gca_linreg(x, y, 4, &s, &i, &r2), 0);
	assert_true(fabs(s - 2) < 1e-12 && fabs(i - 1) < 1e-12 && fabs(r2 - 1) < 1e-12);
	assert_int_equal(gca_linreg(x, y, 1, &s, &i, &r2), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jdk17_verdicts),
		cmocka_unit_test(synthetic),
		cmocka_unit_test(post_full),
		cmocka_unit_test(pauses_and_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
