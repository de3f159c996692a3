/* Comparisons across runs, calibrated: synthetic studies through rpt_build, so the verdicts'
 * error rates are measured against a truth that is known.  A/A (one system compared with
 * itself) must call any figure real at most 5 % of the time, whatever drifts between
 * rounds; A/B with a 15 % change in three rounds must find it; one run a side takes its
 * noise from a calibration or is held to the floor; a cold first run is flagged; a study's
 * primary figure holds its share of the family's error rate, and one process a side kept
 * running is held to the process floor. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_int.h"
#include "run/study_run.h"
#include "rpttest.h"
#include "testrng.h"
#include "report/judge/report_cold.h"
#include "report/judge/report_stats.h"
#include "report/judge/report_trend.h"
#include "report/write/report_method_text.h"
#include "report/report_text.h"
#include "report/write/report_validity_text.h"

/* Whether comparison 0's method sentence holds needle. */
static int method_has(const struct report *r, const char *needle)
{
	struct sbuf t = {0};
	int has;

	rpt_method_text(&t, r, &r->cmps[0]);
	has = strstr(rpt_sb_str(&t), needle) != NULL;
	rpt_sb_release(&t);
	return has;
}

/* One synthetic run: its figures and where it sits in a study. */
struct fake_run {
	int label;       /* 0 or 1 */
	int study;       /* -1: none */
	int round;       /* study round */
	int warmup;      /* not compared */
	int since_start; /* 1: first after a start */
	double tps;      /* requests/s of the run */
	double mean_ms;  /* its mean latency */
	double p99_ms;   /* its p99 */
	double iv_sd;    /* relative spread of its intervals around those */
};

/* A report model holding the runs, as rpt_read would leave it. */
static void make_report(struct report *r, const struct fake_run *fr, int n, struct rng *g)
{
	rpttest_report(r, RPT_MAX_RUNS);
	r->studies[0].name = strdup("fake");
	r->studies[0].targets = strdup("a, b");
	r->studies[0].before_each = strdup("");
	r->studies[0].rounds = 5;
	snprintf(r->studies[0].order, sizeof r->studies[0].order, "interleaved");
	snprintf(r->studies[0].status, sizeof r->studies[0].status, "done");
	r->nstudies = 1;
	for (int i = 0; i < n; i++) {
		struct rpt_run *run = &r->runs[r->nruns++];
		struct rpt_step *s;
		snprintf(run->key, sizeof run->key, "%d", i + 1);
		run->id = i + 1;
		run->label = fr[i].label;
		rpttest_run_texts(run, "sc");
		run->study = fr[i].study;
		run->round = fr[i].round;
		run->position = fr[i].warmup ? 0 : 1 + fr[i].label;
		run->warmup = fr[i].warmup;
		run->since_start = fr[i].since_start;
		run->compared = !fr[i].warmup;
		run->started_ms = 1000000 + 10000 * i;
		run->end_ms = run->started_ms + 6000;
		run->interval_ms = 500;
		r->labels[run->label].nruns++;
		run->steps = calloc(1, sizeof *run->steps);
		assert_non_null(run->steps);
		run->nsteps = 1;
		s = &run->steps[0];
		s->concurrency = 20;
		s->planned_ms = 6000;
		s->nintervals = 10;
		s->f.seconds = 5;
		s->f.tps = fr[i].tps;
		s->f.requests = (int64_t)(fr[i].tps * 5);
		s->st.requests = s->f.requests; /* the cell's merged TPS comes from these */
		s->f.mean_us = fr[i].mean_ms * 1000;
		s->f.p50_us = (int64_t)(fr[i].mean_ms * 1000);
		s->f.p99_us = (int64_t)(fr[i].p99_ms * 1000);
		s->f.max_us = s->f.p99_us * 2;
		for (int k = 0; k < s->nintervals; k++) {
			rpttest_push(&s->tps, fr[i].tps * (1 + fr[i].iv_sd * normal(g, 0, 1)));
			rpttest_push(&s->mean_ms,
			             fr[i].mean_ms * (1 + fr[i].iv_sd * normal(g, 0, 1)));
			rpttest_push(&s->p99_ms,
			             fr[i].p99_ms * (1 + 3 * fr[i].iv_sd * normal(g, 0, 1)));
			rpttest_push(&s->err_pct, 0);
		}
	}
}

