/*
 * calsim — the simulated container studies test_calibrate.c (one at a time) and
 * test_calibrate_side.c (side by side) have the report judge: rpt_build itself, 1,000 A/A
 * (10,000 where 1,000 cannot tell the rate from 5 %) and 1,000 A/B studies per design a
 * study offers, each design's rates printed as `# `
 * lines and checked against the report's promises: false "real" (any figure of a
 * comparison) in at most 5 % of A/A studies, the primary figure's interval covering the
 * true change in at least 93 %.  Fixed seeds; no clock.  Two files, so that each stays
 * well inside the unit runner's time limit under ASan on a busy machine.
 *
 * The noise, per run of one process (the app's CPU per request, the primary figure),
 * from ../shared/lab/resolution.md and bench/README.md (bench/designs.sh,
 * bench/jit_bursts.py):
 *   - the machine's wave, shared by every run of a side-by-side group (the same seconds),
 *     a fresh draw for each run made alone (the waves are faster than a 12-s run): 6.8-10.4 %
 *     CV of one side's runs in a noisy hour, 2.5-3.1 % in a calm one (resolution.md, "Two
 *     servers driven at once"): sd 8 % or 2.8 %, the study's hour calm one time in three;
 *   - a slow drift shared by all (PostgreSQL's caches warming: each side's CPU per request
 *     fell by a fifth over a study, resolution.md): 0 to -20 % from the first run to the
 *     last;
 *   - each process's own offset, constant while it lives: two JVMs of one server differed
 *     by +1.5, -1.0, -1.5 % (resolution.md) and -0.6, -3.8, +1.6 % (bench/designs.sh
 *     pair): sd 2 %;
 *   - each run's own noise beside the others of its group: the A/B ratio of runs made at
 *     once moved 2.2 % (CV of A/B per pair, resolution.md), 1.6 % a side, of which the
 *     run's intervals give 1.2 % (5 % a 500-ms sample, 12 samples) and the run 1 %;
 *   - the JIT's bursts: 53 of 176 runs had the JIT over 5 % of the process's CPU
 *     (bench/README.md, "What a burst adds"), C2 at 20-48 % of it for seconds, the
 *     application's own CPU per request +2 % (sd 6 %) meanwhile: a run a burst of 1-4 s
 *     with chance 0.3.
 * The other figures: TPS at the fixed rate (Poisson arrivals, the rate held), the mean
 * latency and p99 moving with the CPU per request and their own noise, memory with a
 * process's own offset (sd 5 %: two instances differed by 20.9 % once, bench/aa.sh), and
 * the database's CPU per request (one PostgreSQL shared by every process of a group).
 * A/B: the app's CPU per request and the latency +5 % (PBKDF2 at 1,100 against 1,000
 * iterations measured +3 to +5 %, bench/README.md), nothing else changed.
 */
#ifndef SOAK_CALSIM_H
#define SOAK_CALSIM_H

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
#include "report/judge/report_stats.h"
#include "rpttest.h"
#include "testrng.h"

#define STUDIES    1000  /* A/A and A/B studies per design */
#define STUDIES_AA 10000 /* A/A studies of a design whose rate at STUDIES is too near 5 % */
#define RATE       200.0 /* arrivals per second to each process */
#define SAMPLES    12    /* CPU samples of a measured run (6 s every 500 ms) */
#define INTERVALS  6     /* its 1-s intervals */
#define CPR_MS     0.5   /* the app's CPU per request, ms */
#define TRUE_PCT   5.0   /* the A/B change of the app's CPU per request and latency */
#define MAX_RUNS   48    /* runs of one simulated study */
#define MAX_STARTS 8     /* starts of one simulated study (processes: start x 100 + replica) */

/* The noise model (see the head comment), as shares of the figure. */
struct noise {
	double wave_noisy, wave_calm, p_calm; /* the machine's wave, by the study's hour */
	double drift_max;                     /* the shared drift over a study, 0 .. -this */
	double proc;                          /* a process's own offset */
	double run;                           /* a run's own offset */
	double sample;                        /* a 500-ms CPU sample's */
	double p_burst, burst_up, burst_sd;   /* a run's chance of a JIT burst, its cost */
	double mem_proc, mem_run;             /* memory: a process's offset, a run's */
};

