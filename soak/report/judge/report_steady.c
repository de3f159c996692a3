/* report_steady: each measured run classified as Barrett et al. classify VM benchmark runs
 * ("Virtual machine warmup blows hot and cold", OOPSLA 2017): flat (no change point in its
 * compared figure over the measured window), warm-up (the last level is better than what
 * came before), slowdown (worse), or no steady state (the last level is too short to be
 * one, or the JVM's JIT was still compiling: its threads over RPT_STEADY_JIT_PCT of the
 * process's CPU).  Change points by e-divisive means (changepoint.h) on the run's interval
 * series: a fixed-rate run's application CPU (JIT left out), a closed run's TPS.
 *
 * Only steady windows are compared: at a fixed rate the samples taken while the JIT was at
 * work are left out of the run's window (a C2 compiler works in bursts of seconds long
 * after warm-up), and a run with fewer than half of its samples left, like a closed run
 * whose JIT was at work, has no steady state and is left out of the comparisons
 * (rpt_run.compared) -- unless fewer than RPT_STEADY_MIN_KEPT of its label's runs at that
 * point have a steady state: then its runs are compared as they are (their quiet samples),
 * for one run alone cannot measure the run-to-run noise, and a side-by-side design would
 * lose its groups.  The report says which and why.
 */
#include "report_steady.h"
#include "report/report_int.h"

#include <math.h>
#include <string.h>

#include "changepoint.h"
#include "report_runfig.h"

const char *rpt_steady_name(enum rpt_steady s)
{
	static const char *const n[] = {"", "flat", "warm-up", "slowdown", "no steady state"};
	return s <= RPT_ST_NO_STEADY ? n[s] : "";
}

/* The run's first process source with CPU samples (its own series, not the JIT's or the
 * host's), or -1. */
static int app_source(const struct rpt_run *run)
{
	for (int k = 0; k < run->nsrc; k++)
		if (run->src[k].has_cpu && rpt_process_series(run->src[k].name) &&
		    !rpt_jit_series(run->src[k].name))
			return k;
	return -1;
}

/* The index of source k's JIT series (SOURCE:jit) in the run, or -1. */
static int jit_source(const struct rpt_run *run, int k)
{
	char name[RPT_NAME_MAX + 8];

	snprintf(name, sizeof name, "%s:jit", run->src[k].name);
	for (int j = 0; j < run->nsrc; j++)
		if (!strcmp(run->src[j].name, name))
			return j;
	return -1;
}

/* The JIT's share (%) of source k's CPU over the run's window, from its JIT series j (-1:
 * none, NAN). */
static double jit_pct(const struct rpt_run *run, int k, int j)
{
	double app = run->src[k].cpu_mean, jit = j >= 0 ? run->src[j].cpu_mean : NAN;

	return jit >= 0 && app + jit > 0 ? 100 * jit / (app + jit) : NAN;
}

/* At a fixed rate (every interval the same arrivals): the samples of source k taken while
 * its JIT was at work (over RPT_STEADY_JIT_PCT of its CPU) are left out of the step's
 * window, so that only its steady part is compared; 0 when fewer than half are left (the
 * run has no steady state: should it be compared all the same, its quiet samples are what
 * it is compared on, where it has any), 1 else. */
static int quiet_window(struct rpt_run *run, int k, int j)
{
	int steady = 1;

	for (int st = 0; st < run->nsteps; st++) {
		struct rpt_step *s = &run->steps[st];
		struct rpt_values *cpu = &s->cpu[k];
		const struct rpt_values *jit = &s->cpu[j];
		size_t m = 0;
		double sum = 0;
		if (!s->cpu || cpu->n == 0 || jit->n != cpu->n)
			continue; /* nothing to weigh, or samples that do not pair */
		for (size_t i = 0; i < cpu->n; i++) {
			double all = cpu->v[i] + jit->v[i];
			if (all > 0 && 100 * jit->v[i] / all > RPT_STEADY_JIT_PCT)
				continue;
			sum += cpu->v[i];
			cpu->v[m++] = cpu->v[i];
		}
		if (m * 2 < cpu->n)
			steady = 0;
		if (m == 0)
			continue; /* no quiet sample: the window stays whole */
		cpu->n = m;
		s->cpu_mean[k] = sum / (double)m;
	}
	return steady;
}

