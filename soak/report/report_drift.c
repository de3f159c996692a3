/* report_drift: the soak question — does a run degrade over time?  The run against itself:
 * the last third of the measured window against the first (and, for windows of 3 hours or
 * more, the last hour against hour 1), metric by metric, each change with its 95 %
 * interval from the batch means and Welch's test the label comparison uses (report_stats.c),
 * then one verdict and one sentence.  The observations are read by report_drift_read.c;
 * here they are only judged, written and checked against thresholds. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"

/* How each kind is read and what change is worth naming.  A change counts when it is
 * real (its 95 % interval excludes 0) and at least `material`: a share of the first
 * figure, or percentage points for shares (`points`).  Over a 72-hour window every tiny
 * change is real; only the material ones make a verdict. */
struct kind_info {
	const char *name;  /* in report.json */
	const char *label; /* in sentences */
	int worse_up;      /* 1: a rise is worse; 0: a fall is (TPS) */
	int points;        /* the change is in percentage points */
	double material;   /* the smallest change that counts */
	int improves;      /* a real better change may make the verdict `improving` */
};

static const struct kind_info kinds[] = {
    [RPT_DK_TPS] = {"tps", "TPS", 0, 0, 0.05, 1},
    [RPT_DK_MEAN] = {"mean", "mean", 1, 0, 0.05, 1},
    [RPT_DK_P99] = {"p99", "p99", 1, 0, 0.10, 1},
    [RPT_DK_ERR] = {"error", "errors", 1, 1, 0.1, 1},
    [RPT_DK_CPU_REQ] = {"cpu_per_request", "CPU per request", 1, 0, 0.05, 1},
    [RPT_DK_MEM] = {"memory", "memory", 1, 0, 0.10, 0},
    [RPT_DK_GC] = {"gc_time", "GC time", 1, 1, 0.5, 0},
    [RPT_DK_PAUSE] = {"longest_pause", "longest GC pause", 1, 0, 0.5, 0},
    [RPT_DK_MACHINE] = {"machine_probe", "the machine's own probe time", 1, 0, 0.05, 0},
};

#define SENTENCE_CAP sizeof(((struct rpt_drift *)0)->sentence)

const char *rpt_drift_name(enum rpt_drift_verdict v)
{
	switch (v) {
	case RPT_DRIFT_STABLE:
		return "stable";
	case RPT_DRIFT_DEGRADING:
		return "degrading";
	case RPT_DRIFT_IMPROVING:
		return "improving";
	default:
		return "too_short";
	}
}

const char *rpt_drift_kind_name(enum rpt_drift_kind k)
{
	return kinds[k].name;
}

double rpt_drift_pct(int k)
{
	return 100 * (1 - pow(10, -k / 4.0));
}

/* +1 or -1, the sign of a change that is real, agrees in direction with the interval means
 * and is at least its kind's material size; else 0.  Counted or not. */
static int moved(const struct rpt_drift_metric *m)
{
	const struct kind_info *ki = &kinds[m->kind];
	double size;

	/* The figures and the interval means must agree on the direction. */
	if (m->d.verdict != RPT_REAL || !isfinite(m->change) || m->change == 0 ||
	    (m->d.diff > 0) != (m->change > 0))
		return 0;
	size = ki->points ? fabs(m->change) : m->first > 0 ? fabs(m->change) / m->first : INFINITY;
	if (size < ki->material)
		return 0;
	return m->change > 0 ? 1 : -1;
}

/* m->effect from m->d, m->kind, m->first, m->last and m->counts. */
static void effect(struct rpt_drift_metric *m)
{
	const struct kind_info *ki = &kinds[m->kind];
	int dir = m->counts ? moved(m) : 0;

	m->effect = 0;
	if (dir == 0)
		return;
	if ((dir > 0) == (ki->worse_up != 0))
		m->effect = 1;
	else
		m->effect = ki->improves ? -1 : 0;
}

