/* The report's statistics: USL fit, saturation, Student's t, batch means, Welch's test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>

#include "report/report_int.h"
#include "testrng.h"
#include "report/judge/report_compare.h"
#include "report/judge/report_groups.h"
#include "report/judge/report_stats.h"
#include "report/write/report_fmt.h"
#include "report/report_text.h"

static double usl(double lambda, double sigma, double kappa, double n)
{
	return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

static void usl_recovers_exact(void **state)
{
	const double n[] = {1, 2, 4, 8, 16, 32, 48, 64};
	double x[8];
	struct rpt_usl u;
	(void)state;
	for (int i = 0; i < 8; i++)
		x[i] = usl(120, 0.03, 0.0005, n[i]);
	assert_int_equal(rpt_usl_fit(n, x, 8, &u), 0);
	assert_true(u.ok);
	assert_true(fabs(u.lambda - 120) < 1e-6 * 120);
	assert_true(fabs(u.sigma - 0.03) < 1e-7);
	assert_true(fabs(u.kappa - 0.0005) < 1e-9);
	assert_true(fabs(u.n_star - sqrt(0.97 / 0.0005)) < 1e-4);
	assert_true(fabs(u.x_star - usl(120, 0.03, 0.0005, u.n_star)) < 1e-4);
	assert_true(u.r2 > 0.999999);
}

/* Levels not starting at 1, with 2% noise: parameters close, the peak where it is. */
static void usl_recovers_noisy(void **state)
{
	const double n[] = {5, 10, 15, 20, 25, 30, 35, 40};
	double x[8];
	struct rng r = {0x9e3779b97f4a7c15ULL};
	struct rpt_usl u;
	(void)state;
	for (int i = 0; i < 8; i++)
		x[i] = usl(50, 0.02, 0.001, n[i]) * (1 + 0.02 * (2 * uniform(&r) - 1));
	assert_int_equal(rpt_usl_fit(n, x, 8, &u), 0);
	assert_true(fabs(u.lambda - 50) < 0.1 * 50);
	assert_true(fabs(u.sigma - 0.02) < 0.02);
	assert_true(fabs(u.kappa - 0.001) < 0.0005);
	assert_true(u.n_star > 22 && u.n_star < 42);
	assert_true(u.r2 > 0.95);
}

/* Linear scaling: no contention, no peak. */
static void usl_linear_scaling(void **state)
{
	const double n[] = {5, 10, 20, 40};
	const double x[] = {250, 500, 1000, 2000};
	struct rpt_usl u;
	(void)state;
	assert_int_equal(rpt_usl_fit(n, x, 4, &u), 0);
	assert_true(fabs(u.lambda - 50) < 1e-6);
	assert_true(u.sigma < 1e-9 && u.kappa < 1e-12);
	assert_true(isinf(u.n_star));
	assert_true(isinf(u.x_star));
}

/* A capacity of 10 requests at 20 ms: flat at 500 from 10 users. */
static void usl_capacity_server(void **state)
{
	const double n[] = {5, 10, 15, 20, 25, 30, 35, 40};
	double x[8];
	struct rpt_usl u;
	(void)state;
	for (int i = 0; i < 8; i++)
		x[i] = 50 * (n[i] < 10 ? n[i] : 10);
	assert_int_equal(rpt_usl_fit(n, x, 8, &u), 0);
	assert_true(u.sigma > 0.05); /* strong contention */
	assert_true(u.x_star > 400 && u.x_star < 650);
}

static void usl_refuses(void **state)
{
	const double n[] = {5, 10, 20}, x[] = {1, 2, 0};
	struct rpt_usl u;
	(void)state;
	assert_int_equal(rpt_usl_fit(n, x, 2, &u), -1);
	assert_false(u.ok);
	assert_int_equal(rpt_usl_fit(n, x, 3, &u), -1); /* zero throughput */
}

