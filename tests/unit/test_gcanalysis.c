/* Memory verdicts on every fixture with a known truth, printed as a table (the measurement
 * of the verdicts): the JDK 17 corpus (every stable-* normal and every leak-* a suspected
 * leak by its trend, all too short a window: one minute), the generated logs of
 * tests/data/gc/gen (a leak to OutOfMemoryError: exhausted; a stable live set: too short,
 * normal trend; slow leaks before and after their first old collection), the synthetic J9
 * logs (30-minute stable ones: normal; one whose tenure fills: exhausted), a real
 * production log whose old generation stayed full, real containers under load that never
 * needed an old collection; synthetic heap series: trends, the window rule, rising and the
 * headroom, exhaustion; pause statistics and the regression. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcanalysis.h"
#include "gctest.h"

/* One row of the verdict table: the files (a rotated set is several) and what is true. */
struct want {
	const char *files[4];
	enum gca_memory memory; /* the verdict */
	enum gca_memory trend;  /* the trend alone (GCA_UNKNOWN: not asserted) */
	int64_t failed;         /* failed collections in the log (grep-counted) */
};

static int verdict_of(const struct want *w)
{
	struct gct g;
	struct gca_result r;
	char err[128];
	int ok;

	gct_parse_anchored(&g, GCP_NONE, w->files);
	assert_int_equal(gca_analyze(g.ev, g.n, &r, err, sizeof err), 0);
	ok = r.memory == w->memory && (w->trend == GCA_UNKNOWN || r.trend == w->trend);
	print_message("# | %-42s | %-9s %-14s | %-9s %-14s | %s\n", w->files[0],
	              gca_memory_name(w->memory),
	              w->trend == GCA_UNKNOWN ? "-" : gca_memory_name(w->trend),
	              gca_memory_name(r.memory), gca_memory_name(r.trend), ok ? "ok" : "WRONG");
	print_message("#   %s\n", r.why);
	assert_int_equal(r.memory, w->memory);
	assert_int_equal(r.failed, w->failed);
	if (w->trend != GCA_UNKNOWN)
		assert_int_equal(r.trend, w->trend);
	if (r.memory == GCA_EXHAUSTED) {
		/* the evidence, with its numbers */
		assert_true(r.exh_streak >= GCA_EXH_STREAK);
		assert_true(r.exh_max_pct >= GCA_EXH_CEIL * 100);
		assert_true(r.exh_to_ms >= r.exh_from_ms && r.exh_from_ms >= r.steady_from_ms);
		assert_true(r.exh_gc_pct > r.pre_gc_pct); /* GC time rose */
		assert_non_null(strstr(r.why, "back-to-back full collections"));
	} else {
		assert_true(r.npoints >= GCA_MIN_POINTS);
		assert_non_null(r.points);
		assert_true(r.steady_from_ms > r.first_ms && r.steady_to_ms == r.last_ms);
	}
	if (r.memory == GCA_TOO_SHORT) {
		assert_true(gca_too_short(r.steady_to_ms - r.steady_from_ms));
		/* how much longer: to a log of GCA_MIN_WINDOW_MS after its warm-up share */
		double need_h = GCA_MIN_WINDOW_MS / (1 - GCA_WARMUP_FRAC) / 3600000.0;
		assert_true(fabs(r.run_longer_h + (double)(r.last_ms - r.first_ms) / 3600000.0 -
		                 need_h) < 1e-9);
		assert_non_null(strstr(r.why, "longer; alone, "));
	} else if (r.memory != GCA_EXHAUSTED) {
		assert_false(gca_too_short(r.steady_to_ms - r.steady_from_ms));
	}
	/* a verdict on fewer old-generation cycles than a trend needs says so, with the
	 * headroom; one on enough of them is the trend */
	if (r.memory == GCA_NORMAL || r.memory == GCA_SUSPECTED_LEAK)
		assert_true(
		    r.old_cycles >= GCA_MIN_OLD_CYCLES ||
		    (r.memory == GCA_NORMAL &&
		     strstr(r.why, r.old_cycles ? "and piles nothing up"
		                                : "never needed an old-generation collection")));
	if (r.memory == GCA_RISING)
		assert_true(r.old_cycles < GCA_MIN_OLD_CYCLES &&
		            strstr(r.why, "a leak is not ruled out"));
	gca_result_free(&r);
	gct_free(&g);
	return ok;
}