void rpt_drift_compare(struct rpt_drift_metric *m, const double *a, size_t na, const double *b,
                       size_t nb)
{
	struct rpt_bm ba, bb;

	rpt_batch_means(a, na, NULL, 0, &ba);
	rpt_batch_means(b, nb, NULL, 0, &bb);
	rpt_welch(&ba, &bb, &m->d);
	m->change = m->last - m->first;
	m->change_pct =
	    isfinite(m->first) && m->first != 0 ? 100 * m->change / fabs(m->first) : NAN;
	effect(m);
}

/* The verdict weighs every metric of every comparison at once: with twenty of them, one
 * would cross its own 95 % interval by chance in most stable runs.  So the intervals are
 * widened to hold all k together (Bonferroni: each at 1 - 0.05 / k), and real or noise,
 * and each effect, are read from those. */
static void family(struct rpt_drift *d)
{
	int k = 0;

	/* The machine probe (RPT_DK_MACHINE) is judged at the family's width but does not widen
	 * it: it never makes a verdict. */
	for (int i = 0; i < d->ncmp; i++)
		for (int j = 0; j < d->cmp[i].nm; j++)
			k += d->cmp[i].m[j].d.verdict != RPT_NA &&
			     d->cmp[i].m[j].kind != RPT_DK_MACHINE;
	for (int i = 0; i < d->ncmp && k > 1; i++)
		for (int j = 0; j < d->cmp[i].nm; j++) {
			struct rpt_diff *x = &d->cmp[i].m[j].d;
			double half = (x->hi - x->lo) / 2, q95, q;
			if (x->verdict == RPT_NA || !(half > 0) || !(x->df > 0))
				continue; /* n/a, or exact (both sides constant) */
			q95 = rpt_t_quantile(0.975, x->df);
			q = rpt_t_quantile(1 - 0.025 / k, x->df);
			x->lo = x->diff - half / q95 * q;
			x->hi = x->diff + half / q95 * q;
			x->verdict = x->lo > 0 || x->hi < 0 ? RPT_REAL : RPT_NOISE;
			effect(&d->cmp[i].m[j]);
		}
}

/* --- sentences --------------------------------------------------------------------------- */

struct sb {
	char *s;    /* the buffer */
	size_t cap; /* its size */
	size_t n;   /* bytes used */
};

__attribute__((format(printf, 2, 3))) static void put(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->n + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = (size_t)k < b->cap - b->n ? b->n + (size_t)k : b->cap - 1;
}

/* "p99 +38.2% (real)", "CPU per request (app) +12.0% (real)", "errors +0.80 points (noise)" */
static void metric_phrase(struct sb *b, const struct rpt_drift_metric *m, int verdict)
{
	const struct kind_info *ki = &kinds[m->kind];
	char x[32];

	put(b, "%s", ki->label);
	if (*m->source)
		put(b, " (%s)", m->source);
	if (ki->points)
		put(b, " %s points", rpt_fmt_signed(m->change, 2, x, sizeof x));
	else if (isfinite(m->change_pct))
		put(b, " %s", rpt_fmt_pct(m->change_pct, x, sizeof x));
	else
		put(b, " from %s to %s", rpt_fmt_num(m->first, 2, x, sizeof x),
		    rpt_fmt_num(m->last, 2, (char[32]){0}, 32));
	if (verdict)
		put(b, " (%s)", rpt_verdict_name(m->d.verdict));
}

char *rpt_drift_phrase(const struct rpt_drift_metric *m, int verdict, char *buf, size_t len)
{
	struct sb b = {buf, len, 0};
	buf[0] = '\0';
	metric_phrase(&b, m, verdict);
	return buf;
}

/* The machine probe's change when it is real and material, with its sign; else 0. */
static int control_moved(const struct rpt_drift_metric *m)
{
	return m->kind == RPT_DK_MACHINE ? moved(m) : 0;
}

