/* history_write: the history as tables (report.md, report.html, and aligned text for
 * `soak history`) and as JSON (report.json, `soak history --json`). */
#include "history/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dur.h"
#include "jsonw.h"
#include "report_num.h"
#include "report_tb.h"

#define DASH "—"

/* The figure's name for data ("tps", "p99_ms", "error_pct", "cpu_per_request_ms",
 * "heap_after_gc_mb") and for people ("TPS", "p99", "CPU/request app"). */
static const char *kind_key(enum rpt_hist_kind k)
{
	static const char *const keys[] = {"tps", "p99_ms", "error_pct", "cpu_per_request_ms",
	                                   "heap_after_gc_mb"};
	return (unsigned)k < sizeof keys / sizeof keys[0] ? keys[k] : "?";
}

static char *fig_title(const struct rpt_hist_fig *f, char *buf, size_t len)
{
	static const char *const names[] = {"TPS", "p99", "error %", "CPU/request",
	                                    "heap after GC"};
	snprintf(buf, len, "%s%s%s", names[f->kind], f->source[0] ? " " : "", f->source);
	return buf;
}

/* A figure's value as shown. */
static char *fig_value(enum rpt_hist_kind k, double v, char *buf, size_t len)
{
	char n[48];
	if (isnan(v))
		snprintf(buf, len, DASH);
	else if (k == RPT_HK_TPS)
		rpt_fmt_num(v, 1, buf, len);
	else if (k == RPT_HK_P99)
		rpt_fmt_ms(v, buf, len);
	else if (k == RPT_HK_ERR)
		snprintf(buf, len, "%s%%", rpt_fmt_num(v, 2, n, sizeof n));
	else if (k == RPT_HK_CPU_REQ)
		snprintf(buf, len, "%s ms", rpt_fmt_num(v, 3, n, sizeof n));
	else
		snprintf(buf, len, "%s MB", rpt_fmt_num(v, 1, n, sizeof n));
	return buf;
}

/* "2024-06-01 19:00" (UTC). */
static char *when(int64_t ms, char *buf, size_t len)
{
	char iso[40];
	clock_iso(ms, iso, sizeof iso);
	iso[16] = '\0';
	iso[10] = ' ';
	snprintf(buf, len, "%s", iso);
	return buf;
}

static const char *drift_name(const char *d)
{
	return d ? d : DASH;
}

/* "fixed, 4 users, 2s" / "sweep step, 40 users, 5m". */
static char *shape(const struct rpt_hist_run *p, char *buf, size_t len)
{
	char d[32];
	snprintf(buf, len, "%s, %d users, %s", p->sweep ? "sweep step" : "fixed", p->concurrency,
	         dur_format(p->planned_ms, d, sizeof d));
	return buf;
}

/* "app cmdline: --latency 1 → --latency 20" of one changed fact. */
static void change_text(const struct rpt_hist_change *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s: %s%s", c->source, c->source[0] ? " " : "", c->key, c->diff,
	         c->steady ? "" : " (varies within the segments)");
}

/* The sentence of what changed at a change point: the facts that moved with it first. */
static void changes(const struct rpt_hist_cp *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int pass = 1; pass >= 0; pass--)
		for (int i = 0; i < c->nchg && n < len; i++) {
			char one[1200];
			if (c->chg[i].steady != pass)
				continue;
			change_text(&c->chg[i], one, sizeof one);
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; " : "", one);
		}
	if (!c->nchg)
		snprintf(buf, len, "nothing recorded in run_env");
}

static const char *method_sentence(const struct rpt_history *h, char *buf, size_t len)
{
	snprintf(buf, len,
	         "Change points by e-divisive means (Matteson and James 2014, as MongoDB's "
	         "performance CI and Apache Otava use): in each figure, the split with the "
	         "largest energy divergence between the runs before and after, tested by "
	         "permuting the runs within their segments (at most %d permutations, stopped "
	         "once the answer is settled); significant at p <= %g, with at least %d runs "
	         "each side, then searched again on each side (at most %d change points); the "
	         "newest %d runs of a series are analysed, a series needs %d. Before and after "
	         "are the means of the segments either side; what changed is every run_env fact "
	         "that differs between the last run before and the first after.",
	         h->cp.permutations, h->cp.alpha, h->cp.min_size, h->cp.max_points, h->cp.max_n,
	         h->min_runs);
	return buf;
}