static void verdict_table(void **state)
{
	static const char *const collectors[] = {"g1", "parallel", "serial", "zgc", "shenandoah"};
	static const char *const variants[] = {"gc", "gcstar"};
	static char names[64][96];
	struct want w[64];
	size_t n = 0, right = 0;
	(void)state;

	memset(w, 0, sizeof w);
	for (size_t c = 0; c < 5; c++)
		for (size_t v = 0; v < 2; v++)
			for (int leak = 0; leak < 2; leak++) {
				snprintf(names[n], sizeof names[n], "jdk17/%s-%s-%s.log",
				         leak ? "leak" : "stable", collectors[c], variants[v]);
				w[n].files[0] = names[n];
				w[n].memory = GCA_TOO_SHORT; /* one-minute runs */
				w[n++].trend = leak ? GCA_SUSPECTED_LEAK : GCA_NORMAL;
			}
	w[n++] = (struct want){{"jdk17/leak-g1-rotating.log.0", "jdk17/leak-g1-rotating.log.1",
	                        "jdk17/leak-g1-rotating.log", NULL},
	                       GCA_TOO_SHORT,
	                       GCA_SUSPECTED_LEAK,
	                       0};
	w[n++] = (struct want){
	    {"jdk17/stable-g1-safepoint-decorations.log", NULL}, GCA_TOO_SHORT, GCA_NORMAL, 0};
	w[n++] = (struct want){{"jdk17/killed-parallel-gcstar.log", NULL},
	                       GCA_TOO_SHORT,
	                       GCA_NORMAL,
	                       0}; /* StableChurn */
	for (size_t c = 0; c < 3; c++)
		for (size_t v = 0; v < 2; v++)
			for (int oom = 0; oom < 2; oom++) {
				snprintf(names[n], sizeof names[n], "gen/%s-%s-%s.log",
				         oom ? "oom" : "stable", collectors[c], variants[v]);
				w[n].files[0] = names[n];
				w[n].memory = oom ? GCA_EXHAUSTED : GCA_TOO_SHORT;
				/* grep -c 'To-space exhausted' gen/oom-g1-gc*.log */
				w[n].failed = oom && c == 0 ? 33 : 0;
				w[n++].trend = oom ? GCA_UNKNOWN : GCA_NORMAL;
			}
	/* J9 / OpenJ9, written by j9/synth.sh: two 30-minute stable logs (older and newer
	 * form) and a live set growing into the tenure's ceiling (6 percolates). */
	w[n++] = (struct want){{"j9/synthetic-old-stable.xml", NULL}, GCA_NORMAL, GCA_NORMAL, 0};
	w[n++] = (struct want){{"j9/synthetic-new-stable.xml", NULL}, GCA_NORMAL, GCA_NORMAL, 0};
	w[n++] =
	    (struct want){{"j9/synthetic-new-exhaust.xml", NULL}, GCA_EXHAUSTED, GCA_UNKNOWN, 6};
	/* JDK 8 Parallel in production: ParOldGen 99.99 % full after 153 full GCs in a row. */
	w[n++] =
	    (struct want){{"gctoolkit__bbvc.log.32.current", NULL}, GCA_EXHAUSTED, GCA_UNKNOWN, 0};
	/* Real servlet containers under load for 35 and 50 minutes (G1, 256 MB): many young
	 * pauses, the old generation flat and never collected: normal. */
	static const char *const healthy[] = {
	    "containers/tomcat10-g1-gcstar.log", "containers/tomcat10-g1-gc.log",
	    "containers/tomcat9-g1-gcstar.log", "containers/tomcat9-g1-gc.log"};
	for (size_t i = 0; i < 4; i++)
		w[n++] = (struct want){{healthy[i], NULL}, GCA_NORMAL, GCA_NORMAL, 0};
	/* Slow leaks (trickle/trickle.sh): their first 25 minutes, the floor rising with no old
	 * collection yet: rising (a leak not ruled out); the whole logs, once the old
	 * collections came: G1's free nothing (suspected leak), Parallel's and Serial's end at
	 * the ceiling (exhausted). */
	for (size_t c = 0; c < 3; c++) {
		for (size_t v = 0; v < 2; v++) {
			snprintf(names[n], sizeof names[n], "trickle/trickle-%s-%s.log",
			         collectors[c], variants[v]);
			w[n].files[0] = names[n];
			w[n].memory = GCA_RISING;
			w[n++].trend = GCA_SUSPECTED_LEAK;
		}
		snprintf(names[n], sizeof names[n], "trickle/trickle-%s-gc-full.log",
		         collectors[c]);
		w[n].files[0] = names[n];
		w[n++].memory = c == 0 ? GCA_SUSPECTED_LEAK : GCA_EXHAUSTED;
	}
	print_message("# | %-42s | %-24s | %-24s |\n", "fixture", "expected (verdict, trend)",
	              "got (verdict, trend)");
	for (size_t i = 0; i < n; i++)
		right += (size_t)verdict_of(&w[i]);
	print_message("# %zu of %zu verdicts right, error rate %.1f%%\n", right, n,
	              100.0 * (double)(n - right) / (double)n);
	assert_int_equal(right, n);
}