int rpt_drift_named(const struct rpt_drift_metric *m)
{
	if (m->kind == RPT_DK_MACHINE)
		return control_moved(m) != 0;
	/* A rise that is not counted is named when large, real or not: the reader sees the
	 * growth and why it does not make the verdict. */
	return m->effect != 0 ||
	       (!m->counts && m->change > 0 && m->change >= kinds[m->kind].material * m->first);
}

/* The metrics of c with this effect, comma-separated; returns how many. */
static int list(struct sb *b, const struct rpt_drift_cmp *c, int effect)
{
	int n = 0;
	for (int i = 0; i < c->nm; i++) {
		if (c->m[i].effect != effect)
			continue;
		put(b, "%s", n++ ? ", " : "");
		metric_phrase(b, &c->m[i], 1);
	}
	return n;
}

static const char *parts(const struct rpt_drift_cmp *c)
{
	return c->hours ? "from hour 1 to the last hour" : "from the first third to the last";
}

/* Memory that grew for real but levels off: said, not counted. */
static void uncounted(struct sb *b, const struct rpt_drift *d)
{
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			const struct rpt_drift_metric *m = &d->cmp[i].m[k];
			if (m->counts || m->kind == RPT_DK_MACHINE || !rpt_drift_named(m))
				continue;
			put(b, "; ");
			metric_phrase(b, m, 1);
			put(b, " %s, not counted: %s", parts(&d->cmp[i]), m->why_not);
		}
}

/* What the worse metrics suggest, in order of how much they explain. */
static const char *hint(const struct rpt_drift *d)
{
	int worse[RPT_DK_MACHINE + 1] = {0};
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++)
			if (d->cmp[i].m[k].effect > 0)
				worse[d->cmp[i].m[k].kind] = 1;
	if (worse[RPT_DK_CPU_REQ])
		return "each request costs more CPU as the run goes on (growing tables or indexes, "
		       "caches, fragmentation)";
	if (worse[RPT_DK_GC] || worse[RPT_DK_PAUSE])
		return "the garbage collector works harder as the run goes on";
	if (worse[RPT_DK_MEM])
		return "memory keeps growing as the run goes on";
	if (worse[RPT_DK_ERR])
		return "more requests fail as the run goes on";
	return "the server slows down as the run goes on";
}