static void free_report(struct report *r)
{
	for (int i = 0; i < r->nruns; i++)
		r->runs[i].nsteps = r->runs[i].nsteps; /* rpt_free owns them */
	rpt_free(r);
}

/* The words of r's first validity item of `code` (write/ words them, as the files are
 * written). */
static const char *validity_text(struct report *r, const char *code)
{
	assert_int_equal(rpt_validity_words(r), 0);
	for (int i = 0; i < r->nvalidity; i++)
		if (!strcmp(r->validity[i].code, code))
			return r->validity[i].text;
	fail_msg("no %s item", code);
	return NULL;
}

static int build(struct report *r)
{
	struct rpt_opts o = {.title = "fake"};
	char err[256] = "";
	int rc = rpt_build(r, &o, err, sizeof err);
	if (rc < 0)
		fail_msg("rpt_build: %s", err);
	assert_int_equal(r->ncmps, 1);
	return rc;
}

static int any_real(const struct rpt_cmp *m)
{
	for (int k = 0; k < RPT_NFIG; k++)
		if (m->d[k].verdict == RPT_REAL)
			return 1;
	return 0;
}

/* A run of a system whose true TPS is `tps` (20 users, closed loop: mean = 20 / TPS), off
 * by this round's drift and its own run-to-run noise. */
static struct fake_run run_of(int label, int study, int round, double tps, double drift,
                              double noise, struct rng *g)
{
	double t = tps * (1 + drift) * (1 + noise * normal(g, 0, 1));
	return (struct fake_run){.label = label,
	                         .study = study,
	                         .round = round,
	                         .tps = t,
	                         .mean_ms = 20000.0 / t * (1 + 0.002 * normal(g, 0, 1)),
	                         .p99_ms = 2 * 20000.0 / t * (1 + 3 * noise * normal(g, 0, 1)),
	                         .iv_sd = 0.02};
}

/* A/A in interleaved rounds on a machine drifting by drift_sd between rounds: at most 5 %
 * (plus the simulation's own spread) of the studies call any figure real; `rounds` below
 * RPT_PAIR_MIN compare the runs unpaired (Student), from it on paired by round. */
static void aa_rounds(int rounds, double drift_sd, enum rpt_noise want)
{
	struct rng g = {0x1234567};
	int trials = 1000, any = 0, paired = 0;
	for (int t = 0; t < trials; t++) {
		struct fake_run fr[20];
		struct report r;
		for (int round = 1; round <= rounds; round++) {
			double drift = drift_sd * normal(&g, 0, 1); /* the machine, this round */
			fr[2 * round - 2] = run_of(0, 0, round, 1000, drift, 0.02, &g);
			fr[2 * round - 1] = run_of(1, 0, round, 1000, drift, 0.02, &g);
		}
		make_report(&r, fr, 2 * rounds, &g);
		build(&r);
		paired += r.cmps[0].noise == want;
		any += any_real(&r.cmps[0]);
		free_report(&r);
	}
	print_message("A/A, %d rounds, %.0f %% drift (%s): %d of %d call a figure real\n", rounds,
	              100 * drift_sd, rpt_noise_name(want), any, trials);
	assert_int_equal(paired, trials);
	assert_in_range(any, 5, 65); /* 5 % of 1000 is 50; not zero either: a real test */
}

static void aa_five_rounds(void **state)
{
	(void)state;
	aa_rounds(5, 0.01, RPT_BY_RUNS);
}

static void aa_eight_rounds(void **state)
{
	(void)state;
	aa_rounds(8, 0.05, RPT_BY_ROUNDS);
}

/* Runs outside a study, three against five: Welch on the run means. */
static void aa_welch_runs(void **state)
{
	struct rng g = {0xabcdef};
	int trials = 1000, any = 0, welch = 0;
	(void)state;
	for (int t = 0; t < trials; t++) {
		struct fake_run fr[8];
		struct report r;
		for (int i = 0; i < 8; i++)
			fr[i] = run_of(i < 3 ? 0 : 1, -1, 0, 1000, 0, 0.03, &g);
		make_report(&r, fr, 8, &g);
		build(&r);
		welch += r.cmps[0].noise == RPT_BY_RUNS && method_has(&r, "Welch");
		any += any_real(&r.cmps[0]);
		free_report(&r);
	}
	print_message("A/A Welch on runs: %d of %d call a figure real\n", any, trials);
	assert_int_equal(welch, trials);
	assert_in_range(any, 5, 65);
}

