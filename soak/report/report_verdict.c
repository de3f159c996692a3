/* report_verdict: what a reader wants first — each label against the baseline in one row
 * (TPS, average, p99, error %, CPU per request of each process source, memory verdict,
 * each change marked real or noise) and one sentence that also says what the comparison
 * resolves and what would resolve more.
 *
 * A label's row rests on one comparison, its headline: fixed runs before sweep steps, then
 * the comparison with the most runs, then the most interval observations, then the
 * highest level.  The Comparison table lists all of them.  Every figure of the row comes
 * from that comparison (report_compare.c), so the verdict, the tables, the findings and
 * report.json give one quantity one value.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report_text.h"

const char *rpt_memory_text(enum gca_memory m, char *buf, size_t len)
{
	snprintf(buf, len, "%s", gca_memory_name(m));
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' ';
	return buf;
}

char *rpt_advice_text(const struct rpt_resolve *x, int rounds_now, double secs_now, char *buf,
                      size_t len)
{
	char t[32], tot[32];

	if (x->now_enough) {
		snprintf(buf, len, "resolved now");
		return buf;
	}
	if (x->rounds <= 0) {
		if (x->basis == RPT_ADV_NONE)
			snprintf(
			    buf, len,
			    "unknown with one run a side: 3 or more rounds (or soak calibrate) "
			    "measure the run-to-run noise first");
		else
			snprintf(buf, len,
			         "out of reach: more than %d rounds even of runs 64 times as long",
			         RPT_ADVISE_MAX_ROUNDS);
		return buf;
	}
	double ratio = secs_now > 0 ? x->run_s / secs_now : 1;
	rpt_fmt_need(x->run_s, t, sizeof t);
	rpt_fmt_need(x->total_s, tot, sizeof tot);
	if (ratio >= 0.7 && ratio <= 1.4)
		snprintf(
		    buf, len,
		    "more rounds: %d rounds of runs as long as now (%s measured), %s per label; "
		    "longer runs would not help as much",
		    x->rounds, t, tot);
	else if (ratio < 0.7)
		snprintf(buf, len, "more, shorter runs: %d rounds of %s measured, %s per label",
		         x->rounds, t, tot);
	else if (x->rounds <= rounds_now)
		snprintf(buf, len, "longer runs: %d rounds of %s measured, %s per label", x->rounds,
		         t, tot);
	else
		snprintf(buf, len, "more and longer runs: %d rounds of %s measured, %s per label",
		         x->rounds, t, tot);
	return buf;
}

/* The headline comparison of label l among those at a fixed rate (open 1), at users
 * (open 0), or any (open -1): -1 when none. */
static int headline(const struct report *r, int l, int open)
{
	int best = -1;

	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		if (c->label != l || a->label != 0 || (open >= 0 && (c->rate > 0) != open))
			continue;
		if (best < 0) {
			best = i;
			continue;
		}
		const struct rpt_cmp *o = &r->cmps[best];
		const struct rpt_cell *oa = &r->cells[o->base], *oc = &r->cells[o->cell];
		int runs = a->nruns + c->nruns, oruns = oa->nruns + oc->nruns;
		size_t n = a->bm[RPT_M_TPS].n + c->bm[RPT_M_TPS].n;
		size_t on = oa->bm[RPT_M_TPS].n + oc->bm[RPT_M_TPS].n;
		if (c->sweep != oc->sweep               ? !c->sweep
		    : runs != oruns                     ? runs > oruns
		    : n != on                           ? n > on
		    : c->concurrency != oc->concurrency ? c->concurrency > oc->concurrency
		                                        : c->rate > oc->rate)
			best = i;
	}
	return best;
}

/* A label's own cell when it has no comparison: the one with most observations. */
static int own_cell(const struct report *r, int l)
{
	int best = -1;
	for (int c = 0; c < r->ncells; c++) {
		const struct rpt_cell *x = &r->cells[c];
		if (x->label != l)
			continue;
		if (best < 0 || (x->sweep != r->cells[best].sweep
		                     ? !x->sweep
		                     : x->bm[RPT_M_TPS].n > r->cells[best].bm[RPT_M_TPS].n))
			best = c;
	}
	return best;
}