void rpt_drift_judge(struct rpt_drift *d)
{
	struct sb b = {d->sentence, SENTENCE_CAP, 0};
	int worse = 0, better = 0;
	char w[32];

	d->sentence[0] = '\0';
	if (d->ncmp == 0) {
		d->verdict = RPT_DRIFT_TOO_SHORT;
		if (d->nintervals == 0)
			put(&b, "too short to judge drift: no measured window");
		else
			put(&b,
			    "too short to judge drift: %d steady interval%s in the %s measured "
			    "window, "
			    "and each third needs %d",
			    d->nintervals, d->nintervals == 1 ? "" : "s",
			    dur_format((int64_t)llround(d->window_s) * 1000, w, sizeof w),
			    RPT_DRIFT_MIN_PART);
		put(&b, ".");
		return;
	}
	family(d);
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			worse += d->cmp[i].m[k].effect > 0;
			better += d->cmp[i].m[k].effect < 0;
		}
	d->verdict = worse ? RPT_DRIFT_DEGRADING : better ? RPT_DRIFT_IMPROVING : RPT_DRIFT_STABLE;
	/* The machine probe, when it moved the way the verdict did (and in which comparison). */
	const struct rpt_drift_metric *control = NULL;
	int control_cmp = 0;
	for (int i = 0; i < d->ncmp && !control; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			int moved = control_moved(&d->cmp[i].m[k]);
			if ((moved > 0 && d->verdict == RPT_DRIFT_DEGRADING) ||
			    (moved < 0 && d->verdict == RPT_DRIFT_IMPROVING)) {
				control = &d->cmp[i].m[k];
				control_cmp = i;
				break;
			}
		}
	d->machine = control != NULL;
	dur_format((int64_t)llround(d->window_s) * 1000, w, sizeof w);
	if (d->verdict == RPT_DRIFT_STABLE) {
		put(&b, "stable over its %s measured window:", w);
		for (int i = 0; i < d->ncmp; i++) {
			put(&b, "%s %s:", i ? ";" : "", parts(&d->cmp[i]));
			for (int k = 0; k < d->cmp[i].nm && k < 3; k++) { /* TPS, mean, p99 */
				put(&b, "%s ", k ? "," : "");
				metric_phrase(&b, &d->cmp[i].m[k], 0);
			}
		}
		put(&b, ", no real change worth naming");
		uncounted(&b, d);
		put(&b, ".");
		return;
	}
	put(&b, "%s over its %s measured window",
	    d->verdict == RPT_DRIFT_DEGRADING ? "degrading" : "improving", w);
	for (int pass = 0, said = 0; pass < 2; pass++) {
		int effect = d->verdict == RPT_DRIFT_DEGRADING && pass == 0 ? 1 : -1;
		if (pass == 1 && (d->verdict != RPT_DRIFT_DEGRADING || !better))
			break;
		for (int i = 0; i < d->ncmp; i++) {
			char tmp[SENTENCE_CAP];
			struct sb t = {tmp, sizeof tmp, 0};
			tmp[0] = '\0';
			if (list(&t, &d->cmp[i], effect) == 0)
				continue;
			put(&b, "%s %s%s: %s", said ? ";" : ":", pass ? "better " : "",
			    parts(&d->cmp[i]), tmp);
			said = 1;
		}
	}
	uncounted(&b, d);
	if (control) {
		/* The machine's own speed moved with the server's figures: it may be the cause. */
		int slower = d->verdict == RPT_DRIFT_DEGRADING;
		put(&b, ", but ");
		metric_phrase(&b, control, 1);
		put(&b,
		    " %s as well: the machine soak ran on %s under the run (the same arithmetic "
		    "took %s CPU time: %s), so suspect the machine before the server and repeat "
		    "the run on another machine or at a quieter time.",
		    parts(&d->cmp[control_cmp]), slower ? "slowed" : "sped up",
		    slower ? "more" : "less",
		    slower ? "a throttled core, or a hypervisor taking time from it"
		           : "a core no longer throttled, or a hypervisor no longer taking time "
		             "from it");
		return;
	}
	put(&b, ": %s.",
	    d->verdict == RPT_DRIFT_DEGRADING ? hint(d)
	                                      : "still warming up early in the window (JIT "
	                                        "compilation, caches and pools filling)");
}

void rpt_drift_summary(struct rpt_drift *d, const struct rpt_run *run,
                       const struct rpt_drift *steps)
{
	struct sb b = {d->sentence, SENTENCE_CAP, 0};
	int n[4] = {0}, first = 1;
	enum rpt_drift_verdict show;

	memset(d, 0, sizeof *d);
	for (int k = 0; k < run->nsteps; k++) {
		n[steps[k].verdict]++;
		d->window_s += steps[k].window_s;
		d->nintervals += steps[k].nintervals;
	}
	d->verdict = n[RPT_DRIFT_DEGRADING]   ? RPT_DRIFT_DEGRADING
	             : n[RPT_DRIFT_IMPROVING] ? RPT_DRIFT_IMPROVING
	             : n[RPT_DRIFT_STABLE]    ? RPT_DRIFT_STABLE
	                                      : RPT_DRIFT_TOO_SHORT;
	if (d->verdict == RPT_DRIFT_TOO_SHORT) {
		put(&b,
		    "too short to judge drift: no step of the sweep has %d steady intervals in "
		    "each "
		    "third.",
		    RPT_DRIFT_MIN_PART);
		return;
	}
	show = d->verdict;
	put(&b, "%s at %d of %d steps", rpt_drift_name(d->verdict), n[show], run->nsteps);
	if (n[RPT_DRIFT_TOO_SHORT])
		put(&b, " (%d too short to judge)", n[RPT_DRIFT_TOO_SHORT]);
	for (int k = 0; k < run->nsteps; k++) {
		if (steps[k].verdict != show)
			continue;
		put(&b, "%s step %d", first ? ": " : "; ", k + 1);
		if (run->steps[k].concurrency > 0 || run->steps[k].rate > 0) {
			char lv[48];
			put(&b, " (%s)",
			    rpt_level_text(run->steps[k].concurrency, run->steps[k].rate, lv,
			                   sizeof lv));
		}
		put(&b, " %s", steps[k].sentence);
		d->machine |= steps[k].machine;
		if (b.n > 0 && b.s[b.n - 1] == '.')
			b.s[--b.n] = '\0';
		first = 0;
	}
	put(&b, ".");
}

