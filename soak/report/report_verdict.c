/* report_verdict: what a reader wants first — each label against the baseline in one row
 * (TPS, average, p99, error %, CPU per request of each process source, memory verdict,
 * each change marked real or noise) and one sentence — and, per comparison, how long a
 * run would need to be to resolve the differences a study cares about.
 *
 * A label's row rests on one comparison, its headline: fixed runs before sweep steps, then
 * the comparison with the most interval observations, then the highest concurrency.  The
 * Comparison table lists all of them.
 *
 * CPU per request is CPU time (ms) over requests: 10 * CPU% / TPS.  Its noise comes from
 * the batch-means errors of the CPU samples and of the interval TPS by the delta method
 * (relative errors added in quadrature, their covariance ignored: conservative when CPU
 * and TPS move together), and the change is judged with the same Welch test as the rest.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report_text.h"

#define Z95 1.959964 /* normal quantile: a longer run's t approaches it */

const char *rpt_memory_text(enum gca_memory m, char *buf, size_t len)
{
	snprintf(buf, len, "%s", gca_memory_name(m));
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' ';
	return buf;
}

void rpt_resolve_diff(const struct rpt_bm *a, const struct rpt_bm *b, double secs_a, double secs_b,
                      double target_pct, double *min_pct, double *need_s)
{
	struct rpt_diff d;
	double base = fabs(a->mean), se2, q;

	*min_pct = *need_s = NAN;
	if (isnan(a->se) || isnan(b->se) || !(base > 0) || !(secs_a > 0) || !(secs_b > 0))
		return;
	se2 = a->se * a->se + b->se * b->se;
	if (se2 == 0) {
		*min_pct = *need_s = 0;
		return;
	}
	rpt_welch(a, b, &d);
	q = rpt_t_quantile(0.975, d.df);
	*min_pct = 100 * q * sqrt(se2) / base;
	/* The variance of a mean falls as 1/T: per-second variances, summed, give the time
	 * per label at which the 95 % half-width reaches the target. */
	*need_s = Z95 * Z95 * (a->se * a->se * secs_a + b->se * b->se * secs_b) /
	          pow(target_pct / 100 * base, 2);
}

/* A CPU series of a process (not the host-wide ones). */
static int process_series(const char *name)
{
	return strcmp(name, "host") != 0 && !strstr(name, ":host");
}

/* CPU ms per request with its batch-means error, by the delta method. */
static void per_request(const struct rpt_bm *cpu, const struct rpt_bm *tps, struct rpt_bm *out)
{
	memset(out, 0, sizeof *out);
	out->mean = out->se = NAN;
	if (!(tps->mean > 0) || isnan(cpu->mean))
		return;
	out->n = cpu->n < tps->n ? cpu->n : tps->n;
	out->batches = cpu->batches < tps->batches ? cpu->batches : tps->batches;
	out->mean = 10 * cpu->mean / tps->mean;
	out->df = cpu->df < tps->df ? cpu->df : tps->df;
	if (!isnan(cpu->se) && !isnan(tps->se) && cpu->mean != 0)
		out->se = fabs(out->mean) *
		          sqrt(pow(cpu->se / cpu->mean, 2) + pow(tps->se / tps->mean, 2));
}