/* A synthetic log: one young GC every `step` s for `hours`, heap 1 GB, heap-after =
 * floor(t) plus a young-generation residue that cycles. */
static struct gcp_event *series(double hours, double step, double (*floor_mb)(double h), size_t *n)
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
		if (i % 180 == 90) { /* a concurrent old-generation cycle ends every 30 min */
			ev[i].kind = GCP_REMARK;
			ev[i].gc_id = (int64_t)i;
		}
	}
	*n = cnt;
	return ev;
}

static double warmup_then_flat(double h)
{
	return h < 0.5 ? 100 + 1000 * h : 600 + 5 * sin(h * 9);
}
static double sawtooth(double h)
{
	return 300 + 400 * fmod(h, 0.66) / 0.66;
}
static double rising(double h)
{
	return 200 + 50 * h;
}
static double slow_rise(double h)
{
	return 500 + 4 * h;
} /* 24 MB in 6 h of a 1 GB heap */

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

/* The series' events all young collections: no old-generation cycle. */
static void young_only(struct gcp_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ev[i].kind = GCP_YOUNG, ev[i].gc_id = GCP_NONE;
}

/* The one window rule: 10 minutes of steady window; fewer than 3 old-generation cycles
 * make a rising floor `rising`, not a suspected leak. */
static void window_rule(void **state)
{
	size_t n;
	char err[128];
	struct gca_result r;
	(void)state;
	assert_true(gca_too_short(GCA_MIN_WINDOW_MS - 1));
	assert_false(gca_too_short(GCA_MIN_WINDOW_MS));
	assert_true(gca_too_short(37000)); /* the 37-second run of the issue */

	/* A clear leak over 12 minutes (steady window 9.6 min): too short, and says so with
	 * what the trend alone found. */
	struct gcp_event *ev = series(0.2, 10, rising, &n);
	for (size_t i = 0; i < n; i += 10)
		ev[i].kind = GCP_REMARK, ev[i].gc_id = (int64_t)i;
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	assert_int_equal(r.memory, GCA_TOO_SHORT);
	assert_true(r.old_cycles >= 3);
	assert_non_null(strstr(r.why, "too short to judge a trend"));
	print_message("# %s\n", r.why);
	/* the last young collection ends at 710.011 s (an 11 ms pause from 710 s): 568 s
	 * of steady window */
	assert_non_null(strstr(r.why, "9m28s of steady window"));
	/* 12.5 min (750 s) of log are needed: 40 s more, said as a scenario would */
	assert_true(fabs(r.run_longer_h * 3600 - (750 - 710.011)) < 1e-6);
	assert_non_null(strstr(r.why, "run at least 40s longer"));
	gca_result_free(&r);
	free(ev);

	/* Six hours without any old-generation cycle: the floor may be old garbage waiting,
	 * or a leak.  It rises 50 MB/h from 200 MB (its last window's floor: about 470 MB)
	 * toward the full 1 GB heap (no G1 cause, no old-generation figures): about 11 h. */
	ev = series(6, 10, rising, &n);
	young_only(ev, n);
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.old_cycles, 0);
	assert_int_equal(r.memory, GCA_RISING);
	assert_int_equal(r.trend, GCA_SUSPECTED_LEAK);
	assert_int_equal(r.trigger, GCA_TRIG_HEAP_FULL);
	assert_string_equal(r.level_of, "heap");
	assert_true(fabs(r.trigger_mb - 1024) < 1e-9);
	assert_true(fabs(r.level_mb - r.points[r.npoints - 1].heap_mb) < 1e-9);
	assert_true(isnan(r.promo_mb_per_h));
	assert_true(fabs(r.growth_mb_per_h - r.slope_mb_per_h) < 1e-9);
	assert_true(fabs(r.to_trigger_h - (1024 - r.level_mb) / r.slope_mb_per_h) < 1e-9);
	assert_true(r.to_trigger_h > 10 && r.to_trigger_h < 12);
	assert_true(fabs(r.run_longer_h - r.to_trigger_h) < 1e-9);
	assert_non_null(strstr(r.why, "a leak is not ruled out"));
	assert_non_null(strstr(r.why, "no old-generation cycle"));
	assert_non_null(strstr(r.why, "the heap's capacity (1024 MB)"));
	assert_non_null(strstr(r.why, "run at least 1"));
	gca_result_free(&r);
	/* ... G1 (its cause says so) starts a concurrent cycle at 45 % of the heap: sooner */
	for (size_t i = 0; i < n; i++)
		snprintf(ev[i].cause, sizeof ev[i].cause, "G1 Evacuation Pause");
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_RISING);
	assert_int_equal(r.trigger, GCA_TRIG_G1_IHOP);
	assert_true(fabs(r.trigger_mb - 0.45 * 1024) < 1e-9);
	assert_true(r.level_mb >= r.trigger_mb); /* already past it: one is due */
	assert_true(r.to_trigger_h == 0 && isnan(r.run_longer_h));
	assert_non_null(strstr(r.why, "already at or past the 45% of the heap (461 MB)"));
	assert_non_null(strstr(r.why, "if none comes soon, force a full collection"));
	gca_result_free(&r);
	/* ... and flat, with no old-generation cycle: normal, with its headroom */
	for (size_t i = 0; i < n; i++) {
		ev[i].heap_after_kb = (int64_t)((30 + (double)(i % 5)) * 1024);
		ev[i].heap_total_kb = 256 * 1024;
	}
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_NORMAL);
	assert_true(fabs(r.level_mb - 30) < 1e-9 && fabs(r.cap_mb - 256) < 1e-9);
	assert_true(isinf(r.to_trigger_h) && isnan(r.run_longer_h));
	assert_non_null(strstr(r.why, "never needed an old-generation collection"));
	assert_non_null(strstr(r.why, "the heap after GC holds 30.0 MB (12% of the 256 MB heap), "
	                              "85.2 MB below the 45% of the heap (115 MB)"));
	assert_non_null(strstr(r.why, "it gains less than 1 MB over the window, so none is "
	                              "in sight"));
	gca_result_free(&r);
	/* Promotion, from the old generation at young collections (-Xlog:gc*): 1 MB every
	 * 120th collection (20 min), 3 MB/h, and the heap after GC the old generation plus a
	 * young residue: its floor rises 3 MB/h too, 14 MB over the window (6 %: normal); the
	 * old generation is the level, the floor's slope the rate */
	int64_t old = 20 * 1024;
	for (size_t i = 0; i < n; i++) {
		ev[i].old_before_kb = old;
		old += i % 120 == 119 ? 1024 : 0;
		ev[i].old_after_kb = old;
		ev[i].heap_after_kb = old + (int64_t)(i % 5) * 1024;
	}
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_NORMAL);
	assert_string_equal(r.level_of, "old generation");
	/* 15 steps of 1 MB in the 4.8 h window */
	assert_true(fabs(r.promo_mb_per_h -
	                 15 / ((double)(r.steady_to_ms - r.steady_from_ms) / 3600000.0)) < 1e-9);
	assert_true(fabs(r.slope_mb_per_h - 3) < 0.2);
	assert_true(fabs(r.growth_mb_per_h - r.slope_mb_per_h) < 1e-9);
	assert_true(fabs(r.level_mb - (double)old / 1024) < 1e-9);
	assert_true(fabs(r.to_trigger_h - (0.45 * 256 - r.level_mb) / r.slope_mb_per_h) < 1e-9);
	assert_non_null(strstr(r.why, "at the floor's +3.0 MB/h (promotion +3.1 MB/h) it would "
	                              "get there in about 1d2h"));
	gca_result_free(&r);
	/* ... the floor rising 3 MB/h while the old generation gains 1 MB/h: the survivor
	 * spaces fill, the old generation is what an old collection waits for, so a floor
	 * that does not keep rising is projected at its promotion */
	old = 20 * 1024;
	for (size_t i = 0; i < n; i++) {
		ev[i].old_before_kb = old;
		old += i % 360 == 359 ? 1024 : 0;
		ev[i].old_after_kb = old;
		ev[i].heap_after_kb =
		    (int64_t)((20 + 3.0 * (double)i * 10 / 3600 + (double)(i % 5)) * 1024);
	}
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_NORMAL);
	assert_true(r.growth_of_promo);
	assert_true(fabs(r.growth_mb_per_h - r.promo_mb_per_h) < 1e-9);
	assert_true(fabs(r.to_trigger_h - (0.45 * 256 - r.level_mb) / r.promo_mb_per_h) < 1e-9);
	assert_non_null(strstr(r.why, "at its promotion of +1.0 MB/h (the floor: +3.0 MB/h)"));
	gca_result_free(&r);
	/* ... and none at all: nothing in sight, whatever the survivor spaces do */
	for (size_t i = 0; i < n; i++)
		ev[i].old_before_kb = ev[i].old_after_kb = 20 * 1024;
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	assert_int_equal(r.memory, GCA_NORMAL);
	assert_true(r.growth_mb_per_h == 0 && isinf(r.to_trigger_h));
	assert_non_null(strstr(r.why, "it gains less than 1 MB over the window (promotion "
	                              "+0.00 MB/h), so none is in sight"));
	gca_result_free(&r);
	/* ... not G1, with the old generation's capacity: a full collection when it fills */
	for (size_t i = 0; i < n; i++)
		ev[i].cause[0] = '\0', ev[i].old_total_kb = 170 * 1024;
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.trigger, GCA_TRIG_OLD_FULL);
	assert_true(fabs(r.trigger_mb - 170) < 1e-9 && fabs(r.cap_mb - 170) < 1e-9);
	assert_non_null(strstr(r.why, "of its 170 MB), "));
	assert_non_null(strstr(r.why, "below the old generation's capacity (170 MB)"));
	gca_result_free(&r);
	free(ev);

	/* A day of a slow, steady rise far from its trigger (2 MB/h from 20 MB in a 256 MB
	 * heap, not G1: 38 MB over the window, 15 %; about 94 h to fill the heap): longer
	 * than a run can wait */
	ev = series(24, 60, rising, &n);
	young_only(ev, n);
	for (size_t i = 0; i < n; i++) {
		double h = (double)i * 60 / 3600;
		ev[i].heap_after_kb = (int64_t)((20 + 2 * h + (double)(i % 5)) * 1024);
		ev[i].heap_total_kb = 256 * 1024;
	}
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_RISING);
	assert_true(r.to_trigger_h > GCA_LONGER_MAX_H && isnan(r.run_longer_h));
	assert_non_null(strstr(r.why, "that is longer than a run can wait, so force a full"));
	gca_result_free(&r);
	free(ev);

	/* Six hours of a rising floor with one old-generation cycle: still rising */
	ev = series(6, 10, rising, &n);
	young_only(ev, n);
	ev[n / 2].kind = GCP_REMARK;
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.old_cycles, 1);
	assert_int_equal(r.memory, GCA_RISING);
	assert_non_null(strstr(r.why, "rises with too few old-generation collections to tell"));
	assert_non_null(strstr(r.why, "only 1 old-generation cycle (3 tell a leak)"));
	gca_result_free(&r);
	/* ... and flat with it: normal, nothing piles up */
	for (size_t i = 0; i < n; i++)
		ev[i].heap_after_kb = (int64_t)((300 + (double)(i % 5)) * 1024);
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_NORMAL);
	assert_non_null(strstr(r.why, "heap after GC is flat and piles nothing up: "));
	assert_non_null(strstr(r.why, "only 1 old-generation cycle (3 tell a leak)"));
	for (size_t i = 0; i < n; i++) /* the rising floor of series() again */
		ev[i].heap_after_kb =
		    (int64_t)((rising((double)i * 10 / 3600) + (double)(i % 5) * 8.0) * 1024);
	gca_result_free(&r);
	/* ... and with three, the trend stands.  One cycle's remark and its concurrent phase
	 * (same GC id) count once. */
	for (size_t i = n / 2; i < n / 2 + 3 * 60; i += 60) {
		ev[i].kind = GCP_REMARK, ev[i].gc_id = (int64_t)i;
		ev[i + 1].kind = GCP_CONCURRENT, ev[i + 1].gc_id = (int64_t)i;
	}
	assert_int_equal(gca_analyze(ev, n, &r, err, sizeof err), 0);
	assert_int_equal(r.old_cycles, 3);
	assert_int_equal(r.memory, GCA_SUSPECTED_LEAK);
	gca_result_free(&r);
	free(ev);
}

