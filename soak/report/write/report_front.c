/* report_front: the tables a report opens with — the verdict of each label against the
 * baseline and how long to run — and the environment of each label (what ran). */
#include "report_front.h"
#include "report/report_int.h"
#include "report/report_text.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report_tables.h"
#include "report_tb.h"
#include "report/judge/report_runfig.h"
#include "report/judge/report_validity.h"
#include "report_fmt.h"
#include "report_mem_text.h"
#include "report/judge/report_drift.h"
#include "report/judge/report_compare.h"

#define DASH     "\xe2\x80\x94" /* "—": no value */
#define MAX_COLS (12 + RPT_MAX_SOURCES)
#define SHOW_MAX 300 /* characters of a fact shown (command lines run long) */

/* Which columns the verdict shows: each figure whose row has a verdict column at its
 * column (-1: none; a series figure for each process series but a JIT's; error % only
 * when a request failed in a compared window); memory and drift only when the
 * labels differ in them (said once in the note when they do not). */
struct vcols {
	int col[RPT_NFIG];    /* by figure: its column, -1: none */
	int any[RPT_NMETRIC]; /* by request figure: some value shown is not 0 */
	int mem, drift;
	int short_at; /* the at column shows the level only ("30 users"); the note its runs */
	int floored;  /* a cell was marked as held to noise by its floor */
};

/* A comparison's change in the verdict's form (rpt_change_cell_brief). */
static void verdict_change(struct rpt_tb *b, int row, int col, const struct rpt_cmp *m, int f,
                           struct vcols *vc)
{
	char x[128];
	rpt_tb_set(b, row, col, "%s", rpt_change_cell_brief(m, f, x, sizeof x));
	vc->floored |= rpt_change_floored(m, f);
}

/* The worst memory verdict of a label in its word, marked when the findings say more
 * ("too short to judge*"), or "" (each source's is in report.json and the findings). */
static void mem_word(const struct report *r, int label, struct sbuf *out)
{
	struct sbuf mem = {0};
	size_t word;

	rpt_memory_verdicts(&mem, r, label, 0);
	word = strcspn(rpt_sb_str(&mem), "(");
	while (word > 0 && rpt_sb_str(&mem)[word - 1] == ' ')
		word--;
	if (rpt_sb_len(&mem))
		rpt_sb_printf(out, "%.*s*", (int)word, rpt_sb_str(&mem));
	rpt_sb_release(&mem);
}

/* Figure f of one row at column col: the baseline's own, a comparison's change, or none
 * (the first column says why). */
static void verdict_fig(const struct report *r, struct rpt_tb *b, int row, int col, int f,
                        const struct rpt_vrow *v, const struct rpt_cell *c, int cmp,
                        struct vcols *vc)
{
	char x[64];

	if (v->label == 0 && c)
		rpt_tb_set(b, row, col, "%s", rpt_fig_value(f, c->value[f], x, sizeof x));
	else if (cmp >= 0)
		verdict_change(b, row, col, &r->cmps[cmp], f, vc);
	else
		rpt_tb_set(b, row, col, col == 2 ? "no matching runs" : DASH);
}

/* The figures of one row: the baseline's own, a comparison's changes, or none. */
static int verdict_figures(const struct report *r, struct rpt_tb *b, int row,
                           const struct rpt_vrow *v, const struct rpt_cell *c, int cmp,
                           struct vcols *vc)
{
	int col = 2;

	for (int f = 0; f < RPT_NFIG; f++)
		if (vc->col[f] >= 0) {
			verdict_fig(r, b, row, vc->col[f], f, v, c, cmp, vc);
			col = vc->col[f] + 1;
		}
	return col;
}

/* One row of the verdict: label v at cell `cell`, judged by comparison `cmp` (-1: the
 * baseline's own figures, or none). */
static void verdict_row(const struct report *r, struct rpt_tb *b, const struct rpt_vrow *v,
                        int cell, int cmp, struct vcols *vc)
{
	const struct rpt_cell *c = cell >= 0 ? &r->cells[cell] : NULL;
	int row = rpt_tb_row(b), col;
	char d[96];
	struct sbuf mem = {0};

	rpt_tb_set(b, row, 0, "%s%s", r->labels[v->label].name,
	           v->label == 0 && r->nlabels > 1 ? " (baseline)" : "");
	if (c && vc->short_at)
		rpt_tb_set(b, row, 1, "%s", rpt_level_text(c->concurrency, c->rate, d, sizeof d));
	else
		rpt_tb_set(b, row, 1, "%s", c ? rpt_cell_text(c, d, sizeof d) : DASH);
	col = verdict_figures(r, b, row, v, c, cmp, vc);
	mem_word(r, v->label, &mem);
	if (vc->mem)
		rpt_tb_set(b, row, col++, "%s", rpt_sb_len(&mem) ? rpt_sb_str(&mem) : DASH);
	rpt_sb_release(&mem);
	if (vc->drift)
		rpt_tb_set(b, row, col++, "%s",
		           v->drift >= 0 ? rpt_drift_name((enum rpt_drift_verdict)v->drift) : DASH);
}