/* --- tables -------------------------------------------------------------------------- */

/* The runs of series s (the newest max_rows when max_rows > 0), with the change points
 * that start at each. */
static void runs_table(const struct rpt_history *h, const struct rpt_hist_series *s, int max_rows,
                       struct rpt_tb *b, struct rpt_table *t)
{
	const struct rpt_hist_run *p0 = &s->runs[0];
	char title[160], x[96], align[RPT_HIST_FIGS_MAX + 8];
	const char *names[RPT_HIST_FIGS_MAX + 8];
	char fig_names[RPT_HIST_FIGS_MAX][RPT_HIST_NAME_MAX + 16];
	int nc = 0, first = max_rows > 0 && s->nruns > max_rows ? s->nruns - max_rows : 0;

	snprintf(title, sizeof title, "History: %s · %s (%s): %d run%s", p0->label, p0->name,
	         shape(p0, x, sizeof x), s->nruns, s->nruns == 1 ? "" : "s");
	names[nc] = "run";
	align[nc++] = 'l';
	names[nc] = "started (UTC)";
	align[nc++] = 'l';
	for (int f = 0; f < s->nfigs && f < RPT_HIST_FIGS_MAX; f++) {
		names[nc] = fig_title(&s->figs[f], fig_names[f], sizeof fig_names[f]);
		align[nc++] = 'r';
	}
	names[nc] = "drift";
	align[nc++] = 'l';
	names[nc] = "change here";
	align[nc++] = 'l';
	align[nc] = '\0';
	rpt_tb_begin(b, t, title, nc);
	if (!s->analysed)
		snprintf(t->note, sizeof t->note,
		         "Fewer than %d runs: no change points looked for.", h->min_runs);
	else if (s->ncps == 0)
		snprintf(t->note, sizeof t->note, "No change point in any figure.");
	else
		snprintf(t->note, sizeof t->note, "%d change point%s: see the next table.", s->ncps,
		         s->ncps == 1 ? "" : "s");
	if (first > 0) {
		size_t n = strlen(t->note);
		snprintf(t->note + n, sizeof t->note - n,
		         " The newest %d of its %d runs are listed; report.json holds them all.",
		         max_rows, s->nruns);
	}
	rpt_tb_header(b, names, align);
	for (int i = first; i < s->nruns; i++) {
		const struct rpt_hist_run *p = &s->runs[i];
		char here[512] = "";
		size_t hn = 0;
		int row = rpt_tb_row(b), c = 0;
		if (p->sweep)
			rpt_tb_set(b, row, c++, "%s step %d", p->key, p->step + 1);
		else
			rpt_tb_set(b, row, c++, "%s", p->key);
		rpt_tb_set(b, row, c++, "%s", when(p->started_ms, x, sizeof x));
		for (int f = 0; f < s->nfigs && f < RPT_HIST_FIGS_MAX; f++)
			rpt_tb_set(b, row, c++, "%s",
			           fig_value(s->figs[f].kind, s->figs[f].v[i], x, sizeof x));
		rpt_tb_set(b, row, c++, "%s", drift_name(p->drift));
		for (int k = 0; k < s->ncps && hn < sizeof here; k++) {
			const struct rpt_hist_cp *cp = &s->cps[k];
			char fn[96], pc[32];
			if (cp->at != i)
				continue;
			hn +=
			    (size_t)snprintf(here + hn, sizeof here - hn, "%s%s %s", hn ? ", " : "",
			                     fig_title(&s->figs[cp->fig], fn, sizeof fn),
			                     rpt_fmt_pct(cp->change_pct, pc, sizeof pc));
		}
		rpt_tb_set(b, row, c++, "%s", here);
	}
}