/* Batch means alone would call a same-system comparison real most of the time when runs
 * drift more than their intervals move: the floor stops that for one run a side. */
static void one_run_floor(void **state)
{
	struct rng g = {99};
	int trials = 400, any = 0;
	(void)state;
	for (int t = 0; t < trials; t++) {
		struct fake_run fr[2] = {run_of(0, -1, 0, 1000, 0, 0.04, &g),
		                         run_of(1, -1, 0, 1000, 0, 0.04, &g)};
		struct report r;
		fr[0].iv_sd = fr[1].iv_sd = 0.005;
		make_report(&r, fr, 2, &g);
		build(&r);
		assert_int_equal(r.cmps[0].noise, RPT_BY_BATCHES);
		assert_true(r.cmps[0].floor_pct == RPT_FLOOR_PCT);
		assert_true(method_has(&r, "run-to-run noise is unknown"));
		any += any_real(&r.cmps[0]);
		free_report(&r);
	}
	print_message("one run a side, floor: %d of %d call a figure real\n", any, trials);
	assert_in_range(any, 0, 4); /* two runs 4 % apart (sd) rarely differ by 20 % */
	{
		/* A change of 30 % on one run a side is real. */
		struct fake_run fr[2] = {run_of(0, -1, 0, 1000, 0, 0, &g),
		                         run_of(1, -1, 0, 1300, 0, 0, &g)};
		struct report r;
		make_report(&r, fr, 2, &g);
		build(&r);
		assert_int_equal(r.cmps[0].d[RPT_M_TPS].verdict, RPT_REAL);
		assert_int_equal(r.cmps[0].d[RPT_M_MEAN].verdict, RPT_REAL);
		free_report(&r);
	}
}

/* With a calibration of the scenario, one run a side is judged on its spread. */
static void one_run_calibrated(void **state)
{
	struct rng g = {7};
	struct fake_run fr[2];
	struct report r;
	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		fr[0] = run_of(0, -1, 0, 1000, 0, 0, &g);
		fr[1] = run_of(1, -1, 0, pass ? 1300 : 1060, 0, 0, &g);
		fr[0].iv_sd = fr[1].iv_sd = 0.002;
		make_report(&r, fr, 2, &g);
		r.cals = calloc(1, sizeof *r.cals);
		r.ncals = 1;
		snprintf(r.cals[0].scenario, sizeof r.cals[0].scenario, "sc");
		snprintf(r.cals[0].label, sizeof r.cals[0].label, "cal");
		snprintf(r.cals[0].host, sizeof r.cals[0].host, "here");
		r.cals[0].concurrency = 20;
		r.cals[0].planned_ms = 6000;
		r.cals[0].runs = 8;
		r.cals[0].cv[RPT_M_TPS] = r.cals[0].cv[RPT_M_MEAN] = 0.03;
		r.cals[0].cv[RPT_M_P99] = 0.10;
		r.cals[0].cv[RPT_M_ERR] = NAN;
		build(&r);
		assert_int_equal(r.cmps[0].noise, RPT_BY_CALIBRATION);
		assert_true(method_has(&r, "8 runs of 'sc', label cal, on here"));
		/* +6 % against runs that differ by 3 % (sd): noise; +30 %: real. */
		assert_int_equal(r.cmps[0].d[RPT_M_TPS].verdict, pass ? RPT_REAL : RPT_NOISE);
		free_report(&r);
	}
}

/* A/B: 20 ms against 23 ms (+15 % latency, -13 % TPS) in `rounds` interleaved rounds with
 * the machine drifting by `drift` from round to round and runs differing by `noise`;
 * returns how many of `trials` call the mean latency higher and TPS lower, both real. */
static int ab_found(int rounds, double drift_sd, double noise, int trials, struct rng *g)
{
	int found = 0;
	for (int t = 0; t < trials; t++) {
		struct fake_run fr[20];
		struct report r;
		for (int round = 1; round <= rounds; round++) {
			double drift = drift_sd * normal(g, 0, 1);
			fr[2 * round - 2] = run_of(0, 0, round, 1000, drift, noise, g);
			fr[2 * round - 1] = run_of(1, 0, round, 1000 / 1.15, drift, noise, g);
		}
		make_report(&r, fr, 2 * rounds, g);
		build(&r);
		found += r.cmps[0].d[RPT_M_MEAN].verdict == RPT_REAL &&
		         r.cmps[0].d[RPT_M_MEAN].rel_pct > 0 &&
		         r.cmps[0].d[RPT_M_TPS].verdict == RPT_REAL &&
		         r.cmps[0].d[RPT_M_TPS].rel_pct < 0;
		free_report(&r);
	}
	return found;
}

