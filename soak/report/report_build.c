/* report_build: cells, comparisons and sweeps from the runs read (findings: report_findings.c).
 * A cell pools the compared runs of one label at one key; a comparison judges each figure
 * across runs when both sides have two or more (the run, not the interval, is the unit
 * that repeats), else on a stored calibration, else on batch means with a floor. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report_history.h"

#define QUEUE_TPS_FLAT   0.10 /* queueing: TPS within this share past saturation... */
#define QUEUE_LAT_GROWTH 1.5  /* ...while mean latency grows at least this factor */

/* --- cells ------------------------------------------------------------------------------ */

static int is_sweep(const struct rpt_run *run)
{
	return strcmp(run->mode, "sweep") == 0;
}

/* Index of a CPU series in r->cpu_names, or -1. */
static int cpu_index(const struct report *r, const char *name)
{
	for (int i = 0; i < r->ncpu; i++)
		if (strcmp(r->cpu_names[i], name) == 0)
			return i;
	return -1;
}

static int collect_cpu_names(struct report *r, char *err, size_t errlen)
{
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s = &r->runs[i].src[k];
			int at = 0;
			if (!s->has_cpu || cpu_index(r, s->name) >= 0)
				continue;
			if (r->ncpu >= RPT_MAX_SOURCES) {
				snprintf(err, errlen,
				         "more than %d CPU series in the selected runs",
				         RPT_MAX_SOURCES);
				return -1;
			}
			while (at < r->ncpu && strcmp(r->cpu_names[at], s->name) < 0)
				at++;
			memmove(r->cpu_names[at + 1], r->cpu_names[at],
			        (size_t)(r->ncpu - at) * sizeof r->cpu_names[0]);
			snprintf(r->cpu_names[at], RPT_NAME_MAX, "%s", s->name);
			r->ncpu++;
		}
	return 0;
}

static int cmp_cell(const struct rpt_cell *a, const struct rpt_cell *b)
{
	if (a->sweep != b->sweep)
		return a->sweep - b->sweep;
	if (a->concurrency != b->concurrency)
		return a->concurrency < b->concurrency ? -1 : 1;
	if (a->planned_ms != b->planned_ms)
		return a->planned_ms < b->planned_ms ? -1 : 1;
	return a->label - b->label;
}

static int qcmp_cell(const void *a, const void *b)
{
	return cmp_cell(a, b);
}

static int same_key(const struct rpt_cell *a, const struct rpt_cell *b)
{
	return a->sweep == b->sweep && a->concurrency == b->concurrency &&
	       a->planned_ms == b->planned_ms;
}

/* Gathers one metric of the cell's steps (in run order) with a segment per step. */
struct gather {
	double *v;   /* values */
	size_t n;    /* how many */
	size_t *seg; /* segment lengths */
	size_t nseg; /* how many */
};

static int gather_add(struct gather *g, const struct rpt_values *v, size_t *cap_v, size_t *cap_s)
{
	if (g->n + v->n > *cap_v) {
		size_t nc = (g->n + v->n) * 2;
		double *p = realloc(g->v, nc * sizeof *p);
		if (!p)
			return -1;
		g->v = p;
		*cap_v = nc;
	}
	if (g->nseg == *cap_s) {
		size_t nc = *cap_s ? *cap_s * 2 : 8;
		size_t *p = realloc(g->seg, nc * sizeof *p);
		if (!p)
			return -1;
		g->seg = p;
		*cap_s = nc;
	}
	if (v->n)
		memcpy(g->v + g->n, v->v, v->n * sizeof *v->v);
	g->n += v->n;
	g->seg[g->nseg++] = v->n;
	return 0;
}

/* Batch means of one metric over the steps that match a cell.  which: 0 tps, 1 mean,
 * 2 p99, 3 error %, 4 + i: CPU series i of the report. */
