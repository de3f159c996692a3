/* The drift verdict's judgement (report_drift.c) and process memory judged like the heap
 * (report_mem.c), on synthetic numbers whose answer is known. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdio.h>

#include "dur.h"
#include "report/report_int.h"
#include "report/judge/report_drift.h"
#include "report/judge/report_mem.h"
#include "report/report_text.h"
#include "report/write/report_drift_text.h"
#include "report/write/report_mem_text.h"

/* The drift's sentence (report_drift_text.c), in a buffer that lives until the next call. */
static const char *sentence(const struct rpt_drift *d)
{
	static struct sbuf b;
	rpt_sb_release(&b);
	rpt_drift_sentence(&b, d);
	return rpt_sb_str(&b);
}

/* The memory verdict's sentence, the same way. */
static const char *mem_why(const struct rpt_mem *m)
{
	static struct sbuf b;
	rpt_sb_release(&b);
	rpt_mem_why(&b, m);
	return rpt_sb_str(&b);
}

/* A deterministic generator (xorshift64*), uniform in [-1, 1). */
static double noise(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return 2.0 * (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0 - 1;
}

/* n values around mean, +- spread. */
static double *values(size_t n, double mean, double spread, uint64_t seed)
{
	double *v = malloc(n * sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = mean + spread * noise(&seed);
	return v;
}

/* A metric of kind k from first to last, judged on 60 observations a side. */
static struct rpt_drift_metric judged(enum rpt_drift_kind k, double first, double last,
                                      double spread, int counts)
{
	struct rpt_drift_metric m;
	double *a = values(60, first, spread, 7), *b = values(60, last, spread, 11);
	memset(&m, 0, sizeof m);
	m.kind = k;
	m.first = first;
	m.last = last;
	m.counts = counts;
	rpt_drift_compare(&m, a, 60, b, 60);
	free(a);
	free(b);
	return m;
}

static void compare_effects(void **state)
{
	struct rpt_drift_metric m;
	(void)state;
	/* p99 +38 %, tight: real and worse. */
	m = judged(RPT_DK_P99, 100, 138, 5, 1);
	assert_int_equal(m.d.verdict, RPT_REAL);
	assert_int_equal(m.effect, 1);
	assert_true(fabs(m.change_pct - 38) < 1e-9);
	/* TPS down 20 %: worse; up 20 %: better. */
	assert_int_equal(judged(RPT_DK_TPS, 500, 400, 10, 1).effect, 1);
	assert_int_equal(judged(RPT_DK_TPS, 400, 500, 10, 1).effect, -1);
	/* Real but small (2 % of the mean, under its 5 %): no effect. */
	m = judged(RPT_DK_MEAN, 100, 102, 0.5, 1);
	assert_int_equal(m.d.verdict, RPT_REAL);
	assert_int_equal(m.effect, 0);
	/* Large but lost in the noise. */
	m = judged(RPT_DK_MEAN, 100, 120, 400, 1);
	assert_int_equal(m.d.verdict, RPT_NOISE);
	assert_int_equal(m.effect, 0);
	/* Memory that rises for real never counts (the memory verdict judges it), nor does it
	 * "improve" when it falls; GC time and pauses are said beside the verdict too. */
	m = judged(RPT_DK_MEM, 100, 150, 1, 1);
	assert_int_equal(m.d.verdict, RPT_REAL);
	assert_int_equal(m.effect, 0);
	assert_int_equal(m.counts, 0);
	assert_int_equal(judged(RPT_DK_MEM, 150, 100, 1, 1).effect, 0);
	assert_int_equal(judged(RPT_DK_GC, 1, 3, 0.1, 1).effect, 0);
	/* CPU per request, the service's cost, counts. */
	assert_int_equal(judged(RPT_DK_CPU_REQ, 1.0, 1.2, 0.01, 1).effect, 1);
	/* Errors in points: +0.05 points is too small, +0.5 counts. */
	assert_int_equal(judged(RPT_DK_ERR, 0.10, 0.15, 0.01, 1).effect, 0);
	assert_int_equal(judged(RPT_DK_ERR, 0.10, 0.60, 0.01, 1).effect, 1);
	/* A pause from none to some: no relative change, named but not counted. */
	m = judged(RPT_DK_PAUSE, 0, 20, 2, 1);
	assert_true(isnan(m.change_pct));
	assert_int_equal(m.effect, 0);
	assert_int_equal(m.d.verdict, RPT_REAL);
}

/* A drift with one thirds comparison holding ms[0..n). */
static void one_cmp(struct rpt_drift *d, struct rpt_drift_metric *ms, int n)
{
	memset(d, 0, sizeof *d);
	d->window_s = 7200;
	d->nintervals = 720;
	d->ncmp = 1;
	d->cmp[0].m = ms;
	d->cmp[0].nm = n;
}

static void judge_verdicts(void **state)
{
	struct rpt_drift_metric ms[4];
	struct rpt_drift d;
	char msgs[4][256];
	(void)state;

	ms[0] = judged(RPT_DK_TPS, 500, 499, 10, 1);
	ms[1] = judged(RPT_DK_MEAN, 20, 20.1, 1, 1);
	ms[2] = judged(RPT_DK_P99, 40, 40.2, 2, 1);
	one_cmp(&d, ms, 3);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_STABLE);
	assert_string_equal(rpt_drift_name(d.verdict), "stable");
	assert_non_null(strstr(sentence(&d), "stable over its 2h measured window"));

	ms[2] = judged(RPT_DK_P99, 40, 55.2, 2, 1); /* +38 % */
	ms[3] = judged(RPT_DK_CPU_REQ, 1.0, 1.12, 0.01, 1);
	strcpy(ms[3].source, "app");
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_DEGRADING);
	assert_non_null(strstr(sentence(&d), "p99 +38.0% (real)"));
	assert_non_null(strstr(sentence(&d), "CPU per request (app) +12.0% (real)"));
	assert_non_null(strstr(sentence(&d), "each request costs more CPU"));
	/* The thresholds: p99 +38 % breaks 20 %, not 50 %; TPS and mean unset. */
	assert_int_equal(rpt_drift_breaches(&d, -1, -1, 0.20, &msgs[0][0], sizeof msgs[0], 4), 1);
	assert_non_null(strstr(msgs[0], "p99 rose 38.0% from the first third to the last"));
	assert_int_equal(rpt_drift_breaches(&d, -1, -1, 0.50, &msgs[0][0], sizeof msgs[0], 4), 0);
	assert_int_equal(rpt_drift_breaches(&d, 0.01, 0.01, -1, &msgs[0][0], sizeof msgs[0], 4), 0);

	ms[0] = judged(RPT_DK_TPS, 400, 500, 10, 1);
	ms[1] = judged(RPT_DK_MEAN, 30, 24, 1, 1);
	ms[2] = judged(RPT_DK_P99, 60, 45, 2, 1);
	one_cmp(&d, ms, 3);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_IMPROVING);
	assert_non_null(strstr(sentence(&d), "warming up"));
	/* A TPS fall beyond drift_tps breaks it; an improvement never does. */
	assert_int_equal(rpt_drift_breaches(&d, 0.05, 0.05, 0.05, &msgs[0][0], sizeof msgs[0], 4),
	                 0);

	memset(&d, 0, sizeof d);
	d.nintervals = 12;
	d.window_s = 60;
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_TOO_SHORT);
	assert_string_equal(sentence(&d),
	                    "too short to judge drift: 12 steady intervals in the 1m measured "
	                    "window, and each third needs 10.");
}