static void saturation(void **state)
{
	const double capped[] = {250, 500, 498, 503, 499, 501, 500, 497};
	const double linear[] = {250, 500, 750, 1000, 1250, 1500, 1750, 2000};
	const double retro[] = {100, 190, 240, 230, 200};
	const double almost[] = {100, 200, 300, 390, 400};
	struct rpt_sat s;
	(void)state;
	rpt_saturation(capped, 8, &s);
	assert_true(s.ok && s.saturated);
	assert_int_equal(s.at, 1);
	assert_int_equal(s.peak, 3);
	rpt_saturation(linear, 8, &s);
	assert_false(s.saturated);
	assert_int_equal(s.at, 7);
	assert_int_equal(s.peak, 7);
	rpt_saturation(retro, 5, &s);
	assert_true(s.saturated);
	assert_int_equal(s.at, 2);
	assert_int_equal(s.peak, 2);
	rpt_saturation(almost, 5, &s); /* 390 is 97.5% of 400: it flattened at the fourth */
	assert_true(s.saturated);
	assert_int_equal(s.at, 3);
	rpt_saturation(NULL, 0, &s);
	assert_false(s.ok);
}

static void t_distribution(void **state)
{
	(void)state;
	assert_true(fabs(rpt_t_quantile(0.975, 1) - 12.706205) < 1e-5);
	assert_true(fabs(rpt_t_quantile(0.975, 10) - 2.228139) < 1e-5);
	assert_true(fabs(rpt_t_quantile(0.975, 29) - 2.045230) < 1e-5);
	assert_true(fabs(rpt_t_quantile(0.975, 1e6) - 1.959966) < 1e-4);
	assert_true(fabs(rpt_t_quantile(0.025, 10) + 2.228139) < 1e-5);
	assert_true(fabs(rpt_t_cdf(0, 5) - 0.5) < 1e-12);
	assert_true(fabs(rpt_t_cdf(2.570582, 5) - 0.975) < 1e-6);
	assert_true(fabs(rpt_t_cdf(1.5, 3.5) + rpt_t_cdf(-1.5, 3.5) - 1) < 1e-12);
	assert_true(isnan(rpt_t_quantile(1, 5)));
	/* The quantile inverts the distribution over the degrees of freedom and levels a
	 * Holm family and a sequential look reach (down to 1e-7), far tails included. */
	static const double dfs[] = {1, 1.5, 2, 3, 4, 7, 16, 30, 100, 1e4, 1e8};
	static const double ps[] = {1e-7, 1e-4, 0.0025, 0.025,  0.3,
	                            0.5,  0.8,  0.975,  0.9999, 1 - 1e-7};
	for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++)
		for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
			double t = rpt_t_quantile(ps[j], dfs[i]);
			double back =
			    dfs[i] > 1e7 ? 0.5 * erfc(-t / sqrt(2)) : rpt_t_cdf(t, dfs[i]);
			if (!(fabs(back - ps[j]) <= 1e-9 * fmax(ps[j], 1 - ps[j]) + 1e-15))
				fail_msg("t quantile df %g p %g: %.12g, whose cdf is %.15g", dfs[i],
				         ps[j], t, back);
		}
}

static void bm_of(const double *x, size_t n, struct rpt_bm *b)
{
	rpt_batch_means(x, n, NULL, 0, b);
}

/* Independent draws keep one observation per batch; the standard error is sd/sqrt(n). */
static void batch_means_independent(void **state)
{
	double x[400];
	struct rng r = {12345};
	struct rpt_bm b;
	(void)state;
	for (int i = 0; i < 400; i++)
		x[i] = normal(&r, 100, 10);
	bm_of(x, 400, &b);
	assert_int_equal(b.n, 400);
	assert_int_equal(b.batch, 1);
	assert_int_equal(b.batches, 400);
	assert_true(fabs(b.mean - 100) < 2);
	assert_true(fabs(b.se - 10 / sqrt(400)) < 0.1);
	assert_true(fabs(b.df - 399) < 1e-9);
}

