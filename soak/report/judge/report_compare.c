/* report_compare: each label's cell against the baseline's at the same key, judged with one
 * noise model for every figure of the comparison, and what the comparison resolves.
 *
 * The unit that repeats is the run: with two or more compared runs a side every figure
 * (TPS, mean, p99, error %, CPU per request and memory of each process) is one observation
 * per run, and the difference is judged on the runs' spread (Student's t with as many runs
 * a side, Welch's otherwise, paired by round from RPT_PAIR_MIN rounds of a study).  That
 * spread is split into its variance components (rpt_vc: between runs, within a run), which
 * give the resolution and the advice: more rounds shrink both, longer runs only the
 * within-run part.  With one run a side the run-to-run part is unknown: it comes from a
 * stored calibration, or the figures are judged on the run's own intervals (batch means)
 * and held to a floor, and no resolution is claimed.
 *
 * The figures with a spread form one family, the study's primary figure among them,
 * judged by Holm's weighted step-down (the primary holding most of it) at the
 * comparison's alpha: RPT_ALPHA, or for a sequential study the share of it its last look
 * was given (report_study.c), so that repeated looks do not add false "real" verdicts.
 */
#include "report_compare.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dur.h"
#include "scenario/study.h"
#include "report_groups.h"
#include "report_runfig.h"
#include "report_stats.h"

/* --- a cell's statistics ---------------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median gap before a cell's runs (rpt_run.gap_s: starting targets, warming them up,
 * before_each), 0 when unknown: what one more run costs besides its own length.  The
 * median, so that a start's one-time warm-up does not count for every run. */
static double median_gap(const struct report *r, const struct rpt_cell *c)
{
	double g[RPT_MAX_RUNS];
	int n = 0;

	for (int i = 0; i < r->nruns; i++)
		if (rpt_in_cell(&r->runs[i], c) && !isnan(r->runs[i].gap_s))
			g[n++] = r->runs[i].gap_s;
	if (n == 0)
		return 0;
	qsort(g, (size_t)n, sizeof *g, cmp_dbl);
	return n % 2 ? g[n / 2] : (g[n / 2 - 1] + g[n / 2]) / 2;
}

/* Batch means of one figure (a request figure, or the CPU samples of series s when f is
 * RPT_FIG_CPU(s): its raw CPU %) over the cell's compared steps, one segment per step. */
static int pooled_bm(const struct report *r, const struct rpt_cell *c, int f, struct rpt_bm *out)
{
	double *v = NULL;
	size_t n = 0, cap = 0, *seg = NULL, nseg = 0, segcap = 0;
	int rc = -1;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int series = rpt_fig_series(f);
		int si = series >= 0 ? rpt_run_source(r, run, series) : -1;
		if (!rpt_in_cell(run, c) || (series >= 0 && si < 0))
			continue;
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			const struct rpt_values *x = series < 0 ? rpt_step_values(s, f)
			                             : s->cpu   ? &s->cpu[si]
			                                        : NULL;
			if (!rpt_step_in(s, c) || !x)
				continue;
			if (buf_grow(&v, &cap, n + x->n, sizeof *v, 16) < 0 ||
			    buf_grow(&seg, &segcap, nseg + 1, sizeof *seg, 8) < 0)
				goto done;
			if (x->n)
				memcpy(v + n, x->v, x->n * sizeof *v);
			n += x->n;
			seg[nseg++] = x->n;
		}
	}
	rpt_batch_means(v, n, seg, nseg, out);
	rc = 0;
done:
	free(v);
	free(seg);
	return rc;
}

/* Figure f of cell c over its compared steps, as its row's source says: its value and
 * batch means (a series' CPU: per request, from its raw CPU %; memory: whole runs only,
 * below). */
static int cell_reading(const struct report *r, struct rpt_cell *c, int f)
{
	int s = rpt_fig_series(f);
	struct rpt_bm cpu;

	switch (rpt_fig_row(f)->src) {
	case RPT_SRC_REQUEST:
		c->value[f] = rpt_metric_of(&c->f, f);
		return pooled_bm(r, c, f, &c->bm[f]);
	case RPT_SRC_CPU:
		if (pooled_bm(r, c, f, &cpu) < 0)
			return -1;
		c->cpu_mean[s] = cpu.mean;
		if (!rpt_process_series(r->cpu_names[s]) || isnan(cpu.mean))
			return 0;
		rpt_per_request(&cpu, &c->bm[RPT_M_TPS], &c->bm[f]);
		c->value[f] = c->f.tps > 0 ? 10 * cpu.mean / c->f.tps : NAN;
		return 0;
	case RPT_SRC_MEM:
		return 0;
	}
	return 0;
}