/* The change points of series s. */
static void cps_table(const struct rpt_hist_series *s, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {
	    "run",         "figure", "before", "after", "change", "p", "runs (before, after)",
	    "what changed"};
	const struct rpt_hist_run *p0 = &s->runs[0];
	char title[160];

	snprintf(title, sizeof title, "History: %s · %s: change points", p0->label, p0->name);
	rpt_tb_begin(b, t, title, 8);
	snprintf(t->note, sizeof t->note,
	         "Each change point: the first run at the new level, the means of the segments "
	         "before and after it, the change, its permutation p-value, the runs on each "
	         "side, and the run_env facts that differ from the run before (the ones that "
	         "held on every run either side first).");
	rpt_tb_header(b, names, "llrrrrrl");
	for (int k = 0; k < s->ncps; k++) {
		const struct rpt_hist_cp *cp = &s->cps[k];
		const struct rpt_hist_fig *g = &s->figs[cp->fig];
		char x[4][96], what[4096];
		int row = rpt_tb_row(b);
		rpt_tb_set(b, row, 0, "%s", s->runs[cp->at].key);
		rpt_tb_set(b, row, 1, "%s", fig_title(g, x[0], sizeof x[0]));
		rpt_tb_set(b, row, 2, "%s", fig_value(g->kind, cp->before, x[1], sizeof x[1]));
		rpt_tb_set(b, row, 3, "%s", fig_value(g->kind, cp->after, x[2], sizeof x[2]));
		rpt_tb_set(b, row, 4, "%s %s", rpt_fmt_pct(cp->change_pct, x[3], sizeof x[3]),
		           cp->worse > 0 ? "worse" : "better");
		rpt_tb_set(b, row, 5, "%.3f", cp->p);
		rpt_tb_set(b, row, 6, "%d, %d", cp->n_before, cp->n_after);
		changes(cp, what, sizeof what);
		rpt_tb_set(b, row, 7, "%s", what);
	}
}

/* The tables of the series (all, or only the analysed ones). */
static int tables(const struct rpt_history *h, int all, int max_rows, struct rpt_table **out,
                  int *n, char *err, size_t errlen)
{
	struct rpt_tb b;
	int cap = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; h && i < h->nseries; i++)
		cap += all || h->series[i].analysed ? 2 : 0;
	if (cap == 0)
		return 0;
	*out = calloc((size_t)cap, sizeof **out);
	if (!*out)
		goto oom;
	for (int i = 0; i < h->nseries; i++) {
		const struct rpt_hist_series *s = &h->series[i];
		if (!all && !s->analysed)
			continue;
		runs_table(h, s, max_rows, &b, &(*out)[(*n)++]);
		if (b.failed)
			goto oom;
		if (s->ncps == 0)
			continue;
		cps_table(s, &b, &(*out)[(*n)++]);
		if (b.failed)
			goto oom;
	}
	return 0;
oom:
	rpt_tables_free(*out, *n);
	*out = NULL;
	*n = 0;
	snprintf(err, errlen, "out of memory");
	return -1;
}

int rpt_hist_tables(const struct rpt_history *h, struct rpt_table **out, int *n, char *err,
                    size_t errlen)
{
	int rc = tables(h, 0, RPT_HIST_SHOW_ROWS, out, n, err, errlen);
	/* The method once, under the first table's own note. */
	if (rc == 0 && *n > 0) {
		char m[1024];
		size_t k = strlen((*out)[0].note);
		snprintf((*out)[0].note + k, sizeof(*out)[0].note - k, " %s",
		         method_sentence(h, m, sizeof m));
	}
	return rc;
}