/* A slowly wandering series (AR(1), phi 0.95): batches grow and the error with them. */
static void batch_means_correlated(void **state)
{
	double x[1024], v = 0, naive = 0, mean = 0;
	struct rng r = {777};
	struct rpt_bm b;
	(void)state;
	for (int i = 0; i < 1024; i++) {
		v = 0.95 * v + normal(&r, 0, 1);
		x[i] = 100 + v;
		mean += x[i];
	}
	mean /= 1024;
	for (int i = 0; i < 1024; i++)
		naive += (x[i] - mean) * (x[i] - mean);
	naive = sqrt(naive / 1023 / 1024);
	bm_of(x, 1024, &b);
	assert_true(b.batch >= 8);
	assert_true(b.batches >= RPT_BM_MIN_BATCHES);
	assert_true(b.se > 2.5 * naive);
}

/* Segments: batches never cross a run's end; NAN observations are skipped. */
static void batch_means_segments(void **state)
{
	const double x[] = {1, 2, NAN, 3, 10, 20};
	const size_t seg[] = {4, 2};
	struct rpt_bm b;
	(void)state;
	rpt_batch_means(x, 6, seg, 2, &b);
	assert_int_equal(b.n, 5);
	assert_int_equal(b.batches, 5);
	assert_true(fabs(b.mean - 36.0 / 5) < 1e-12);
	rpt_batch_means(x, 1, NULL, 0, &b);
	assert_true(isnan(b.se));
	rpt_batch_means(x, 0, NULL, 0, &b);
	assert_true(isnan(b.mean));
}

/* The noise test: samples of one distribution are "noise" about 95% of the time, samples
 * of clearly different ones are "real". */
static void welch_calibrated(void **state)
{
	struct rng r = {2024};
	int false_real = 0, found = 0, trials = 400;
	(void)state;
	for (int t = 0; t < trials; t++) {
		double a[30], b[30], c[30];
		struct rpt_bm ba, bb, bc;
		struct rpt_diff d;
		for (int i = 0; i < 30; i++) {
			a[i] = normal(&r, 1000, 50);
			b[i] = normal(&r, 1000, 50);
			c[i] = normal(&r, 1080, 80); /* +8%, another spread */
		}
		bm_of(a, 30, &ba);
		bm_of(b, 30, &bb);
		bm_of(c, 30, &bc);
		rpt_welch(&ba, &bb, &d);
		assert_true(d.verdict != RPT_NA);
		false_real += d.verdict == RPT_REAL;
		assert_true((d.verdict == RPT_REAL) == (d.p < 0.05));
		rpt_welch(&ba, &bc, &d);
		found += d.verdict == RPT_REAL;
		assert_true(d.lo < d.diff && d.diff < d.hi);
	}
	assert_true(false_real >= 4 && false_real <= 40); /* 5% of 400 is 20 */
	assert_true(found >= trials * 95 / 100);
}

static void welch_one_example(void **state)
{
	const double same1[] = {100, 102, 98, 101, 99, 100, 103, 97, 100, 100};
	const double same2[] = {101, 99, 100, 98, 102, 100, 97, 103, 99, 101};
	const double more[] = {120, 122, 118, 121, 119, 120, 123, 117, 120, 120};
	struct rpt_bm a, b, c;
	struct rpt_diff d;
	(void)state;
	bm_of(same1, 10, &a);
	bm_of(same2, 10, &b);
	bm_of(more, 10, &c);
	rpt_welch(&a, &b, &d);
	assert_int_equal(d.verdict, RPT_NOISE);
	assert_string_equal(rpt_verdict_name(d.verdict), "noise");
	rpt_welch(&a, &c, &d);
	assert_int_equal(d.verdict, RPT_REAL);
	assert_true(fabs(d.rel_pct - 20) < 1e-9);
	assert_true(fabs(d.diff - 20) < 1e-9);
	assert_true(d.lo > 17 && d.hi < 23);
}