static const struct noise NOISE = {.wave_noisy = 0.08,
                                   .wave_calm = 0.028,
                                   .p_calm = 1.0 / 3,
                                   .drift_max = 0.20,
                                   .proc = 0.02,
                                   .run = 0.01,
                                   .sample = 0.05,
                                   .p_burst = 0.3,
                                   .burst_up = 0.02,
                                   .burst_sd = 0.06,
                                   .mem_proc = 0.05,
                                   .mem_run = 0.01};

/* The promises a design may break (struct design.known; the findings below). */
enum {
	BREAKS_ALL = 1,    /* any figure real in over 5 % of the A/A studies */
	BREAKS_FAMILY = 2, /* the same with the primary figure left out */
	BREAKS_COVER = 4,  /* the primary's interval covers the truth in under 93 % */
};

/* A design a study offers, as its runs are laid out. */
struct design {
	const char *name;
	int together; /* 1: side by side (groups), 0: one at a time */
	int rounds;   /* rounds (groups) per start */
	int replicas; /* processes a side at once */
	int starts;   /* starts of the targets */
	int restart;  /* one at a time: each run a fresh process (keep_running = no) */
	const char *order;
	enum rpt_noise method; /* how the report must judge it */
	int known;             /* BREAKS_*: the promises this design is known to break (issue 43's
	                        * findings, below); the test fails when one of them holds again, so
	                        * that the list is kept true */
};

/*
 * The findings (issue 43), measured by these tests on the estimator of main at 0387c8f:
 *  1. BREAKS_ALL wherever a study named a primary figure: it was judged alone at the full
 *     5 % and the other figures as a Holm family at 5 % too, so any figure was real in up
 *     to twice 5 % of A/A studies (7.9-9.1 % measured).  Now the primary is one of the
 *     family with 4 % of the 5 % (Holm's weights): 1.7-4.9 % measured (the offsets drawn
 *     for 8 starts since the default's 5 starts).  2 and 3 processes a side read 5.4 and
 *     5.1 % on 1,000 A/A studies, within their Wilson intervals of 5 %; on 10,000 (the
 *     rule since: near_five) both are 4.9 %, the primary alone 4.1-4.2 % at its 4 %, the
 *     others 1.1-1.2 % at 1 %: at their levels.  The one-at-a-time designs' excess was
 *     finding 2.
 *  2. One process a side kept running, one at a time: its runs cannot see how two
 *     processes of one server differ (Kalibera and Jones' process level), an offset every
 *     run of the side shares.  Few rounds hid it in their width; 8 paired rounds did not
 *     (89.6 % coverage).  Now such a comparison is held to the process floor, its interval
 *     stated at least as wide (report_compare.c, kept_one_process): 97 % and more.
 *  3. Side by side with one process a side: the interval (group differences) cannot see it
 *     either; the 10 % floor kept the verdicts right, but the interval the report stated
 *     covered the truth about three times in four.  Now the interval is stated at least
 *     as wide as the floor (report_compare.c, floor_interval): 99.9 % measured.
 */

/* What one simulated study shares across its runs. */
struct world {
	double wave_sd;                   /* the machine's wave in this study's hour */
	double drift;                     /* the shared drift from its first run to its last */
	double proc[2][MAX_STARTS * 100]; /* each process's offset, by side and start x replica */
	double mem[2][MAX_STARTS * 100];  /* and its memory's */
	double change;                    /* B's true change of the app's CPU per request */
	double db[SAMPLES];               /* a group's database CPU samples (shared by its runs) */
	double wave;                      /* the wave of the run or group being made */
};

/* The study's record, as report_study.c would read it. */
static void add_study(struct report *r, const struct design *d)
{
	struct rpt_study *st = &r->studies[0];

	st->name = strdup("calibrate");
	st->targets = strdup("a, b");
	st->before_each = strdup("");
	st->rounds = d->rounds;
	st->replicas = d->replicas;
	st->starts = d->starts;
	st->keep_running = !d->restart;
	st->managed = 1;
	snprintf(st->primary, sizeof st->primary, "cpu.app");
	snprintf(st->order, sizeof st->order, "%s", d->order);
	snprintf(st->status, sizeof st->status, "done");
	snprintf(st->design, sizeof st->design, d->together ? "side-by-side" : "one-at-a-time");
	snprintf(st->together, sizeof st->together, "%d", d->together);
	r->nstudies = 1;
}