/* The machine probe: never a verdict, but a slower machine under a degrading run (a faster
 * one under an improving run) turns the hint to the machine; a probe that moved the other
 * way, or within noise, leaves the server blamed. */
/* ms[0..3): TPS, mean and p99, each from its first figure to its last (tight). */
static void traffic(struct rpt_drift_metric *ms, const double (*fl)[2])
{
	static const enum rpt_drift_kind k[] = {RPT_DK_TPS, RPT_DK_MEAN, RPT_DK_P99};
	static const double spread[] = {10, 1, 2};
	for (int i = 0; i < 3; i++)
		ms[i] = judged(k[i], fl[i][0], fl[i][1], spread[i], 1);
}

/* TPS -20 %, mean +25 %, p99 +25 %. */
static void slower(struct rpt_drift_metric *ms)
{
	traffic(ms, (const double[][2]){{500, 400}, {20, 25}, {40, 50}});
}

static void machine_probe(void **state)
{
	struct rpt_drift_metric ms[4];
	struct rpt_drift d;
	(void)state;

	slower(ms);
	ms[3] = judged(RPT_DK_MACHINE, 180, 207, 5, 0); /* +15 %, tight */
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_DEGRADING);
	assert_int_equal(d.machine, 1);
	assert_int_equal(d.cmp[0].m[3].effect, 0); /* shown, never counted */
	assert_non_null(strstr(sentence(&d),
	                       "but the machine's own probe time +15.0% (real) from "
	                       "the first third to the last as well: the machine soak "
	                       "ran on slowed"));
	assert_null(strstr(sentence(&d), "the server slows down"));
	assert_int_equal(rpt_drift_named(&d.cmp[0].m[3]), 1);
	/* The probe does not widen the others' family: with it, the TPS interval is the one of
	 * three metrics. */
	double lo = d.cmp[0].m[0].d.lo;
	one_cmp(&d, ms, 3);
	slower(ms);
	rpt_drift_judge(&d);
	assert_true(fabs(d.cmp[0].m[0].d.lo - lo) < 1e-9);
	assert_int_equal(d.machine, 0);

	/* A faster machine under a degrading run explains nothing: the server is blamed. */
	slower(ms);
	ms[3] = judged(RPT_DK_MACHINE, 180, 153, 5, 0);
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.machine, 0);
	assert_non_null(strstr(sentence(&d), "the server slows down as the run goes on"));
	/* A probe within noise, or real but under 5 %: the server is blamed. */
	ms[3] = judged(RPT_DK_MACHINE, 180, 207, 400, 0);
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.machine, 0);
	ms[3] = judged(RPT_DK_MACHINE, 180, 185, 0.5, 0);
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.cmp[0].m[3].d.verdict, RPT_REAL);
	assert_int_equal(d.machine, 0);
	assert_int_equal(rpt_drift_named(&d.cmp[0].m[3]), 0);

	/* Improving while the machine sped up: not warming up, the machine. */
	traffic(ms, (const double[][2]){{400, 500}, {30, 24}, {60, 45}});
	ms[3] = judged(RPT_DK_MACHINE, 200, 170, 5, 0);
	one_cmp(&d, ms, 4);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_IMPROVING);
	assert_int_equal(d.machine, 1);
	assert_non_null(strstr(sentence(&d), "the machine soak ran on sped up"));
	assert_null(strstr(sentence(&d), "warming up"));
}