static void welch_edges(void **state)
{
	const double k1[] = {5, 5, 5, 5}, k2[] = {6, 6, 6, 6};
	struct rpt_bm a, b, one;
	struct rpt_diff d;
	(void)state;
	bm_of(k1, 4, &a);
	bm_of(k2, 4, &b);
	rpt_welch(&a, &a, &d);
	assert_int_equal(d.verdict, RPT_NOISE);
	rpt_welch(&a, &b, &d);
	assert_int_equal(d.verdict, RPT_REAL);
	bm_of(k1, 1, &one);
	rpt_welch(&a, &one, &d);
	assert_int_equal(d.verdict, RPT_NA);
	assert_string_equal(rpt_verdict_name(d.verdict), "n/a");
}

/* The scripts built into soak are plots/ as checked in (tools/embed.sh at build time). */
static void scripts_match_plots(void **state)
{
	const char *top = getenv("SOAK_TOP");
	char path[4096], *buf;
	int files = 0;
	DIR *d;
	struct dirent *e;
	(void)state;
	if (!top)
		top = ".";
	snprintf(path, sizeof path, "%s/plots", top);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		files += n > 3 && strcmp(e->d_name + n - 3, ".gp") == 0;
	}
	closedir(d);
	assert_int_equal(files, rpt_nscripts);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	for (int i = 0; i < rpt_nscripts; i++) {
		FILE *f;
		size_t n;
		snprintf(path, sizeof path, "%s/plots/%s", top, rpt_scripts[i].name);
		f = fopen(path, "r");
		if (!f)
			fail_msg("plots/%s is built in but missing", rpt_scripts[i].name);
		n = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strcmp(buf, rpt_scripts[i].text) != 0)
			fail_msg("plots/%s differs from its built-in copy: the build embeds plots/ "
			         "(tools/embed.sh)",
			         rpt_scripts[i].name);
	}
	free(buf);
}

/* Variance components: the runs' spread split into what their own intervals explain
 * (within) and the rest (between). */
static void vc_known_values(void **state)
{
	double x[] = {100, 102, 98, 100}, se[] = {1, 1, 1, 1}, secs[] = {60, 60, 60, 60};
	double unk[] = {NAN, NAN, NAN, NAN};
	struct rpt_vc v;
	(void)state;

	rpt_vc_of(x, se, secs, 4, &v);
	assert_int_equal(v.runs, 4);
	assert_true(fabs(v.mean - 100) < 1e-12);
	assert_true(fabs(v.sd * v.sd - 8.0 / 3) < 1e-12);
	assert_true(fabs(v.within - 1) < 1e-12);
	assert_true(fabs(v.between - (8.0 / 3 - 1)) < 1e-12);
	assert_true(fabs(v.secs - 60) < 1e-12);
	/* Unknown within-run errors: all of the spread counts as between runs. */
	rpt_vc_of(x, unk, secs, 4, &v);
	assert_true(isnan(v.within));
	assert_true(fabs(v.between - 8.0 / 3) < 1e-12);
	/* Runs that agree better than their own errors say: nothing between them. */
	double tight[] = {100, 100.1, 99.9, 100};
	rpt_vc_of(tight, se, secs, 4, &v);
	assert_true(v.between == 0);
	/* One run: no spread, no split. */
	rpt_vc_of(x, se, secs, 1, &v);
	assert_int_equal(v.runs, 1);
	assert_true(isnan(v.sd) && isnan(v.between) && fabs(v.within - 1) < 1e-12);
	/* NAN values are skipped. */
	double gap[] = {100, NAN, 102, 98};
	rpt_vc_of(gap, se, secs, 4, &v);
	assert_int_equal(v.runs, 3);
}

/* The advice: the cheapest rounds and run length that resolve the target, checked against
 * a brute-force search of the same grid, and the known answers at both extremes. */
static double half(double bv, double wv, int n, double t, double alpha)
{
	return rpt_t_quantile(1 - alpha / 2, 2.0 * n - 2) * sqrt((bv + wv / t) / n);
}