static int cell_bm(const struct report *r, const struct rpt_cell *c, int which, struct rpt_bm *out)
{
	struct gather g = {0};
	size_t cap_v = 0, cap_s = 0;
	int rc = -1;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int si = -1;
		if (!run->compared || run->label != c->label || is_sweep(run) != c->sweep)
			continue;
		if (which >= 4) {
			for (int k = 0; k < run->nsrc; k++)
				if (strcmp(run->src[k].name, r->cpu_names[which - 4]) == 0)
					si = k;
			if (si < 0)
				continue;
		}
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			const struct rpt_values *v = which == 0   ? &s->tps
			                             : which == 1 ? &s->mean_ms
			                             : which == 2 ? &s->p99_ms
			                             : which == 3 ? &s->err_pct
			                                          : &s->cpu[si];
			if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
			    s->nintervals == 0)
				continue;
			if (gather_add(&g, v, &cap_v, &cap_s) < 0)
				goto done;
		}
	}
	rpt_batch_means(g.v, g.n, g.seg, g.nseg, out);
	rc = 0;
done:
	free(g.v);
	free(g.seg);
	return rc;
}

/* The cell's merged figures and its list of runs. */
static int cell_figures(const struct report *r, struct rpt_cell *c, char *err, size_t errlen)
{
	double secs = 0;
	size_t used = 0;
	int rc = -1;

	if (istats_init(&c->st, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int listed = 0;
		if (!run->compared || run->label != c->label || is_sweep(run) != c->sweep)
			continue;
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
			    s->nintervals == 0)
				continue;
			if (rpt_step_add(&c->st, s, err, errlen) < 0)
				goto done;
			secs += s->f.seconds;
			c->nsteps++;
			if (!listed) {
				int k2 = snprintf(c->runs + used, sizeof c->runs - used, "%s%s",
				                  used ? "," : "", run->key);
				if (k2 > 0 && (size_t)k2 < sizeof c->runs - used)
					used += (size_t)k2;
				listed = 1;
			}
		}
	}
	istats_figures(&c->st, secs, &c->f);
	rc = 0;
done:
	hdr_release(&c->st.hist);
	return rc;
}

/* Index of the run's source named like the report's CPU series s, or -1. */
static int run_source(const struct report *r, const struct rpt_run *run, int s)
{
	for (int k = 0; k < run->nsrc; k++)
		if (strcmp(run->src[k].name, r->cpu_names[s]) == 0)
			return k;
	return -1;
}

/* A run's figure f (enum rpt_metric, then RPT_NMETRIC + CPU series) at a cell's key: the
 * mean over its matching steps (a run may repeat a level); NAN when it has none. */