int rpt_cell_stats(const struct report *r, struct rpt_cell *c)
{
	int n = 0, rc = -1;
	double *x = malloc((size_t)(r->nruns ? r->nruns : 1) * 4 * sizeof *x);
	double *se = x + r->nruns, *secs = se + r->nruns, *over = secs + r->nruns;

	if (!x)
		return -1;
	for (int f = 0; f < RPT_NFIG; f++) {
		c->value[f] = NAN;
		memset(&c->bm[f], 0, sizeof c->bm[f]);
		c->bm[f].mean = c->bm[f].se = NAN;
	}
	for (int f = 0; f < RPT_NFIG; f++)
		if (rpt_fig_in(f, r->ncpu) && cell_reading(r, c, f) < 0)
			goto done;
	for (int i = 0; i < r->nruns; i++)
		if (rpt_in_cell(&r->runs[i], c) && n++ == 0)
			snprintf(c->scenario, sizeof c->scenario, "%s", r->runs[i].name);
	c->nruns = n;
	for (int f = 0; f < RPT_NFIG; f++) {
		int k = 0;
		if (!rpt_fig_in(f, r->ncpu))
			continue;
		for (int i = 0; i < r->nruns; i++)
			if (rpt_in_cell(&r->runs[i], c)) {
				rpt_run_fig(r, &r->runs[i], c, f, &x[k], &se[k], &secs[k],
				            &over[k]);
				k++;
			}
		rpt_run_means(x, (size_t)k, &c->run[f]);
		rpt_vc_of(x, se, secs, (size_t)k, &c->vc[f]);
		int nx;
		c->trend_s[f] = rpt_mk_s(x, (size_t)k, &nx);
		c->first[f] = c->last[f] = NAN;
		for (int i = 0; i < k; i++)
			if (!isnan(x[i])) {
				c->last[f] = x[i];
				if (isnan(c->first[f]))
					c->first[f] = x[i];
			}
		double o = 0;
		int no = 0;
		for (int i = 0; i < k; i++)
			if (!isnan(over[i]))
				o += over[i], no++;
		c->vc[f].overhead_s = (no ? o / no : 0) + median_gap(r, c);
		if (rpt_fig_row(f)->runs_only)
			c->value[f] = c->run[f].mean; /* the runs' mean (memory) */
	}
	rc = 0;
done:
	free(x);
	return rc;
}

/* --- the method ------------------------------------------------------------------------ */

/* The calibration for a cell: same kind, level, step length and scenario, of the cell's
 * own label when there is one, else of any label; the most recent.  -1: none. */
static int find_cal(const struct report *r, const struct rpt_cell *c)
{
	int best = -1, best_own = 0;

	for (int i = 0; i < r->ncals; i++) {
		const struct rpt_cal *k = &r->cals[i];
		int own = strcmp(k->label, r->labels[c->label].name) == 0;
		if (k->sweep != c->sweep || k->concurrency != c->concurrency || c->rate > 0 ||
		    k->planned_ms != c->planned_ms || strcmp(k->scenario, c->scenario) != 0 ||
		    k->runs < 2)
			continue;
		if (best < 0 || own > best_own ||
		    (own == best_own && k->t_ms > r->cals[best].t_ms)) {
			best = i;
			best_own = own;
		}
	}
	return best;
}

/* The runs of two cells that pair up by their study's rounds: each compared run of either
 * label has exactly one partner of the other label in the same study and round.  Fills
 * pa[]/pb[] (run indices) and returns the number of pairs; 0 when the runs do not pair up
 * so (runs outside a study, a round one label missed or ran twice). */
static int pair_rounds(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b,
                       int *pa, int *pb)
{
	int n = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *x = &r->runs[i];
		int partner = -1, twins = 0;
		if (!rpt_in_cell(x, a))
			continue;
		if (x->study < 0)
			return 0;
		for (int j = 0; j < r->nruns; j++) {
			const struct rpt_run *y = &r->runs[j];
			if (y->study != x->study || y->round != x->round)
				continue;
			if (rpt_in_cell(y, b))
				partner = partner < 0 ? j : -2;
			else if (j != i && rpt_in_cell(y, a))
				twins++;
		}
		if (partner < 0 || twins)
			return 0;
		pa[n] = i;
		pb[n++] = partner;
	}
	return n == b->nruns ? n : 0;
}