/* The cells of the verdict's rows, in order, at most max; how many. */
static int verdict_cells(const struct report *r, const struct rpt_cell **out, int max)
{
	int n = 0;

	for (int i = 0; i < r->nverdicts && n + 2 <= max; i++) {
		if (r->verdicts[i].cell >= 0)
			out[n++] = &r->cells[r->verdicts[i].cell];
		if (r->verdicts[i].cell_rate >= 0)
			out[n++] = &r->cells[r->verdicts[i].cell_rate];
	}
	return n;
}

/* Whether cells a and b ran the same kind of run of the same length. */
static int same_runs(const struct rpt_cell *a, const struct rpt_cell *b)
{
	return a->sweep == b->sweep && a->planned_ms == b->planned_ms;
}

/* When each level the verdict shows ran one kind of run of one length, the at column
 * says the level and the note each level's runs once ("Fixed runs of 4s at 30 users."). */
static void verdict_at(const struct report *r, struct vcols *vc, struct rpt_table *note)
{
	const struct rpt_cell *c[2 * RPT_MAX_LABELS];
	int n = verdict_cells(r, c, 2 * RPT_MAX_LABELS), said = 0;
	char runs[64], l[48], y[48];

	vc->short_at = n > 0;
	for (int i = 0; i < n && vc->short_at; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(rpt_level_text(c[i]->concurrency, c[i]->rate, l, sizeof l),
			            rpt_level_text(c[k]->concurrency, c[k]->rate, y, sizeof y)) &&
			    !same_runs(c[i], c[k]))
				vc->short_at = 0;
	for (int i = 0; i < n && vc->short_at; i++) {
		int seen = 0;
		rpt_level_text(c[i]->concurrency, c[i]->rate, l, sizeof l);
		for (int k = 0; k < i; k++)
			seen |=
			    same_runs(c[i], c[k]) &&
			    !strcmp(l, rpt_level_text(c[k]->concurrency, c[k]->rate, y, sizeof y));
		if (seen)
			continue;
		rpt_cell_runs(c[i], runs, sizeof runs);
		if (!said)
			runs[0] = (char)toupper((unsigned char)runs[0]);
		rpt_table_note(note, "%s%s at %s", said++ ? ", " : " ", runs, l);
	}
	if (said)
		rpt_table_note(note, ".");
}

/* Whether request figure f is not zero in a window the verdict shows (error %: a request
 * failed). */
static int verdict_any(const struct report *r, int f)
{
	for (int i = 0; i < r->nverdicts; i++) {
		const struct rpt_vrow *v = &r->verdicts[i];
		const int cells[2] = {v->cell, v->cell_rate}, cmps[2] = {v->cmp, v->cmp_rate};
		for (int k = 0; k < 2; k++) {
			double a = 0, c = 0;
			if (cmps[k] >= 0)
				rpt_cmp_values(&r->cmps[cmps[k]], f, &a, &c);
			else if (cells[k] >= 0)
				a = r->cells[cells[k]].value[f];
			if (!(a == 0 && c == 0))
				return 1;
		}
	}
	return 0;
}

/* The columns memory and drift, when every label says the same in them: the note says it
 * once ("Memory: too short to judge* for every label; drift: too_short."). */