static void new_report(struct report *r, const struct design *d)
{
	rpttest_report(r, MAX_RUNS);
	add_study(r, d);
}

/* A run's fixed fields: a measured fixed-rate run of study 0. */
static struct rpt_run *new_run(struct report *r, int side, int round, int grp)
{
	struct rpt_run *run = &r->runs[r->nruns];

	assert_true(r->nruns < MAX_RUNS);
	snprintf(run->key, sizeof run->key, "%d", r->nruns + 1);
	run->id = ++r->nruns;
	run->label = side;
	rpttest_run_texts(run, "sim 200/s");
	run->study = 0;
	run->round = round;
	run->position = 1 + side;
	run->grp = grp;
	run->compared = 1;
	run->gap_s = NAN;
	run->started_ms = 1000000 + 10000 * (int64_t)run->id;
	run->end_ms = run->started_ms + 7000;
	run->interval_ms = 1000;
	r->labels[side].nruns++;
	run->steps = calloc(1, sizeof *run->steps);
	run->src = calloc(3, sizeof *run->src);
	assert_true(run->steps && run->src);
	run->nsteps = 1;
	run->nsrc = 3;
	return run;
}

/* The run's step: TPS and latency per interval, its merged figures. */
static void fill_step(struct rpt_step *s, double lat_ms, struct rng *g)
{
	double sum = 0;

	s->rate = RATE;
	s->planned_ms = 7000;
	s->nintervals = INTERVALS;
	s->f.seconds = INTERVALS;
	for (int k = 0; k < INTERVALS; k++) {
		double tps = RATE * (1 + normal(g, 0, 1) / sqrt(RATE)); /* Poisson arrivals */
		rpttest_push(&s->tps, tps);
		rpttest_push(&s->mean_ms, lat_ms * (1 + 0.10 * normal(g, 0, 1)));
		rpttest_push(&s->p99_ms, 3 * lat_ms * (1 + 0.30 * normal(g, 0, 1)));
		rpttest_push(&s->err_pct, 0);
		sum += tps;
	}
	s->f.tps = sum / INTERVALS;
	s->f.requests = (int64_t)(sum + 0.5);
	s->st.requests = s->f.requests;
	s->f.mean_us = lat_ms * 1000 * (1 + 0.03 * normal(g, 0, 1));
	s->f.p50_us = (int64_t)s->f.mean_us;
	s->f.p99_us = (int64_t)(3 * s->f.mean_us * (1 + 0.10 * normal(g, 0, 1)));
	s->f.max_us = 2 * s->f.p99_us;
	s->cpu = calloc(RPT_MAX_SOURCES, sizeof *s->cpu); /* as the reader leaves it */
	s->cpu_mean = calloc(RPT_MAX_SOURCES, sizeof *s->cpu_mean);
	assert_true(s->cpu && s->cpu_mean);
}

/* Source k of a run: its CPU samples (and memory), their mean. */
static void fill_source(struct rpt_run *run, int k, const char *name, const double *cpu,
                        double mem_mb)
{
	struct rpt_source *src = &run->src[k];
	struct rpt_step *s = &run->steps[0];
	double sum = 0;

	snprintf(src->name, sizeof src->name, "%s", name);
	src->has_cpu = 1;
	for (int i = 0; i < SAMPLES; i++) {
		rpttest_push(&s->cpu[k], cpu[i]);
		sum += cpu[i];
	}
	s->cpu_mean[k] = src->cpu_mean = sum / SAMPLES;
	src->has_rss = mem_mb > 0;
	src->rss_mean_mb = mem_mb > 0 ? mem_mb : NAN;
}

/* The app's CPU % samples of a run whose CPU per request is cpr, with the JIT's: a burst
 * of 1-4 s with chance p_burst, the application's own cost up meanwhile. */
