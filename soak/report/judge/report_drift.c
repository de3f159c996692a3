/* report_drift: the soak question — does a run degrade over time?  The run against itself:
 * the last third of the measured window against the first (and, for windows of 3 hours or
 * more, the last hour against hour 1), metric by metric, each change with its 95 %
 * interval from the batch means and Welch's test the label comparison uses (report_stats.c),
 * then one verdict about the service: its throughput, latency, errors and CPU per request.
 * Memory, GC and the machine probe are judged beside it (counts 0), never in it.  The
 * observations are read and compared by read/report_drift_read.c (rpt_drift_compare, as
 * they are read); here the comparisons are judged once the run is read (rpt_read, in
 * report_load.c), and report_drift_text.c puts the verdict in words. */
#include "report_drift.h"
#include "report/report_int.h"
#include "report_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How each kind is read and what change is worth naming.  A change counts when it is
 * real (its 95 % interval excludes 0) and at least `material`: a share of the first
 * figure, or percentage points for shares (`points`).  Over a 72-hour window every tiny
 * change is real; only the material ones make a verdict. */
struct kind_info {
	const char *name; /* in report.json */
	int worse_up;     /* 1: a rise is worse; 0: a fall is (TPS) */
	int points;       /* the change is in percentage points */
	double material;  /* the smallest change that counts */
	int improves;     /* a real better change may make the verdict `improving` */
	int service;      /* it is the service's own (what its clients get, what a request
	                   * costs): only these make the verdict; the rest is said beside it */
};

static const struct kind_info kinds[] = {
    [RPT_DK_TPS] = {"tps", 0, 0, 0.05, 1, 1},
    [RPT_DK_MEAN] = {"mean", 1, 0, 0.05, 1, 1},
    [RPT_DK_P99] = {"p99", 1, 0, 0.10, 1, 1},
    [RPT_DK_ERR] = {"error", 1, 1, 0.1, 1, 1},
    [RPT_DK_CPU_REQ] = {"cpu_per_request", 1, 0, 0.05, 1, 1},
    /* Memory has its own verdict (report_mem.c: a cache filling is not a leak); GC costs
     * the service what its latency and CPU per request show; the probe is the machine's. */
    [RPT_DK_MEM] = {"memory", 1, 0, 0.10, 0, 0},
    [RPT_DK_GC] = {"gc_time", 1, 1, 0.5, 0, 0},
    [RPT_DK_PAUSE] = {"longest_pause", 1, 0, 0.5, 0, 0},
    [RPT_DK_MACHINE] = {"machine_probe", 1, 0, 0.05, 0, 0},
};

const char *rpt_drift_name(enum rpt_drift_verdict v)
{
	static const char *const names[] = {[RPT_DRIFT_TOO_SHORT] = "too_short",
	                                    [RPT_DRIFT_STABLE] = "stable",
	                                    [RPT_DRIFT_DEGRADING] = "degrading",
	                                    [RPT_DRIFT_IMPROVING] = "improving"};
	return v <= RPT_DRIFT_IMPROVING ? names[v] : "too_short";
}

const char *rpt_drift_kind_name(enum rpt_drift_kind k)
{
	return kinds[k].name;
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
	if (!kinds[m->kind].service)
		m->counts = 0;
	m->change = m->last - m->first;
	m->change_pct =
	    isfinite(m->first) && m->first != 0 ? 100 * m->change / fabs(m->first) : NAN;
	effect(m);
}

/* The verdict weighs every metric that counts, of every comparison, at once: with twenty
 * of them, one would cross its own 95 % interval by chance in most stable runs.  So the
 * intervals are widened to hold all k together (Bonferroni: each at 1 - 0.05 / k), and real
 * or noise, and each effect, are read from those. */
static void family(struct rpt_drift *d)
{
	int k = 0;

	/* What never makes a verdict (memory, GC, the machine probe) is judged at the family's
	 * width but does not widen it. */
	for (int i = 0; i < d->ncmp; i++)
		for (int j = 0; j < d->cmp[i].nm; j++)
			k += d->cmp[i].m[j].d.verdict != RPT_NA && d->cmp[i].m[j].counts;
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

const struct rpt_drift_metric *rpt_drift_control(const struct rpt_drift *d, int *cmp)
{
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			int moved = control_moved(&d->cmp[i].m[k]);
			if ((moved > 0 && d->verdict == RPT_DRIFT_DEGRADING) ||
			    (moved < 0 && d->verdict == RPT_DRIFT_IMPROVING)) {
				*cmp = i;
				return &d->cmp[i].m[k];
			}
		}
	return NULL;
}

int rpt_drift_points(enum rpt_drift_kind k)
{
	return kinds[k].points;
}

void rpt_drift_judge(struct rpt_drift *d)
{
	int worse = 0, better = 0, at;

	d->judged = 1;
	if (d->ncmp == 0) {
		d->verdict = RPT_DRIFT_TOO_SHORT;
		return;
	}
	family(d);
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			worse += d->cmp[i].m[k].effect > 0;
			better += d->cmp[i].m[k].effect < 0;
		}
	d->verdict = worse ? RPT_DRIFT_DEGRADING : better ? RPT_DRIFT_IMPROVING : RPT_DRIFT_STABLE;
	/* The machine probe, when it moved the way the verdict did. */
	d->machine = rpt_drift_control(d, &at) != NULL;
}

/* A sweep run's summary over its steps' drifts. */
static void summary(struct rpt_drift *d, const struct rpt_run *run, const struct rpt_drift *steps)
{
	int n[4] = {0};

	memset(d, 0, sizeof *d);
	d->judged = 1;
	for (int k = 0; k < run->nsteps; k++) {
		n[steps[k].verdict]++;
		d->window_s += steps[k].window_s;
		d->nintervals += steps[k].nintervals;
	}
	d->verdict = n[RPT_DRIFT_DEGRADING]   ? RPT_DRIFT_DEGRADING
	             : n[RPT_DRIFT_IMPROVING] ? RPT_DRIFT_IMPROVING
	             : n[RPT_DRIFT_STABLE]    ? RPT_DRIFT_STABLE
	                                      : RPT_DRIFT_TOO_SHORT;
	if (d->verdict == RPT_DRIFT_TOO_SHORT)
		return;
	for (int k = 0; k < run->nsteps; k++)
		if (steps[k].verdict == d->verdict)
			d->machine |= steps[k].machine;
}

void rpt_drift_judge_run(struct rpt_run *run)
{
	if (!rpt_is_sweep(run)) {
		rpt_drift_judge(&run->drift);
		return;
	}
	for (int k = 0; k < run->nsteps; k++)
		rpt_drift_judge(&run->step_drift[k]);
	summary(&run->drift, run, run->step_drift);
}
