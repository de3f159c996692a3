/* report_verdict_text: a label's verdict (judge/report_verdict.c) in words: report.json's
 * sentence (its changes against the baseline, real or noise, where they were measured,
 * what the comparison resolves and what would resolve more, its memory and drift, and how
 * many validity warnings to read it with), and the brief answer the report opens with (one
 * sentence per label: the changes beyond noise and where; the table has the figures). */
#include "report_verdict_text.h"
#include "report/judge/report_compare.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report/judge/report_runfig.h"
#include "report/judge/report_stats.h"
#include "report_fmt.h"
#include "report_mem_text.h"
#include "report/judge/report_drift.h"

/* "28.0% lower p99 (real)" into a list of phrases. */
struct phrases {
	struct sbuf b;    /* the phrases so far */
	int n;            /* how many */
	struct sbuf last; /* the one waiting for its joiner */
};

static void phrase(struct phrases *p, const char *text)
{
	if (p->n > 0)
		rpt_sb_printf(&p->b, "%s%s", p->n > 1 ? ", " : "", rpt_sb_str(&p->last));
	rpt_sb_reset(&p->last);
	rpt_sb_printf(&p->last, "%s", text);
	p->n++;
}

/* Appends the phrases to out ("a, b and c") and releases them. */
static void phrases_end(struct phrases *p, struct sbuf *out)
{
	if (p->n > 1)
		rpt_sb_printf(&p->b, " and ");
	if (p->n > 0) {
		rpt_sb_printf(&p->b, "%s", rpt_sb_str(&p->last));
		rpt_sb_printf(out, "%s", rpt_sb_str(&p->b));
	}
	rpt_sb_release(&p->b);
	rpt_sb_release(&p->last);
}

/* Figure f of comparison m changed beyond noise, as a phrase in its row's words: "28.0%
 * lower p99", "0.50 points more errors", then tail (" (real)" or ""). */
static void fig_phrase(struct phrases *p, const struct report *r, const struct rpt_cmp *m, int f,
                       const char *tail)
{
	const struct rpt_figrow *row = rpt_fig_row(f);
	double base, v;
	char t[RPT_NAME_MAX + 256], what[RPT_NAME_MAX + 64];

	rpt_cmp_values(m, f, &base, &v);
	if (m->d[f].verdict != RPT_REAL || isnan(base) || isnan(v) ||
	    (!row->points && !(base != 0)))
		return;
	rpt_fig_what(r, f, what, sizeof what);
	if (row->points)
		snprintf(t, sizeof t, "%.2f points %s %s%s", fabs(v - base),
		         v > base ? row->up : row->down, what, tail);
	else
		snprintf(t, sizeof t, "%.1f%% %s %s%s", fabs(100 * (v - base) / base),
		         v > base ? row->up : row->down, what, tail);
	phrase(p, t);
}

static void cell_where(struct sbuf *b, const struct rpt_cell *c, const char *at)
{
	char t[96];
	rpt_sb_printf(b, "%s %s", at, rpt_cell_text(c, t, sizeof t));
}

/* The baseline's own figures where it was measured. */
static void answer_baseline(const struct report *r, const struct rpt_vrow *v, struct sbuf *b)
{
	const struct rpt_cell *c = v->cell >= 0 ? &r->cells[v->cell] : NULL;
	char x[3][32];

	rpt_sb_printf(b, r->nlabels > 1 ? "%s is the baseline" : "%s, the only label",
	              r->labels[0].name);
	if (c) {
		int ans = c->f.p50_us > 0 || c->f.max_us > 0;
		rpt_sb_printf(b, ": %.1f TPS, average %s, p99 %s, %.2f%% errors ", c->f.tps,
		              rpt_fmt_ms(ans ? c->f.mean_us / 1000 : NAN, x[0], 32),
		              rpt_fmt_ms(ans ? (double)c->f.p99_us / 1000 : NAN, x[1], 32),
		              c->f.error_pct);
		cell_where(b, c, "at");
	}
}