/* Three rounds find +15 % every time when runs differ by 1 % (regserver on a quiet
 * machine), and about 19 times in 20 at 2 % (a busy one): Student's t keeps 4 degrees of
 * freedom, and the family's first figure is tested at 5 %/3.  A machine drifting 5 %
 * between rounds costs that power; six rounds, paired by round, take the drift out. */
static void ab_detection(void **state)
{
	struct rng g = {4242};
	int quiet = ab_found(3, 0.005, 0.01, 300, &g), busy = ab_found(3, 0.01, 0.02, 300, &g);
	int drift3 = ab_found(3, 0.05, 0.02, 300, &g), drift6 = ab_found(6, 0.05, 0.02, 300, &g);
	(void)state;
	print_message("A/B +15 %%, of 300: 3 rounds quiet %d, busy %d, with a 5 %% drift %d; "
	              "6 rounds paired %d\n",
	              quiet, busy, drift3, drift6);
	assert_true(quiet >= 298);
	assert_true(busy >= 270);
	assert_true(drift3 < 270);
	assert_true(drift6 >= 294);
}

/* Five interleaved rounds of study 0 into fr[0..10): A at 1000/s, B at b_tps, runs noise
 * apart. */
static void five_rounds(struct fake_run *fr, double b_tps, double noise, struct rng *g)
{
	for (int round = 1; round <= 5; round++) {
		fr[2 * round - 2] = run_of(0, 0, round, 1000, 0, noise, g);
		fr[2 * round - 1] = run_of(1, 0, round, b_tps, 0, noise, g);
	}
}

/* A study's primary figure is one of the family, holding RPT_PRIMARY_SHARE of alpha (4 %),
 * the other k - 1 figures the rest evenly (1 % between them): in an A/A study where
 * nothing is real, every figure is judged at its own share; without a primary, all at
 * alpha / k (Holm).  The method sentence says which. */
static void primary_share(void **state)
{
	struct rng g = {4343};
	struct fake_run fr[10];
	(void)state;

	five_rounds(fr, 1000, 0.02, &g);
	for (int primary = 0; primary < 2; primary++) {
		struct report r;
		make_report(&r, fr, 10, &g);
		if (primary)
			snprintf(r.studies[0].primary, sizeof r.studies[0].primary, "tps");
		build(&r);
		const struct rpt_cmp *m = &r.cmps[0];
		int k = m->family;
		assert_true(k >= 3);
		assert_int_equal(m->primary_in, primary);
		assert_false(any_real(m));
		for (int f = 0; f < RPT_NFIG; f++) {
			const struct rpt_diff *d = &m->d[f];
			double share = !primary         ? 1.0 / k
			               : f == RPT_M_TPS ? RPT_PRIMARY_SHARE
			                                : (1 - RPT_PRIMARY_SHARE) / (k - 1);
			if (d->verdict != RPT_NA && d->hi > d->lo)
				assert_true(fabs(d->level - (1 - RPT_ALPHA * share)) < 1e-12);
		}
		assert_int_equal(method_has(&r, "the primary holds 4 % of the 5 % error rate"),
		                 primary);
		free_report(&r);
	}
}

/* One process a side kept running (a study that started it once): its offset is in every
 * run, so the comparison is held to the process floor and each interval is stated at least
 * +-10 % around the change; the same runs, each from a process of its own, are judged on
 * their spread and find the 5 %. */