/* The label's memory verdicts, worst first: "normal (app)", "suspected leak (app, run 2),
 * normal (app, run 5; db)"; "" without GC logs. */
static void memory_verdicts(const struct report *r, int l, char *out, size_t len)
{
	struct sbuf b = {.n = 0};
	int first = 1;

	/* The worst verdict first. */
	static const enum gca_memory order[] = {GCA_EXHAUSTED, GCA_SUSPECTED_LEAK, GCA_RISING,
	                                        GCA_TOO_SHORT, GCA_NORMAL,         GCA_UNKNOWN};
	for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
		enum gca_memory v = order[o];
		char names[RPT_MAX_SOURCES][RPT_NAME_MAX], runs[RPT_MAX_SOURCES][96], m[64];
		int nn = 0, split = 0;
		for (int i = 0; i < r->nruns; i++)
			for (int k = 0; k < r->runs[i].nsrc; k++) {
				const struct rpt_source *s = &r->runs[i].src[k];
				int j = 0;
				if (r->runs[i].label != l || !s->gc_events)
					continue;
				if (s->gc.memory != v) {
					split = 1; /* the source has runs with another verdict */
					continue;
				}
				while (j < nn && strcmp(names[j], s->name) != 0)
					j++;
				if (j == nn) {
					if (nn == RPT_MAX_SOURCES)
						continue;
					snprintf(names[nn], RPT_NAME_MAX, "%s", s->name);
					runs[nn++][0] = '\0';
				}
				size_t u = strlen(runs[j]);
				snprintf(runs[j] + u, sizeof runs[j] - u, "%s%s", u ? "," : "",
				         r->runs[i].key);
			}
		if (nn == 0)
			continue;
		rpt_memory_text(v, m, sizeof m);
		rpt_sb_printf(&b, "%s%s%s (", first ? "" : ", ", m,
		              v == GCA_TOO_SHORT ? " to judge" : "");
		for (int j = 0; j < nn; j++) {
			rpt_sb_printf(&b, "%s%s", j ? "; " : "", names[j]);
			if (split) {
				rpt_sb_printf(&b, ", ");
				rpt_sb_runs(&b, runs[j]);
			}
		}
		rpt_sb_printf(&b, ")");
		first = 0;
	}
	/* Cut to the field's size (a label with many sources is rare). */
	memcpy(out, b.s, b.n < len ? b.n + 1 : len);
	out[len - 1] = '\0';
}

/* "28.0% lower p99 (real)" into a list of phrases. */
struct phrases {
	struct sbuf b;  /* the phrases so far */
	int n;          /* how many */
	char last[256]; /* the one waiting for its joiner */
};

static void phrase(struct phrases *p, const char *text)
{
	if (p->n > 0)
		rpt_sb_printf(&p->b, "%s%s", p->n > 1 ? ", " : "", p->last);
	snprintf(p->last, sizeof p->last, "%s", text);
	p->n++;
}

static void phrases_end(struct phrases *p, struct sbuf *out)
{
	if (p->n == 0)
		return;
	if (p->n > 1)
		rpt_sb_printf(&p->b, " and ");
	rpt_sb_printf(&p->b, "%s", p->last);
	rpt_sb_printf(out, "%s", p->b.s);
}

/* A relative change beyond noise, as a phrase: "28.0% lower p99 (real)". */
static void change_phrase(struct phrases *p, const struct rpt_diff *d, double base, double v,
                          const char *up, const char *down, const char *what)
{
	char t[256];
	if (d->verdict != RPT_REAL || !(base != 0) || isnan(v))
		return;
	snprintf(t, sizeof t, "%.1f%% %s %s (real)", fabs(100 * (v - base) / base),
	         v > base ? up : down, what);
	phrase(p, t);
}

static void cell_where(struct sbuf *b, const struct rpt_cell *c, const char *at)
{
	char t[96];
	rpt_sb_printf(b, "%s %s", at, rpt_cell_text(c, t, sizeof t));
}