/* The study every run of both cells belongs to, or -1. */
static int common_study(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b)
{
	int st = -2;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *x = &r->runs[i];
		if (!rpt_in_cell(x, a) && !rpt_in_cell(x, b))
			continue;
		if (st == -2)
			st = x->study;
		else if (st != x->study)
			return -1;
	}
	return st < 0 ? -1 : st;
}

/* What judging a comparison needs besides the model: its pairs of runs, if any. */
struct pairs {
	int *a, *b; /* run indices, pair by pair */
	int n;      /* pairs */
};

/* Whether figure f is judged on batch means (and held to the floor) in comparison m (a
 * calibration holds the request figures' spread only). */
static int on_batches(const struct report *r, const struct rpt_cmp *m, int f)
{
	if (m->noise == RPT_BY_GROUPS)
		return 0;
	return m->noise == RPT_BY_BATCHES ||
	       (m->noise == RPT_BY_CALIBRATION &&
	        (rpt_fig_row(f)->src != RPT_SRC_REQUEST || isnan(r->cals[m->cal].cv[f])));
}

/* A side's variance of its mean figure f under a calibration: its mean varies from run
 * to run by cv of itself (over its n runs), and never less than its own measured error
 * says. */
static double cal_var(const struct rpt_cell *c, int f, double cv)
{
	const struct rpt_bm *run = &c->run[f];
	double se = run->n >= 2 ? run->se : c->bm[f].se;
	double v = cv * cv * run->mean * run->mean / (double)(run->n ? run->n : 1);

	return !isnan(se) && se * se > v ? se * se : v;
}

/* Figure f of a comparison at a (1 - alpha) interval, by the comparison's method. */
static void judge(const struct report *r, const struct rpt_cmp *m, const struct pairs *pr, int f,
                  double alpha, struct rpt_diff *d)
{
	const struct rpt_cell *a = &r->cells[m->base], *b = &r->cells[m->cell];

	if (m->noise == RPT_BY_GROUPS) {
		rpt_groups_diff(r, a, b, &m->grp, f, alpha, d);
		return;
	}
	if (m->noise == RPT_BY_RUNS) {
		if (a->run[f].n == b->run[f].n)
			rpt_student_alpha(&a->run[f], &b->run[f], alpha, d);
		else
			rpt_welch_alpha(&a->run[f], &b->run[f], alpha, d);
		return;
	}
	if (m->noise == RPT_BY_ROUNDS) {
		/* The round differences, one per pair: their mean and its standard error. */
		double diff[RPT_MAX_RUNS], va[RPT_MAX_RUNS], x, y, e, t, o;
		int k = 0;
		for (int i = 0; i < pr->n; i++) {
			rpt_run_fig(r, &r->runs[pr->a[i]], a, f, &x, &e, &t, &o);
			rpt_run_fig(r, &r->runs[pr->b[i]], b, f, &y, &e, &t, &o);
			if (isnan(x) || isnan(y))
				continue;
			va[k] = x;
			diff[k++] = y - x;
		}
		rpt_paired_alpha(va, diff, (size_t)k, alpha, d);
		return;
	}
	if (!on_batches(r, m, f)) {
		const struct rpt_cal *k = &r->cals[m->cal];
		rpt_diff_known(a->run[f].mean, b->run[f].mean,
		               sqrt(cal_var(a, f, k->cv[f]) + cal_var(b, f, k->cv[f])),
		               (double)(k->runs - 1), alpha, d);
		return;
	}
	/* Batch means within the runs: they do not see run-to-run noise, hence the floor
	 * (applied once the family is judged: see holm). */
	rpt_welch_alpha(&a->bm[f], &b->bm[f], alpha, d);
}

