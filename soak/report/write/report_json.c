/* report_json: report.json (the model's tables and findings as data) and summary.csv (one
 * row per run step). */
#include "report_json.h"
#include "report/judge/report_compare.h"
#include "report/report_int.h"
#include "report/report_text.h"
#include "history/history.h"

#include "jsonw.h"
#include "report/judge/report_cost.h"
#include "report/judge/report_drift.h"
#include "report/judge/report_mem.h"
#include "report/judge/report_stats.h"
#include "report/judge/report_steady.h"
#include "report_drift_text.h"
#include "report_fmt.h"
#include "report_mem_text.h"
#include "report_method_text.h"
#include "report_profile_text.h"
#include "report/judge/report_profile.h"
#include "report_study_text.h"
#include "report_verdict_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Items of the report's lists, each on a line of its own; the list closed on one too. */
#define ITEM  "\n    "
#define CLOSE "\n  "
/* A member of a run, comparison or verdict that starts a line of its own. */
#define MEMBER "\n     "

/* A member of an object: its key, then an object ('{') or an array ('[') opened. */
static void jopen(struct jsonw *w, const char *key, char bracket)
{
	jsonw_key(w, key);
	if (bracket == '[')
		jsonw_arr(w);
	else
		jsonw_obj(w);
}

/* A member on a line of its own (MEMBER): its key; the caller writes its value. */
static void jmember(struct jsonw *w, const char *key)
{
	jsonw_br(w, MEMBER);
	jsonw_key(w, key);
}

/* The latencies of figures in ms (NAN when no request was answered), in the order of
 * lat_names: what report.json and summary.csv show of them. */
#define NLAT 7
static const char *const lat_names[NLAT] = {"mean_ms", "p50_ms",  "p90_ms", "p95_ms",
                                            "p99_ms",  "p999_ms", "max_ms"};

static void lat_ms(const struct figures *g, double ms[NLAT])
{
	int ans = g->p50_us > 0 || g->max_us > 0;
	double us[NLAT] = {g->mean_us,        (double)g->p50_us, (double)g->p90_us,
	                   (double)g->p95_us, (double)g->p99_us, (double)g->p999_us,
	                   (double)g->max_us};

	for (int i = 0; i < NLAT; i++)
		ms[i] = ans ? us[i] / 1000 : NAN;
}

static void jfigures(struct jsonw *w, const struct figures *g)
{
	double ms[NLAT];

	lat_ms(g, ms);
	jsonw_obj(w);
	jsonw_mnum(w, "window_s", g->seconds, 3);
	jsonw_mint(w, "requests", g->requests);
	jsonw_mint(w, "errors", g->errors);
	jsonw_mnum(w, "error_pct", g->error_pct, 4);
	jsonw_mnum(w, "tps", g->tps, 3);
	for (int i = 0; i < NLAT; i++)
		jsonw_mnum(w, lat_names[i], ms[i], 3);
	jsonw_mint(w, "new_connections", g->new_conns);
	jsonw_end(w);
}

/* A confidence interval: [lo, hi]. */
static void jci(struct jsonw *w, double lo, double hi, int decimals)
{
	jopen(w, "ci95", '[');
	jsonw_num(w, lo, decimals);
	jsonw_num(w, hi, decimals);
	jsonw_end(w);
}

/* Figure f of comparison m: the cells' figures, and the change the interval is built
 * around (rpt_cmp_values: its centre). */
static void jdiff(struct jsonw *w, const struct rpt_cmp *m, int f)
{
	const struct rpt_diff *d = &m->d[f];
	double a, v;

	rpt_cmp_values(m, f, &a, &v);
	jsonw_obj(w);
	jsonw_mnum(w, "baseline", m->base_value[f], 4);
	jsonw_mnum(w, "value", m->value[f], 4);
	jsonw_mnum(w, "change_pct", a != 0 ? 100 * (v - a) / a : NAN, 3);
	jsonw_mnum(w, "interval_mean_baseline", d->a, 4);
	jsonw_mnum(w, "interval_mean", d->b, 4);
	jci(w, d->lo, d->hi, 4);
	jsonw_mnum(w, "level", d->level, 6);
	jsonw_mnum(w, "t", d->t, 4);
	jsonw_mnum(w, "df", d->df, 2);
	jsonw_mnum(w, "p", d->p, 6);
	jsonw_mstr(w, "verdict", rpt_verdict_name(d->verdict));
	jsonw_end(w);
}

/* Headroom: where the window left the heap against what would start an old collection
 * (null figures: not in the log, or nothing grows). */
static void jheadroom(struct jsonw *w, const struct gca_result *g)
{
	jopen(w, "headroom", '{');
	jsonw_mstr(w, "of", g->level_of);
	jsonw_mnum(w, "level_mb", g->trigger ? g->level_mb : NAN, 1);
	jsonw_mnum(w, "capacity_mb", g->trigger ? g->cap_mb : NAN, 1);
	jsonw_mstr(w, "trigger", gca_trigger_name(g->trigger));
	jsonw_mnum(w, "trigger_mb", g->trigger ? g->trigger_mb : NAN, 1);
	jsonw_mnum(w, "promotion_mb_per_h", g->promo_mb_per_h, 3);
	jsonw_mnum(w, "growth_mb_per_h", g->trigger ? g->growth_mb_per_h : NAN, 3);
	jsonw_mnum(w, "to_trigger_h", g->to_trigger_h, 3);
	jsonw_end(w);
}