/* Exhaustion on made-up heaps of 100 MB: full collections at the ceiling in a row. */
static void exhaustion_rules(void **state)
{
	struct gcp_event ev[60];
	struct gca_result r;
	char err[128];
	(void)state;
	for (int i = 0; i < 60; i++) { /* an hour of young GCs leaving 40 MB */
		gcp_event_clear(&ev[i]);
		ev[i].kind = GCP_YOUNG;
		ev[i].t_ms = 1000000 + (int64_t)i * 60000;
		ev[i].pause_us = 5000;
		ev[i].heap_before_kb = 90 * 1024, ev[i].heap_after_kb = 40 * 1024;
		ev[i].heap_total_kb = 100 * 1024;
	}
	/* two fulls at 95 %: not yet */
	for (int i = 50; i < 52; i++)
		ev[i].kind = GCP_FULL, ev[i].heap_after_kb = 95 * 1024, ev[i].pause_us = 800000;
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_not_equal(r.memory, GCA_EXHAUSTED);
	assert_int_equal(r.exh_streak, 2);
	gca_result_free(&r);
	/* a third in a row: exhausted, with its numbers */
	ev[52] = ev[51];
	ev[52].t_ms = ev[51].t_ms + 60000;
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	print_message("# %s\n", r.why);
	assert_int_equal(r.memory, GCA_EXHAUSTED);
	assert_int_equal(r.exh_fulls, 3);
	assert_true(fabs(r.exh_max_pct - 95) < 1e-9);
	assert_true(fabs(r.exh_gc_pct - 2400.0 * 100 / 120800) < 0.01); /* 3 x 0.8 s in 120.8 s */
	assert_non_null(strstr(r.why, "3 back-to-back full collections"));
	assert_non_null(strstr(r.why, "95-95% of capacity"));
	gca_result_free(&r);
	/* a young collection below the ceiling between them breaks the run */
	ev[51].kind = GCP_YOUNG, ev[51].heap_after_kb = 40 * 1024;
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_not_equal(r.memory, GCA_EXHAUSTED);
	gca_result_free(&r);
	/* ... one at the ceiling does not; nor does a remark (not a collection of the run) */
	ev[51].heap_after_kb = 90 * 1024;
	ev[53] = ev[52], ev[52].kind = GCP_REMARK, ev[52].heap_after_kb = 10 * 1024;
	ev[53].t_ms += 30000;
	ev[54] = ev[53], ev[54].t_ms += 1000;
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_equal(r.memory, GCA_EXHAUSTED);
	assert_int_equal(r.exh_fulls, 3);
	gca_result_free(&r);
	/* a full collection that frees down to 60 % is not at the ceiling: three failed young
	 * collections in a row are exhaustion all the same (a to-space exhaustion storm) */
	for (int i = 50; i < 55; i++)
		ev[i].kind = GCP_YOUNG, ev[i].heap_after_kb = 60 * 1024, ev[i].pause_us = 5000;
	for (int i = 50; i < 53; i++)
		snprintf(ev[i].cause, sizeof ev[i].cause,
		         "G1 Evacuation Pause; to-space exhausted");
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_equal(r.memory, GCA_EXHAUSTED);
	assert_int_equal(r.exh_failed, 3);
	assert_int_equal(r.failed, 3);
	gca_result_free(&r);
	/* the same in the warm-up (first fifth) does not count */
	for (int i = 50; i < 53; i++)
		ev[i].cause[0] = 0;
	for (int i = 2; i < 5; i++)
		snprintf(ev[i].cause, sizeof ev[i].cause,
		         "G1 Evacuation Pause; to-space exhausted");
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_not_equal(r.memory, GCA_EXHAUSTED);
	assert_int_equal(r.failed, 3);
	gca_result_free(&r);
	/* the old generation full after full collections is the ceiling too (-Xlog:gc*) */
	for (int i = 2; i < 5; i++)
		ev[i].cause[0] = 0;
	for (int i = 50; i < 53; i++) {
		ev[i].kind = GCP_FULL;
		ev[i].old_after_kb = 64 * 1024 - 100, ev[i].old_total_kb = 64 * 1024;
	}
	assert_int_equal(gca_analyze(ev, 60, &r, err, sizeof err), 0);
	assert_int_equal(r.memory, GCA_EXHAUSTED);
	gca_result_free(&r);
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
	    cmocka_unit_test(verdict_table),    cmocka_unit_test(synthetic),
	    cmocka_unit_test(post_full),        cmocka_unit_test(window_rule),
	    cmocka_unit_test(exhaustion_rules), cmocka_unit_test(pauses_and_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