/* A metric whose 95 % interval is [lo, hi] around diff (df 100), already judged. */
static struct rpt_drift_metric given(enum rpt_drift_kind k, double first, double diff, double lo,
                                     double hi)
{
	struct rpt_drift_metric m;
	memset(&m, 0, sizeof m);
	m.kind = k;
	m.first = first;
	m.last = first + diff;
	m.change = diff;
	m.change_pct = 100 * diff / first;
	m.counts = 1;
	m.d.diff = diff;
	m.d.lo = lo;
	m.d.hi = hi;
	m.d.df = 100;
	m.d.verdict = lo > 0 || hi < 0 ? RPT_REAL : RPT_NOISE;
	m.effect = m.d.verdict == RPT_REAL ? 1 : 0;
	return m;
}

/* One metric just past its own 95 %: alone it makes the run degrading; among twenty it is
 * what chance gives, and the family-wise interval calls it noise. */
static void family_wise(void **state)
{
	struct rpt_drift_metric ms[20];
	struct rpt_drift d;
	(void)state;

	ms[0] = given(RPT_DK_MEAN, 100, 7, 1, 13);
	one_cmp(&d, ms, 1);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_DEGRADING);
	assert_true(fabs(d.cmp[0].m[0].d.lo - 1) < 1e-9); /* one metric: as it was */

	for (int i = 0; i < 20; i++)
		ms[i] = given(i ? RPT_DK_CPU_REQ : RPT_DK_MEAN, 100, i ? 0.5 : 7, i ? -2 : 1,
		              i ? 3 : 13);
	one_cmp(&d, ms, 20);
	rpt_drift_judge(&d);
	assert_int_equal(ms[0].d.verdict, RPT_NOISE);
	assert_true(ms[0].d.lo < 0 && ms[0].d.hi > 13);
	assert_int_equal(ms[0].effect, 0);
	assert_int_equal(d.verdict, RPT_DRIFT_STABLE);

	/* A change far past it stays real among twenty. */
	ms[0] = given(RPT_DK_MEAN, 100, 40, 30, 50);
	one_cmp(&d, ms, 20);
	rpt_drift_judge(&d);
	assert_int_equal(d.verdict, RPT_DRIFT_DEGRADING);
}

