/* report_method_text: how a comparison (report_compare.c) was judged, in the sentence that
 * report.md and report.html say once under "How changes are judged" and report.json says
 * with each comparison.  It names no label, so that comparisons judged alike say it once. */
#include "report_method_text.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>

#include "report/report_text.h"
#include "report/judge/report_groups.h"
#include "report/judge/report_stats.h"

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

/* A side-by-side comparison: what cancels, and what the observations are. */
static void groups_text(struct sbuf *b, const struct rpt_cmp *m)
{
	const struct rpt_groups *g = &m->grp;

	rpt_sb_printf(b,
	              "Judged side by side: both labels were driven in the same seconds (%d "
	              "group%s of runs), so what moved the machine moved both alike and cancels "
	              "in their difference; the database and the host, which every run of a "
	              "group shares, are not compared. ",
	              g->groups, g->groups == 1 ? "" : "s");
	if (g->unit == RPT_GU_STARTS)
		rpt_sb_printf(b,
		              "Each of the %d starts is one observation, its difference of the "
		              "two labels' means (it holds how two processes of one server "
		              "differ): Student's t over the starts.",
		              g->starts);
	else if (g->unit == RPT_GU_REPLICAS)
		rpt_sb_printf(b,
		              "Each label ran %d and %d processes at once: each process's offset "
		              "from its groups is one observation (their spread is how two "
		              "processes of one server differ), a pooled t over the processes.",
		              g->procs[0], g->procs[1]);
	if (g->unit == RPT_GU_REPLICAS && rpt_groups_floored(g))
		rpt_sb_printf(b,
		              " With %d processes in all their spread rests on one degree of "
		              "freedom, a guess: no change below %.0f %% is called real, and each "
		              "interval is stated at least that wide.",
		              g->procs[0] + g->procs[1], RPT_PROCESS_FLOOR_PCT);
	if (g->unit == RPT_GU_PAIR)
		rpt_sb_printf(
		    b,
		    "One process a side: the intervals come from the group differences, "
		    "which cannot see how two processes of one server differ (their JITs "
		    "choose differently: up to several %% on JVMs), so no change below %.0f %% is "
		    "called real, each interval is stated at least that wide, and memory is not "
		    "compared; replicas or starts measure it.",
		    RPT_PROCESS_FLOOR_PCT);
}

/* The family the figures of m form, in plain words: who holds what share of the error
 * rate (al, formatted) and what that keeps. */
static void family_text(struct sbuf *b, const struct rpt_cmp *m, const char *al)
{
	char pl[32], ol[32];

	if (!m->primary_in || m->family < 2) {
		rpt_sb_printf(
		    b,
		    " The figures of a comparison with a spread are judged together by Holm's "
		    "step-down (with k of them, the smallest p-value against %s/k, the next "
		    "against %s/(k-1), ...; each interval at the level its figure was tested), so "
		    "that a system compared with itself has at most a %s chance of any figure "
		    "called real.",
		    al, al, al);
		return;
	}
	fmt_level(RPT_PRIMARY_SHARE * m->alpha, pl, sizeof pl);
	fmt_level((1 - RPT_PRIMARY_SHARE) * m->alpha, ol, sizeof ol);
	rpt_sb_printf(
	    b,
	    " The figures of a comparison with a spread, the study's primary figure among them, "
	    "are judged together by Holm's weighted step-down: the primary holds %s of the %s "
	    "error rate and the other %d figures %s between them; a figure found real passes "
	    "its share on to those not yet judged (each interval at the level its figure was "
	    "tested), so that a system compared with itself has at most a %s chance of any "
	    "figure, the primary included, called real.",
	    pl, al, m->family - 1, ol, al);
}