/* The class of a series whose lower values are better (lower = 1) or higher ones. */
static enum rpt_steady classify(const double *x, size_t n, int lower)
{
	struct cp_opts o;
	struct cp_result res;

	cp_defaults(&o);
	if (n < 2 * (size_t)o.min_size || cp_detect(x, n, &o, &res) < 0)
		return RPT_ST_NONE;
	if (res.n == 0)
		return RPT_ST_FLAT;
	const struct cp_point *last = &res.cp[res.n - 1];
	if (last->n_after * 4 < res.analysed)
		return RPT_ST_NO_STEADY; /* its last level is under a quarter of the window */
	return (last->mean_after < last->mean_before) == (lower != 0) ? RPT_ST_WARMUP
	                                                              : RPT_ST_SLOWDOWN;
}

/* Classifies one fixed run's single step.  At a fixed rate a JIT's bursts are left out
 * of the window (quiet_window); in the closed model they move the TPS too, and a run whose
 * JIT was at work has no steady state. */
static void classify_run(struct rpt_run *run)
{
	const struct rpt_step *s = &run->steps[0];
	int k = app_source(run), open = s->rate > 0, j = k >= 0 ? jit_source(run, k) : -1;

	run->jit_pct = k >= 0 ? jit_pct(run, k, j) : NAN;
	if (open && j >= 0 && !quiet_window(run, k, j)) {
		run->steady = RPT_ST_NO_STEADY;
		return;
	}
	if (open && k >= 0 && s->cpu && s->cpu[k].n > 0)
		run->steady = classify(s->cpu[k].v, s->cpu[k].n, 1);
	else if (!open)
		run->steady = classify(s->tps.v, s->tps.n, 0);
	if (!open && run->jit_pct > RPT_STEADY_JIT_PCT)
		run->steady = RPT_ST_NO_STEADY; /* too short to class or not: still compiling */
}

/* 1 when runs a and b measure one label at one point: same model, users or rate. */
static int same_point(const struct rpt_run *a, const struct rpt_run *b)
{
	const struct rpt_step *x = &a->steps[0], *y = &b->steps[0];

	return a->label == b->label && (x->rate > 0) == (y->rate > 0) &&
	       x->concurrency == y->concurrency && x->rate == y->rate;
}

/* How many other compared runs of run i's label at its point have a steady state. */
static int steady_siblings(const struct report *r, int i)
{
	int n = 0;

	for (int k = 0; k < r->nruns; k++) {
		const struct rpt_run *o = &r->runs[k];
		n += k != i && o->compared && o->nsteps == 1 && !rpt_is_sweep(o) &&
		     o->steady != RPT_ST_NO_STEADY && same_point(&r->runs[i], o);
	}
	return n;
}

void rpt_steady(struct report *r)
{
	for (int i = 0; i < r->nruns; i++) {
		struct rpt_run *run = &r->runs[i];
		run->steady = RPT_ST_NONE;
		run->jit_pct = NAN;
		if (run->compared && !rpt_is_sweep(run) && run->nsteps == 1)
			classify_run(run);
	}
	/* Only steady windows are compared, where the label has RPT_STEADY_MIN_KEPT at that
	 * point (a run left out has no steady state: it is no other's steady sibling). */
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].compared && r->runs[i].steady == RPT_ST_NO_STEADY &&
		    steady_siblings(r, i) >= RPT_STEADY_MIN_KEPT)
			r->runs[i].compared = 0;
}