/* Whether both cells have figure f. */
static int has_fig(const struct report *r, const struct rpt_cmp *m, int f)
{
	int s = rpt_fig_series(f);

	if (!rpt_fig_in(f, r->ncpu))
		return 0;
	/* A JIT's CPU is shown beside its process's, not judged: it says whether the JIT was
	 * still at work, which the warm-up and the run's class already weigh. */
	if (s >= 0 && rpt_jit_series(r->cpu_names[s]))
		return 0;
	return r->cells[m->base].run[f].n > 0 && r->cells[m->cell].run[f].n > 0;
}

/* Whether every run of cell c ran in one process of its target: runs of a study that kept
 * its targets running, or never started them.  Its runs then repeat that one process: two
 * processes of one server differ in what each carries from run to run (the memory it
 * touched), which such runs cannot measure (Kalibera and Jones: the variance between VM
 * invocations needs more than one invocation).  A Tomcat 10 A/A of two such instances
 * (bench/aa.sh) called one's memory 20.9 % higher, real. */
static int one_process(const struct report *r, const struct rpt_cell *c)
{
	int n = 0;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!rpt_in_cell(run, c))
			continue;
		if (run->study < 0)
			return 0;
		const struct rpt_study *st = &r->studies[run->study];
		if (!st->keep_running && st->managed)
			return 0;
		n++;
	}
	return n > 0;
}

/* Whether every run of cell c ran in the one process its study started and kept running:
 * that process's own offset is in every run, so the runs' spread, paired or not, cannot
 * see how two processes of one server differ (the study's rounds all share it), and it
 * is held to RPT_PROCESS_FLOOR_PCT as one process a side side by side is.  Targets a
 * study did not start are not known to be one process. */
static int kept_one_process(const struct report *r, const struct rpt_cell *c)
{
	int key = -1;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!rpt_in_cell(run, c))
			continue;
		if (run->study < 0 || !r->studies[run->study].managed ||
		    !r->studies[run->study].keep_running)
			return 0;
		int k = run->start_no * 1000 + run->replica;
		if (key >= 0 && k != key)
			return 0;
		key = k;
	}
	return key >= 0;
}

/* Whether comparison m is held to RPT_PROCESS_FLOOR_PCT: its observations (runs, groups)
 * cannot see how two processes of one server differ. */
static int process_floored(const struct rpt_cmp *m)
{
	return m->floor_pct > 0 && m->noise != RPT_BY_BATCHES && m->noise != RPT_BY_CALIBRATION;
}

/* Figure f's share of the comparison's error rate (Holm's weights, 1979): the study's
 * primary figure RPT_PRIMARY_SHARE when it is in the family with others, which split the
 * rest evenly; without a primary, every figure alike.  The shares sum to 1. */
static double fig_weight(const struct rpt_cmp *m, int f)
{
	int k = m->family > 0 ? m->family : 1;

	if (!m->primary_in || k == 1)
		return 1.0 / k;
	return f == m->primary ? RPT_PRIMARY_SHARE : (1 - RPT_PRIMARY_SHARE) / (k - 1);
}

/* The untested figure of order[j..k) with the smallest p-value per share: moved to j. */
static void next_tested(const struct rpt_cmp *m, int *order, int j, int k)
{
	int best = j;

	for (int i = j + 1; i < k; i++)
		if (m->d[order[i]].p * fig_weight(m, order[best]) <
		    m->d[order[best]].p * fig_weight(m, order[i]))
			best = i;
	int t = order[j];
	order[j] = order[best];
	order[best] = t;
}

/* Where what the processes share is missing from the interval (one process a side), it
 * is stated at least floor % of the baseline either side of the change, its centre, so
 * that it covers what the floor keeps out of "real": a change inside it is noise. */
static void floor_interval(struct rpt_diff *d, double floor)
{
	double h = floor / 100 * fabs(d->a);

	if (d->verdict == RPT_NA || !isfinite(d->lo) || !isfinite(d->hi) ||
	    !(h > (d->hi - d->lo) / 2))
		return;
	d->lo = d->diff - h;
	d->hi = d->diff + h;
	if (d->verdict == RPT_REAL && d->lo <= 0 && d->hi >= 0)
		d->verdict = RPT_NOISE;
}

/*
 * Judges a comparison's figures as one family with Holm's weighted step-down: each figure
 * with a spread (a p-value) holds a share w of the error rate (fig_weight); of the figures
 * still untested (their shares summing to W) the one with the smallest p / w is tested at
 * alpha x w / W, so that a real one passes its share on to the rest, until one is not
 * real: it and every later one are noise, each judged at its own share of that last step.
 * A closed test of weighted Bonferroni tests: a system compared with itself has at most an
 * alpha chance of any figure called real, the primary included, whatever the figures'
 * correlation.  Each interval is shown at the level its figure was tested at.  Figures
 * without a spread (both sides constant: exact) or without data are outside the family.
 */