/* A label's changes against the baseline in comparison m: TPS first, then every other
 * figure that changed for real. */
static void answer_compared(const struct report *r, const struct rpt_vrow *v,
                            const struct rpt_cmp *m, struct sbuf *b)
{
	const char *B = r->labels[v->label].name, *A = r->labels[0].name;
	const struct rpt_diff *t = &m->d[RPT_M_TPS];
	double tb, tc, pct;
	struct phrases p = {.n = 0, .b = {{0}}, .last = {{0}}};
	char s[64];

	rpt_cmp_values(m, RPT_M_TPS, &tb, &tc);
	pct = tb > 0 ? 100 * (tc - tb) / tb : NAN;
	cell_where(b, &r->cells[m->cell], "At");
	if (t->verdict == RPT_REAL)
		rpt_sb_printf(b, ", %s serves %.1f%% %s requests per second than %s (real)", B,
		              fabs(pct), tc > tb ? "more" : "fewer", A);
	else if (t->verdict == RPT_NOISE)
		rpt_sb_printf(b, ", %s serves the same as %s within noise (%s)", B, A,
		              rpt_fmt_pct(pct, s, sizeof s));
	else
		rpt_sb_printf(b,
		              ", %s serves %s requests per second against %s (too few "
		              "intervals to judge the noise)",
		              B, rpt_fmt_pct(pct, s, sizeof s), A);
	for (int i = 0, fig[RPT_NFIG], n = rpt_fig_order(r->ncpu, fig); i < n; i++)
		if (fig[i] != RPT_M_TPS) /* said above */
			fig_phrase(&p, r, m, fig[i], " (real)");
	rpt_sb_printf(b, p.n ? ", with " : ", with no other change beyond noise");
	phrases_end(&p, b);
}

/* The baseline at its fixed arrival rate: p99 and each process's CPU per request. */
static void answer_rate_baseline(const struct report *r, const struct rpt_cell *c, struct sbuf *b)
{
	char x[2][32], what[RPT_NAME_MAX + 64];

	cell_where(b, c, "; at");
	rpt_sb_printf(b, ", p99 %s", rpt_fmt_ms(c->value[RPT_M_P99], x[0], 32));
	for (int k = 0; k < r->ncpu; k++)
		if (isfinite(c->value[RPT_FIG_CPU(k)]))
			rpt_sb_printf(b, ", %s of %s",
			              rpt_fmt_ms(c->value[RPT_FIG_CPU(k)], x[1], 32),
			              rpt_fig_what(r, RPT_FIG_CPU(k), what, sizeof what));
}

/* Efficiency: the same arrivals for both, so TPS says nothing; what each request costs and
 * how fast it is answered do. */
static void answer_rate(const struct report *r, const struct rpt_cmp *m, struct sbuf *b)
{
	struct phrases p = {.n = 0, .b = {{0}}, .last = {{0}}};
	int said = 0;

	cell_where(b, &r->cells[m->cell], "; at");
	for (int k = 0; k < r->ncpu; k++) {
		const struct rpt_diff *d = &m->d[RPT_FIG_CPU(k)];
		double a, c;
		char t[32], what[RPT_NAME_MAX + 64];
		rpt_cmp_values(m, RPT_FIG_CPU(k), &a, &c);
		if (!isfinite(a) || !isfinite(c) || !(a > 0) || rpt_jit_series(r->cpu_names[k]))
			continue; /* a JIT's CPU is shown, not judged */
		rpt_sb_printf(b, "%s %s %s (%s)", said ? " and" : " it costs",
		              rpt_fmt_pct(100 * (c - a) / a, t, sizeof t),
		              rpt_fig_what(r, RPT_FIG_CPU(k), what, sizeof what),
		              rpt_verdict_name(d->verdict));
		said = 1;
	}
	if (!said)
		rpt_sb_printf(b, " no CPU per request was measured");
	fig_phrase(&p, r, m, RPT_M_MEAN, " (real)");
	fig_phrase(&p, r, m, RPT_M_P99, " (real)");
	if (p.n)
		rpt_sb_printf(b, ", with ");
	phrases_end(&p, b);
}