static double run_value(const struct report *r, const struct rpt_run *run, const struct rpt_cell *c,
                        int f)
{
	int si = f >= RPT_NMETRIC ? run_source(r, run, f - RPT_NMETRIC) : -1, n = 0;
	double sum = 0;

	if (is_sweep(run) != c->sweep || (f >= RPT_NMETRIC && si < 0))
		return NAN;
	for (int j = 0; j < run->nsteps; j++) {
		const struct rpt_step *s = &run->steps[j];
		int answered = s->f.p50_us > 0 || s->f.max_us > 0;
		double v;
		if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
		    s->nintervals == 0)
			continue;
		v = f == RPT_M_TPS    ? s->f.tps
		    : f == RPT_M_MEAN ? (answered ? s->f.mean_us / 1000 : NAN)
		    : f == RPT_M_P99  ? (answered ? (double)s->f.p99_us / 1000 : NAN)
		    : f == RPT_M_ERR  ? s->f.error_pct
		    : s->cpu_mean     ? s->cpu_mean[si]
		                      : NAN;
		if (!isnan(v)) {
			sum += v;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* Whether a run is one of the cell's observations. */
static int in_cell(const struct rpt_run *run, const struct rpt_cell *c)
{
	if (!run->compared || run->label != c->label || is_sweep(run) != c->sweep)
		return 0;
	for (int j = 0; j < run->nsteps; j++)
		if (run->steps[j].concurrency == c->concurrency &&
		    run->steps[j].planned_ms == c->planned_ms && run->steps[j].nintervals > 0)
			return 1;
	return 0;
}

/* One observation per compared run of the cell: the figures of its matching steps. */
static int cell_runs(const struct report *r, struct rpt_cell *c)
{
	int nfig = RPT_NMETRIC + r->ncpu, k = 0;
	double *x = malloc((size_t)(r->nruns ? r->nruns : 1) * sizeof *x);

	if (!x)
		return -1;
	for (int i = 0; i < r->nruns; i++)
		if (in_cell(&r->runs[i], c) && k++ == 0)
			snprintf(c->scenario, sizeof c->scenario, "%s", r->runs[i].name);
	c->nruns = k;
	for (int f = 0; f < nfig; f++) {
		k = 0;
		for (int i = 0; i < r->nruns; i++)
			if (in_cell(&r->runs[i], c))
				x[k++] = run_value(r, &r->runs[i], c, f);
		rpt_run_means(x, (size_t)k,
		              f < RPT_NMETRIC ? &c->run[f] : &c->run_cpu[f - RPT_NMETRIC]);
	}
	free(x);
	return 0;
}

static int build_cells(struct report *r, char *err, size_t errlen)
{
	int cap = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsteps && run->compared; k++) {
			const struct rpt_step *s = &run->steps[k];
			struct rpt_cell key = {.sweep = is_sweep(run),
			                       .label = run->label,
			                       .concurrency = s->concurrency,
			                       .planned_ms = s->planned_ms};
			int found = 0;
			if (s->nintervals == 0)
				continue;
			for (int c = 0; c < r->ncells && !found; c++)
				found =
				    same_key(&r->cells[c], &key) && r->cells[c].label == key.label;
			if (found)
				continue;
			if (r->ncells == cap) {
				int nc = cap ? cap * 2 : 16;
				struct rpt_cell *p = realloc(r->cells, (size_t)nc * sizeof *p);
				if (!p) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				r->cells = p;
				cap = nc;
			}
			r->cells[r->ncells++] = key;
		}
	}
	if (r->ncells)
		qsort(r->cells, (size_t)r->ncells, sizeof *r->cells, qcmp_cell);
	for (int c = 0; c < r->ncells; c++) {
		struct rpt_cell *cell = &r->cells[c];
		if (cell_figures(r, cell, err, errlen) < 0)
			return -1;
		if (cell_bm(r, cell, 0, &cell->tps) < 0 ||
		    cell_bm(r, cell, 1, &cell->mean_ms) < 0 ||
		    cell_bm(r, cell, 2, &cell->p99_ms) < 0 ||
		    cell_bm(r, cell, 3, &cell->err_pct) < 0)
			goto oom;
		for (int s = 0; s < r->ncpu; s++) {
			if (cell_bm(r, cell, 4 + s, &cell->cpu[s]) < 0)
				goto oom;
			cell->cpu_mean[s] = cell->cpu[s].mean;
		}
		if (cell_runs(r, cell) < 0)
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* The merged figure of a metric, as the tables show it. */
static double cell_value(const struct rpt_cell *c, enum rpt_metric m)
{
	int answered = c->f.p50_us > 0 || c->f.max_us > 0;
	switch (m) {
	case RPT_M_TPS:
		return c->f.tps;
	case RPT_M_MEAN:
		return answered ? c->f.mean_us / 1000 : NAN;
	case RPT_M_P99:
		return answered ? (double)c->f.p99_us / 1000 : NAN;
	default:
		return c->f.error_pct;
	}
}

/* --- comparisons ---------------------------------------------------------------------- */

/* The calibration for a cell: same kind, concurrency, step length and scenario, of the
 * cell's own label when there is one, else of any label; the most recent.  -1: none. */
static int find_cal(const struct report *r, const struct rpt_cell *c)
{
	int best = -1, best_own = 0;

	for (int i = 0; i < r->ncals; i++) {
		const struct rpt_cal *k = &r->cals[i];
		int own = strcmp(k->label, r->labels[c->label].name) == 0;
		if (k->sweep != c->sweep || k->concurrency != c->concurrency ||
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
		if (!in_cell(x, a))
			continue;
		if (x->study < 0)
			return 0;
		for (int j = 0; j < r->nruns; j++) {
			const struct rpt_run *y = &r->runs[j];
			if (y->study != x->study || y->round != x->round)
				continue;
			if (in_cell(y, b))
				partner = partner < 0 ? j : -2;
			else if (j != i && in_cell(y, a))
				twins++;
		}
		if (partner < 0 || twins)
			return 0;
		pa[n] = i;
		pb[n++] = partner;
	}
	return n == b->nruns ? n : 0;
}

/* What judging a comparison needs besides the model: its pairs of runs, if any. */
struct pairs {
	int *a, *b; /* run indices, pair by pair */
	int n;      /* pairs */
};

/* Figure f of a comparison (0..RPT_NMETRIC-1: enum rpt_metric; then the CPU series) at a
 * (1 - alpha) interval, by the comparison's method. */
static void judge(const struct report *r, const struct rpt_cmp *m, const struct pairs *pr, int f,
                  double alpha, struct rpt_diff *d)
{
	const struct rpt_cell *a = &r->cells[m->base], *b = &r->cells[m->cell];
	int cpu = f >= RPT_NMETRIC;
	const struct rpt_bm *ra = cpu ? &a->run_cpu[f - RPT_NMETRIC] : &a->run[f];
	const struct rpt_bm *rb = cpu ? &b->run_cpu[f - RPT_NMETRIC] : &b->run[f];
	const struct rpt_bm *ba = cpu               ? &a->cpu[f - RPT_NMETRIC]
	                          : f == RPT_M_TPS  ? &a->tps
	                          : f == RPT_M_MEAN ? &a->mean_ms
	                          : f == RPT_M_P99  ? &a->p99_ms
	                                            : &a->err_pct;
	const struct rpt_bm *bb = cpu               ? &b->cpu[f - RPT_NMETRIC]
	                          : f == RPT_M_TPS  ? &b->tps
	                          : f == RPT_M_MEAN ? &b->mean_ms
	                          : f == RPT_M_P99  ? &b->p99_ms
	                                            : &b->err_pct;

	if (m->noise == RPT_BY_RUNS) {
		if (ra->n == rb->n)
			rpt_student_alpha(ra, rb, alpha, d);
		else
			rpt_welch_alpha(ra, rb, alpha, d);
		return;
	}
	if (m->noise == RPT_BY_ROUNDS) {
		/* The round differences, one per pair: their mean and its standard error. */
		double diff[RPT_MAX_RUNS], va[RPT_MAX_RUNS];
		struct rpt_bm md, ma;
		int k = 0;
		for (int i = 0; i < pr->n; i++) {
			double x = run_value(r, &r->runs[pr->a[i]], &r->cells[m->base], f);
			double y = run_value(r, &r->runs[pr->b[i]], &r->cells[m->cell], f);
			if (isnan(x) || isnan(y))
				continue;
			va[k] = x;
			diff[k++] = y - x;
		}
		rpt_run_means(diff, (size_t)k, &md);
		rpt_run_means(va, (size_t)k, &ma);
		rpt_diff_known(ma.mean, ma.mean + md.mean, md.se, md.df, alpha, d);
		return;
	}
	if (m->noise == RPT_BY_CALIBRATION && !cpu && !isnan(r->cals[m->cal].cv[f])) {
		/* Each side's mean varies from run to run by cv of itself (over its n runs), and
		 * never less than its own measured error says. */
		const struct rpt_cal *k = &r->cals[m->cal];
		double cv = k->cv[f], va, vb;
		double sa = ra->n >= 2 ? ra->se : ba->se, sb = rb->n >= 2 ? rb->se : bb->se;
		va = cv * cv * ra->mean * ra->mean / (double)(ra->n ? ra->n : 1);
		vb = cv * cv * rb->mean * rb->mean / (double)(rb->n ? rb->n : 1);
		if (!isnan(sa) && sa * sa > va)
			va = sa * sa;
		if (!isnan(sb) && sb * sb > vb)
			vb = sb * sb;
		rpt_diff_known(ra->mean, rb->mean, sqrt(va + vb), (double)(k->runs - 1), alpha, d);
		return;
	}
	/* Batch means within the runs: they do not see run-to-run noise, hence the floor
	 * (applied once the family is judged: see holm). */
	rpt_welch_alpha(ba, bb, alpha, d);
}

/* Whether figure f of the comparison is judged on batch means, held to the floor. */
static int on_batches(const struct report *r, const struct rpt_cmp *m, int f)
{
	return m->noise == RPT_BY_BATCHES || (m->noise == RPT_BY_CALIBRATION &&
	                                      (f >= RPT_NMETRIC || isnan(r->cals[m->cal].cv[f])));
}

/* The diff of figure f in a comparison. */
static struct rpt_diff *fig(struct rpt_cmp *m, int f)
{
	return f < RPT_NMETRIC ? &m->d[f] : &m->cpu[f - RPT_NMETRIC];
}

/*
 * Judges a comparison's figures as one family with Holm's step-down: the figures with a
 * spread (a p-value), smallest p first, are tested at 5 %/k, 5 %/(k-1), ... until one is
 * not real; it and every later one are noise.  A system compared with itself then has at
 * most a 5 % chance of any figure called real, whatever the figures' correlation, and each
 * interval is shown at the level its figure was tested at.  Figures without a spread
 * (both sides constant: exact) or without data are outside the family.
 */
static void holm(const struct report *r, struct rpt_cmp *m, const struct pairs *pr, int nfig)
{
	int order[RPT_NMETRIC + RPT_MAX_SOURCES], k = 0, stop = 0;
	double lvl = 1 - RPT_ALPHA;

	for (int f = 0; f < nfig; f++) {
		struct rpt_diff *d = fig(m, f);
		judge(r, m, pr, f, RPT_ALPHA, d);
		if (d->verdict != RPT_NA && d->hi > d->lo) /* an exact difference needs no test */
			order[k++] = f;
	}
	for (int i = 1; i < k; i++) /* by p, then figure order: few entries */
		for (int j = i; j > 0 && fig(m, order[j])->p < fig(m, order[j - 1])->p; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	m->family = k;
	m->level = 1 - RPT_ALPHA / (k > 0 ? k : 1);
	for (int j = 0; j < k; j++) {
		struct rpt_diff *d = fig(m, order[j]);
		if (!stop)
			lvl = 1 - RPT_ALPHA / (k - j);
		judge(r, m, pr, order[j], 1 - lvl, d);
		if (d->verdict != RPT_REAL)
			stop = 1;
		else if (stop)
			d->verdict = RPT_NOISE; /* never reached here: its p is not smaller */
	}
	/* The floor: what batch means call real must also be larger than two runs of one
	 * system differ by.  It is practical, not statistical: it does not stop the family. */
	for (int f = 0; f < nfig; f++) {
		struct rpt_diff *d = fig(m, f);
		if (on_batches(r, m, f) && d->verdict == RPT_REAL && !isnan(d->rel_pct) &&
		    fabs(d->rel_pct) < (f == RPT_M_P99 ? RPT_FLOOR_P99_PCT : RPT_FLOOR_PCT))
			d->verdict = RPT_NOISE;
	}
}

/* "98.75 %" style: the level with as many decimals as it needs (up to three). */
static void fmt_level(double level, char *buf, size_t len)
{
	double pct = 100 * level;
	int dec = fabs(pct - round(pct)) < 1e-9               ? 0
	          : fabs(pct * 10 - round(pct * 10)) < 1e-6   ? 1
	          : fabs(pct * 100 - round(pct * 100)) < 1e-4 ? 2
	                                                      : 3;
	snprintf(buf, len, "%.*f %%", dec, pct);
}

/* The sentence that says how the comparison's intervals were computed. */
static void method_sentence(const struct report *r, struct rpt_cmp *m)
{
	const struct rpt_cell *a = &r->cells[m->base], *b = &r->cells[m->cell];
	const char *A = r->labels[a->label].name, *B = r->labels[b->label].name;
	char lv[32], *t = m->method;
	size_t n = 0, cap = sizeof m->method;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		if (n < cap)                                                                       \
			n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__);                        \
	} while (0)
	fmt_level(m->level, lv, sizeof lv);
	if (m->noise == RPT_BY_RUNS) {
		PUT("Judged across runs: %d runs of %s against %d of %s, each run one observation "
		    "(its TPS, mean, p99 and error %%, and its CPU); %s on the run means, whose "
		    "spread holds both the run-to-run and the within-run noise.",
		    m->nruns, B, m->nruns_base, A,
		    m->nruns == m->nruns_base
		        ? "Student's t-test (as many runs a side: the two spreads pooled)"
		        : "Welch's t-test");
	} else if (m->noise == RPT_BY_ROUNDS) {
		PUT("Judged across runs, paired by round: %s and %s ran once in each of %d rounds "
		    "of their study, each run one observation (its TPS, mean, p99 and error %%, "
		    "and its CPU); Student's t on the %d differences within a round, so that what "
		    "moved a whole round (the machine drifting) cancels, while the spread of the "
		    "differences holds the run-to-run and within-run noise.",
		    A, B, m->nruns, m->nruns);
	} else if (m->noise == RPT_BY_CALIBRATION) {
		const struct rpt_cal *k = &r->cals[m->cal];
		double q = rpt_t_quantile(0.975, (double)(k->runs - 1)) * sqrt(2.0) * 100;
		PUT("%d run%s of %s against %d of %s: these runs cannot measure the run-to-run "
		    "noise, "
		    "so it comes from a calibration (%d runs of '%s', label %s, on %s): repeated "
		    "runs of one system differ by up to %.1f %% in TPS, %.1f %% in mean latency "
		    "and %.1f %% in p99 (95 %%). Error %% and CPU are judged on batch means within "
		    "the runs and never called real below %.0f %%.",
		    m->nruns, m->nruns == 1 ? "" : "s", B, m->nruns_base, A, k->runs, k->scenario,
		    k->label, k->host, q * k->cv[RPT_M_TPS], q * k->cv[RPT_M_MEAN],
		    q * k->cv[RPT_M_P99], RPT_FLOOR_PCT);
	} else {
		PUT("%d run%s of %s against %d of %s: run-to-run noise is unknown (no calibration "
		    "of '%s' in the database; `soak calibrate` or a study with rounds measures "
		    "it). The intervals come from Welch's t-test on batch means within the runs, "
		    "which see only "
		    "each run's own noise, so a change is called real only when its interval "
		    "excludes zero and it exceeds %.0f %% (%.0f %% for p99, which moves far more "
		    "from run to run).",
		    m->nruns, m->nruns == 1 ? "" : "s", B, m->nruns_base, A, a->scenario,
		    RPT_FLOOR_PCT, RPT_FLOOR_P99_PCT);
	}
	if (m->family > 1)
		PUT(" The %d figures with a spread are judged together by Holm's step-down (the "
		    "smallest p-value against 5 %%/%d, the next against 5 %%/%d, ...; intervals at "
		    "the level each figure was tested, %s for the first), so that a system "
		    "compared "
		    "with itself has at most a 5 %% chance of any figure called real.",
		    m->family, m->family, m->family - 1, lv);
	else
		PUT(" Intervals at %s.", lv);
#undef PUT
}

static int build_cmps(struct report *r, char *err, size_t errlen)
{
	r->cmps = calloc((size_t)(r->ncells ? r->ncells : 1), sizeof *r->cmps);
	if (!r->cmps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Cells are sorted by key then label: the first of each key group is the baseline. */
	for (int c = 0; c < r->ncells;) {
		int end = c + 1;
		while (end < r->ncells && same_key(&r->cells[c], &r->cells[end]))
			end++;
		for (int k = c + 1; k < end; k++) {
			struct rpt_cmp *m = &r->cmps[r->ncmps++];
			const struct rpt_cell *a = &r->cells[c], *b = &r->cells[k];
			int nfig = RPT_NMETRIC + r->ncpu, pa[RPT_MAX_RUNS], pb[RPT_MAX_RUNS];
			struct pairs pr = {.a = pa, .b = pb, .n = 0};
			m->base = c;
			m->cell = k;
			m->nruns_base = a->nruns;
			m->nruns = b->nruns;
			m->cal = -1;
			if (a->nruns >= 2 && b->nruns >= 2) {
				/* Interleaved rounds are blocks: with enough of them the paired
				 * comparison removes what moved a whole round; with few, the
				 * degrees of freedom it costs matter more (interleaving already
				 * spread any drift over every label alike). */
				pr.n = pair_rounds(r, a, b, pa, pb);
				m->noise = pr.n >= RPT_PAIR_MIN ? RPT_BY_ROUNDS : RPT_BY_RUNS;
			} else {
				m->cal = find_cal(r, a->nruns <= b->nruns ? a : b);
				if (m->cal < 0)
					m->cal = find_cal(r, a->nruns <= b->nruns ? b : a);
				m->noise = m->cal >= 0 ? RPT_BY_CALIBRATION : RPT_BY_BATCHES;
				m->floor_pct = RPT_FLOOR_PCT;
			}
			holm(r, m, &pr, nfig);
			for (int i = 0; i < RPT_NMETRIC; i++) {
				m->base_value[i] = cell_value(a, (enum rpt_metric)i);
				m->value[i] = cell_value(b, (enum rpt_metric)i);
			}
			method_sentence(r, m);
		}
		c = end;
	}
	return 0;
}

static int build_sweeps(struct report *r, char *err, size_t errlen)
{
	int cap = 0;

	for (int l = 0; l < r->nlabels; l++) {
		/* One sweep per planned step duration of this label's sweep cells. */
		for (int c = 0; c < r->ncells; c++) {
			const struct rpt_cell *cell = &r->cells[c];
			int seen = 0;
			if (!cell->sweep || cell->label != l)
				continue;
			for (int s = 0; s < r->nsweeps && !seen; s++)
				seen = r->sweeps[s].label == l &&
				       r->sweeps[s].planned_ms == cell->planned_ms;
			if (seen)
				continue;
			if (r->nsweeps == cap) {
				int nc = cap ? cap * 2 : 4;
				struct rpt_sweep *p = realloc(r->sweeps, (size_t)nc * sizeof *p);
				if (!p)
					goto oom;
				r->sweeps = p;
				cap = nc;
			}
			struct rpt_sweep *sw = &r->sweeps[r->nsweeps++];
			memset(sw, 0, sizeof *sw);
			sw->label = l;
			sw->planned_ms = cell->planned_ms;
			sw->cells = malloc((size_t)r->ncells * sizeof *sw->cells);
			if (!sw->cells)
				goto oom;
			/* Cells are sorted by concurrency within a kind. */
			for (int k = 0; k < r->ncells; k++)
				if (r->cells[k].sweep && r->cells[k].label == l &&
				    r->cells[k].planned_ms == cell->planned_ms)
					sw->cells[sw->ncells++] = k;
		}
	}
	for (int s = 0; s < r->nsweeps; s++) {
		struct rpt_sweep *sw = &r->sweeps[s];
		double *n = malloc((size_t)sw->ncells * sizeof *n);
		double *x = malloc((size_t)sw->ncells * sizeof *x);
		int k = sw->ncells;
		if (!n || !x) {
			free(n);
			free(x);
			goto oom;
		}
		for (int i = 0; i < k; i++) {
			n[i] = r->cells[sw->cells[i]].concurrency;
			x[i] = r->cells[sw->cells[i]].f.tps;
		}
		rpt_saturation(x, (size_t)k, &sw->sat);
		if (k >= RPT_USL_MIN_LEVELS)
			rpt_usl_fit(n, x, (size_t)k, &sw->usl);
		if (sw->sat.ok && sw->sat.saturated) {
			const struct rpt_cell *a = &r->cells[sw->cells[sw->sat.at]];
			const struct rpt_cell *b = &r->cells[sw->cells[k - 1]];
			double flat =
			    a->f.tps > 0 ? fabs(b->f.tps - a->f.tps) / a->f.tps : INFINITY;
			sw->q_from = sw->cells[sw->sat.at];
			sw->q_to = sw->cells[k - 1];
			sw->queueing = flat <= QUEUE_TPS_FLAT && a->f.mean_us > 0 &&
			               b->f.mean_us >= QUEUE_LAT_GROWTH * a->f.mean_us;
		}
		free(n);
		free(x);
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int rpt_build(struct report *r, const struct rpt_opts *o, char *err, size_t errlen)
{
	if (o->title && *o->title) {
		r->title = strdup(o->title);
	} else {
		char t[512];
		size_t n = (size_t)snprintf(t, sizeof t, "soak report");
		for (int l = 0; l < r->nlabels && l < 4 && n < sizeof t; l++)
			n += (size_t)snprintf(t + n, sizeof t - n, "%s%s", l == 0 ? ": " : " vs ",
			                      r->labels[l].name);
		if (r->nlabels > 4 && n < sizeof t)
			snprintf(t + n, sizeof t - n, " and %d more", r->nlabels - 4);
		r->title = strdup(t);
	}
	if (!r->title)
		goto oom;
	if (collect_cpu_names(r, err, errlen) < 0 || build_cells(r, err, errlen) < 0 ||
	    build_cmps(r, err, errlen) < 0 || build_sweeps(r, err, errlen) < 0 ||
	    rpt_study_designs(r, err, errlen) < 0)
		return -1;
	if (rpt_validity(r) < 0 || rpt_verdicts(r) < 0 || rpt_findings(r) < 0)
		goto oom;
	if (rpt_hist_from_report(r, err, errlen) < 0)
		return -1;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
