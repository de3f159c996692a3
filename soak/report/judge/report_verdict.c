/* report_verdict: what a reader wants first — each label against the baseline in one row
 * (TPS, average, p99, error %, CPU per request of each process source, memory verdict,
 * each change marked real or noise); write/report_verdict_text.c says it in one sentence
 * that also says what the comparison resolves and what would resolve more.
 *
 * A label's row rests on one comparison, its headline: fixed runs before sweep steps, then
 * the comparison with the most runs, then the most interval observations, then the
 * highest level.  The Comparison table lists all of them.  Every figure of the row comes
 * from that comparison (report_compare.c), so the verdict, the tables, the findings and
 * report.json give one quantity one value.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"

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

/* The classes of memory verdict a label's row names, worst first: a source with a GC log
 * by its GC verdict, another process source by its process memory's (report_mem.c); a
 * class may take both when they say the same (rising, too short to judge). */
static const struct {
	int gc;          /* the GC verdict (gca_memory) of the class, -1: none */
	int proc;        /* the process memory verdict (rpt_mem_verdict), -1: none */
	const char *why; /* its word in the row; NULL: the GC verdict's own */
} mem_classes[] = {
    {GCA_EXHAUSTED, -1, NULL},
    {GCA_SUSPECTED_LEAK, -1, NULL},
    {GCA_RISING, RPT_MEM_RISING, "rising"},
    {-1, RPT_MEM_AT_LIMIT, "at limit"},
    {GCA_TOO_SHORT, RPT_MEM_UNKNOWN, "too short to judge"},
    {-1, RPT_MEM_FILLING, "cache filling"},
    {GCA_NORMAL, -1, NULL},
    {-1, RPT_MEM_LEVELS_OFF, "levels off"},
    {-1, RPT_MEM_FLAT, "flat"},
    {GCA_UNKNOWN, -1, NULL},
};

/* Whether a source's memory verdict is of class c. */
static int of_class(const struct rpt_source *s, int c)
{
	if (s->gc_events)
		return (int)s->gc.memory == mem_classes[c].gc;
	return s->has_rss && s->rss_fit && (int)s->mem.verdict == mem_classes[c].proc;
}

/* Whether a source has a verdict the row names. */
static int judged(const struct rpt_source *s)
{
	return s->gc_events || (s->has_rss && s->rss_fit);
}

/* Whether one of the sources names[0..nn) of label l has runs of another class than c: then
 * the row says which runs are which. */
static int other_class(const struct report *r, int l, int c, char (*names)[RPT_NAME_MAX], int nn)
{
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s = &r->runs[i].src[k];
			if (r->runs[i].label != l || !judged(s) || of_class(s, c))
				continue;
			for (int j = 0; j < nn; j++)
				if (!strcmp(names[j], s->name))
					return 1;
		}
	return 0;
}

/* The label's memory verdicts, worst first: "normal (app)", "suspected leak (app, run 2),
 * normal (app, run 5; db)", "normal (app), cache filling (db)"; "" without any. */
static void memory_verdicts(const struct report *r, int l, char *out, size_t len)
{
	struct sbuf b = {.n = 0};
	int first = 1;

	for (size_t c = 0; c < sizeof mem_classes / sizeof mem_classes[0]; c++) {
		char names[RPT_MAX_SOURCES][RPT_NAME_MAX], runs[RPT_MAX_SOURCES][96], m[64];
		int nn = 0, split;
		for (int i = 0; i < r->nruns; i++)
			for (int k = 0; k < r->runs[i].nsrc; k++) {
				const struct rpt_source *s = &r->runs[i].src[k];
				int j = 0;
				if (r->runs[i].label != l || !judged(s) || !of_class(s, (int)c))
					continue;
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
		split = other_class(r, l, (int)c, names, nn);
		if (mem_classes[c].why)
			snprintf(m, sizeof m, "%s", mem_classes[c].why);
		else
			rpt_memory_text((enum gca_memory)mem_classes[c].gc, m, sizeof m);
		rpt_sb_printf(&b, "%s%s (", first ? "" : ", ", m);
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

static void fill_row(struct report *r, struct rpt_vrow *v, int l)
{
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
		if (run->label != l || !run->drift.judged)
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
}

int rpt_verdicts(struct report *r)
{
	r->verdicts = calloc((size_t)(r->nlabels ? r->nlabels : 1), sizeof *r->verdicts);
	if (!r->verdicts)
		return -1;
	for (int l = 0; l < r->nlabels; l++) {
		fill_row(r, &r->verdicts[l], l);
		r->nverdicts++;
	}
	return 0;
}