static void holm(const struct report *r, struct rpt_cmp *m, const struct pairs *pr)
{
	int order[RPT_NFIG], k = 0, stop = 0;
	double left = 1; /* W: the untested figures' shares */

	m->primary_in = 0;
	for (int f = 0; f < RPT_NFIG; f++) {
		struct rpt_diff *d = &m->d[f];
		memset(d, 0, sizeof *d);
		d->verdict = RPT_NA;
		d->lo = d->hi = d->t = d->p = d->rel_pct = NAN;
		if (!has_fig(r, m, f) || (rpt_fig_row(f)->runs_only && m->one_process))
			continue;
		judge(r, m, pr, f, m->alpha, d);
		if (d->verdict != RPT_NA && d->hi > d->lo) {
			m->primary_in |= f == m->primary;
			order[k++] = f;
		}
	}
	m->family = k;
	m->level = 1;
	for (int j = 0; j < k; j++)
		m->level = fmin(m->level, 1 - m->alpha * fig_weight(m, order[j]));
	for (int j = 0; j < k; j++) {
		if (!stop)
			next_tested(m, order, j, k);
		struct rpt_diff *d = &m->d[order[j]];
		judge(r, m, pr, order[j], m->alpha * fig_weight(m, order[j]) / left, d);
		if (stop)
			d->verdict = RPT_NOISE; /* past the step that stopped: not tested */
		else if (d->verdict == RPT_REAL)
			left -= fig_weight(m, order[j]);
		else
			stop = 1;
	}
	/* The floor: what batch means call real must also be larger than two runs of one
	 * system differ by; with one process a side (side by side, or one at a time in one
	 * process kept running), than two processes of one server differ by.  It is
	 * practical, not statistical: it does not stop the family. */
	int pair = process_floored(m);
	for (int f = 0; f < RPT_NFIG; f++) {
		struct rpt_diff *d = &m->d[f];
		double own = rpt_fig_row(f)->floor_pct;
		double floor = pair ? RPT_PROCESS_FLOOR_PCT : own > 0 ? own : RPT_FLOOR_PCT;
		if (pair)
			floor_interval(d, floor);
		else if (on_batches(r, m, f) && d->verdict == RPT_REAL && !isnan(d->rel_pct) &&
		         fabs(d->rel_pct) < floor)
			d->verdict = RPT_NOISE;
	}
}

/* --- what it resolves -------------------------------------------------------------------- */

/* Half-width of the interval of a difference between two labels' means, each over `runs`
 * runs of measured length t: both sides' between-run variances (bv, summed) and within-run
 * variance-seconds (wv, summed), at 1 - alpha. */
static double half_width(double bv, double wv, int runs, double t, double alpha)
{
	double var = (bv + wv / t) / runs;
	return rpt_t_quantile(1 - alpha / 2, 2.0 * runs - 2) * sqrt(var);
}