static void kept_running_floor(void **state)
{
	struct rng g = {77};
	struct fake_run fr[10];
	(void)state;

	five_rounds(fr, 1000 / 1.05, 0.002, &g);
	for (int keep = 0; keep < 2; keep++) {
		struct report r;
		make_report(&r, fr, 10, &g);
		r.studies[0].managed = 1;
		r.studies[0].keep_running = keep;
		build(&r);
		const struct rpt_cmp *m = &r.cmps[0];
		const struct rpt_diff *d = &m->d[RPT_M_TPS];
		double half = 0.10 * fabs(d->a);
		assert_int_equal(m->noise, RPT_BY_RUNS);
		assert_true(m->floor_pct == (keep ? RPT_PROCESS_FLOOR_PCT : 0));
		assert_int_equal(d->verdict, keep ? RPT_NOISE : RPT_REAL);
		assert_true(fabs((d->lo + d->hi) / 2 - d->diff) < 1e-9 * fabs(d->a));
		assert_true(keep ? d->hi - d->diff >= half * (1 - 1e-12) : d->hi - d->lo < half);
		assert_int_equal(method_has(&r, "Each label ran in one process kept running"),
		                 keep);
		/* No advice of more rounds, which the process's offset would be in too. */
		assert_int_equal(m->res[RPT_M_TPS].basis,
		                 keep ? RPT_ADV_PROCESSES : RPT_ADV_COMPONENTS);
		assert_true(!keep || m->res[RPT_M_TPS].rounds == 0);
		free_report(&r);
	}
}

/* Sequential studies: one system against itself, looked at after every round from the
 * second until TPS is resolved to 5 % or 8 looks are spent.  With each look judged at its
 * share of the error rate (study_look_alpha) at most 5 % of the studies call any figure
 * real, at the look they stop at and at any look before; judged at 5 % each time, the
 * repeated looks would call far more real (which this test also shows, so that it could
 * catch a rule that does not hold). */
static void aa_sequential(void **state)
{
	struct rng g = {0x5e95};
	const int K = 8, trials = 600;
	const char *fig[1] = {"tps"};
	double pct[1] = {5};
	int stop_real = 0, ever_real = 0, naive = 0, looks = 0, precise = 0;
	(void)state;

	for (int t = 0; t < trials; t++) {
		struct fake_run fr[2 * (8 + 1)];
		int ever = 0, naive_ever = 0;
		for (int round = 1; round <= K + 1; round++) {
			fr[2 * round - 2] = run_of(0, 0, round, 1000, 0, 0.02, &g);
			fr[2 * round - 1] = run_of(1, 0, round, 1000, 0, 0.02, &g);
			if (round < 2)
				continue;
			int k = round - 1, met;
			char why[256], err[256];
			struct report r;
			/* The same data judged as a fixed study at 5 % (the naive look). */
			make_report(&r, fr, 2 * round, &g);
			build(&r);
			naive_ever |= any_real(&r.cmps[0]);
			free_report(&r);
			make_report(&r, fr, 2 * round, &g);
			r.studies[0].max_looks = K;
			r.studies[0].looks = k;
			r.studies[0].alpha = study_look_alpha(0.05, k, K);
			snprintf(r.studies[0].until, sizeof r.studies[0].until, "tps 5%%");
			build(&r);
			assert_true(fabs(r.cmps[0].alpha - study_look_alpha(0.05, k, K)) < 1e-12);
			ever |= any_real(&r.cmps[0]);
			met = rpt_until_met(&r, fig, pct, 1, why, sizeof why, err, sizeof err);
			assert_true(met >= 0);
			if (met || k == K) {
				stop_real += any_real(&r.cmps[0]);
				looks += k;
				precise += met;
				free_report(&r);
				break;
			}
			free_report(&r);
		}
		ever_real += ever;
		naive += naive_ever;
	}
	print_message("sequential A/A, up to %d looks: %d of %d real at the stop, %d at any look "
	              "(%.1f looks, %d resolved 5 %%); at 5 %% each look: %d\n",
	              K, stop_real, trials, ever_real, (double)looks / trials, precise, naive);
	/* 5 % of 600 is 30; with the binomial's spread at most 47 (its 99.9 % bound). */
	assert_true(stop_real <= 47);
	assert_true(ever_real <= 47);
	assert_true(naive > 47);           /* the repeated looks would inflate it */
	assert_true(precise > trials / 2); /* 2 % run noise resolves 5 % within 8 looks */
}