static void percentile_grid(void **state)
{
	(void)state;
	assert_true(fabs(rpt_drift_pct(0) - 0) < 1e-12);
	assert_true(fabs(rpt_drift_pct(4) - 90) < 1e-9);
	assert_true(fabs(rpt_drift_pct(8) - 99) < 1e-9);
	assert_true(fabs(rpt_drift_pct(RPT_DRIFT_NPCT - 1) - 99.999) < 1e-9);
}

/* Samples every 5 s for `minutes`: f(t in s). */
static struct rpt_vpoint *series(int minutes, double (*f)(double), size_t *n)
{
	size_t k = (size_t)minutes * 12;
	struct rpt_vpoint *p = malloc(k * sizeof *p);
	assert_non_null(p);
	for (size_t i = 0; i < k; i++) {
		p[i].t_s = 5.0 * (double)i;
		p[i].v = f(p[i].t_s);
	}
	*n = k;
	return p;
}

static double flat(double t)
{
	return 300 + ((long)t % 7 == 0 ? 0.5 : -0.5);
}
static double fills(double t)
{
	return t < 240 ? 12 + 186 * t / 240 : 198;
}
static double leaks(double t)
{
	return 200 + t / 60;
} /* +60 MB/h */
static double fast(double t)
{
	return 100 + t / 5;
} /* +720 MB/h */
static double full(double t)
{
	return t < 60 ? 100 + 2 * t : 250;
}

static void memory_verdicts(void **state)
{
	struct rpt_mem m;
	struct rpt_vpoint *p;
	size_t n;
	(void)state;

	p = series(60, flat, &n);
	rpt_mem_analyze(p, n, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_FLAT);
	assert_string_equal(rpt_mem_name(m.verdict), "flat");
	free(p);

	/* The PostgreSQL: four minutes filling shared buffers, then 198 MB. */
	p = series(15, fills, &n);
	rpt_mem_analyze(p, n, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_LEVELS_OFF);
	assert_true(fabs(m.level_mb - 198) < 0.01);
	assert_true(m.growth_mb > 180 && m.growth_mb <= 186);
	assert_true(fabs(m.steady_slope_mb_h) < 0.01);
	assert_non_null(strstr(mem_why(&m), "then holds at 198.0 MB"));
	free(p);

	p = series(120, leaks, &n);
	rpt_mem_analyze(p, n, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_RISING);
	assert_true(fabs(m.slope_mb_h - 60) < 0.5);
	free(p);

	/* Held at 250 of a 256 MB limit: named as that limit. */
	p = series(30, full, &n);
	rpt_mem_analyze(p, n, 256, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_AT_LIMIT);
	assert_non_null(strstr(mem_why(&m), "configured limit of 256.0 MB"));
	rpt_mem_analyze(p, n, 1024, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_LEVELS_OFF);
	free(p);

	/* Four minutes: a trend is not judged; five (60 samples 5 s apart, 4m55s from the
	 * first to the last) are enough, and a minute is with --memory-window 1m. */
	p = series(4, leaks, &n);
	rpt_mem_analyze(p, n, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_UNKNOWN);
	assert_non_null(strstr(mem_why(&m), "too short"));
	free(p);
	p = series(5, fast, &n);
	rpt_mem_analyze(p, n, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_RISING);
	free(p);
	p = series(1, fast, &n);
	rpt_mem_analyze(p, n, 0, 1.0 / 60, &m);
	assert_int_equal(m.verdict, RPT_MEM_RISING);
	rpt_mem_analyze(p, n, 0, 2.0 / 60, &m);
	assert_int_equal(m.verdict, RPT_MEM_UNKNOWN);
	free(p);
	rpt_mem_analyze(NULL, 0, 0, 0, &m);
	assert_int_equal(m.verdict, RPT_MEM_UNKNOWN);
}