static void jgc(struct jsonw *w, const struct rpt_source *s)
{
	const struct gca_result *g = &s->gc;

	jsonw_obj(w);
	jsonw_mstr(w, "source", s->name);
	jsonw_mint(w, "events", s->gc_events);
	jsonw_mint(w, "pauses", g->pauses);
	jsonw_mstr(w, "verdict", gca_memory_text(g->memory));
	jsonw_mstr(w, "trend", gca_memory_text(g->trend));
	jsonw_mstr(w, "basis", g->basis);
	jsonw_mnum(w, "slope_mb_per_h", g->slope_mb_per_h, 3);
	jsonw_mnum(w, "r2", g->r2, 4);
	jsonw_mnum(w, "heap_max_mb", g->heap_max_mb, 1);
	jsonw_mnum(w, "gc_time_pct", g->gc_time_pct, 4);
	jsonw_mnum(w, "pause_total_ms", g->pause_total_ms, 3);
	jsonw_mnum(w, "pause_max_ms", g->pause_max_ms, 3);
	jsonw_mnum(w, "pause_p99_ms", g->pause_p99_ms, 3);
	jsonw_mint(w, "old_cycles", g->old_cycles);
	jheadroom(w, g);
	jsonw_mnum(w, "run_longer_h", g->run_longer_h, 3);
	jsonw_mstr(w, "why", g->why);
	jsonw_end(w);
}

/* {"app": 12.3, ...}: the run's CPU series, their means over the run (step_means NULL) or
 * over one step. */
static void jcpu(struct jsonw *w, const struct rpt_run *run, const double *step_means)
{
	jsonw_obj(w);
	for (int k = 0; k < run->nsrc; k++)
		if (run->src[k].has_cpu)
			jsonw_mnum(w, run->src[k].name,
			           step_means ? step_means[k] : run->src[k].cpu_mean, 3);
	jsonw_end(w);
}

/* {"generator": {KEY: VALUE}, "sources": {NAME: {KEY: VALUE}}}: what ran (env is sorted
 * by source, so each source's facts come together). */