static void advise_known_values(void **state)
{
	struct rpt_vc a = {.runs = 3, .mean = 100, .between = 4, .within = 1e-9, .secs = 60};
	struct rpt_resolve x;
	(void)state;

	/* Between runs only (sd 2 %): 2 * 4 / n under (3 / t)^2: t_8 sqrt(8 / 5) = 2.92 < 3 at
	 * five rounds, t_6 sqrt(2) = 3.46 at four.  Run length does not matter, so the
	 * shortest tried wins. */
	rpt_advise(&a, &a, 100, 3, 0.05, &x);
	assert_int_equal(x.rounds, 5);
	assert_true(fabs(x.run_s - 15) < 1e-9);
	assert_true(fabs(x.between_pct - 2) < 1e-9);
	assert_false(x.now_enough);
	/* Already enough: three rounds resolve 20 %. */
	rpt_advise(&a, &a, 100, 20, 0.05, &x);
	assert_true(x.now_enough);
	/* Within runs only, 10 s of overhead a run: the cheapest design is found. */
	struct rpt_vc w = {
	    .runs = 3, .mean = 100, .between = 0, .within = 4, .secs = 60, .overhead_s = 10};
	rpt_advise(&w, &w, 100, 1, 0.01, &x);
	assert_true(x.rounds >= 2);
	assert_true(half(0, 2 * 4 * 60, x.rounds, x.run_s, 0.01) <= 1 + 1e-9);
	for (int k = -2; k <= 6; k++)
		for (int n = 2; n <= RPT_ADVISE_MAX_ROUNDS; n++) {
			double t = 60 * pow(2, k);
			if (half(0, 2 * 4 * 60, n, t, 0.01) <= 1) {
				assert_true(x.total_s <= n * (t + 10) + 1e-9);
				break;
			}
		}
	/* Unknown between-run noise: no advice, and the words say why. */
	a.between = NAN;
	rpt_advise(&a, &a, 100, 3, 0.05, &x);
	assert_int_equal(x.rounds, 0);
	assert_true(isnan(x.between_pct));
	char buf[256];
	x.basis = RPT_ADV_NONE;
	assert_non_null(strstr(rpt_advice_text(&x, 1, 60, buf, sizeof buf), "unknown"));
	/* Durations to plan with are rounded up, never down. */
	assert_string_equal(rpt_fmt_need(41.2, buf, sizeof buf), "42s");
	assert_string_equal(rpt_fmt_need(845, buf, sizeof buf), "15m");
	assert_string_equal(rpt_fmt_need(7201, buf, sizeof buf), "2h10m");
	assert_string_equal(rpt_fmt_need(1e12, buf, sizeof buf), "over a year");
}

/* Side by side, a floor holds small changes where the processes' spread is a guess: one
 * process a side, or three in all (one degree of freedom); four in all are judged. */
static void groups_floor(void **state)
{
	(void)state;
	struct rpt_groups g = {.unit = RPT_GU_PAIR, .procs = {1, 1}};
	assert_true(rpt_groups_floored(&g));
	g = (struct rpt_groups){.unit = RPT_GU_REPLICAS, .procs = {2, 1}};
	assert_true(rpt_groups_floored(&g));
	g.procs[1] = 2;
	assert_false(rpt_groups_floored(&g));
	g = (struct rpt_groups){.unit = RPT_GU_REPLICAS, .procs = {3, 1}};
	assert_false(rpt_groups_floored(&g));
	g = (struct rpt_groups){.unit = RPT_GU_STARTS, .starts = 2, .procs = {1, 1}};
	assert_false(rpt_groups_floored(&g));
}