static void verdict_same(const struct report *r, struct vcols *vc, struct rpt_table *t)
{
	struct sbuf first = {0}, x = {0};
	int drift = r->nverdicts > 0 ? r->verdicts[0].drift : -1;

	vc->mem = vc->drift = r->nverdicts < 2; /* one label: its own columns */
	if (vc->mem) {
		vc->drift = drift >= 0;
		return;
	}
	for (int i = 0; i < r->nverdicts; i++) {
		rpt_sb_reset(&x);
		mem_word(r, r->verdicts[i].label, &x);
		if (i == 0)
			rpt_sb_printf(&first, "%s", rpt_sb_str(&x));
		vc->mem |= strcmp(rpt_sb_str(&x), rpt_sb_str(&first)) != 0;
		vc->drift |= r->verdicts[i].drift != drift;
	}
	/* the word without its mark: the note says where more is */
	int n = (int)rpt_sb_len(&first) - (rpt_sb_len(&first) > 0);
	int both = !vc->mem && n > 0 && !vc->drift && drift == RPT_DRIFT_TOO_SHORT &&
	           !strncmp(rpt_sb_str(&first), "too short", 9); /* one sentence says both */
	if (both)
		rpt_table_note(t, " Memory and drift: %.*s for every label (see the findings).", n,
		               rpt_sb_str(&first));
	if (!both && !vc->mem && n > 0)
		rpt_table_note(t, " Memory: %.*s for every label (see the findings).", n,
		               rpt_sb_str(&first));
	if (!both && !vc->drift && drift >= 0)
		rpt_table_note(t, " Drift: %s for every label.",
		               rpt_drift_name((enum rpt_drift_verdict)drift));
	rpt_sb_release(&first);
	rpt_sb_release(&x);
}

/* The verdict's note: how to read a change (with the floor's mark when a cell has it), the
 * units, and what the columns left out say once (extra: verdict_at's, verdict_same's). */
static void verdict_note(const struct report *r, const struct vcols *vc, const char *extra,
                         struct rpt_table *t)
{
	if (r->nlabels > 1)
		rpt_table_note(t,
		               "A change against %s \xc2\xb1its interval, real when that excludes "
		               "zero%s; ",
		               r->labels[0].name,
		               vc->floored ? "; \xe2\x80\xa0: it does, but the change is under the "
		                             "floor its method needs (How it was measured)"
		                           : "");
	rpt_table_note(t, "CPU/request in ms.%s%s%s", vc->mem ? " *: see the findings." : "",
	               vc->any[RPT_M_ERR] ? "" : " No request failed.", extra ? extra : "");
}

/* Whether the verdict table has a column for figure f (its row's vhead). */
static int verdict_shows(const struct report *r, const struct vcols *vc, int f)
{
	const struct rpt_figrow *row = rpt_fig_row(f);
	int s = rpt_fig_series(f);

	if (!rpt_fig_in(f, r->ncpu) || !row->vhead)
		return 0;
	if (s < 0)
		return !row->if_any || vc->any[f];
	/* a JIT's threads are shown, not judged: in the comparison table */
	return rpt_process_series(r->cpu_names[s]) && !rpt_jit_series(r->cpu_names[s]);
}

/* The verdict's figure columns from column 2 (vc->col, names, align, heads); returns the
 * next column. */
static int verdict_columns(const struct report *r, struct vcols *vc, const char **names,
                           char *align, char (*head)[RPT_NAME_MAX + 16])
{
	int nc = 2;

	for (int k = 0; k < RPT_NMETRIC; k++)
		vc->any[k] = rpt_figrows[k].if_any && verdict_any(r, k);
	for (int f = 0; f < RPT_NFIG; f++) {
		vc->col[f] = -1;
		if (!verdict_shows(r, vc, f) || nc >= MAX_COLS - 2) /* memory and drift after */
			continue;
		int s = rpt_fig_series(f);
		snprintf(head[f], sizeof head[f], "%s%s%s", rpt_fig_row(f)->vhead, s < 0 ? "" : " ",
		         s < 0 ? "" : r->cpu_names[s]);
		vc->col[f] = nc;
		names[nc] = head[f];
		align[nc++] = 'r';
	}
	return nc;
}

static void verdict_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	const char *names[MAX_COLS] = {"label", "at"};
	char align[MAX_COLS + 1] = "kk", head[RPT_NFIG][RPT_NAME_MAX + 16];
	struct rpt_table note = {0};
	struct vcols vc = {.mem = 0};
	int nc = verdict_columns(r, &vc, names, align, head);

	verdict_at(r, &vc, &note);
	verdict_same(r, &vc, &note);
	if (vc.mem) {
		names[nc] = "memory";
		align[nc++] = 'l';
	}
	if (vc.drift) {
		names[nc] = "drift";
		align[nc++] = 'l';
	}
	align[nc] = '\0';
	rpt_tb_start(b, t, "Verdict", names, align);
	snprintf(t->id, sizeof t->id, "verdict");
	/* A row per label and headline: capacity (users), then efficiency (a fixed rate). */
	for (int i = 0; i < r->nverdicts; i++) {
		const struct rpt_vrow *v = &r->verdicts[i];
		verdict_row(r, b, v, v->cell, v->cmp, &vc);
		if (v->cell_rate >= 0)
			verdict_row(r, b, v, v->cell_rate, v->cmp_rate, &vc);
	}
	verdict_note(r, &vc, note.note, t);
	free(note.note);
}