static void app_samples(double cpr, double *app, double *jit, struct rng *g)
{
	int burst = uniform(g) < NOISE.p_burst, from = (int)(uniform(g) * SAMPLES);
	int len = 2 + (int)(uniform(g) * 7);
	double up = NOISE.burst_up + NOISE.burst_sd * normal(g, 0, 1);

	for (int i = 0; i < SAMPLES; i++) {
		int in = burst && i >= from && i < from + len;
		double cpu =
		    cpr * RATE / 10 * (1 + NOISE.sample * normal(g, 0, 1)) * (in ? 1 + up : 1);
		double share = in ? 0.20 + 0.28 * uniform(g) : 0.01 * uniform(g);
		app[i] = cpu;
		jit[i] = cpu * share / (1 - share);
	}
}

/* One run of process p of `side` made in the world's current wave, at time t (0 .. 1
 * over the study). */
static void make_run(struct report *r, struct world *w, int side, int p, int round, int grp,
                     int start, double t, struct rng *g)
{
	struct rpt_run *run = new_run(r, side, round, grp);
	double app[SAMPLES], jit[SAMPLES], db[SAMPLES];
	double level = exp(w->wave + w->drift * t + w->proc[side][p] + NOISE.run * normal(g, 0, 1));
	double cpr = CPR_MS * level * (side ? 1 + w->change : 1);

	run->replica = 1 + p % 100;
	run->start_no = start;
	run->since_start = 0;
	fill_step(&run->steps[0], 15 * cpr / CPR_MS, g);
	app_samples(cpr, app, jit, g);
	for (int i = 0; i < SAMPLES; i++)
		db[i] =
		    grp ? w->db[i] : 0.3 * RATE / 10 * exp(w->wave) * (1 + 0.05 * normal(g, 0, 1));
	fill_source(run, 0, "app", app,
	            300 * exp(w->mem[side][p] + NOISE.mem_run * normal(g, 0, 1)));
	fill_source(run, 1, "app:jit", jit, 0);
	fill_source(run, 2, "db", db, 0);
}

/* A new machine wave for a run or a group; a group's database samples with it (the one
 * PostgreSQL serves every process of the group). */
static void new_wave(struct world *w, int procs, struct rng *g)
{
	w->wave = w->wave_sd * normal(g, 0, 1);
	for (int i = 0; i < SAMPLES; i++)
		w->db[i] = 0.3 * RATE * procs / 10 * exp(w->wave) * (1 + 0.05 * normal(g, 0, 1));
}

static void new_world(struct world *w, double change, struct rng *g)
{
	w->wave_sd = uniform(g) < NOISE.p_calm ? NOISE.wave_calm : NOISE.wave_noisy;
	w->drift = -NOISE.drift_max * uniform(g);
	w->change = change;
	for (int s = 0; s < 2; s++)
		for (size_t p = 0; p < sizeof w->proc[0] / sizeof w->proc[0][0]; p++) {
			w->proc[s][p] = NOISE.proc * normal(g, 0, 1);
			w->mem[s][p] = NOISE.mem_proc * normal(g, 0, 1);
		}
}

/* A side-by-side study: each start's groups, every process of both sides in each. */
static void side_by_side(struct report *r, const struct design *d, struct world *w, struct rng *g)
{
	int groups = d->starts * d->rounds, grp = 0;

	for (int st = 1; st <= d->starts; st++)
		for (int round = 1; round <= d->rounds; round++) {
			double t = groups > 1 ? (double)grp / (groups - 1) : 0;
			new_wave(w, 2 * d->replicas, g);
			grp++;
			for (int side = 0; side < 2; side++)
				for (int k = 0; k < d->replicas; k++)
					make_run(r, w, side, (st - 1) * 100 + k, round, grp, st, t,
					         g);
		}
}

/* A study one at a time: each round runs both sides, each alone (interleaved: AB BA AB
 * ...; random: a coin), one process a side kept running, or a fresh one for each run. */
static void one_at_a_time(struct report *r, const struct design *d, struct world *w, struct rng *g)
{
	int slots = 2 * d->rounds, slot = 0;

	for (int round = 1; round <= d->rounds; round++) {
		int first = !strcmp(d->order, "random") ? uniform(g) < 0.5 : (round - 1) % 2;
		for (int i = 0; i < 2; i++, slot++) {
			int side = i ? !first : first;
			new_wave(w, 1, g);
			make_run(r, w, side, d->restart ? round : 0, round, 0,
			         d->restart ? round : 1, (double)slot / (slots - 1), g);
		}
	}
}