void rpt_method_text(struct sbuf *b, const struct report *r, const struct rpt_cmp *m)
{
	char al[32], runs[64];

	fmt_level(m->alpha, al, sizeof al);
	if (m->nruns == m->nruns_base)
		snprintf(runs, sizeof runs, "%d run%s a side", m->nruns, m->nruns == 1 ? "" : "s");
	else
		snprintf(runs, sizeof runs, "%d runs against %d of the baseline", m->nruns,
		         m->nruns_base);
	if (m->noise == RPT_BY_GROUPS) {
		groups_text(b, m);
	} else if (m->noise == RPT_BY_RUNS) {
		rpt_sb_printf(
		    b,
		    "Judged across runs (%s): each run is one observation of every figure (TPS, "
		    "mean, p99, error %%, CPU per request and memory of each process), and %s on "
		    "the run figures, whose spread holds both the run-to-run and the within-run "
		    "noise.",
		    runs,
		    m->nruns == m->nruns_base ? "Student's t-test (as many runs a side: the two "
		                                "spreads pooled)"
		                              : "Welch's t-test");
	} else if (m->noise == RPT_BY_ROUNDS) {
		rpt_sb_printf(
		    b,
		    "Judged across runs, paired by round (%s, once in each round of their study): "
		    "each run is one observation of every figure (TPS, mean, p99, error %%, CPU "
		    "per request and memory of each process), and Student's t on the differences "
		    "within a round, so that what moved a whole round (the machine drifting) "
		    "cancels.",
		    runs);
	} else if (m->noise == RPT_BY_CALIBRATION) {
		const struct rpt_cal *k = &r->cals[m->cal];
		double q = rpt_t_quantile(0.975, (double)(k->runs - 1)) * sqrt(2.0) * 100;
		rpt_sb_printf(
		    b,
		    "%s: these runs cannot measure the run-to-run noise, so it comes from a "
		    "calibration (%d runs of '%s', label %s, on %s): repeated runs of one system "
		    "differ by up to %.1f %% in TPS, %.1f %% in mean latency and %.1f %% in p99 "
		    "(95 %%). Error %%, CPU per request and memory are judged on batch means "
		    "within the runs and never called real below %.0f %%.",
		    runs, k->runs, k->scenario, k->label, k->host, q * k->cv[RPT_M_TPS],
		    q * k->cv[RPT_M_MEAN], q * k->cv[RPT_M_P99], RPT_FLOOR_PCT);
	} else {
		rpt_sb_printf(
		    b,
		    "%s: run-to-run noise is unknown (no calibration of the scenario in the "
		    "database; `soak calibrate` or a study with rounds measures it). The intervals "
		    "come from Welch's t-test on batch means within the runs, which see only each "
		    "run's own noise, so a change is called real only when its interval excludes "
		    "zero and it exceeds %.0f %% (%.0f %% for p99, which moves far more from run "
		    "to "
		    "run), and no resolution is stated.",
		    runs, RPT_FLOOR_PCT, RPT_FLOOR_P99_PCT);
	}
	if (m->floor_pct > 0 && (m->noise == RPT_BY_RUNS || m->noise == RPT_BY_ROUNDS))
		rpt_sb_printf(
		    b,
		    " Each label ran in one process kept running, whose own offset (how two "
		    "processes of one server differ: up to several %% on JVMs) is in all its runs, "
		    "so their spread cannot see it: no change below %.0f %% is called real and "
		    "each interval is stated at least that wide; starting the targets for every "
		    "run, replicas or starts measure it.",
		    RPT_PROCESS_FLOOR_PCT);
	if (m->one_process && m->noise != RPT_BY_GROUPS)
		rpt_sb_printf(
		    b,
		    " Memory is not compared: each label ran in one process (the study kept its "
		    "targets running), which carries its memory from run to run, so its runs are "
		    "not independent observations of it; a study that starts the targets for "
		    "every run (keep_running = no) can compare it.");
	if (m->study >= 0 && r->studies[m->study].max_looks > 0)
		rpt_sb_printf(
		    b,
		    " The study ran sequentially (until %s) and stopped after %d look%s; so that "
		    "its repeated looks cannot add false \"real\" verdicts, its last look was "
		    "judged at %s of the 5 %% error rate (alpha spent by look k of %d: 5 %% x "
		    "(k/%d)^2, each look at its increment; a Bonferroni bound over the looks).",
		    r->studies[m->study].until, r->studies[m->study].looks,
		    r->studies[m->study].looks == 1 ? "" : "s", al, r->studies[m->study].max_looks,
		    r->studies[m->study].max_looks);
	family_text(b, m, al);
}