/* The answer of report.json's sentence: the label's changes where they were measured, the
 * baseline's own figures at a fixed rate and the memory verdicts. */
static void answer(const struct report *r, const struct rpt_vrow *v, struct sbuf *b)
{
	struct sbuf mem = {0};

	if (v->label == 0)
		answer_baseline(r, v, b);
	else if (v->cmp < 0)
		rpt_sb_printf(b,
		              "%s has no run matching the baseline's kind of run, users and "
		              "duration: nothing to compare it with",
		              r->labels[v->label].name);
	else
		answer_compared(r, v, &r->cmps[v->cmp], b);
	if (v->label == 0 && v->cell_rate >= 0)
		answer_rate_baseline(r, &r->cells[v->cell_rate], b);
	else if (v->cmp_rate >= 0 && v->label != 0)
		answer_rate(r, &r->cmps[v->cmp_rate], b);
	rpt_memory_verdicts(&mem, r, v->label, 0);
	if (rpt_sb_len(&mem))
		rpt_sb_printf(b, "; memory: %s", rpt_sb_str(&mem));
	rpt_sb_release(&mem);
	if (v->drift == RPT_DRIFT_DEGRADING || v->drift == RPT_DRIFT_IMPROVING)
		rpt_sb_printf(b, "; %s over time (see Drift)", rpt_drift_name(v->drift));
	else if (v->drift == RPT_DRIFT_STABLE)
		rpt_sb_printf(b, "; stable over time");
	rpt_sb_printf(b, ".");
}

/* What would resolve figure f of comparison m, when it is not resolved now, and the
 * sentence's full stop. */
static void advice(const struct report *r, const struct rpt_cmp *m, int f, struct sbuf *b)
{
	const struct rpt_resolve *x = &m->res[f];
	int now = m->nruns < m->nruns_base ? m->nruns : m->nruns_base;
	char adv[256];

	if (!x->now_enough && (x->rounds > 0 || x->basis != RPT_ADV_NONE))
		rpt_sb_printf(
		    b, "; to tell %.0f%% apart: %s", x->target_pct,
		    rpt_advice_text(x, now, r->cells[m->cell].vc[f].secs, adv, sizeof adv));
	rpt_sb_printf(b, ".");
}

/* What the comparisons resolve and what would resolve more: " Its interval ...". */
static void resolution(const struct report *r, const struct rpt_vrow *v, struct sbuf *b)
{
	if (v->cmp >= 0) {
		const struct rpt_cmp *m = &r->cmps[v->cmp];
		const struct rpt_resolve *x = &m->res[RPT_M_TPS];
		char p[32];
		if (isfinite(x->half_pct))
			rpt_sb_printf(b, " Its interval resolves TPS to ±%s%%",
			              rpt_fmt_num(x->half_pct, 1, p, sizeof p));
		else
			rpt_sb_printf(b, " No TPS resolution can be stated (one run a side: the "
			                 "run-to-run noise is unknown)");
		advice(r, m, RPT_M_TPS, b);
	}
	if (v->cmp_rate >= 0) {
		/* What the efficiency comparison resolves, for the first process with CPU. */
		const struct rpt_cmp *m = &r->cmps[v->cmp_rate];
		for (int k = 0; k < r->ncpu; k++) {
			const struct rpt_resolve *x = &m->res[RPT_FIG_CPU(k)];
			char p[32], at[48], what[RPT_NAME_MAX + 64];
			if (!(x->target_pct > 0) || !isfinite(m->base_value[RPT_FIG_CPU(k)]))
				continue;
			rpt_level_text(0, r->cells[m->cell].rate, at, sizeof at);
			if (isfinite(x->half_pct))
				rpt_sb_printf(b, " At %s its interval resolves %s to ±%s%%", at,
				              rpt_fig_what(r, RPT_FIG_CPU(k), what, sizeof what),
				              rpt_fmt_num(x->half_pct, 1, p, sizeof p));
			else
				rpt_sb_printf(
				    b,
				    " At %s no resolution of CPU per request can be stated "
				    "(one run a side)",
				    at);
			advice(r, m, RPT_FIG_CPU(k), b);
			break;
		}
	}
}