static void sentence(const struct report *r, struct rpt_vrow *v, struct sbuf *b)
{
	const char *B = r->labels[v->label].name, *A = r->labels[0].name;

	if (v->label == 0) {
		const struct rpt_cell *c = v->cell >= 0 ? &r->cells[v->cell] : NULL;
		char x[3][32];
		rpt_sb_printf(b, r->nlabels > 1 ? "%s is the baseline" : "%s, the only label", A);
		if (c) {
			int ans = c->f.p50_us > 0 || c->f.max_us > 0;
			rpt_sb_printf(b, ": %.1f TPS, average %s, p99 %s, %.2f%% errors ", c->f.tps,
			              rpt_fmt_ms(ans ? c->f.mean_us / 1000 : NAN, x[0], 32),
			              rpt_fmt_ms(ans ? (double)c->f.p99_us / 1000 : NAN, x[1], 32),
			              c->f.error_pct);
			cell_where(b, c, "at");
		}
	} else if (v->cmp < 0) {
		rpt_sb_printf(b,
		              "%s has no run matching the baseline's kind of run, users and "
		              "duration: nothing to compare it with",
		              B);
	} else {
		const struct rpt_cmp *m = &r->cmps[v->cmp];
		const struct rpt_diff *t = &m->d[RPT_M_TPS];
		double tb = m->base_value[RPT_M_TPS], tc = m->value[RPT_M_TPS];
		double pct = tb > 0 ? 100 * (tc - tb) / tb : NAN;
		struct phrases p = {.n = 0};
		char s[64];

		cell_where(b, &r->cells[m->cell], "At");
		if (t->verdict == RPT_REAL)
			rpt_sb_printf(b, ", %s serves %.1f%% %s requests per second than %s (real)",
			              B, fabs(pct), tc > tb ? "more" : "fewer", A);
		else if (t->verdict == RPT_NOISE)
			rpt_sb_printf(b, ", %s serves the same as %s within noise (%s)", B, A,
			              rpt_fmt_pct(pct, s, sizeof s));
		else
			rpt_sb_printf(b,
			              ", %s serves %s requests per second against %s (too few "
			              "intervals to judge the noise)",
			              B, rpt_fmt_pct(pct, s, sizeof s), A);
		change_phrase(&p, &m->d[RPT_M_MEAN], m->base_value[RPT_M_MEAN],
		              m->value[RPT_M_MEAN], "higher", "lower", "average latency");
		change_phrase(&p, &m->d[RPT_M_P99], m->base_value[RPT_M_P99], m->value[RPT_M_P99],
		              "higher", "lower", "p99");
		if (m->d[RPT_M_ERR].verdict == RPT_REAL) {
			snprintf(s, sizeof s, "%.2f points %s errors (real)",
			         fabs(m->value[RPT_M_ERR] - m->base_value[RPT_M_ERR]),
			         m->value[RPT_M_ERR] > m->base_value[RPT_M_ERR] ? "more" : "fewer");
			phrase(&p, s);
		}
		for (int k = 0; k < r->ncpu; k++) {
			char what[RPT_NAME_MAX + 32];
			snprintf(what, sizeof what, "CPU per request on %s", r->cpu_names[k]);
			change_phrase(&p, &m->d[RPT_FIG_CPU(k)], m->base_value[RPT_FIG_CPU(k)],
			              m->value[RPT_FIG_CPU(k)], "more", "less", what);
			snprintf(what, sizeof what, "memory on %s", r->cpu_names[k]);
			change_phrase(&p, &m->d[RPT_FIG_MEM(k)], m->base_value[RPT_FIG_MEM(k)],
			              m->value[RPT_FIG_MEM(k)], "more", "less", what);
		}
		if (p.n) {
			rpt_sb_printf(b, ", with ");
			phrases_end(&p, b);
		} else {
			rpt_sb_printf(b, ", with no other change beyond noise");
		}
	}
	if (v->label == 0 && v->cell_rate >= 0) {
		const struct rpt_cell *c = &r->cells[v->cell_rate];
		char x[2][32];
		cell_where(b, c, "; at");
		rpt_sb_printf(b, ", p99 %s", rpt_fmt_ms(c->value[RPT_M_P99], x[0], 32));
		for (int k = 0; k < r->ncpu; k++)
			if (isfinite(c->value[RPT_FIG_CPU(k)]))
				rpt_sb_printf(b, ", %s of CPU per request on %s",
				              rpt_fmt_ms(c->value[RPT_FIG_CPU(k)], x[1], 32),
				              r->cpu_names[k]);
	} else if (v->cmp_rate >= 0) {
		/* Efficiency: the same arrivals for both, so TPS says nothing; what each
		 * request costs and how fast it is answered do. */
		const struct rpt_cmp *m = &r->cmps[v->cmp_rate];
		struct phrases p = {.n = 0};
		int said = 0;
		cell_where(b, &r->cells[m->cell], "; at");
		for (int k = 0; k < r->ncpu; k++) {
			const struct rpt_diff *d = &m->d[RPT_FIG_CPU(k)];
			double a = m->base_value[RPT_FIG_CPU(k)], c = m->value[RPT_FIG_CPU(k)];
			char t[32];
			if (!isfinite(a) || !isfinite(c) || !(a > 0))
				continue;
			rpt_sb_printf(b, "%s %s CPU per request on %s (%s)",
			              said ? " and" : " it costs",
			              rpt_fmt_pct(100 * (c - a) / a, t, sizeof t), r->cpu_names[k],
			              rpt_verdict_name(d->verdict));
			said = 1;
		}
		if (!said)
			rpt_sb_printf(b, " no CPU per request was measured");
		change_phrase(&p, &m->d[RPT_M_MEAN], m->base_value[RPT_M_MEAN],
		              m->value[RPT_M_MEAN], "higher", "lower", "average latency");
		change_phrase(&p, &m->d[RPT_M_P99], m->base_value[RPT_M_P99], m->value[RPT_M_P99],
		              "higher", "lower", "p99");
		if (p.n) {
			rpt_sb_printf(b, ", with ");
			phrases_end(&p, b);
		}
	}
	if (v->memory[0])
		rpt_sb_printf(b, "; memory: %s", v->memory);
	if (v->drift == RPT_DRIFT_DEGRADING || v->drift == RPT_DRIFT_IMPROVING)
		rpt_sb_printf(b, "; %s over time (see Drift)", rpt_drift_name(v->drift));
	else if (v->drift == RPT_DRIFT_STABLE)
		rpt_sb_printf(b, "; stable over time");
	rpt_sb_printf(b, ".");
	if (v->cmp >= 0) {
		const struct rpt_cmp *m = &r->cmps[v->cmp];
		const struct rpt_resolve *x = &m->res[RPT_M_TPS];
		char p[32], adv[256];
		int now = m->nruns < m->nruns_base ? m->nruns : m->nruns_base;
		if (isfinite(x->half_pct))
			rpt_sb_printf(b, " Its interval resolves TPS to ±%s%%",
			              rpt_fmt_num(x->half_pct, 1, p, sizeof p));
		else
			rpt_sb_printf(b, " No TPS resolution can be stated (one run a side: the "
			                 "run-to-run noise is unknown)");
		if (!x->now_enough && (x->rounds > 0 || x->basis != RPT_ADV_NONE))
			rpt_sb_printf(b, "; to tell %.0f%% apart: %s", x->target_pct,
			              rpt_advice_text(x, now, r->cells[m->cell].vc[RPT_M_TPS].secs,
			                              adv, sizeof adv));
		rpt_sb_printf(b, ".");
	}
	if (v->cmp_rate >= 0) {
		/* What the efficiency comparison resolves, for the first process with CPU. */
		const struct rpt_cmp *m = &r->cmps[v->cmp_rate];
		for (int k = 0; k < r->ncpu; k++) {
			const struct rpt_resolve *x = &m->res[RPT_FIG_CPU(k)];
			char p[32], at[48], adv[256];
			int now = m->nruns < m->nruns_base ? m->nruns : m->nruns_base;
			if (!(x->target_pct > 0) || !isfinite(m->base_value[RPT_FIG_CPU(k)]))
				continue;
			rpt_level_text(0, r->cells[m->cell].rate, at, sizeof at);
			if (isfinite(x->half_pct))
				rpt_sb_printf(
				    b,
				    " At %s its interval resolves CPU per request on %s to ±%s%%",
				    at, r->cpu_names[k], rpt_fmt_num(x->half_pct, 1, p, sizeof p));
			else
				rpt_sb_printf(
				    b,
				    " At %s no resolution of CPU per request can be stated "
				    "(one run a side)",
				    at);
			if (!x->now_enough && (x->rounds > 0 || x->basis != RPT_ADV_NONE))
				rpt_sb_printf(b, "; to tell %.0f%% apart: %s", x->target_pct,
				              rpt_advice_text(
				                  x, now, r->cells[m->cell].vc[RPT_FIG_CPU(k)].secs,
				                  adv, sizeof adv));
			rpt_sb_printf(b, ".");
			break;
		}
	}
	if (v->warnings)
		rpt_sb_printf(b, " Read it with care: %d validity warning%s below.", v->warnings,
		              v->warnings == 1 ? "" : "s");
}