int rpt_hist_write_text(const struct rpt_history *h, FILE *f)
{
	struct rpt_table *t = NULL;
	int n = 0;
	char err[64], m[1024];

	if (tables(h, 1, 0, &t, &n, err, sizeof err) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		rpt_table_text(&t[i], f);
	rpt_tables_free(t, n);
	if (h->not_done || h->warmups)
		fprintf(f,
		        "Left out: %d run%s not done (running, interrupted, failed, crashed), "
		        "%d warm-up run%s of a study.\n",
		        h->not_done, h->not_done == 1 ? "" : "s", h->warmups,
		        h->warmups == 1 ? "" : "s");
	fprintf(f, "%s\n", method_sentence(h, m, sizeof m));
	return ferror(f) ? -1 : 0;
}

/* --- JSON ---------------------------------------------------------------------------- */

static int decimals(enum rpt_hist_kind k)
{
	return k == RPT_HK_TPS || k == RPT_HK_P99 ? 3 : k == RPT_HK_HEAP ? 2 : 4;
}

/* The figures of a series at run i: plain ones as members, those of a source (CPU per
 * request, heap) as an object of sources per figure. */
static void jrun_figures(const struct rpt_hist_series *s, int i, struct jsonw *w)
{
	for (int pass = 0; pass < 2; pass++)
		for (int k = RPT_HK_TPS; k <= RPT_HK_HEAP; k++) {
			int any = 0;
			for (int g = 0; g < s->nfigs; g++) {
				const struct rpt_hist_fig *x = &s->figs[g];
				if ((int)x->kind != k || (pass == 0) != !x->source[0])
					continue;
				if (pass == 1 && !any) {
					jsonw_key(w, kind_key(x->kind));
					jsonw_obj(w);
				}
				jsonw_mnum(w, pass ? x->source : kind_key(x->kind), x->v[i],
				           decimals(x->kind));
				any = 1;
			}
			if (pass == 1 && any)
				jsonw_end(w);
		}
}

static void jrun(const struct rpt_history *h, const struct rpt_hist_series *s, int i,
                 struct jsonw *w)
{
	const struct rpt_hist_run *p = &s->runs[i];

	jsonw_obj(w);
	jsonw_mstr(w, "db", h->dbs[p->db]);
	jsonw_mstr(w, "run", p->key);
	jsonw_mint(w, "id", p->id);
	jsonw_mint(w, "step", p->step + 1);
	jsonw_mint(w, "started_ms", p->started_ms);
	jrun_figures(s, i, w);
	jsonw_key(w, "drift");
	jsonw_str_or_null(w, p->drift);
	jsonw_end(w);
}

static void jenv_change(const struct rpt_hist_change *x, struct jsonw *w)
{
	jsonw_obj(w);
	jsonw_mstr(w, "source", x->source);
	jsonw_mstr(w, "key", x->key);
	jsonw_mstr(w, "before", x->before);
	jsonw_mstr(w, "after", x->after);
	jsonw_mstr(w, "diff", x->diff);
	jsonw_key(w, "steady");
	jsonw_bool(w, x->steady);
	jsonw_end(w);
}

static void jcp(const struct rpt_hist_series *s, const struct rpt_hist_cp *c, struct jsonw *w)
{
	const struct rpt_hist_fig *g = &s->figs[c->fig];
	int d = decimals(g->kind);

	jsonw_obj(w);
	jsonw_mstr(w, "figure", kind_key(g->kind));
	jsonw_key(w, "source");
	jsonw_str_or_null(w, g->source);
	jsonw_mstr(w, "run", s->runs[c->at].key);
	jsonw_mstr(w, "previous_run", s->runs[c->at - 1].key);
	jsonw_mint(w, "index", c->at);
	jsonw_mint(w, "started_ms", s->runs[c->at].started_ms);
	jsonw_mnum(w, "before", c->before, d);
	jsonw_mnum(w, "after", c->after, d);
	jsonw_mnum(w, "sd_before", c->sd_before, d);
	jsonw_mnum(w, "sd_after", c->sd_after, d);
	jsonw_mnum(w, "change_pct", c->change_pct, 2);
	jsonw_mstr(w, "direction", c->worse > 0 ? "worse" : "better");
	jsonw_key(w, "p_value");
	jsonw_fmt(w, "%.4f", c->p);
	jsonw_mint(w, "permutations", c->perms);
	jsonw_mint(w, "runs_before", c->n_before);
	jsonw_mint(w, "runs_after", c->n_after);
	jsonw_key(w, "segment");
	jsonw_arr(w);
	jsonw_int(w, c->seg_from);
	jsonw_int(w, c->seg_to);
	jsonw_end(w);
	jsonw_key(w, "env_changes");
	jsonw_arr(w);
	for (int i = 0; i < c->nchg; i++)
		jenv_change(&c->chg[i], w);
	jsonw_end(w);
	jsonw_end(w);
}

static void jfig(const struct rpt_hist_series *s, int g, struct jsonw *w)
{
	const struct rpt_hist_fig *x = &s->figs[g];
	int ncp = 0;

	for (int k = 0; k < s->ncps; k++)
		ncp += s->cps[k].fig == g;
	jsonw_obj(w);
	jsonw_mstr(w, "figure", kind_key(x->kind));
	jsonw_key(w, "source");
	jsonw_str_or_null(w, x->source);
	jsonw_mint(w, "runs_with_value", x->valid);
	jsonw_mint(w, "analysed", x->analysed);
	jsonw_mint(w, "from", x->from);
	jsonw_mstr(w, "from_run", s->runs[x->from].key);
	jsonw_mint(w, "tests", x->tests);
	jsonw_mint(w, "permutations", x->perms);
	jsonw_mnum(w, "p_last", x->p_stop, 4);
	jsonw_mint(w, "change_points", ncp);
	jsonw_end(w);
}

/* The line breaks of the history's JSON, indented by `in` more. */
struct jbreaks {
	char top[40];    /* "\n" in "  ": a member of the history */
	char series[40]; /* "\n" in "    ": a series */
	char member[40]; /* "\n" in "     ": a member of a series on a line of its own */
	char item[40];   /* "\n" in "      ": a change point or run of a series */
};

static void jseries(const struct rpt_history *h, const struct rpt_hist_series *s,
                    const struct jbreaks *b, struct jsonw *w)
{
	const struct rpt_hist_run *p0 = &s->runs[0];

	jsonw_br(w, b->series);
	jsonw_obj(w);
	jsonw_mstr(w, "label", p0->label);
	jsonw_mstr(w, "scenario", p0->name);
	jsonw_mstr(w, "kind", p0->sweep ? "sweep" : "fixed");
	jsonw_mint(w, "concurrency", p0->concurrency);
	jsonw_key(w, "planned_s");
	jsonw_fmt(w, "%.3f", (double)p0->planned_ms / 1000);
	jsonw_mint(w, "runs_n", s->nruns);
	jsonw_key(w, "analysed");
	jsonw_bool(w, s->analysed);
	jsonw_br(w, b->member);
	jsonw_key(w, "figures");
	jsonw_arr(w);
	for (int g = 0; g < s->nfigs; g++)
		jfig(s, g, w);
	jsonw_end(w);
	jsonw_br(w, b->member);
	jsonw_key(w, "change_points");
	jsonw_arr(w);
	for (int k = 0; k < s->ncps; k++) {
		jsonw_br(w, b->item);
		jcp(s, &s->cps[k], w);
	}
	if (s->ncps)
		jsonw_br(w, b->member);
	jsonw_end(w);
	jsonw_br(w, b->member);
	jsonw_key(w, "runs");
	jsonw_arr(w);
	for (int k = 0; k < s->nruns; k++) {
		jsonw_br(w, b->item);
		jrun(h, s, k, w);
	}
	jsonw_br(w, b->member);
	jsonw_end(w);
	jsonw_end(w);
}

int rpt_hist_write_json(const struct rpt_history *h, int only_analysed, const char *in,
                        struct jsonw *w)
{
	struct jbreaks b;
	char m[1024], close[40];
	int any = 0;

	snprintf(b.top, sizeof b.top, "\n%s  ", in);
	snprintf(b.series, sizeof b.series, "\n%s    ", in);
	snprintf(b.member, sizeof b.member, "\n%s     ", in);
	snprintf(b.item, sizeof b.item, "\n%s      ", in);
	snprintf(close, sizeof close, "\n%s", in);
	jsonw_obj(w);
	jsonw_br(w, b.top);
	jsonw_mstr(w, "method", method_sentence(h, m, sizeof m));
	jsonw_br(w, b.top);
	jsonw_key(w, "alpha");
	jsonw_fmt(w, "%g", h->cp.alpha);
	jsonw_mint(w, "permutations", h->cp.permutations);
	jsonw_mint(w, "min_runs_each_side", h->cp.min_size);
	jsonw_mint(w, "max_change_points", h->cp.max_points);
	jsonw_mint(w, "max_runs_analysed", h->cp.max_n);
	jsonw_mint(w, "min_runs", h->min_runs);
	jsonw_br(w, b.top);
	jsonw_key(w, "left_out");
	jsonw_obj(w);
	jsonw_mint(w, "not_done", h->not_done);
	jsonw_mint(w, "warmup", h->warmups);
	jsonw_end(w);
	jsonw_br(w, b.top);
	jsonw_key(w, "series");
	jsonw_arr(w);
	for (int i = 0; i < h->nseries; i++) {
		if (only_analysed && !h->series[i].analysed)
			continue;
		jseries(h, &h->series[i], &b, w);
		any = 1;
	}
	if (any)
		jsonw_br(w, b.top);
	jsonw_end(w);
	jsonw_br(w, close);
	jsonw_end(w);
	return ferror(w->f) ? -1 : 0;
}