/* The headline comparison of label l: -1 when none. */
static int headline(const struct report *r, int l)
{
	int best = -1;

	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		if (c->label != l || a->label != 0)
			continue;
		if (best < 0) {
			best = i;
			continue;
		}
		const struct rpt_cmp *o = &r->cmps[best];
		const struct rpt_cell *oa = &r->cells[o->base], *oc = &r->cells[o->cell];
		size_t n = a->tps.n + c->tps.n, on = oa->tps.n + oc->tps.n;
		if (c->sweep != oc->sweep ? !c->sweep
		    : n != on             ? n > on
		                          : c->concurrency > oc->concurrency)
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
		if (best < 0 ||
		    (x->sweep != r->cells[best].sweep ? !x->sweep
		                                      : x->tps.n > r->cells[best].tps.n))
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
		rpt_sb_printf(&b, "%s%s (", first ? "" : ", ", rpt_memory_text(v, m, sizeof m));
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
	char d[32];
	rpt_sb_printf(b, "%s %d users (%s of %s)", at, c->concurrency,
	              c->sweep ? "sweep steps" : "fixed runs",
	              dur_format(c->planned_ms, d, sizeof d));
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
			change_phrase(&p, &v->cpu_req_d[k], v->cpu_req_base[k], v->cpu_req[k],
			              "more", "less", what);
		}
		if (p.n) {
			rpt_sb_printf(b, ", with ");
			phrases_end(&p, b);
		} else {
			rpt_sb_printf(b, ", with no other change beyond noise");
		}
	}
	if (v->memory[0])
		rpt_sb_printf(b, "; memory %s", v->memory);
	if (v->drift == RPT_DRIFT_DEGRADING || v->drift == RPT_DRIFT_IMPROVING)
		rpt_sb_printf(b, "; %s over time (see Drift)", rpt_drift_name(v->drift));
	else if (v->drift == RPT_DRIFT_STABLE)
		rpt_sb_printf(b, "; stable over time");
	rpt_sb_printf(b, ".");
	if (v->cmp >= 0 && isfinite(r->resolve[v->cmp].tps_pct)) {
		const struct rpt_resolve *x = &r->resolve[v->cmp];
		char p[32], d[32];
		rpt_sb_printf(b, " The data resolve TPS to ±%s%%",
		              rpt_fmt_num(x->tps_pct, 1, p, sizeof p));
		if (x->tps_need_s > x->measured_s)
			rpt_sb_printf(b, "; to tell %.0f%% apart, run at least %s per label",
			              RPT_RESOLVE_TPS_PCT,
			              rpt_fmt_need(x->tps_need_s, d, sizeof d));
		rpt_sb_printf(b, ".");
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
	v->cmp = l > 0 ? headline(r, l) : -1;
	v->cell = v->cmp >= 0 ? r->cmps[v->cmp].cell : own_cell(r, l);
	if (l == 0)
		for (int k = 1; k < r->nlabels; k++) {
			int h = headline(r, k);
			if (h >= 0) {
				v->cell = r->cmps[h].base;
				break;
			}
		}
	for (int s = 0; s < RPT_MAX_SOURCES; s++) {
		v->cpu_req_base[s] = v->cpu_req[s] = NAN;
		memset(&v->cpu_req_d[s], 0, sizeof v->cpu_req_d[s]);
		v->cpu_req_d[s].verdict = RPT_NA;
	}
	for (int s = 0; s < r->ncpu && v->cell >= 0; s++) {
		const struct rpt_cell *c = &r->cells[v->cell];
		struct rpt_bm qa, qb;
		if (!process_series(r->cpu_names[s]))
			continue;
		per_request(&c->cpu[s], &c->tps, &qb);
		v->cpu_req[s] = qb.mean;
		if (v->cmp >= 0) {
			const struct rpt_cell *a = &r->cells[r->cmps[v->cmp].base];
			per_request(&a->cpu[s], &a->tps, &qa);
			v->cpu_req_base[s] = qa.mean;
			rpt_welch(&qa, &qb, &v->cpu_req_d[s]);
		}
	}
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
	r->resolve = calloc((size_t)(r->ncmps ? r->ncmps : 1), sizeof *r->resolve);
	if (!r->verdicts || !r->resolve)
		return -1;
	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		struct rpt_resolve *x = &r->resolve[i];
		x->measured_s = fmin(a->f.seconds, c->f.seconds);
		rpt_resolve_diff(&a->tps, &c->tps, a->f.seconds, c->f.seconds, RPT_RESOLVE_TPS_PCT,
		                 &x->tps_pct, &x->tps_need_s);
		rpt_resolve_diff(&a->p99_ms, &c->p99_ms, a->f.seconds, c->f.seconds,
		                 RPT_RESOLVE_P99_PCT, &x->p99_pct, &x->p99_need_s);
	}
	for (int l = 0; l < r->nlabels; l++) {
		fill_row(r, &r->verdicts[l], l);
		r->nverdicts++;
		if (!r->verdicts[l].sentence)
			return -1;
	}
	return 0;
}