/* How long to run: per comparison and figure (TPS, p99, CPU per request of each process),
 * what the verdict's own interval resolves, the noise in its two parts, and the rounds and
 * run length that resolve the target in the least time. */
static void resolve_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {"comparison",   "figure",
	                                    "resolves now", "noise: between runs / within a run",
	                                    "to resolve",   "takes"};
	rpt_tb_start(b, t, "How long to run", names, "llrrll");
	rpt_table_note(
	    t, "For each comparison: the half-width of the interval the verdict itself used "
	       "(as a share of the baseline, at the level its figure was tested), the noise "
	       "split into its parts (the standard deviation of a run's figure: between runs, "
	       "which only more runs shrink, and within a run, which longer runs shrink), and "
	       "the rounds and measured run length that would resolve the target in the least "
	       "time (warm-up and ramp-up counted per run). With one run a side the "
	       "run-to-run part is unknown and nothing is promised.");
	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		for (int f = 0; f < RPT_NFIG; f++) {
			const struct rpt_resolve *x = &m->res[f];
			char key[96], at[96], p[32], q[32], adv[256];
			if (x->target_pct <= 0 || rpt_fig_row(f)->runs_only)
				continue;
			int row = rpt_tb_row(b);
			rpt_tb_set(b, row, 0, "%s vs %s at %s", r->labels[c->label].name,
			           r->labels[a->label].name, rpt_cell_text(c, at, sizeof at));
			rpt_tb_set(b, row, 1, "%s", rpt_fig_key(r, f, key, sizeof key));
			if (isfinite(x->half_pct))
				rpt_tb_set(b, row, 2, "±%s%%",
				           rpt_fmt_num(x->half_pct, 1, p, sizeof p));
			else
				rpt_tb_set(b, row, 2, "not stated");
			if (isfinite(x->between_pct))
				rpt_tb_set(b, row, 3, "%s%% / %s%%",
				           rpt_fmt_num(x->between_pct, 1, p, sizeof p),
				           rpt_fmt_num(x->within_pct, 1, q, sizeof q));
			else if (x->basis == RPT_ADV_PROCESSES)
				rpt_tb_set(b, row, 3, "between processes (side by side)");
			else
				rpt_tb_set(b, row, 3, "unknown");
			rpt_tb_set(b, row, 4, "±%s%%", rpt_fmt_num(x->target_pct, 0, p, sizeof p));
			rpt_advice_text(x, m->nruns < m->nruns_base ? m->nruns : m->nruns_base,
			                c->vc[f].secs, adv, sizeof adv);
			rpt_tb_set(b, row, 5, "%s", adv);
		}
	}
}

static void front(const struct report *r, struct rpt_tb *b, struct rpt_table *t, int which)
{
	if (which == 0)
		verdict_table(r, b, t);
	else
		resolve_table(r, b, t);
}

int rpt_front_tables(const struct report *r, struct rpt_table **out, int *n, char *err,
                     size_t errlen)
{
	return rpt_tb_build(r, 2, front, out, n, err, errlen);
}

/* --- environment ---------------------------------------------------------------------------- */

/* The values a fact takes over a label's runs, into out (reset first): "v" when they
 * agree, else "a (runs 1 and 2); b (run 3)", each value's runs whole or, past eight, their
 * count and span (rpt_sb_runs); "" when no run records it.  A value past SHOW_MAX
 * characters is shown cut with an ellipsis (command lines run long). */
static void fact_cell(const struct report *r, int l, const char *source, const char *key,
                      struct sbuf *out)
{
	const char *vals[16];
	struct sbuf runs[16] = {{{0}}}; /* each value's run keys, "1,2" */
	int nv = 0;