void rpt_advise(const struct rpt_vc *a, const struct rpt_vc *b, double base, double target_pct,
                double alpha, struct rpt_resolve *res)
{
	double goal = fabs(base) * target_pct / 100, t0 = a->secs, best_cost = INFINITY;
	double bv, wv, over = (a->overhead_s + b->overhead_s) / 2;
	double cand[16];
	int nc = 0;

	res->target_pct = target_pct;
	res->rounds = 0;
	res->run_s = res->total_s = NAN;
	res->now_enough = 0;
	res->between_pct = res->within_pct = NAN;
	if (isnan(a->between) || isnan(b->between) || !(goal > 0) || !(t0 > 0))
		return;
	bv = a->between + b->between;
	wv = (isnan(a->within) ? 0 : a->within * a->secs) +
	     (isnan(b->within) ? 0 : b->within * b->secs);
	res->between_pct = 100 * sqrt(bv / 2) / fabs(base);
	res->within_pct = 100 * sqrt(wv / 2 / t0) / fabs(base);
	int now = a->runs < b->runs ? a->runs : b->runs;
	res->now_enough = now >= 2 && half_width(bv, wv, now, t0, alpha) <= goal;
	/* Run lengths to try: powers of two of the current one, and the optimum of Kalibera
	 * and Jones (cost per run = its length + its overhead): t* = sqrt(over * W / B). */
	for (int k = -2; k <= 6; k++)
		cand[nc++] = t0 * pow(2, k);
	if (bv > 0 && wv > 0 && over > 0)
		cand[nc++] = fmin(64 * t0, fmax(t0 / 4, sqrt(over * wv / bv)));
	double z = rpt_t_quantile(1 - alpha / 2, 1e6); /* t's limit: no n needs fewer runs */
	for (int i = 0; i < nc; i++) {
		double t = cand[i];
		/* The normal quantile's answer is a lower bound of n: start there (a t-quantile
		 * costs a bisection; the bound leaves a few to try). */
		double n0 = ceil(z * z * (bv + wv / t) / (goal * goal));
		for (int n = n0 > 2 ? (n0 < RPT_ADVISE_MAX_ROUNDS ? (int)n0 : RPT_ADVISE_MAX_ROUNDS)
		                    : 2;
		     n <= RPT_ADVISE_MAX_ROUNDS; n++) {
			if (half_width(bv, wv, n, t, alpha) > goal)
				continue;
			double cost = n * (t + over);
			/* Cheaper wins; a tie keeps the run length nearer today's. */
			if (cost < best_cost - 1e-9 ||
			    (fabs(cost - best_cost) <= 1e-9 &&
			     fabs(log(t / t0)) < fabs(log(res->run_s / t0)))) {
				best_cost = cost;
				res->rounds = n;
				res->run_s = t;
				res->total_s = cost;
			}
			break;
		}
	}
}

/* Side by side: how many processes a side (starts, or replicas) would resolve target %
 * of the baseline, from the verdict's own interval: its standard error shrinks with the
 * square root of the processes, its t quantile with their degrees of freedom.  A process
 * costs what one did in this study (its start, its warm-up, its share of the runs). */
static void group_advice(const struct report *r, const struct rpt_cmp *m, int f, double target,
                         struct rpt_resolve *x)
{
	const struct rpt_diff *d = &m->d[f];
	const struct rpt_groups *g = &m->grp;
	int now = g->unit == RPT_GU_STARTS
	              ? g->starts
	              : (g->procs[0] < g->procs[1] ? g->procs[0] : g->procs[1]);
	double alpha = m->alpha * fig_weight(m, f);
	double goal = fabs(m->base_value[f]) * target / 100;

	x->basis = RPT_ADV_PROCESSES;
	x->unit = g->unit;
	if (g->unit == RPT_GU_PAIR || !isfinite(d->lo) || !isfinite(d->hi) || d->df <= 0 ||
	    !(goal > 0))
		return;
	double se = (d->hi - d->lo) / 2 / rpt_t_quantile(1 - (1 - d->level) / 2, d->df);
	double wall = m->study >= 0 ? (double)r->studies[m->study].wall_ms / 1000 : NAN;
	for (int n = 2; n <= RPT_ADVISE_MAX_ROUNDS; n++) {
		double df = g->unit == RPT_GU_STARTS ? n - 1 : 2.0 * n - 2;
		if (rpt_t_quantile(1 - alpha / 2, df) * se * sqrt((double)now / n) <= goal) {
			x->rounds = n;
			x->run_s = r->cells[m->cell].vc[f].secs;
			x->total_s = wall > 0 ? wall * n / now : NAN;
			return;
		}
	}
}