/* The source's verdict from its kinds' (each judged like the whole): which kind makes it. */
static int by_kind(int priv, int shared, int file, int whole, double bound, int *by)
{
	struct rpt_mem m = {.verdict = (enum rpt_mem_verdict)whole};
	struct rpt_memkinds k = {.has = 1, .shared_bound_mb = bound, .shared_buffers_mb = NAN};

	k.k[RPT_MEMK_PRIVATE].verdict = (enum rpt_mem_verdict)priv;
	k.k[RPT_MEMK_SHARED].verdict = (enum rpt_mem_verdict)shared;
	k.k[RPT_MEMK_FILE].verdict = (enum rpt_mem_verdict)file;
	rpt_mem_by_kind(&m, &k);
	*by = k.by;
	return m.verdict;
}

static void memory_by_kind(void **state)
{
	int by;
	(void)state;
	/* A cache filling or filled towards a known bound, private memory flat: filling. */
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_RISING, RPT_MEM_FLAT, RPT_MEM_RISING, 165, &by),
	    RPT_MEM_FILLING);
	assert_int_equal(by, RPT_MEMK_SHARED);
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_LEVELS_OFF, RPT_MEM_FLAT, RPT_MEM_LEVELS_OFF, 165, &by),
	    RPT_MEM_FILLING);
	/* Private memory rising is the leak, whatever the cache does beside it. */
	assert_int_equal(
	    by_kind(RPT_MEM_RISING, RPT_MEM_RISING, RPT_MEM_FLAT, RPT_MEM_RISING, 165, &by),
	    RPT_MEM_RISING);
	assert_int_equal(by, RPT_MEMK_PRIVATE);
	/* Shared memory rising with no bound known: rising, by shared; nothing growing:
	 * flat. */
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_RISING, RPT_MEM_FLAT, RPT_MEM_RISING, NAN, &by),
	    RPT_MEM_RISING);
	assert_int_equal(by, RPT_MEMK_SHARED);
	assert_int_equal(by_kind(RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_FLAT, 165, &by),
	                 RPT_MEM_FLAT);
	assert_int_equal(by, -1);
	/* Only the file-backed pages rising: still rising, by file (the words say whose). */
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_RISING, RPT_MEM_RISING, 165, &by),
	    RPT_MEM_RISING);
	assert_int_equal(by, RPT_MEMK_FILE);
	/* The whole rising while no kind does (a healthy JVM in CI: +11 % over 79 s, private
	 * flat, its file pages read in and levelling off): no memory keeps rising, it levels
	 * off; with every kind flat, flat. */
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_LEVELS_OFF, RPT_MEM_RISING, 165, &by),
	    RPT_MEM_LEVELS_OFF);
	assert_int_equal(by, -1);
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_FLAT, RPT_MEM_RISING, NAN, &by),
	    RPT_MEM_FLAT);
	/* At its configured memory_limit: that stays the verdict. */
	assert_int_equal(
	    by_kind(RPT_MEM_FLAT, RPT_MEM_RISING, RPT_MEM_FLAT, RPT_MEM_AT_LIMIT, 165, &by),
	    RPT_MEM_AT_LIMIT);
}

static void sizes(void **state)
{
	int64_t b;
	char err[128];
	(void)state;
	assert_int_equal(dur_size_parse("512M", &b, err, sizeof err), 0);
	assert_true(b == 512LL << 20);
	assert_int_equal(dur_size_parse(" 1.5G ", &b, err, sizeof err), 0);
	assert_true(b == 3LL << 29);
	assert_int_equal(dur_size_parse("300MB", &b, err, sizeof err), 0);
	assert_true(b == 300LL << 20);
	assert_int_equal(dur_size_parse("64KiB", &b, err, sizeof err), 0);
	assert_true(b == 65536);
	assert_int_equal(dur_size_parse("1048576", &b, err, sizeof err), 0);
	assert_true(b == 1048576);
	for (const char *const *s =
	         (const char *const[]){"", "0", "-1M", "12 apples", "5X", "2E", "1T1", NULL};
	     *s; s++)
		assert_int_equal(dur_size_parse(*s, &b, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(compare_effects), cmocka_unit_test(judge_verdicts),
	    cmocka_unit_test(machine_probe),   cmocka_unit_test(family_wise),
	    cmocka_unit_test(percentile_grid), cmocka_unit_test(memory_verdicts),
	    cmocka_unit_test(memory_by_kind),  cmocka_unit_test(sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