	rpt_sb_reset(out);
	for (int i = 0; i < r->nruns; i++) {
		const char *x;
		int k = 0;
		if (r->runs[i].label != l || !(x = rpt_env_get(&r->runs[i], source, key)))
			continue;
		while (k < nv && strcmp(vals[k], x) != 0)
			k++;
		if (k == nv && nv == 16)
			continue;
		if (k == nv)
			vals[nv++] = x;
		rpt_sb_printf(&runs[k], "%s%s", rpt_sb_len(&runs[k]) ? "," : "", r->runs[i].key);
	}
	for (int k = 0; k < nv; k++) {
		rpt_sb_printf(out, "%s%.*s%s", k ? "; " : "", SHOW_MAX, vals[k],
		              strlen(vals[k]) > SHOW_MAX ? "\xe2\x80\xa6" : "");
		if (nv > 1) {
			rpt_sb_printf(out, " (");
			rpt_sb_runs(out, rpt_sb_str(&runs[k]));
			rpt_sb_printf(out, ")");
		}
		rpt_sb_release(&runs[k]);
	}
}

/* The sources any run recorded facts of, in the order they come; returns how many. */
static int env_sources(const struct report *r, char srcs[][RPT_NAME_MAX])
{
	int nsrc = 0;

	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nenv; k++) {
			const char *src = r->runs[i].env[k].source;
			int seen = !src[0];
			for (int j = 0; j < nsrc && !seen; j++)
				seen = !strcmp(srcs[j], src);
			if (!seen && nsrc < RPT_MAX_SOURCES)
				snprintf(srcs[nsrc++], RPT_NAME_MAX, "%s", src);
		}
	return nsrc;
}

/* What ran: which 0, the facts every label shares, each once; which 1, the facts in which
 * the labels differ, a column per label (no table with one label: all is shared). */
static void env_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t, int which)
{
	const char *names[RPT_MAX_LABELS + 1] = {"", "value"};
	char align[RPT_MAX_LABELS + 2] = "ll", srcs[RPT_MAX_SOURCES][RPT_NAME_MAX], head[96];
	struct sbuf *v = calloc((size_t)(r->nlabels ? r->nlabels : 1), sizeof *v);
	int nsrc = env_sources(r, srcs),
	    nl = r->nlabels < RPT_MAX_LABELS ? r->nlabels : RPT_MAX_LABELS;

	if (!v) {
		b->failed = 1;
		return;
	}
	if (which == 0 && nl == 1)
		snprintf(head, sizeof head, "Environment: %s", r->labels[0].name);
	else
		snprintf(head, sizeof head, "%s",
		         which == 0 ? "Environment" : "Environment: where the labels differ");
	for (int l = 0; which == 1 && l < nl; l++) {
		names[l + 1] = r->labels[l].name;
		align[l + 1] = 'l';
	}
	align[which == 0 ? 2 : nl + 1] = '\0';
	rpt_tb_start(b, t, head, names, align);
	snprintf(t->id, sizeof t->id, "%s", which == 0 ? "env" : "env-diff");
	if (which == 0)
		rpt_table_note(
		    t,
		    "What %s ran on, as recorded when each run started: the load generator's "
		    "host and settings, then each collected process (the first matching "
		    "one).%s",
		    nl == 1 ? r->labels[0].name : "every label",
		    nl == 1 ? "" : " Where the labels differ, the next table says.");
	else
		rpt_table_note(
		    t, "The facts that differ between the labels, a column per label; a value "
		       "that changed from run to run names its runs.");
	for (int s = -1; s < nsrc && (which == 0 || nl > 1); s++)
		for (int k = 0; k < rpt_nenv_keys; k++) {
			const struct rpt_env_key *e = &rpt_env_keys[k];
			int row, shared = 1, any = 0;
			if (e->per_source != (s >= 0))
				continue;
			for (int l = 0; l < nl; l++) {
				fact_cell(r, l, s < 0 ? "" : srcs[s], e->key, &v[l]);
				any |= rpt_sb_len(&v[l]) > 0;
				shared &= rpt_sb_len(&v[l]) > 0 &&
				          !strcmp(rpt_sb_str(&v[l]), rpt_sb_str(&v[0]));
			}
			if (!any || shared != (which == 0))
				continue;
			row = rpt_tb_row(b);
			if (s < 0)
				rpt_tb_set(b, row, 0, "generator: %s", e->name);
			else
				rpt_tb_set(b, row, 0, "%s: %s", srcs[s], e->name);
			for (int l = 0; l < (which == 0 ? 1 : nl); l++)
				rpt_tb_set(b, row, l + 1, "%s",
				           rpt_sb_len(&v[l]) ? rpt_sb_str(&v[l]) : DASH);
		}
	for (int l = 0; l < nl; l++)
		rpt_sb_release(&v[l]);
	free(v);
}

int rpt_env_tables(const struct report *r, struct rpt_table **out, int *n, char *err, size_t errlen)
{
	return rpt_tb_build(r, 2, env_table, out, n, err, errlen);
}