/* What one study of a design says: any figure real, the primary's interval (as a share of
 * its own baseline: the change is its centre) and verdict. */
struct outcome {
	int any_real;          /* any figure */
	int other_real;        /* any but the primary */
	int primary_real;      /* the primary */
	double lo_pct, hi_pct; /* the primary figure's interval of the change, % */
	enum rpt_noise noise;
};

static void simulate(const struct design *d, double change, struct rng *g, struct outcome *o)
{
	struct rpt_opts opts = {.title = "sim"};
	struct report r;
	struct world w;
	char err[256] = "";

	new_world(&w, change, g);
	new_report(&r, d);
	(d->together ? side_by_side : one_at_a_time)(&r, d, &w, g);
	if (rpt_build(&r, &opts, err, sizeof err) < 0)
		fail_msg("rpt_build: %s", err);
	assert_int_equal(r.ncmps, 1);
	const struct rpt_cmp *m = &r.cmps[0];
	const struct rpt_diff *p = &m->d[m->primary];
	assert_true(m->primary >= 0);
	o->other_real = 0;
	for (int f = 0; f < RPT_NFIG; f++)
		o->other_real |= f != m->primary && m->d[f].verdict == RPT_REAL;
	o->any_real = o->other_real || p->verdict == RPT_REAL;
	o->primary_real = p->verdict == RPT_REAL;
	o->lo_pct = 100 * p->lo / p->a;
	o->hi_pct = 100 * p->hi / p->a;
	o->noise = m->noise;
	rpt_free(&r);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The 95 % Wilson interval of k successes in n, in %. */
static void wilson(int k, int n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / n, z2n = z * z / n;
	double c = (p + z2n / 2) / (1 + z2n),
	       h = z * sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);

	*lo = 100 * fmax(0, c - h);
	*hi = 100 * fmin(1, c + h);
}

/* A design's measured rates. */
struct rates {
	int n_aa;                                    /* A/A studies: STUDIES or STUDIES_AA */
	int aa_real, aa_other, aa_primary, aa_cover; /* of n_aa */
	int ab_cover, ab_found;                      /* of STUDIES */
	int method;              /* studies judged by the design's method, of n_aa + STUDIES */
	double aa_half, ab_half; /* median half-widths, % */
};