static void fill_row(struct report *r, struct rpt_vrow *v, int l)
{
	struct sbuf b = {.n = 0};

	v->label = l;
	/* Drift: the worst verdict of the label's runs (degrading, then improving, then
	 * stable; too short counts only when nothing else was judged). */
	static const int rank[] = {[RPT_DRIFT_TOO_SHORT] = 1,
	                           [RPT_DRIFT_STABLE] = 2,
	                           [RPT_DRIFT_IMPROVING] = 3,
	                           [RPT_DRIFT_DEGRADING] = 4};
	v->drift = -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->label != l || !run->drift.sentence[0])
			continue;
		if (v->drift < 0 || rank[run->drift.verdict] > rank[v->drift])
			v->drift = (int)run->drift.verdict;
	}
	/* Capacity first (users), and efficiency (a fixed rate) beside it when both ran. */
	v->cmp = l > 0 ? headline(r, l, 0) : -1;
	v->cmp_rate = l > 0 ? headline(r, l, 1) : -1;
	if (v->cmp < 0) {
		v->cmp = v->cmp_rate;
		v->cmp_rate = -1;
	}
	v->cell = v->cmp >= 0 ? r->cmps[v->cmp].cell : own_cell(r, l);
	v->cell_rate = v->cmp_rate >= 0 ? r->cmps[v->cmp_rate].cell : -1;
	if (l == 0)
		for (int k = 1; k < r->nlabels; k++) {
			int h = headline(r, k, 0), hr = headline(r, k, 1);
			if (h < 0) {
				h = hr;
				hr = -1;
			}
			if (h >= 0) {
				v->cell = r->cmps[h].base;
				v->cell_rate = hr >= 0 ? r->cmps[hr].base : -1;
				break;
			}
		}
	for (int s = 0; s < RPT_MAX_SOURCES; s++)
		v->cpu_req[s] = NAN;
	for (int s = 0; s < r->ncpu && v->cell >= 0; s++)
		if (rpt_process_series(r->cpu_names[s]))
			v->cpu_req[s] = r->cells[v->cell].value[RPT_FIG_CPU(s)];
	memory_verdicts(r, l, v->memory, sizeof v->memory);
	for (int i = 0; i < r->nvalidity; i++)
		v->warnings +=
		    r->validity[i].label == l && !strcmp(r->validity[i].severity, "warn");
	sentence(r, v, &b);
	v->sentence = strdup(b.s);
}

int rpt_verdicts(struct report *r)
{
	r->verdicts = calloc((size_t)(r->nlabels ? r->nlabels : 1), sizeof *r->verdicts);
	if (!r->verdicts)
		return -1;
	for (int l = 0; l < r->nlabels; l++) {
		fill_row(r, &r->verdicts[l], l);
		r->nverdicts++;
		if (!r->verdicts[l].sentence)
			return -1;
	}
	return 0;
}