/* The resolution of figure f: the verdict's own interval, and the advice. */
static void resolve(const struct report *r, struct rpt_cmp *m, int f, double target)
{
	const struct rpt_cell *a = &r->cells[m->base], *b = &r->cells[m->cell];
	struct rpt_resolve *x = &m->res[f];
	const struct rpt_diff *d = &m->d[f];
	double base = m->base_value[f];

	memset(x, 0, sizeof *x);
	x->half_pct = x->level = NAN;
	x->rounds = 0;
	x->run_s = x->total_s = x->between_pct = x->within_pct = NAN;
	/* A figure the comparison lacks has no resolution to state or advise. */
	if (!has_fig(r, m, f))
		return;
	x->target_pct = target;
	if (!(fabs(base) > 0))
		return;
	if (!on_batches(r, m, f) && isfinite(d->lo) && isfinite(d->hi)) {
		double ia, iv; /* relative to the interval's own baseline, as the change is */
		rpt_cmp_values(m, f, &ia, &iv);
		x->half_pct = fabs(ia) > 0 ? 100 * (d->hi - d->lo) / 2 / fabs(ia) : NAN;
		x->level = d->level;
	}
	double alpha = m->alpha * fig_weight(m, f);
	if (m->noise == RPT_BY_RUNS || m->noise == RPT_BY_ROUNDS) {
		x->basis = RPT_ADV_COMPONENTS;
		rpt_advise(&a->vc[f], &b->vc[f], base, target, alpha, x);
		if (process_floored(m)) { /* more runs of the same processes cannot tell */
			x->basis = RPT_ADV_PROCESSES;
			x->unit = RPT_GU_PAIR;
			x->rounds = 0;
			x->run_s = x->total_s = NAN;
		}
	} else if (m->noise == RPT_BY_GROUPS) {
		group_advice(r, m, f, target, x);
	} else if (m->noise == RPT_BY_CALIBRATION && !on_batches(r, m, f)) {
		/* The calibration's spread is all between runs (its own runs' length). */
		const struct rpt_cal *k = &r->cals[m->cal];
		struct rpt_vc ca = a->vc[f], cb = b->vc[f];
		ca.between = pow(k->cv[f] * a->value[f], 2);
		cb.between = pow(k->cv[f] * b->value[f], 2);
		ca.within = cb.within = NAN;
		ca.runs = cb.runs = 1;
		x->basis = RPT_ADV_CALIBRATION;
		rpt_advise(&ca, &cb, base, target, alpha, x);
	}
	/* Resolved now is what the verdict's own interval says, never the model's guess. */
	x->now_enough = isfinite(x->half_pct) && x->half_pct <= target;
}

/* --- the comparisons ---------------------------------------------------------------------- */

/* Comparison m of cell k against the baseline's cell c at their key, judged. */
static void compare_cells(const struct report *r, struct rpt_cmp *m, int c, int k)
{
	const struct rpt_cell *a = &r->cells[c], *b = &r->cells[k];
	int pa[RPT_MAX_RUNS], pb[RPT_MAX_RUNS];
	struct pairs pr = {.a = pa, .b = pb, .n = 0};

	m->base = c;
	m->cell = k;
	m->nruns_base = a->nruns;
	m->nruns = b->nruns;
	m->cal = -1;
	m->study = common_study(r, a, b);
	const struct rpt_study *st = m->study >= 0 ? &r->studies[m->study] : NULL;
	m->alpha = st && st->max_looks > 0 && st->alpha > 0 ? st->alpha : RPT_ALPHA;
	m->primary = st && st->primary[0] ? rpt_fig_index(r, st->primary) : -1;
	if (rpt_groups_of(r, a, b, &m->grp)) {
		m->noise = RPT_BY_GROUPS;
		m->floor_pct = rpt_groups_floored(&m->grp) ? RPT_PROCESS_FLOOR_PCT : 0;
	} else if (a->nruns >= 2 && b->nruns >= 2) {
		/* Interleaved rounds are blocks: with enough of them the paired comparison
		 * removes what moved a whole round; with few, the degrees of freedom it costs
		 * matter more (interleaving already spread any drift over every label alike). */
		pr.n = pair_rounds(r, a, b, pa, pb);
		m->noise = pr.n >= RPT_PAIR_MIN ? RPT_BY_ROUNDS : RPT_BY_RUNS;
	} else {
		m->cal = find_cal(r, a->nruns <= b->nruns ? a : b);
		if (m->cal < 0)
			m->cal = find_cal(r, a->nruns <= b->nruns ? b : a);
		m->noise = m->cal >= 0 ? RPT_BY_CALIBRATION : RPT_BY_BATCHES;
		m->floor_pct = RPT_FLOOR_PCT;
	}
	for (int f = 0; f < RPT_NFIG; f++) {
		m->base_value[f] = a->value[f];
		m->value[f] = b->value[f];
	}
	m->one_process = m->noise == RPT_BY_GROUPS
	                     ? m->grp.unit == RPT_GU_PAIR
	                     : (m->noise == RPT_BY_RUNS || m->noise == RPT_BY_ROUNDS) &&
	                           (one_process(r, a) || one_process(r, b));
	if ((m->noise == RPT_BY_RUNS || m->noise == RPT_BY_ROUNDS) &&
	    (kept_one_process(r, a) || kept_one_process(r, b)))
		m->floor_pct = RPT_PROCESS_FLOOR_PCT;
	holm(r, m, &pr);
	for (int f = 0; f < RPT_NFIG; f++) {
		int s = rpt_fig_series(f);
		if (rpt_fig_in(f, r->ncpu) && rpt_fig_row(f)->resolve_pct > 0 &&
		    (s < 0 || rpt_process_series(r->cpu_names[s])))
			resolve(r, m, f, rpt_fig_row(f)->resolve_pct);
	}
	/* A sequential study's own targets replace the defaults. */
	if (st && st->until[0]) {
		struct study_until u[STUDY_MAX_UNTIL];
		char e[256];
		int nu = study_until_parse(st->until, u, STUDY_MAX_UNTIL, e, sizeof e);
		for (int i = 0; i < nu; i++) {
			int f = rpt_fig_index(r, u[i].fig);
			if (f >= 0 && !rpt_fig_row(f)->runs_only)
				resolve(r, m, f, u[i].pct);
		}
	}
}