/* A sentence far past any buffer the report ever had (2048 bytes) ends as written. */
static void sentence_grows(void **state)
{
	struct sbuf b = {0};
	char label[301];

	(void)state;
	memset(label, 'x', 300);
	label[300] = '\0';
	for (int i = 0; i < 40; i++)
		rpt_sb_printf(&b, "%s%s", i ? ", " : "", label);
	rpt_sb_printf(&b, " and the end.");
	assert_int_equal(rpt_sb_len(&b), 40 * 300 + 39 * 2 + strlen(" and the end."));
	assert_string_equal(rpt_sb_str(&b) + rpt_sb_len(&b) - 13, " and the end.");
	rpt_sb_trim(&b, 300);
	assert_int_equal(strlen(rpt_sb_str(&b)), 300);
	rpt_sb_release(&b);
	assert_string_equal(rpt_sb_str(&b), "");
}

/* A key list of any length: eight items listed to their last, more as count and span. */
static void run_lists_end(void **state)
{
	struct sbuf b = {0};
	char keys[8192] = "";

	(void)state;
	rpt_sb_runs(&b, "1,3,5,7,9,11,13,15");
	assert_string_equal(rpt_sb_str(&b), "runs 1, 3, 5, 7, 9, 11, 13 and 15");
	rpt_sb_reset(&b);
	rpt_sb_runs(&b, "1,2,3,7,9");
	assert_string_equal(rpt_sb_str(&b), "runs 1-3, 7 and 9");
	rpt_sb_reset(&b);
	for (int i = 0; i < 1000; i++)
		snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%d", i ? "," : "",
		         3 * i + 1);
	rpt_sb_runs(&b, keys);
	assert_string_equal(rpt_sb_str(&b), "1000 runs, 1-2998");
	rpt_sb_release(&b);
}

/* Runs 1:1..1:20 of one database and 2:1..2:4 of another (report order, ids in order). */
#define LIST_RUNS 24
static struct report *two_db_runs(void)
{
	struct report *r = calloc(1, sizeof *r);

	assert_non_null(r);
	r->runs = calloc(LIST_RUNS, sizeof *r->runs);
	assert_non_null(r->runs);
	for (int i = 0; i < LIST_RUNS; i++) {
		struct rpt_run *run = &r->runs[i];
		run->db = i < 20 ? 0 : 1;
		run->id = i < 20 ? i + 1 : i - 19;
		snprintf(run->key, sizeof run->key, "%d:%lld", run->db + 1, (long long)run->id);
	}
	r->nruns = LIST_RUNS;
	return r;
}

/* The runs whose keys are in the comma-separated list, as a selection of r's. */
static void select_keys(const struct report *r, const char *keys, unsigned char *sel)
{
	char list[512], k[64];

	snprintf(list, sizeof list, ",%s,", keys);
	for (int i = 0; i < r->nruns; i++) {
		snprintf(k, sizeof k, ",%s,", r->runs[i].key);
		sel[i] = strstr(list, k) != NULL;
	}
}

/* The same runs said the same way whether given as keys (rpt_sb_runs) or selected in the
 * report (rpt_sb_runsel, rpt_sb_runlist without "runs "). */
static void says_alike(const struct report *r, const char *keys, const char *want)
{
	unsigned char sel[LIST_RUNS];
	struct sbuf a = {0}, b = {0}, c = {0};

	select_keys(r, keys, sel);
	rpt_sb_runs(&a, keys);
	rpt_sb_runsel(&b, r, sel, RPT_RUNS_LISTED);
	rpt_sb_runlist(&c, r, sel, 1);
	assert_string_equal(rpt_sb_str(&a), want);
	assert_string_equal(rpt_sb_str(&b), want);
	if (strncmp(want, "run", 3) == 0)
		assert_string_equal(rpt_sb_str(&c), strchr(want, ' ') + 1);
	else
		assert_string_equal(rpt_sb_str(&c), want);
	rpt_sb_release(&a);
	rpt_sb_release(&b);
	rpt_sb_release(&c);
}

/* One wording of run lists: a single run, a range, two in a row, gaps, a database's end
 * (1:20 and 2:1 do not follow), a long list as its count and span, and warm-ups. */