int rpt_drift_breaches(const struct rpt_drift *d, double tps, double mean, double p99, char *msgs,
                       size_t msglen, int max)
{
	int n = 0;

	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm && n < max; k++) {
			const struct rpt_drift_metric *m = &d->cmp[i].m[k];
			double lim = m->kind == RPT_DK_TPS    ? tps
			             : m->kind == RPT_DK_MEAN ? mean
			             : m->kind == RPT_DK_P99  ? p99
			                                      : -1;
			double worse = m->kind == RPT_DK_TPS ? -m->change_pct : m->change_pct;
			if (lim < 0 || m->d.verdict != RPT_REAL || !isfinite(worse) ||
			    worse <= 100 * lim)
				continue;
			snprintf(msgs + (size_t)n++ * msglen, msglen,
			         "drift: %s %s %.1f%% %s (real; at most %g%% allowed)",
			         kinds[m->kind].label, m->kind == RPT_DK_TPS ? "fell" : "rose",
			         worse, parts(&d->cmp[i]), 100 * lim);
		}
	return n;
}

void rpt_drift_free(struct rpt_drift *d)
{
	if (!d)
		return;
	for (int i = 0; i < 2; i++) {
		free(d->cmp[i].m);
		d->cmp[i].m = NULL;
		d->cmp[i].nm = 0;
	}
	d->ncmp = 0;
}

/* --- soak run's end-of-run check ----------------------------------------------------------- */

int rpt_drift_check(const char *db_path, int64_t run_id, double tps, double mean, double p99,
                    char *msgs, size_t msglen, int max, char *verdict, size_t vlen, char *err,
                    size_t errlen)
{
	struct report r;
	char id[32];
	const char *dbs[1] = {db_path};
	struct rpt_opts o = {.dbs = dbs, .ndbs = 1, .runs = id};
	int usage, n = 0;

	snprintf(id, sizeof id, "%lld", (long long)run_id);
	if (rpt_read(&r, &o, &usage, err, errlen) < 0) {
		rpt_free(&r);
		return -1;
	}
	const struct rpt_run *run = &r.runs[0];
	snprintf(verdict, vlen, "%s", run->drift.sentence);
	if (!run->step_drift) {
		n = rpt_drift_breaches(&run->drift, tps, mean, p99, msgs, msglen, max);
	} else {
		for (int k = 0; k < run->nsteps && n < max; k++) {
			int got = rpt_drift_breaches(&run->step_drift[k], tps, mean, p99,
			                             msgs + (size_t)n * msglen, msglen, max - n);
			for (int i = n; i < n + got; i++) {
				char one[512];
				snprintf(one, sizeof one, "step %d: %s", k + 1,
				         msgs + (size_t)i * msglen);
				snprintf(msgs + (size_t)i * msglen, msglen, "%s", one);
			}
			n += got;
		}
	}
	rpt_free(&r);
	return n;
}