/* Warm-ups are left out of the comparison, and one that is much slower is flagged. */
static void cold_start(void **state)
{
	struct rng g = {11};
	(void)state;
	for (int cold = 0; cold < 2; cold++) {
		struct fake_run fr[8];
		struct rpt_item *v;
		struct report r;
		int n;
		fr[0] = run_of(0, 0, 1, cold ? 700 : 1000, 0, 0, &g);
		fr[0].warmup = 1;
		fr[0].since_start = 1;
		for (int i = 1; i < 8; i++)
			fr[i] = run_of((i - 1) % 2, 0, (i + 1) / 2, 1000, 0, 0.01, &g);
		fr[7].label = 1;
		make_report(&r, fr, 8, &g);
		build(&r);
		assert_int_equal(r.cmps[0].nruns_base + r.cmps[0].nruns, 7);
		assert_int_equal(rpt_cold_start(&r, &v, &n), 0);
		assert_int_equal(n, cold);
		if (cold) {
			assert_string_equal(v[0].code, "cold_start");
			assert_string_equal(rpt_item_runs(&v[0]), "1");
			assert_string_equal(r.labels[v[0].label].name, "a");
			assert_int_equal(v[0].kind, RPT_V_COLD);
			assert_true(v[0].cold.out[0] && v[0].cold.rel[0] < 0);
			const char *t = validity_text(&r, "cold_start");
			assert_non_null(strstr(t, "first after its target started, served 3"));
			assert_non_null(strstr(t, "% fewer requests per second"));
			assert_non_null(strstr(t, "warm-up run and is not compared"));
		}
		rpt_items_free(v, n);
		free_report(&r);
	}
}

/* A validity item's run list grows as long as its runs (it was cut at 96 characters):
 * 60 four-digit keys, 299 characters, kept whole; added, the list moves into the array
 * (the item it came from is left empty, so freeing both frees it once). */
static void item_run_list(void **state)
{
	struct rpt_item it = {.label = 0}, *v = NULL;
	char want[512] = "";
	int n = 0, cap = 0;
	(void)state;

	for (int k = 0; k < 60; k++) {
		char key[16];
		snprintf(key, sizeof key, "%d", 1000 + k);
		rpt_runs_add(&it.run, key);
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", k ? "," : "",
		         key);
	}
	assert_int_equal(strlen(rpt_item_runs(&it)), 299);
	assert_string_equal(rpt_item_runs(&it), want);
	assert_int_equal(rpt_item_add(&v, &n, &cap, &it, "text"), 0);
	assert_string_equal(rpt_item_runs(&it), "");
	assert_string_equal(rpt_item_runs(&v[0]), want);
	assert_string_equal(v[0].text, "text");
	rpt_items_free(v, n);
}

/* Mann-Kendall's S and its exact p-value, against every order enumerated. */
static int next_perm(int *a, int n)
{
	int i = n - 2, j = n - 1;
	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (a[j] <= a[i])
		j--;
	int t = a[i];
	a[i] = a[j];
	a[j] = t;
	for (int l = i + 1, h = n - 1; l < h; l++, h--)
		t = a[l], a[l] = a[h], a[h] = t;
	return 1;
}

static int perm_s(const int *a, int n)
{
	double x[8];
	int k;
	for (int i = 0; i < n; i++)
		x[i] = a[i];
	return rpt_mk_s(x, (size_t)n, &k);
}

static void mann_kendall(void **state)
{
	const double x[] = {1, 2, NAN, 3, 3};
	int k, n3[] = {3, 3, 3}, n1[] = {1}, counts[64] = {0}, total = 0;
	(void)state;
	assert_int_equal(rpt_mk_s(x, 5, &k), 5); /* 1<2, 1<3 twice, 2<3 twice, 3=3 */
	assert_int_equal(k, 4);
	assert_true(fabs(rpt_mk_p(n3, 3, 9) - 2.0 / 216) < 1e-12);
	assert_true(fabs(rpt_mk_p(n3, 1, -3) - 2.0 / 6) < 1e-12);
	assert_true(fabs(rpt_mk_p(n3, 3, 0) - 1) < 1e-12);
	assert_true(rpt_mk_p(n1, 1, 0) == 1);
	/* Groups of 3 and 4: all 6 x 24 orders, S summed; the p of each s is the share of
	 * orders at least as far from 0. */
	int a[3] = {0, 1, 2};
	do {
		int b[4] = {0, 1, 2, 3};
		do {
			counts[perm_s(a, 3) + perm_s(b, 4) + 32]++;
			total++;
		} while (next_perm(b, 4));
	} while (next_perm(a, 3));
	assert_int_equal(total, 144);
	for (int s = -9; s <= 9; s++) {
		int n34[] = {3, 4}, far = 0;
		for (int v = -9; v <= 9; v++)
			if (abs(v) >= abs(s))
				far += counts[v + 32];
		assert_true(fabs(rpt_mk_p(n34, 2, s) - (double)far / total) < 1e-12);
	}
}

