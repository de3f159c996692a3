/* report_groups: a comparison of runs made side by side.  A study's side-by-side scenario
 * runs every instance (each target's processes) in the same seconds, a group of runs; the
 * machine's slow waves (other virtual machines, the database's caches) move every run of a
 * group alike, so differences taken within a group cancel them (Bulej et al., "Duet
 * benchmarking", ICPE 2020: 2.3-12.5 times narrower intervals).  What a group cannot cancel
 * is how two processes of one server differ: their JITs compile differently, an offset of a
 * percent or two that lasts as long as the process (Kalibera and Jones' process level).  So
 * the processes are the observations (enum rpt_group_unit): across starts, each start's
 * difference of the sides; within one start, each process's offset from its groups; with
 * one process a side, only the group differences, held to a floor.
 */
#include "report_groups.h"
#include "report/report_int.h"
#include "report_runfig.h"
#include "report_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The side of run i in the comparison: 0 baseline, 1 the other, -1 neither. */
static int side_of(const struct report *r, int i, const struct rpt_cell *a,
                   const struct rpt_cell *b)
{
	return rpt_in_cell(&r->runs[i], a) ? 0 : rpt_in_cell(&r->runs[i], b) ? 1 : -1;
}

/* A process: its start and replica as one key. */
static int proc_key(const struct rpt_run *run)
{
	return run->start_no * 1000 + run->replica;
}

/* Adds key to the set keys[0..*n) when new. */
static void add_key(int *keys, int *n, int key)
{
	for (int i = 0; i < *n; i++)
		if (keys[i] == key)
			return;
	keys[(*n)++] = key;
}

/* Whether group g holds a run of each side. */
static int group_has_both(const struct report *r, const struct rpt_cell *a,
                          const struct rpt_cell *b, int study, int g)
{
	int has[2] = {0, 0};

	for (int i = 0; i < r->nruns; i++) {
		int s = side_of(r, i, a, b);
		if (s >= 0 && r->runs[i].study == study && r->runs[i].grp == g)
			has[s] = 1;
	}
	return has[0] && has[1];
}

int rpt_groups_of(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b,
                  struct rpt_groups *g)
{
	int procs[2][RPT_MAX_RUNS], starts[RPT_MAX_RUNS], groups[RPT_MAX_RUNS], study = -2;
	int np[2] = {0, 0}, ns = 0, ng = 0;

	memset(g, 0, sizeof *g);
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int s = side_of(r, i, a, b);
		if (s < 0)
			continue;
		if (run->study < 0 || run->grp <= 0 || (study != -2 && run->study != study))
			return 0;
		study = run->study;
		add_key(procs[s], &np[s], proc_key(run));
		add_key(starts, &ns, run->start_no);
		add_key(groups, &ng, run->grp);
	}
	if (study < 0)
		return 0;
	/* A group that lost a side (its runs had no steady state) pairs nothing. */
	int full = 0;
	for (int k = 0; k < ng; k++)
		full += group_has_both(r, a, b, study, groups[k]);
	if (full == 0)
		return 0;
	g->starts = ns;
	g->procs[0] = np[0];
	g->procs[1] = np[1];
	g->groups = full;
	/* Replicas of one side alone measure how processes of one server differ: their spread
	 * stands for both sides' (a target run as one process beside one run as three). */
	g->unit = ns >= 2                    ? RPT_GU_STARTS
	          : np[0] >= 2 || np[1] >= 2 ? RPT_GU_REPLICAS
	                                     : RPT_GU_PAIR;
	return 1;
}

int rpt_groups_floored(const struct rpt_groups *g)
{
	return g->unit == RPT_GU_PAIR ||
	       (g->unit == RPT_GU_REPLICAS && g->procs[0] + g->procs[1] - 2 < 2);
}

/* The runs of the comparison with figure f: run index, side, value.  How many; -1 when a
 * run lacks the figure (a source the group's first run alone collects). */
static int values(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b, int f,
                  int *idx, int *side, double *x)
{
	int n = 0;

	for (int i = 0; i < r->nruns; i++) {
		int s = side_of(r, i, a, b);
		double se, secs, over;
		if (s < 0 || !group_has_both(r, a, b, r->runs[i].study, r->runs[i].grp))
			continue;
		rpt_run_fig(r, &r->runs[i], s ? b : a, f, &x[n], &se, &secs, &over);
		if (isnan(x[n]))
			return -1;
		idx[n] = i;
		side[n++] = s;
	}
	return n;
}