void rpt_cmp_values(const struct rpt_cmp *m, int f, double *a, double *v)
{
	const struct rpt_diff *d = &m->d[f];

	if (d->verdict != RPT_NA && isfinite(d->a) && isfinite(d->b)) {
		*a = d->a;
		*v = d->b;
	} else {
		*a = m->base_value[f];
		*v = m->value[f];
	}
}

int rpt_compare(struct report *r, char *err, size_t errlen)
{
	r->cmps = calloc((size_t)(r->ncells ? r->ncells : 1), sizeof *r->cmps);
	if (!r->cmps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Cells are sorted by key then label: the first of each key group is the baseline. */
	for (int c = 0; c < r->ncells;) {
		int end = c + 1;
		while (end < r->ncells && rpt_same_key(&r->cells[c], &r->cells[end]))
			end++;
		for (int k = c + 1; k < end; k++)
			compare_cells(r, &r->cmps[r->ncmps++], c, k);
		c = end;
	}
	return 0;
}

int rpt_fig_index(const struct report *r, const char *name)
{
	for (int f = 0; f < RPT_NFIG; f++) {
		const char *u = rpt_fig_row(f)->until;
		size_t n = strlen(u);
		int s = rpt_fig_series(f);
		if (!rpt_fig_in(f, r->ncpu))
			continue;
		if (s < 0 ? !strcmp(name, u)
		          : !strncmp(name, u, n) && name[n] == '.' &&
		                !strcmp(name + n + 1, r->cpu_names[s]))
			return f;
	}
	return -1;
}

int rpt_until_met(const struct report *r, const char *const *fig, const double *pct, int n,
                  char *why, size_t whylen, char *err, size_t errlen)
{
	size_t used = 0;
	int met = 1;

	why[0] = '\0';
	for (int i = 0; i < n; i++) {
		int f = rpt_fig_index(r, fig[i]), seen = 0;
		for (int k = 0; f >= 0 && k < r->ncmps; k++) {
			const struct rpt_cmp *m = &r->cmps[k];
			const struct rpt_diff *d = &m->d[f];
			double base, v;
			if (!has_fig(r, m, f))
				continue;
			rpt_cmp_values(m, f, &base, &v);
			seen = 1;
			double half = isfinite(d->lo) && isfinite(d->hi) && fabs(base) > 0
			                  ? 100 * (d->hi - d->lo) / 2 / fabs(base)
			                  : INFINITY;
			if (half <= pct[i])
				continue;
			met = 0;
			char at[48];
			rpt_level_text(r->cells[m->cell].concurrency, r->cells[m->cell].rate, at,
			               sizeof at);
			if (used < whylen)
				used += (size_t)snprintf(why + used, whylen - used,
				                         "%s%s at %s: %s ±%.1f%% (%g%% asked)",
				                         used ? "; " : "",
				                         r->labels[r->cells[m->cell].label].name,
				                         at, fig[i], half, pct[i]);
		}
		if (!seen) {
			snprintf(err, errlen, "until names %s, which no comparison of the runs has",
			         fig[i]);
			return -1;
		}
	}
	return met;
}