/* --- the brief answer: one sentence per label, what the report opens with -------------- */

/* The changes of comparison m beyond noise (a JIT's CPU is shown, not judged); how many. */
static int brief_changes(struct phrases *p, const struct report *r, const struct rpt_cmp *m)
{
	int fig[RPT_NFIG], n = rpt_fig_order(r->ncpu, fig);

	for (int i = 0; i < n; i++) {
		int s = rpt_fig_series(fig[i]);
		if (s < 0 || !rpt_jit_series(r->cpu_names[s]))
			fig_phrase(p, r, m, fig[i], "");
	}
	return p->n;
}

/* "B: no change beyond noise at 30 users; at 200/s 5.3% more CPU per request on app
 * (real)": each point the verdict rests on, its real changes against the baseline or none
 * (the table's note names the baseline). */
static void brief_compared(const struct report *r, const struct rpt_vrow *v, struct sbuf *b)
{
	const int cmp[2] = {v->cmp, v->cmp_rate};
	char none[2][48];
	int nnone = 0, said = 0;

	rpt_sb_printf(b, "%s:", r->labels[v->label].name);
	for (int i = 0; i < 2; i++) {
		const struct rpt_cell *c;
		struct phrases p = {.n = 0, .b = {{0}}, .last = {{0}}};
		char at[48];
		if (cmp[i] < 0)
			continue;
		c = &r->cells[r->cmps[cmp[i]].cell];
		rpt_level_text(c->concurrency, c->rate, at, sizeof at);
		if (brief_changes(&p, r, &r->cmps[cmp[i]]) == 0) {
			snprintf(none[nnone++], sizeof none[0], "%s", at);
			continue; /* no phrase: nothing to release */
		}
		rpt_sb_printf(b, "%s at %s ", said++ ? ";" : "", at);
		phrases_end(&p, b);
		rpt_sb_printf(b, " (%s)", p.n > 1 ? "all real" : "real");
	}
	if (nnone)
		rpt_sb_printf(b, "%s no change beyond noise at %s%s%s", said ? ";" : "", none[0],
		              nnone > 1 ? " or " : "", nnone > 1 ? none[1] : "");
}

void rpt_verdict_brief(struct sbuf *b, const struct report *r, const struct rpt_vrow *v,
                       int warnings)
{
	if (v->label == 0)
		rpt_sb_printf(b, r->nlabels > 1 ? "%s is the baseline" : "%s is the only label",
		              r->labels[0].name);
	else if (v->cmp < 0 && v->cmp_rate < 0)
		rpt_sb_printf(b,
		              "%s has no run matching the baseline's: nothing to compare it with",
		              r->labels[v->label].name);
	else
		brief_compared(r, v, b);
	if (v->drift == RPT_DRIFT_DEGRADING || v->drift == RPT_DRIFT_IMPROVING)
		rpt_sb_printf(b, "; %s over time (see Drift)", rpt_drift_name(v->drift));
	if (v->warnings && warnings)
		rpt_sb_printf(b, "; %d validity warning%s below", v->warnings,
		              v->warnings == 1 ? "" : "s");
	rpt_sb_printf(b, ".");
}

void rpt_verdict_text(struct sbuf *b, const struct report *r, const struct rpt_vrow *v)
{
	answer(r, v, b);
	resolution(r, v, b);
	if (v->warnings)
		rpt_sb_printf(b, " Read it with care: %d validity warning%s below.", v->warnings,
		              v->warnings == 1 ? "" : "s");
}