static double median_of(double *v, int n)
{
	qsort(v, n, sizeof v[0], cmp_dbl);
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* n more A/A (ab 0) or A/B (ab 1) studies of design d, added to x; each one's half-width
 * in half[0 .. n). */
static void tally(const struct design *d, int ab, int n, struct rng *g, struct rates *x,
                  double *half)
{
	double truth = ab ? TRUE_PCT : 0;
	struct outcome o;

	for (int i = 0; i < n; i++) {
		simulate(d, truth / 100, g, &o);
		x->method += o.noise == d->method;
		int cover = o.lo_pct <= truth && truth <= o.hi_pct;
		half[i] = (o.hi_pct - o.lo_pct) / 2;
		if (ab) {
			x->ab_cover += cover;
			x->ab_found += o.primary_real && o.lo_pct > 0;
		} else {
			x->aa_real += o.any_real;
			x->aa_other += o.other_real;
			x->aa_primary += o.primary_real;
			x->aa_cover += cover;
		}
	}
}

/* k of n as "k of n = p % (95 % Wilson lo-hi %)". */
static const char *rate_text(int k, int n, char *b, size_t len)
{
	double lo, hi;

	wilson(k, n, &lo, &hi);
	snprintf(b, len, "%d of %d = %.1f %% (95 %% Wilson %.1f-%.1f %%)", k, n, 100.0 * k / n, lo,
	         hi);
	return b;
}

/* Whether k of n cannot tell its rate from 5 %: 5 % lies in its Wilson interval.
 * 1,000 studies resolve a rate only to about ±1.4 %; a design so near its promise is
 * measured on STUDIES_AA A/A studies (±0.4 %), its rate judged there. */
static int near_five(int k, int n)
{
	double lo, hi;

	wilson(k, n, &lo, &hi);
	return lo <= 5 && 5 <= hi;
}

/* Design d's rates: STUDIES A/A and STUDIES A/B studies, then STUDIES_AA - STUDIES more
 * A/A (the draws continuing) when the first leave its false-real rate too near 5 % to
 * judge. */
static void measure(const struct design *d, uint64_t seed, struct rates *x)
{
	static double half_aa[STUDIES_AA], half_ab[STUDIES];
	struct rng g = {seed};

	memset(x, 0, sizeof *x);
	tally(d, 0, STUDIES, &g, x, half_aa);
	tally(d, 1, STUDIES, &g, x, half_ab);
	x->n_aa = STUDIES;
	if (near_five(x->aa_real, STUDIES) || near_five(x->aa_other, STUDIES)) {
		tally(d, 0, STUDIES_AA - STUDIES, &g, x, half_aa + STUDIES);
		x->n_aa = STUDIES_AA;
	}
	x->aa_half = median_of(half_aa, x->n_aa);
	x->ab_half = median_of(half_ab, STUDIES);
}

static void print_rates(const struct design *d, const struct rates *x)
{
	char a[96], b[96], c[96];

	print_message("# %s: %s in %d of %d studies\n", d->name, rpt_noise_name(d->method),
	              x->method, x->n_aa + STUDIES);
	print_message("#   A/A false real, any figure: %s; the primary alone: %s; the others: %s\n",
	              rate_text(x->aa_real, x->n_aa, a, sizeof a),
	              rate_text(x->aa_primary, x->n_aa, b, sizeof b),
	              rate_text(x->aa_other, x->n_aa, c, sizeof c));
	print_message("#   A/A: the primary's interval covers 0 in %.1f %%, median half-width "
	              "%.2f %%\n",
	              100.0 * x->aa_cover / x->n_aa, x->aa_half);
	print_message("#   A/B +%.0f %%: covered in %.1f %%, found real in %.1f %%, median "
	              "half-width %.2f %%\n",
	              TRUE_PCT, 100.0 * x->ab_cover / STUDIES, 100.0 * x->ab_found / STUDIES,
	              x->ab_half);
}

/* The promises design d's rates break (BREAKS_*). */
static int broken(const struct rates *x)
{
	return (x->aa_real * 100 > 5 * x->n_aa ? BREAKS_ALL : 0) |
	       (x->aa_other * 100 > 5 * x->n_aa ? BREAKS_FAMILY : 0) |
	       (x->ab_cover * 100 < 93 * STUDIES || x->aa_cover * 100 < 93 * x->n_aa ? BREAKS_COVER
	                                                                             : 0);
}

/* Every design of designs[0..n) keeps the report's promises (false real at most 5 % for
 * all its figures together, coverage at least 93 %), but for the findings its `known`
 * lists, each of which must still show: a fix takes it off the list.  Design i is
 * simulated from seed + i. */
static void calsim_check(const struct design *designs, size_t n, uint64_t seed)
{
	static const char *const what[] = {"false real over 5 %, all figures together",
	                                   "false real over 5 %, the primary left out",
	                                   "coverage under 93 %"};
	int wrong = 0;

	for (size_t i = 0; i < n; i++) {
		struct rates x;
		assert_in_range(designs[i].starts, 1, MAX_STARTS); /* the offsets drawn */
		assert_in_range(designs[i].replicas, 1, 99);
		measure(&designs[i], seed + i, &x);
		print_rates(&designs[i], &x);
		int got = broken(&x), known = designs[i].known;
		for (int k = 0; k < 3; k++) {
			int bit = 1 << k;
			if ((got & bit) && (known & bit))
				print_message("#   KNOWN FAILURE (issue 43): %s\n", what[k]);
			else if (got & bit)
				print_message("#   FAILS: %s\n", what[k]);
			else if (known & bit)
				print_message("#   HOLDS NOW (take it off the known list): %s\n",
				              what[k]);
		}
		wrong += got != known;
		/* Every design is judged its own way, but for 8 paired rounds: a run left out
		 * for a JIT burst unpairs a study's rounds, and about half fall back to runs. */
		assert_true(x.method * 5 >= (x.n_aa + STUDIES) * 2);
	}
	assert_int_equal(wrong, 0);
}

#endif