/* The mean of side s's values among runs [0, n) whose `key` equals k (keyf(run) == k). */
static double side_mean(const struct report *r, const int *idx, const int *side, const double *x,
                        int n, int s, int (*keyf)(const struct rpt_run *), int k)
{
	double sum = 0;
	int m = 0;

	for (int i = 0; i < n; i++)
		if (side[i] == s && keyf(&r->runs[idx[i]]) == k) {
			sum += x[i];
			m++;
		}
	return m ? sum / m : NAN;
}

static int start_of(const struct rpt_run *run)
{
	return run->start_no;
}

static int grp_of(const struct rpt_run *run)
{
	return run->grp;
}

/* Per block (a start, or a group): the difference of the sides' means, and the
 * baseline's; Student's t over the blocks. */
static void by_blocks(const struct report *r, const int *idx, const int *side, const double *x,
                      int n, int (*keyf)(const struct rpt_run *), double alpha, struct rpt_diff *d)
{
	double diff[RPT_MAX_RUNS], base[RPT_MAX_RUNS];
	int keys[RPT_MAX_RUNS], nk = 0, k = 0;

	for (int i = 0; i < n; i++)
		add_key(keys, &nk, keyf(&r->runs[idx[i]]));
	for (int j = 0; j < nk; j++) {
		double xa = side_mean(r, idx, side, x, n, 0, keyf, keys[j]),
		       xb = side_mean(r, idx, side, x, n, 1, keyf, keys[j]);
		if (isnan(xa) || isnan(xb))
			continue;
		base[k] = xa;
		diff[k++] = xb - xa;
	}
	rpt_paired_alpha(base, diff, (size_t)k, alpha, d);
}

/* One start, processes a side: each process's mean offset from its groups' means (what
 * moved a group cancels), a pooled t over the processes of both sides. */
static void by_replicas(const struct report *r, const int *idx, const int *side, const double *x,
                        int n, double alpha, struct rpt_diff *d)
{
	int keys[2][RPT_MAX_RUNS], nk[2] = {0, 0};
	double m[2][RPT_MAX_RUNS], mean[2] = {0, 0}, ss = 0, base = 0;

	for (int i = 0; i < n; i++)
		add_key(keys[side[i]], &nk[side[i]], proc_key(&r->runs[idx[i]]));
	for (int s = 0; s < 2; s++)
		for (int p = 0; p < nk[s]; p++) {
			double sum = 0;
			int c = 0;
			for (int i = 0; i < n; i++) {
				const struct rpt_run *run = &r->runs[idx[i]];
				if (side[i] != s || proc_key(run) != keys[s][p])
					continue;
				double ga = side_mean(r, idx, side, x, n, 0, grp_of, run->grp),
				       gb = side_mean(r, idx, side, x, n, 1, grp_of, run->grp);
				sum += x[i] - (ga + gb) / 2;
				if (s == 0)
					base += x[i];
				c++;
			}
			m[s][p] = sum / c;
			mean[s] += m[s][p] / nk[s];
		}
	for (int s = 0; s < 2; s++)
		for (int p = 0; p < nk[s]; p++)
			ss += (m[s][p] - mean[s]) * (m[s][p] - mean[s]);
	double df = nk[0] + nk[1] - 2, nbase = 0;
	for (int i = 0; i < n; i++)
		nbase += side[i] == 0;
	base /= nbase;
	rpt_diff_known(base, base + mean[1] - mean[0],
	               sqrt(ss / df) * sqrt(1.0 / nk[0] + 1.0 / nk[1]), df, alpha, d);
}

void rpt_groups_diff(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b,
                     const struct rpt_groups *g, int f, double alpha, struct rpt_diff *d)
{
	int *idx = malloc(2 * RPT_MAX_RUNS * sizeof *idx),
	    *side = malloc(2 * RPT_MAX_RUNS * sizeof *side);
	double *x = malloc(2 * RPT_MAX_RUNS * sizeof *x);
	int n = idx && side && x ? values(r, a, b, f, idx, side, x) : -1;

	if (n < 0) {
		d->verdict = RPT_NA;
	} else if (g->unit == RPT_GU_STARTS) {
		by_blocks(r, idx, side, x, n, start_of, alpha, d);
	} else if (g->unit == RPT_GU_REPLICAS) {
		by_replicas(r, idx, side, x, n, alpha, d);
	} else {
		by_blocks(r, idx, side, x, n, grp_of, alpha, d);
	}
	free(idx);
	free(side);
	free(x);
}