/* Studies whose runs trend with the rounds are flagged (rounds_trend); a system against
 * itself with no trend is flagged at most 5 % of the time. */
static void rounds_trend(void **state)
{
	struct rng g = {0xfeed};
	int trials = 400, flagged[2] = {0, 0};
	(void)state;
	for (int trend = 0; trend < 2; trend++)
		for (int t = 0; t < trials; t++) {
			struct fake_run fr[10];
			struct rpt_item *v;
			struct report r;
			int n;
			/* Five interleaved rounds, 3 % run noise; the trend adds 4 % a round. */
			for (int i = 0; i < 10; i++)
				fr[i] = run_of(i % 2, 0, 1 + i / 2, 1000,
				               trend ? 0.04 * (i / 2) : 0, 0.03, &g);
			make_report(&r, fr, 10, &g);
			build(&r);
			assert_int_equal(rpt_trends(&r, &v, &n), 0);
			assert_true(n <= 1);
			if (n) {
				flagged[trend]++;
				assert_string_equal(v[0].code, "rounds_trend");
				assert_string_equal(v[0].severity, "warn");
				assert_int_equal(v[0].kind, RPT_V_TREND);
				assert_int_equal(v[0].trend.fig[0], RPT_M_TPS);
				const char *w = validity_text(&r, "rounds_trend");
				assert_non_null(strstr(w, "At 20 users"));
				assert_non_null(strstr(w, trend ? "TPS rose" : "TPS "));
				assert_non_null(strstr(w, "warmup_steady"));
			}
			rpt_items_free(v, n);
			free_report(&r);
		}
	print_message("rounds_trend: %d of %d A/A studies flagged, %d of %d with +4 %%/round\n",
	              flagged[0], trials, flagged[1], trials);
	/* 5 % of 400 is 20; with the binomial's spread at most 34 (its 99.9 % bound). */
	assert_true(flagged[0] <= 34);
	assert_true(flagged[1] >= trials * 9 / 10);
}

static void run_level_helpers(void **state)
{
	const double x[] = {10, 12, NAN, 14};
	struct rpt_bm b;
	struct rpt_diff d;
	double rel, half;
	(void)state;
	rpt_run_means(x, 4, &b);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.batch, 1);
	assert_true(fabs(b.mean - 12) < 1e-12);
	assert_true(fabs(b.se - 2 / sqrt(3)) < 1e-12);
	assert_true(fabs(b.df - 2) < 1e-12);
	rpt_run_means(x, 1, &b);
	assert_true(isnan(b.se)); /* one run: no spread */
	rpt_run_means(x, 4, &b);
	/* Prediction interval: 12 +- t(0.975, 2) * 2 * sqrt(4/3) = 12 +- 9.93 */
	assert_int_equal(rpt_outlier(&b, 21.5, 0.05, &rel, &half), 0);
	assert_int_equal(rpt_outlier(&b, 22.5, 0.05, &rel, &half), 1);
	assert_true(fabs(half - 100 * 4.302652729749464 * 2 * sqrt(4.0 / 3) / 12) < 1e-6);
	rpt_diff_known(100, 110, 2, 10, 0.05, &d);
	assert_int_equal(d.verdict, RPT_REAL);
	assert_true(fabs(d.hi - d.lo - 2 * 2 * 2.228138851986273) < 1e-6);
	assert_true(fabs(d.level - 0.95) < 1e-12);
	rpt_diff_known(100, 103, 2, 10, 0.05, &d);
	assert_int_equal(d.verdict, RPT_NOISE);
	rpt_diff_known(100, 103, 2, 0, 0.05, &d);
	assert_int_equal(d.verdict, RPT_NA);
	assert_string_equal(rpt_noise_name(RPT_BY_ROUNDS), "paired runs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(run_level_helpers),  cmocka_unit_test(aa_five_rounds),
	    cmocka_unit_test(aa_eight_rounds),    cmocka_unit_test(aa_welch_runs),
	    cmocka_unit_test(one_run_floor),      cmocka_unit_test(one_run_calibrated),
	    cmocka_unit_test(ab_detection),       cmocka_unit_test(cold_start),
	    cmocka_unit_test(aa_sequential),      cmocka_unit_test(mann_kendall),
	    cmocka_unit_test(rounds_trend),       cmocka_unit_test(primary_share),
	    cmocka_unit_test(kept_running_floor), cmocka_unit_test(item_run_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