static void jenv(struct jsonw *w, const struct rpt_run *run)
{
	int i = 0;

	jsonw_obj(w);
	jopen(w, "generator", '{');
	for (; i < run->nenv && !run->env[i].source[0]; i++)
		jsonw_mstr(w, run->env[i].key, run->env[i].value);
	jsonw_end(w);
	jopen(w, "sources", '{');
	while (i < run->nenv) {
		const char *src = run->env[i].source;
		jopen(w, src, '{');
		for (; i < run->nenv && !strcmp(run->env[i].source, src); i++)
			jsonw_mstr(w, run->env[i].key, run->env[i].value);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

/* The parts of a drift comparison. */
static void jpart(struct jsonw *w, const char *key, int64_t from, int64_t to, int n, int64_t count)
{
	jopen(w, key, '{');
	jsonw_mint(w, "from_ms", from);
	jsonw_mint(w, "to_ms", to);
	jsonw_mint(w, "intervals", n);
	jsonw_mint(w, "answered", count);
	jsonw_end(w);
}

static void jdrift_metric(struct jsonw *w, const struct rpt_drift_metric *m)
{
	jsonw_obj(w);
	jsonw_mstr(w, "metric", rpt_drift_kind_name(m->kind));
	jsonw_key(w, "source");
	jsonw_str_or_null(w, m->source);
	jsonw_mnum(w, "first", m->first, 4);
	jsonw_mnum(w, "last", m->last, 4);
	jsonw_mnum(w, "change", m->change, 4);
	jsonw_mnum(w, "change_pct", m->change_pct, 3);
	jci(w, m->d.lo, m->d.hi, 4);
	jsonw_mnum(w, "p", m->d.p, 6);
	jsonw_mstr(w, "verdict", rpt_verdict_name(m->d.verdict));
	jsonw_mbool(w, "counted", m->counts);
	jsonw_mstr(w, "effect", m->effect > 0 ? "worse" : m->effect < 0 ? "better" : "none");
	jsonw_end(w);
}

void rpt_drift_json(const struct rpt_drift *d, const char *sentence, struct jsonw *w)
{
	jsonw_obj(w);
	jsonw_mstr(w, "verdict", rpt_drift_name(d->verdict));
	jsonw_mstr(w, "sentence", sentence);
	jsonw_mnum(w, "window_s", d->window_s, 3);
	jsonw_mint(w, "intervals", d->nintervals);
	jsonw_mbool(w, "machine_suspect", d->machine);
	jopen(w, "comparisons", '[');
	for (int i = 0; i < d->ncmp; i++) {
		const struct rpt_drift_cmp *c = &d->cmp[i];
		jsonw_obj(w);
		jsonw_mstr(w, "parts", c->hours ? "hours" : "thirds");
		jpart(w, "first", c->a_from_ms, c->a_to_ms, c->na, c->count_a);
		jpart(w, "last", c->b_from_ms, c->b_to_ms, c->nb, c->count_b);
		jopen(w, "metrics", '[');
		for (int k = 0; k < c->nm; k++)
			jdrift_metric(w, &c->m[k]);
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

/* `"by": ..., "kinds": {...}` of a process source's memory by kind, with the bounds:
 * members of the open object. */
static void jkinds(struct jsonw *w, const struct rpt_memkinds *k)
{
	jsonw_key(w, "by");
	jsonw_str_or_null(w, k->by >= 0 ? rpt_memk_name((enum rpt_memk)k->by) : NULL);
	jsonw_mnum(w, "shared_bound_mb", k->shared_bound_mb, 3);
	jsonw_mnum(w, "shared_buffers_mb", k->shared_buffers_mb, 3);
	jsonw_mnum(w, "heap_max_mb", k->heap_max_mb, 3);
	jopen(w, "kinds", '{');
	for (int j = 0; j < RPT_MEMK_N; j++) {
		const struct rpt_mem *m = &k->k[j];
		int known = m->verdict != RPT_MEM_UNKNOWN;
		jopen(w, rpt_memk_name((enum rpt_memk)j), '{');
		jsonw_mstr(w, "verdict", rpt_mem_name(m->verdict));
		jsonw_mnum(w, "mean_mb", m->mean_mb, 3);
		jsonw_mnum(w, "level_mb", m->level_mb, 3);
		jsonw_mnum(w, "growth_mb", m->growth_mb, 3);
		jsonw_mnum(w, "slope_mb_per_h", known ? m->slope_mb_h : NAN, 4);
		jsonw_mnum(w, "r2", known ? m->r2 : NAN, 4);
		jsonw_end(w);
	}
	jsonw_end(w);
}

/* A member whose text was built in t; t is released. */
static void jtext(struct jsonw *w, const char *key, struct sbuf *t)
{
	jsonw_mstr(w, key, rpt_sb_str(t));
	rpt_sb_release(t);
}

/* A drift verdict with its sentence: of the run when run is set (a sweep's summary),
 * else of the window d. */
static void jdrift(struct jsonw *w, const struct rpt_drift *d, const struct rpt_run *run)
{
	struct sbuf t = {0};

	if (run)
		rpt_drift_run_sentence(&t, run);
	else
		rpt_drift_sentence(&t, d);
	rpt_drift_json(d, rpt_sb_str(&t), w);
	rpt_sb_release(&t);
}

/* The process memory of each source without a GC log, judged (report_mem.c): items of
 * the list open. */
static void jrss(struct jsonw *w, const struct rpt_run *run)
{
	for (int k = 0; k < run->nsrc; k++) {
		const struct rpt_source *s = &run->src[k];
		if (!s->has_rss || !s->rss_fit)
			continue;
		jsonw_obj(w);
		jsonw_mstr(w, "source", s->name);
		jsonw_mnum(w, "mean_mb", s->rss_mean_mb, 3);
		jsonw_mnum(w, "slope_mb_per_h", s->rss_slope_mb_h, 4);
		jsonw_mnum(w, "r2", s->rss_r2, 4);
		jsonw_mnum(w, "hours", s->rss_hours, 4);
		jsonw_mstr(w, "verdict", rpt_mem_name(s->mem.verdict));
		jsonw_mnum(w, "level_mb", s->mem.level_mb, 3);
		jsonw_mnum(w, "limit_mb", s->mem.limit_mb, 3);
		jsonw_mnum(w, "growth_mb", s->mem.growth_mb, 3);
		jsonw_mnum(w, "steady_from_s",
		           s->mem.verdict == RPT_MEM_UNKNOWN ? NAN : s->mem.steady_from_s, 3);
		jsonw_mnum(w, "steady_slope_mb_per_h", s->mem.steady_slope_mb_h, 4);
		struct sbuf why = {0};
		rpt_mem_src_why(&why, s);
		jtext(w, "why", &why);
		if (s->kinds.has)
			jkinds(w, &s->kinds);
		jsonw_end(w);
	}
}

/* What a request cost the server in the run (the cost findings give its ranges). */
static void jcost(struct jsonw *w, const struct rpt_run *run)
{
	struct rpt_cost c;

	rpt_run_cost(run, &c);
	if (!c.src || !isfinite(c.cpu_ms)) {
		jsonw_null(w);
		return;
	}
	jsonw_obj(w);
	jsonw_mstr(w, "source", c.src->name);
	jsonw_mnum(w, "cpu_ms_per_request", c.cpu_ms, 4);
	jsonw_mnum(w, "memory_mb", c.mem_mb, 1);
	jsonw_mnum(w, "memory_peak_mb", c.peak_mb, 1);
	jsonw_end(w);
}

/* Who a run is: its keys, where it ran, how it stands in its study. */
static void jrun_head(const struct report *r, const struct rpt_run *run, struct jsonw *w)
{
	jsonw_mstr(w, "key", run->key);
	jsonw_mint(w, "db", run->db + 1);
	jsonw_mint(w, "id", run->id);
	jsonw_mstr(w, "label", r->labels[run->label].name);
	jsonw_mstr(w, "name", run->name);
	jsonw_mstr(w, "mode", run->mode);
	jsonw_mstr(w, "connection", run->connection);
	jsonw_mstr(w, "status", run->status);
	jsonw_mstr(w, "reason", run->reason);
	/* compared: its figures enter the comparisons; a warm-up run is shown, never compared */
	jsonw_mbool(w, "compared", run->compared);
	jsonw_mbool(w, "warmup", run->warmup);
	if (!isnan(run->jit_share)) /* a JVM's JIT share of its CPU: what warm-up waited on */
		jsonw_mnum(w, "jit_share", run->jit_share, 4);
	if (run->study >= 0) {
		jsonw_mint(w, "round", run->round);
		if (run->grp > 0 || run->start_no > 0) {
			jsonw_mint(w, "start", run->start_no);
			jsonw_mint(w, "replica", run->replica);
			jsonw_mint(w, "group", run->grp);
		}
	}
	/* its class (Barrett et al.): flat, warm-up, slowdown or no steady state */
	if (run->steady != RPT_ST_NONE)
		jsonw_mstr(w, "steady", rpt_steady_name(run->steady));
	if (!isnan(run->jit_pct)) {
		jsonw_key(w, "jit_pct");
		jsonw_fmt(w, "%.2f", run->jit_pct);
	}
	if (run->agent) {
		jsonw_mint(w, "agent", run->agent);
		jsonw_mint(w, "agent_count", run->agents);
	} else {
		jsonw_mint(w, "agents", run->agents ? run->agents : 1);
		jsonw_mint(w, "agents_planned", run->agents ? run->agents_planned : 1);
	}
	jsonw_mstr(w, "host", run->host);
	jsonw_mstr(w, "colocated", run->colocated);
	jsonw_mint(w, "started_ms", run->started_ms);
	jsonw_mint(w, "end_ms", run->end_ms);
}

static void jstep(const struct rpt_run *run, int i, struct jsonw *w)
{
	const struct rpt_step *s = &run->steps[i];

	jsonw_br(w, "\n      ");
	jsonw_obj(w);
	jsonw_mint(w, "step", s->idx);
	jsonw_mint(w, "concurrency", s->concurrency);
	jsonw_mnum(w, "planned_s", (double)s->planned_ms / 1000, 3);
	jsonw_mint(w, "intervals", s->nintervals);
	jsonw_key(w, "figures");
	jfigures(w, &s->f);
	jsonw_key(w, "cpu");
	jcpu(w, run, s->cpu_mean);
	jsonw_mnum(w, "host_cpu_pct", s->host_cpu_pct, 3);
	jsonw_mnum(w, "generator_cpu_pct", s->gen_cpu_pct, 3);
	jsonw_mnum(w, "lag_p99_ms", s->lag_p99_ms, 3);
	if (run->step_drift) {
		jsonw_key(w, "drift");
		jdrift(w, &run->step_drift[i], NULL);
	}
	jsonw_end(w);
}

/* The run's errors by class: {CLASS: {"count", "side", "sample"}}. */
static void jerrors(const struct rpt_run *run, struct jsonw *w)
{
	jsonw_obj(w);
	for (int c = 0; c < ERR_NCLASS; c++) {
		if (!run->st.err_count[c])
			continue;
		jopen(w, err_class_name((enum err_class)c), '{');
		jsonw_mint(w, "count", run->st.err_count[c]);
		jsonw_mstr(w, "side",
		           err_class_client_side((enum err_class)c) ? "client" : "server");
		jsonw_mstr(w, "sample", run->st.err_sample[c]);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void jrun(const struct report *r, int at, struct jsonw *w)
{
	const struct rpt_run *run = &r->runs[at];

	jrun_head(r, run, w);
	jmember(w, "env");
	jenv(w, run);
	jmember(w, "figures");
	jfigures(w, &run->f);
	jmember(w, "cpu");
	jcpu(w, run, NULL);
	jmember(w, "cost");
	jcost(w, run);
	jmember(w, "memory");
	jsonw_arr(w);
	for (int k = 0; k < run->nsrc; k++)
		if (run->src[k].gc_events)
			jgc(w, &run->src[k]);
	jsonw_end(w);
	jmember(w, "rss");
	jsonw_arr(w);
	jrss(w, run);
	jsonw_end(w);
	jmember(w, "errors");
	jerrors(run, w);
	jmember(w, "steps");
	jsonw_arr(w);
	for (int i = 0; i < run->nsteps; i++)
		jstep(run, i, w);
	jsonw_end(w);
	jmember(w, "drift");
	jdrift(w, &run->drift, run);
}

static void jsaturation(const struct report *r, const struct rpt_sweep *sw, struct jsonw *w)
{
	const struct rpt_cell *at, *pk;

	if (!sw->sat.ok) {
		jsonw_null(w);
		return;
	}
	at = &r->cells[sw->cells[sw->sat.at]];
	pk = &r->cells[sw->cells[sw->sat.peak]];
	jsonw_obj(w);
	jsonw_mbool(w, "saturated", sw->sat.saturated);
	jsonw_mint(w, "at_concurrency", at->concurrency);
	jsonw_mnum(w, "at_tps", at->f.tps, 3);
	jsonw_mint(w, "peak_concurrency", pk->concurrency);
	jsonw_mnum(w, "peak_tps", pk->f.tps, 3);
	jsonw_mnum(w, "share", RPT_SAT_SHARE, 2);
	jsonw_end(w);
}

static void jusl(const struct rpt_sweep *sw, struct jsonw *w)
{
	if (!sw->usl.ok) {
		jsonw_null(w);
		return;
	}
	jsonw_obj(w);
	jsonw_mnum(w, "sigma", sw->usl.sigma, 6);
	jsonw_mnum(w, "kappa", sw->usl.kappa, 8);
	jsonw_mnum(w, "lambda", sw->usl.lambda, 4);
	jsonw_mnum(w, "r2", sw->usl.r2, 4);
	jsonw_mnum(w, "n_star", sw->usl.n_star, 3);
	jsonw_mnum(w, "x_star", sw->usl.x_star, 3);
	jsonw_end(w);
}

static void jsweep(const struct report *r, int at, struct jsonw *w)
{
	const struct rpt_sweep *sw = &r->sweeps[at];
	jsonw_mstr(w, "label", r->labels[sw->label].name);
	jsonw_mnum(w, "step_s", (double)sw->planned_ms / 1000, 3);
	jopen(w, "levels", '[');
	for (int i = 0; i < sw->ncells; i++) {
		const struct rpt_cell *c = &r->cells[sw->cells[i]];
		jsonw_br(w, "\n      ");
		jsonw_obj(w);
		jsonw_mint(w, "concurrency", c->concurrency);
		jsonw_mstr(w, "runs", c->runs);
		jsonw_key(w, "figures");
		jfigures(w, &c->f);
		jsonw_end(w);
	}
	jsonw_end(w);
	jmember(w, "saturation");
	jsaturation(r, sw, w);
	jmember(w, "usl");
	jusl(sw, w);
	jsonw_mbool(w, "queueing", sw->queueing);
}

/* The cell a comparison or verdict is at: kind, concurrency, rate, step length. */
static void jcell(struct jsonw *w, const struct rpt_cell *c)
{
	jsonw_mstr(w, "kind", c->sweep ? "sweep" : "fixed");
	jsonw_mint(w, "concurrency", c->concurrency);
	jsonw_mnum(w, "rate", c->rate > 0 ? c->rate : NAN, 3);
	jsonw_mnum(w, "step_s", (double)c->planned_ms / 1000, 3);
}

/* The run-to-run spread each side showed (coefficient of variation of its runs), of each
 * request figure whose row keeps one. */
static void jrun_cv(struct jsonw *w, const struct rpt_cell *c, const struct rpt_cell *a)
{
	jopen(w, "run_cv_pct", '{');
	for (int k = 0; k < RPT_NMETRIC; k++) {
		const struct rpt_bm *x[2] = {&c->run[k], &a->run[k]};
		if (!rpt_figrows[k].cv)
			continue;
		for (int side = 0; side < 2; side++) {
			char key[64];
			snprintf(key, sizeof key, "%s%s", rpt_figrows[k].key,
			         side ? "_baseline" : "");
			jsonw_mnum(w, key,
			           x[side]->n >= 2 ? 100 * x[side]->se * sqrt((double)x[side]->n) /
			                                 fabs(x[side]->mean)
			                           : NAN,
			           3);
		}
	}
	jsonw_end(w);
}

/* The figures a comparison judged: the request rows' under "metrics", then each series
 * row's under its key, by series, judged like the request rows. */
static void jcmp_figures(const struct report *r, const struct rpt_cmp *m, struct jsonw *w)
{
	jmember(w, "metrics");
	jsonw_obj(w);
	for (int k = 0; k < RPT_NMETRIC; k++) {
		jsonw_br(w, "\n       ");
		jsonw_key(w, rpt_figrows[k].key);
		jdiff(w, m, k);
	}
	jsonw_end(w);
	for (int row = RPT_NMETRIC; row < RPT_NROWS; row++) {
		jmember(w, rpt_figrows[row].key);
		jsonw_obj(w);
		for (int s = 0; s < r->ncpu; s++) {
			int g = rpt_fig((enum rpt_metric)row, s);
			if (m->d[g].verdict == RPT_NA &&
			    (isnan(m->base_value[g]) || isnan(m->value[g])))
				continue;
			jsonw_key(w, r->cpu_names[s]);
			jdiff(w, m, g);
		}
		jsonw_end(w);
	}
}

/* The variance components of each figure on each side. */
static void jcomponents(const struct report *r, const struct rpt_cmp *m, struct jsonw *w)
{
	const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];

	jmember(w, "components");
	jsonw_obj(w);
	for (int g = 0; g < RPT_NFIG; g++) {
		char key[96];
		if (isnan(m->base_value[g]) || isnan(m->value[g]))
			continue;
		jopen(w, rpt_fig_key(r, g, key, sizeof key), '{');
		jsonw_mint(w, "runs", c->vc[g].runs);
		jsonw_mint(w, "runs_baseline", a->vc[g].runs);
		jsonw_mnum(w, "between_sd", sqrt(c->vc[g].between), 6);
		jsonw_mnum(w, "within_sd", sqrt(c->vc[g].within), 6);
		jsonw_mnum(w, "between_sd_baseline", sqrt(a->vc[g].between), 6);
		jsonw_mnum(w, "within_sd_baseline", sqrt(a->vc[g].within), 6);
		jsonw_mnum(w, "run_s", c->vc[g].secs, 3);
		jsonw_end(w);
	}
	jsonw_end(w);
}

/* A count or an index into the comparisons, or null (-1). */
static void jindex(struct jsonw *w, const char *key, int i)
{
	jsonw_key(w, key);
	if (i >= 0)
		jsonw_int(w, i);
	else
		jsonw_null(w);
}

/* What each figure resolves, and what would resolve it. */
static void jresolve(const struct report *r, const struct rpt_cmp *m, struct jsonw *w)
{
	jmember(w, "resolve");
	jsonw_obj(w);
	for (int g = 0; g < RPT_NFIG; g++) {
		const struct rpt_resolve *x = &m->res[g];
		char key[96];
		if (!(x->target_pct > 0))
			continue;
		jopen(w, rpt_fig_key(r, g, key, sizeof key), '{');
		jsonw_mstr(w, "basis",
		           x->basis == RPT_ADV_COMPONENTS    ? "components"
		           : x->basis == RPT_ADV_CALIBRATION ? "calibration"
		                                             : "unknown");
		jsonw_mnum(w, "half_pct", x->half_pct, 3);
		jsonw_mnum(w, "level", x->level, 6);
		jsonw_mnum(w, "target_pct", x->target_pct, 1);
		jsonw_mbool(w, "resolved_now", x->now_enough);
		jindex(w, "rounds", x->rounds > 0 ? x->rounds : -1);
		jsonw_mnum(w, "run_s", x->run_s, 1);
		jsonw_mnum(w, "total_s", x->total_s, 1);
		jsonw_mnum(w, "between_pct", x->between_pct, 3);
		jsonw_mnum(w, "within_pct", x->within_pct, 3);
		jsonw_end(w);
	}
	jsonw_end(w);
}

/* Where CPU per request moved in one source: its frames by change (all it kept). */
static void jprofile(const struct report *r, const struct rpt_pcmp *pc, struct jsonw *w)
{
	jsonw_obj(w);
	jsonw_mstr(w, "source", pc->source);
	jsonw_mnum(w, "base_cpu_us", pc->base_cpu_us, 3);
	jsonw_mnum(w, "cpu_us", pc->cpu_us, 3);
	jsonw_mint(w, "processes_baseline", pc->nobs_base);
	jsonw_mint(w, "processes", pc->nobs);
	jsonw_mint(w, "windows_baseline", pc->windows_base);
	jsonw_mint(w, "windows", pc->windows);
	jsonw_mbool(w, "judged", pc->why == RPT_PROF_JUDGED);
	jsonw_mint(w, "family", pc->family);
	jsonw_mnum(w, "alpha", pc->alpha, 6);
	if (pc->svg[0])
		jsonw_mstr(w, "flame_graph", pc->svg);
	else
		jsonw_mnull(w, "flame_graph");
	char *lead = rpt_profile_lead(r, pc);
	jsonw_mstr(w, "sentence", lead ? lead : "");
	free(lead);
	jopen(w, "frames", '[');
	for (int i = 0; i < pc->nframes; i++) {
		const struct rpt_pframe *f = &pc->frames[i];
		jsonw_br(w, MEMBER "  ");
		jsonw_obj(w);
		jsonw_mstr(w, "frame", f->frame);
		jsonw_mnum(w, "base_us", f->base_us, 3);
		jsonw_mnum(w, "us", f->us, 3);
		jsonw_mnum(w, "change_us", f->us - f->base_us, 3);
		jci(w, f->d.lo, f->d.hi, 3);
		jsonw_mnum(w, "level", f->d.level, 6);
		jsonw_mnum(w, "p", f->d.p, 6);
		jsonw_mstr(w, "verdict", rpt_pframe_verdict(pc, f));
		jsonw_mnum(w, "base_total_us", f->base_total_us, 3);
		jsonw_mnum(w, "total_us", f->total_us, 3);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

/* The comparison's profiles: `profile` the app's (or the first source's), `profiles` all. */
static void jprofiles(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_pcmp *main = rpt_profile_of(r, i, "app");

	if (!main)
		main = rpt_profile_of(r, i, NULL);
	jmember(w, "profile");
	if (main)
		jprofile(r, main, w);
	else
		jsonw_null(w);
	jmember(w, "profiles");
	jsonw_arr(w);
	for (int k = 0; k < r->npcmps; k++)
		if (r->pcmps[k].cmp == i)
			jprofile(r, &r->pcmps[k], w);
	jsonw_end(w);
}

static void jcmp(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_cmp *m = &r->cmps[i];
	const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
	struct sbuf method = {0};

	jcell(w, c);
	jsonw_mstr(w, "label", r->labels[c->label].name);
	jsonw_mstr(w, "baseline", r->labels[a->label].name);
	jsonw_mstr(w, "runs", c->runs);
	jsonw_mstr(w, "baseline_runs", a->runs);
	jsonw_br(w, MEMBER);
	jsonw_mstr(w, "noise", rpt_noise_name(m->noise));
	jsonw_mint(w, "n_runs", m->nruns);
	jsonw_mint(w, "n_runs_baseline", m->nruns_base);
	jsonw_mint(w, "family", m->family);
	jsonw_mbool(w, "one_process", m->one_process);
	jsonw_mnum(w, "alpha", m->alpha, 6);
	jsonw_mnum(w, "level", m->level, 6);
	jsonw_mnum(w, "floor_pct", m->floor_pct, 1);
	jrun_cv(w, c, a);
	jsonw_br(w, MEMBER);
	rpt_method_text(&method, r, m);
	jtext(w, "method", &method);
	jcmp_figures(r, m, w);
	jcomponents(r, m, w);
	jresolve(r, m, w);
	jprofiles(r, i, w);
}

/* Each process's CPU per request at the verdict's cell: against the baseline's (a
 * comparison) or as measured (the baseline's own row). */
static void jverdict_cpu(const struct report *r, const struct rpt_vrow *v, struct jsonw *w)
{
	const struct rpt_cmp *m = v->label == 0 || v->cmp < 0 ? NULL : &r->cmps[v->cmp];

	jmember(w, "cpu_ms_per_request");
	jsonw_obj(w);
	for (int s = 0; s < r->ncpu; s++) {
		int g = RPT_FIG_CPU(s);
		/* A source the comparison has no figure for is left out, as the comparison
		 * leaves it out (a side without CPU samples). */
		if (isnan(v->cpu_req[s]) || (m && m->d[g].verdict == RPT_NA &&
		                             (isnan(m->base_value[g]) || isnan(m->value[g]))))
			continue;
		jsonw_key(w, r->cpu_names[s]);
		if (!m)
			jsonw_num(w, v->cpu_req[s], 4);
		else
			jdiff(w, m, g);
	}
	jsonw_end(w);
}

static void jverdict(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_vrow *v = &r->verdicts[i];
	struct sbuf sentence = {0}, mem = {0};

	jsonw_mstr(w, "label", r->labels[v->label].name);
	jsonw_mbool(w, "baseline", v->label == 0);
	jindex(w, "comparison", v->cmp);
	jsonw_key(w, "at");
	if (v->cell >= 0) {
		jsonw_obj(w);
		jcell(w, &r->cells[v->cell]);
		jsonw_end(w);
	} else {
		jsonw_null(w);
	}
	jindex(w, "rate_comparison", v->cmp_rate);
	jverdict_cpu(r, v, w);
	jsonw_br(w, MEMBER);
	rpt_memory_verdicts(&mem, r, v->label, 1);
	jtext(w, "memory", &mem);
	jsonw_key(w, "drift");
	jsonw_str_or_null(w,
	                  v->drift >= 0 ? rpt_drift_name((enum rpt_drift_verdict)v->drift) : NULL);
	jsonw_mint(w, "warnings", v->warnings);
	rpt_verdict_text(&sentence, r, v);
	jtext(w, "sentence", &sentence);
	rpt_verdict_brief(&sentence, r, v, 1);
	jtext(w, "answer", &sentence);
}

/* A label of the report's items, or null (-1: about no label). */
static void jlabel(const struct report *r, struct jsonw *w, int label)
{
	jsonw_key(w, "label");
	if (label >= 0)
		jsonw_str(w, r->labels[label].name);
	else
		jsonw_null(w);
}

static void jstudy(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_study *st = &r->studies[i];
	struct sbuf design = {0};

	jsonw_mstr(w, "name", st->name);
	jsonw_mint(w, "rounds", st->rounds);
	jsonw_mstr(w, "order", st->order);
	jsonw_mint(w, "seed", st->seed);
	jsonw_mint(w, "warmup_runs", st->warmup_runs);
	jsonw_mbool(w, "keep_running", st->keep_running);
	jsonw_mstr(w, "before_each", st->before_each);
	jsonw_mstr(w, "targets", st->targets);
	jsonw_mint(w, "slots", st->slots);
	jsonw_mint(w, "done_slots", st->done_slots);
	jsonw_mstr(w, "status", st->status);
	rpt_study_design(&design, r, i);
	jtext(w, "design", &design);
}

static void jvalidity(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_item *v = &r->validity[i];
	jsonw_mstr(w, "severity", v->severity);
	jsonw_mstr(w, "code", v->code);
	jlabel(r, w, v->label);
	jsonw_mstr(w, "run", rpt_item_runs(v));
	jsonw_mstr(w, "message", v->text);
}

static void jfinding(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_item *x = &r->findings[i];
	jsonw_mstr(w, "kind", x->code);
	jlabel(r, w, x->label);
	jsonw_key(w, "score");
	jsonw_fmt(w, "%.0f", x->score);
	jsonw_mbool(w, "top", x->top);
	jsonw_mstr(w, "text", x->text);
}

static void jpicture(const struct report *r, int i, struct jsonw *w)
{
	const struct rpt_picture *p = &r->pics[i];
	jsonw_mstr(w, "name", p->name);
	jsonw_mstr(w, "title", p->title);
	jsonw_mbool(w, "compare", p->compare);
	jsonw_key(w, "svg");
	jsonw_fmt(w, "\"img/%s.svg\"", p->name);
	jsonw_key(w, "png");
	jsonw_fmt(w, "\"img/%s.png\"", p->name);
	jsonw_mbool(w, "drawn", p->drawn);
}

/* Opens a list member of the report (its items follow, each with ITEM). */
static void jlist(struct jsonw *w, const char *key)
{
	jsonw_br(w, CLOSE);
	jopen(w, key, '[');
}

/* The report's opening members: title, databases, labels, CPU series, noise method. */
static void jhead(const struct report *r, struct jsonw *w)
{
	jsonw_br(w, CLOSE);
	jsonw_mstr(w, "title", r->title);
	jlist(w, "databases");
	for (int i = 0; i < r->ndbs; i++)
		jsonw_str(w, r->dbs[i]);
	jsonw_end(w);
	jlist(w, "labels");
	for (int l = 0; l < r->nlabels; l++) {
		jsonw_obj(w);
		jsonw_mstr(w, "name", r->labels[l].name);
		jsonw_mbool(w, "baseline", l == 0);
		jsonw_mint(w, "runs", r->labels[l].nruns);
		jsonw_end(w);
	}
	jsonw_end(w);
	jlist(w, "cpu_series");
	for (int s = 0; s < r->ncpu; s++)
		jsonw_str(w, r->cpu_names[s]);
	jsonw_end(w);
	jsonw_br(w, CLOSE);
	jsonw_mstr(w, "noise_method",
	           "per comparison (comparisons[].noise, .method): Welch t-test across runs when "
	           "both sides have two or more, else a stored calibration, else batch means of "
	           "per-interval figures with a floor; Holm over each comparison's figures");
}

/* A list member of the report: its n items, each an object on a line of its own whose
 * members item(r, i, w) writes; the closing bracket on a line of its own when own_line. */
static void jlist_of(const struct report *r, struct jsonw *w, const char *key, int n,
                     void (*item)(const struct report *r, int i, struct jsonw *w), int own_line)
{
	jlist(w, key);
	for (int i = 0; i < n; i++) {
		jsonw_br(w, ITEM);
		jsonw_obj(w);
		item(r, i, w);
		jsonw_end(w);
	}
	if (own_line)
		jsonw_br(w, CLOSE);
	jsonw_end(w);
}

int rpt_write_json(const struct report *r, FILE *f)
{
	struct jsonw w;

	jsonw_init(&w, f);
	jsonw_obj(&w);
	jhead(r, &w);
	jlist_of(r, &w, "studies", r->nstudies, jstudy, r->nstudies > 0);
	jlist_of(r, &w, "verdict", r->nverdicts, jverdict, 1);
	jlist_of(r, &w, "validity", r->nvalidity, jvalidity, 1);
	jlist_of(r, &w, "runs", r->nruns, jrun, 1);
	jlist_of(r, &w, "sweeps", r->nsweeps, jsweep, 1);
	jlist_of(r, &w, "comparisons", r->ncmps, jcmp, 1);
	jlist_of(r, &w, "findings", r->nfindings, jfinding, 1);
	/* Night over night: only when a label and scenario have a series of runs. */
	if (r->history) {
		jsonw_br(&w, CLOSE);
		jsonw_key(&w, "history");
		rpt_hist_write_json(r->history, 1, "  ", &w);
	}
	jlist_of(r, &w, "pictures", r->npics, jpicture, 1);
	jsonw_br(&w, "\n");
	jsonw_end(&w);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

/* --- CSV ---------------------------------------------------------------------------- */

/* A CSV text field, pre then s: always quoted, quotes doubled, and a cell that a spreadsheet would
 * run as a formula (starting with = + - @, a tab or a carriage return: labels, run names, paths and
 * sources come from whoever made the database) starts with a single quote, as OWASP's CSV injection
 * notes advise.  Numbers are written by cnum, never through here. */
static void cfield(FILE *f, const char *pre, const char *s)
{
	const char *first = *pre ? pre : s;

	fputc('"', f);
	if (*first && strchr("=+-@\t\r", *first))
		fputc('\'', f);
	fputs(pre, f); /* soak's own column prefixes: no quote in them */
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A comma, then a text field. */
static void ctext(FILE *f, const char *s)
{
	fputc(',', f);
	cfield(f, "", s);
}

static void cnum(FILE *f, double v, int decimals)
{
	char b[64];
	fputc(',', f);
	if (isfinite(v))
		fputs(rpt_fmt_num(v, decimals, b, sizeof b), f);
}

int rpt_write_csv(const struct report *r, FILE *f)
{
	fputs("db,run,label,name,mode,connection,status,step,concurrency,step_s,window_s,"
	      "requests,errors,error_pct,tps,mean_ms,p50_ms,p90_ms,p95_ms,p99_ms,p999_ms,max_ms,"
	      "new_connections,compared",
	      f);
	for (int s = 0; s < r->ncpu; s++) {
		fputc(',', f);
		cfield(f, "cpu_", r->cpu_names[s]);
	}
	fputs(",memory\r\n", f);
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		char mem[512] = "";
		size_t n = 0;
		for (int k = 0; k < run->nsrc && n < sizeof mem; k++) {
			const struct rpt_source *s = &run->src[k];
			int w;
			if (!s->gc_events)
				continue;
			w = snprintf(mem + n, sizeof mem - n, "%s%s: %s", n ? "; " : "", s->name,
			             gca_memory_text(s->gc.memory));
			if (w > 0)
				n += (size_t)w;
		}
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			const struct figures *g = &s->f;
			double ms[NLAT];
			cfield(f, "", r->dbs[run->db]);
			ctext(f, run->key);
			ctext(f, r->labels[run->label].name);
			ctext(f, run->name);
			ctext(f, run->mode);
			ctext(f, run->connection);
			ctext(f, run->status);
			fprintf(f, ",%d,%d", s->idx, s->concurrency);
			cnum(f, (double)s->planned_ms / 1000, 3);
			cnum(f, g->seconds, 3);
			fprintf(f, ",%lld,%lld", (long long)g->requests, (long long)g->errors);
			cnum(f, g->error_pct, 4);
			cnum(f, g->tps, 3);
			lat_ms(g, ms);
			for (int m = 0; m < NLAT; m++)
				cnum(f, ms[m], 3);
			fprintf(f, ",%lld", (long long)g->new_conns);
			ctext(f, run->compared ? "yes" : run->warmup ? "warm-up" : "no");
			for (int c = 0; c < r->ncpu; c++) {
				double v = NAN;
				for (int q = 0; q < run->nsrc; q++)
					if (!strcmp(run->src[q].name, r->cpu_names[c]))
						v = s->cpu_mean ? s->cpu_mean[q] : NAN;
				cnum(f, v, 3);
			}
			ctext(f, mem);
			fputs("\r\n", f);
		}
	}
	return ferror(f) ? -1 : 0;
}

int rpt_run_drift_json(const struct report *r, int step, const char *key, struct jsonw *w)
{
	const struct rpt_run *run = r->nruns > 0 ? &r->runs[0] : NULL;

	if (!run || (step >= 0 && (!run->step_drift || step >= run->nsteps)))
		return 0;
	jsonw_key(w, key);
	if (step < 0)
		jdrift(w, &run->drift, run);
	else
		jdrift(w, &run->step_drift[step], NULL);
	return 1;
}