static void run_lists_one_wording(void **state)
{
	struct report *r = two_db_runs();
	unsigned char sel[LIST_RUNS];
	struct sbuf b = {0};

	(void)state;
	says_alike(r, "1:3", "run 1:3");
	says_alike(r, "1:1,1:2,1:3,1:4", "runs 1:1-1:4");
	says_alike(r, "1:1,1:2,1:5", "runs 1:1, 1:2 and 1:5");
	says_alike(r, "1:3,1:4,1:5,1:9,1:19,1:20,2:1,2:2,2:3",
	           "runs 1:3-1:5, 1:9, 1:19, 1:20 and 2:1-2:3");
	says_alike(r, "1:1,1:3,1:5,1:7,1:9,1:11,1:13,1:15",
	           "runs 1:1, 1:3, 1:5, 1:7, 1:9, 1:11, 1:13 and 1:15");
	says_alike(r, "1:1,1:3,1:5,1:7,1:9,1:11,1:13,1:15,1:17,2:4", "10 runs, 1:1-2:4");
	r->runs[0].warmup = r->runs[1].warmup = 1;
	select_keys(r, "1:1,1:2,1:3,1:4,1:8", sel);
	rpt_sb_runsel(&b, r, sel, RPT_RUNS_LISTED);
	assert_string_equal(rpt_sb_str(&b), "runs 1:1-1:4 and 1:8 (warm-up: 1:1 and 1:2)");
	rpt_sb_reset(&b);
	select_keys(r, "1:1,1:2", sel);
	rpt_sb_runlist(&b, r, sel, 1);
	assert_string_equal(rpt_sb_str(&b), "1:1 and 1:2 (warm-up)");
	rpt_sb_reset(&b);
	select_keys(r, "1:1,1:2,1:5,1:7,1:9,1:11,1:13,1:15,1:17", sel);
	rpt_sb_runlist(&b, r, sel, 1);
	assert_string_equal(rpt_sb_str(&b), "9 runs, 1:1-1:17 (2 warm-up)");
	rpt_sb_release(&b);
	free(r->runs);
	free(r);
}

/* Past +100 % a change is its factor. */
static void change_factor(void **state)
{
	struct sbuf b = {0};

	(void)state;
	rpt_sb_change(&b, -59.5, -59.5, "more", "fewer");
	assert_string_equal(rpt_sb_str(&b), "59.5 % fewer");
	rpt_sb_reset(&b);
	rpt_sb_change(&b, 37155.2, 37155.2, "slower", "faster");
	assert_string_equal(rpt_sb_str(&b), "\u00d7373 slower");
	rpt_sb_reset(&b);
	rpt_sb_change(&b, 23342.0, 57972.8, "slower", "faster");
	assert_string_equal(rpt_sb_str(&b), "\u00d7234-\u00d7581 slower");
	rpt_sb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sentence_grows),
	    cmocka_unit_test(run_lists_end),
	    cmocka_unit_test(run_lists_one_wording),
	    cmocka_unit_test(change_factor),
	    cmocka_unit_test(usl_recovers_exact),
	    cmocka_unit_test(usl_recovers_noisy),
	    cmocka_unit_test(usl_linear_scaling),
	    cmocka_unit_test(usl_capacity_server),
	    cmocka_unit_test(usl_refuses),
	    cmocka_unit_test(saturation),
	    cmocka_unit_test(t_distribution),
	    cmocka_unit_test(batch_means_independent),
	    cmocka_unit_test(batch_means_correlated),
	    cmocka_unit_test(batch_means_segments),
	    cmocka_unit_test(welch_calibrated),
	    cmocka_unit_test(welch_one_example),
	    cmocka_unit_test(welch_edges),
	    cmocka_unit_test(scripts_match_plots),
	    cmocka_unit_test(vc_known_values),
	    cmocka_unit_test(advise_known_values),
	    cmocka_unit_test(groups_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
