/* report_json: report.json (the model's tables and findings as data) and summary.csv (one
 * row per run step). */
#include "report/report_int.h"
#include "report/report_history.h"

#include "jsonw.h"

#include <math.h>
#include <string.h>

/* A number with fixed decimals, or null when it is not finite. */
static void jnum(FILE *f, double v, int decimals)
{
	char b[64];
	if (!isfinite(v))
		fputs("null", f);
	else
		fputs(rpt_fmt_num(v, decimals, b, sizeof b), f);
}

/* `, "key": number` */
static void jfield(FILE *f, const char *key, double v, int decimals)
{
	fprintf(f, ", \"%s\": ", key);
	jnum(f, v, decimals);
}

static void jkey(FILE *f, const char *k)
{
	json_write_str(f, k);
	fputs(": ", f);
}

static void jfigures(FILE *f, const struct figures *g)
{
	int ans = g->p50_us > 0 || g->max_us > 0;
	double ms[] = {g->mean_us,        (double)g->p50_us,  (double)g->p90_us, (double)g->p95_us,
	               (double)g->p99_us, (double)g->p999_us, (double)g->max_us};
	static const char *const names[] = {"mean_ms", "p50_ms",  "p90_ms", "p95_ms",
	                                    "p99_ms",  "p999_ms", "max_ms"};

	fprintf(f, "{\"window_s\": ");
	jnum(f, g->seconds, 3);
	fprintf(f,
	        ", \"requests\": %lld, \"errors\": %lld, \"error_pct\": ", (long long)g->requests,
	        (long long)g->errors);
	jnum(f, g->error_pct, 4);
	fprintf(f, ", \"tps\": ");
	jnum(f, g->tps, 3);
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		fprintf(f, ", \"%s\": ", names[i]);
		jnum(f, ans ? ms[i] / 1000 : NAN, 3);
	}
	fprintf(f, ", \"new_connections\": %lld}", (long long)g->new_conns);
}

static void jdiff(FILE *f, double base, double value, const struct rpt_diff *d)
{
	fputs("{\"baseline\": ", f);
	jnum(f, base, 4);
	jfield(f, "value", value, 4);
	jfield(f, "change_pct", base != 0 ? 100 * (value - base) / base : NAN, 3);
	jfield(f, "interval_mean_baseline", d->a, 4);
	jfield(f, "interval_mean", d->b, 4);
	fputs(", \"ci95\": [", f);
	jnum(f, d->lo, 4);
	fputs(", ", f);
	jnum(f, d->hi, 4);
	fputs("], \"level\": ", f);
	jnum(f, d->level, 6);
	fputs(", \"t\": ", f);
	jnum(f, d->t, 4);
	jfield(f, "df", d->df, 2);
	jfield(f, "p", d->p, 6);
	fputs(", \"verdict\": ", f);
	json_write_str(f, rpt_verdict_name(d->verdict));
	fputc('}', f);
}

static void jgc(FILE *f, const struct rpt_source *s)
{
	const struct gca_result *g = &s->gc;
	fputs("{\"source\": ", f);
	json_write_str(f, s->name);
	fprintf(f, ", \"events\": %lld, \"pauses\": %lld, \"verdict\": ", (long long)s->gc_events,
	        (long long)g->pauses);
	json_write_str(f, gca_memory_text(g->memory));
	fputs(", \"trend\": ", f);
	json_write_str(f, gca_memory_text(g->trend));
	fputs(", \"basis\": ", f);
	json_write_str(f, g->basis);
	jfield(f, "slope_mb_per_h", g->slope_mb_per_h, 3);
	jfield(f, "r2", g->r2, 4);
	jfield(f, "heap_max_mb", g->heap_max_mb, 1);
	jfield(f, "gc_time_pct", g->gc_time_pct, 4);
	jfield(f, "pause_total_ms", g->pause_total_ms, 3);
	jfield(f, "pause_max_ms", g->pause_max_ms, 3);
	jfield(f, "pause_p99_ms", g->pause_p99_ms, 3);
	fprintf(f, ", \"old_cycles\": %lld", (long long)g->old_cycles);
	/* Headroom: where the window left the heap against what would start an old
	 * collection (null figures: not in the log, or nothing grows). */
	fputs(", \"headroom\": {\"of\": ", f);
	json_write_str(f, g->level_of);
	jfield(f, "level_mb", g->trigger ? g->level_mb : NAN, 1);
	jfield(f, "capacity_mb", g->trigger ? g->cap_mb : NAN, 1);
	fputs(", \"trigger\": ", f);
	json_write_str(f, gca_trigger_name(g->trigger));
	jfield(f, "trigger_mb", g->trigger ? g->trigger_mb : NAN, 1);
	jfield(f, "promotion_mb_per_h", g->promo_mb_per_h, 3);
	jfield(f, "growth_mb_per_h", g->trigger ? g->growth_mb_per_h : NAN, 3);
	jfield(f, "to_trigger_h", g->to_trigger_h, 3);
	fputc('}', f);
	jfield(f, "run_longer_h", g->run_longer_h, 3);
	fputs(", \"why\": ", f);
	json_write_str(f, g->why);
	fputc('}', f);
}

/* {"app": 12.3, ...}: the run's CPU series, their means over the run (step_means NULL) or
 * over one step. */
static void jcpu(FILE *f, const struct rpt_run *run, const double *step_means)
{
	int first = 1;

	fputc('{', f);
	for (int k = 0; k < run->nsrc; k++) {
		if (!run->src[k].has_cpu)
			continue;
		fputs(first ? "" : ", ", f);
		jkey(f, run->src[k].name);
		jnum(f, step_means ? step_means[k] : run->src[k].cpu_mean, 3);
		first = 0;
	}
	fputc('}', f);
}

/* {"generator": {KEY: VALUE}, "sources": {NAME: {KEY: VALUE}}}: what ran (env is sorted
 * by source, so each source's facts come together). */
static void jenv(FILE *f, const struct rpt_run *run)
{
	int i = 0, nsrc = 0;

	fputs("{\"generator\": {", f);
	for (; i < run->nenv && !run->env[i].source[0]; i++) {
		fputs(i ? ", " : "", f);
		jkey(f, run->env[i].key);
		json_write_str(f, run->env[i].value);
	}
	fputs("}, \"sources\": {", f);
	while (i < run->nenv) {
		const char *src = run->env[i].source;
		fputs(nsrc++ ? "}, " : "", f);
		jkey(f, src);
		fputc('{', f);
		for (int k = 0; i < run->nenv && !strcmp(run->env[i].source, src); i++, k++) {
			fputs(k ? ", " : "", f);
			jkey(f, run->env[i].key);
			json_write_str(f, run->env[i].value);
		}
	}
	fputs(nsrc ? "}}}" : "}}", f);
}

/* The parts of a drift comparison. */
static void jpart(FILE *f, int64_t from, int64_t to, int n, int64_t count)
{
	fprintf(f, "{\"from_ms\": %lld, \"to_ms\": %lld, \"intervals\": %d, \"answered\": %lld}",
	        (long long)from, (long long)to, n, (long long)count);
}

void rpt_drift_json(const struct rpt_drift *d, const char *sentence, FILE *f)
{
	fputs("{\"verdict\": ", f);
	json_write_str(f, rpt_drift_name(d->verdict));
	fputs(", \"sentence\": ", f);
	json_write_str(f, sentence);
	jfield(f, "window_s", d->window_s, 3);
	fprintf(f, ", \"intervals\": %d, \"machine_suspect\": %s, \"comparisons\": [",
	        d->nintervals, d->machine ? "true" : "false");
	for (int i = 0; i < d->ncmp; i++) {
		const struct rpt_drift_cmp *c = &d->cmp[i];
		fprintf(f, "%s{\"parts\": \"%s\", \"first\": ", i ? ", " : "",
		        c->hours ? "hours" : "thirds");
		jpart(f, c->a_from_ms, c->a_to_ms, c->na, c->count_a);
		fputs(", \"last\": ", f);
		jpart(f, c->b_from_ms, c->b_to_ms, c->nb, c->count_b);
		fputs(", \"metrics\": [", f);
		for (int k = 0; k < c->nm; k++) {
			const struct rpt_drift_metric *m = &c->m[k];
			fprintf(f, "%s{\"metric\": \"%s\", \"source\": ", k ? ", " : "",
			        rpt_drift_kind_name(m->kind));
			if (*m->source)
				json_write_str(f, m->source);
			else
				fputs("null", f);
			jfield(f, "first", m->first, 4);
			jfield(f, "last", m->last, 4);
			jfield(f, "change", m->change, 4);
			jfield(f, "change_pct", m->change_pct, 3);
			fputs(", \"ci95\": [", f);
			jnum(f, m->d.lo, 4);
			fputs(", ", f);
			jnum(f, m->d.hi, 4);
			fputc(']', f);
			jfield(f, "p", m->d.p, 6);
			fprintf(f, ", \"verdict\": \"%s\", \"counted\": %s, \"effect\": \"%s\"}",
			        rpt_verdict_name(m->d.verdict), m->counts ? "true" : "false",
			        m->effect > 0   ? "worse"
			        : m->effect < 0 ? "better"
			                        : "none");
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/* `, "by": ..., "kinds": {...}` of a process source's memory by kind, with the bounds. */
static void jkinds(FILE *f, const struct rpt_memkinds *k)
{
	fputs(", \"by\": ", f);
	if (k->by >= 0)
		json_write_str(f, rpt_memk_name((enum rpt_memk)k->by));
	else
		fputs("null", f);
	jfield(f, "shared_bound_mb", k->shared_bound_mb, 3);
	jfield(f, "shared_buffers_mb", k->shared_buffers_mb, 3);
	jfield(f, "heap_max_mb", k->heap_max_mb, 3);
	fputs(", \"kinds\": {", f);
	for (int j = 0; j < RPT_MEMK_N; j++) {
		const struct rpt_mem *m = &k->k[j];
		fputs(j ? ", " : "", f);
		jkey(f, rpt_memk_name((enum rpt_memk)j));
		fputs("{\"verdict\": ", f);
		json_write_str(f, rpt_mem_name(m->verdict));
		jfield(f, "mean_mb", m->mean_mb, 3);
		jfield(f, "level_mb", m->level_mb, 3);
		jfield(f, "growth_mb", m->growth_mb, 3);
		jfield(f, "slope_mb_per_h", m->verdict == RPT_MEM_UNKNOWN ? NAN : m->slope_mb_h, 4);
		jfield(f, "r2", m->verdict == RPT_MEM_UNKNOWN ? NAN : m->r2, 4);
		fputc('}', f);
	}
	fputc('}', f);
}

static void jrun(const struct report *r, const struct rpt_run *run, FILE *f)
{
	char ds[RPT_DRIFT_SENTENCE_MAX], why[RPT_MEM_WHY_MAX];
	int first;

	fputs("    {\"key\": ", f);
	json_write_str(f, run->key);
	fprintf(f, ", \"db\": %d, \"id\": %lld, \"label\": ", run->db + 1, (long long)run->id);
	json_write_str(f, r->labels[run->label].name);
	fputs(", \"name\": ", f);
	json_write_str(f, run->name);
	fputs(", \"mode\": ", f);
	json_write_str(f, run->mode);
	fputs(", \"connection\": ", f);
	json_write_str(f, run->connection);
	fputs(", \"status\": ", f);
	json_write_str(f, run->status);
	fputs(", \"reason\": ", f);
	json_write_str(f, run->reason);
	/* compared: its figures enter the comparisons; a warm-up run is shown, never compared */
	fprintf(f, ", \"compared\": %s, \"warmup\": %s", run->compared ? "true" : "false",
	        run->warmup ? "true" : "false");
	if (run->study >= 0)
		fprintf(f, ", \"round\": %d", run->round);
	if (run->agent)
		fprintf(f, ", \"agent\": %d, \"agent_count\": %d", run->agent, run->agents);
	else
		fprintf(f, ", \"agents\": %d, \"agents_planned\": %d",
		        run->agents ? run->agents : 1, run->agents ? run->agents_planned : 1);
	fputs(", \"host\": ", f);
	json_write_str(f, run->host);
	fputs(", \"colocated\": ", f);
	json_write_str(f, run->colocated);
	fprintf(f, ", \"started_ms\": %lld, \"end_ms\": %lld,\n     \"env\": ",
	        (long long)run->started_ms, (long long)run->end_ms);
	jenv(f, run);
	fputs(",\n     \"figures\": ", f);
	jfigures(f, &run->f);
	fputs(",\n     \"cpu\": ", f);
	jcpu(f, run, NULL);
	fputs(",\n     \"memory\": [", f);
	first = 1;
	for (int k = 0; k < run->nsrc; k++) {
		if (!run->src[k].gc_events)
			continue;
		fputs(first ? "" : ", ", f);
		jgc(f, &run->src[k]);
		first = 0;
	}
	fputs("],\n     \"rss\": [", f);
	first = 1;
	for (int k = 0; k < run->nsrc; k++) {
		const struct rpt_source *s = &run->src[k];
		if (!s->has_rss || !s->rss_fit)
			continue;
		fputs(first ? "{\"source\": " : ", {\"source\": ", f);
		json_write_str(f, s->name);
		jfield(f, "mean_mb", s->rss_mean_mb, 3);
		jfield(f, "slope_mb_per_h", s->rss_slope_mb_h, 4);
		jfield(f, "r2", s->rss_r2, 4);
		jfield(f, "hours", s->rss_hours, 4);
		fputs(", \"verdict\": ", f);
		json_write_str(f, rpt_mem_name(s->mem.verdict));
		jfield(f, "level_mb", s->mem.level_mb, 3);
		jfield(f, "limit_mb", s->mem.limit_mb, 3);
		jfield(f, "growth_mb", s->mem.growth_mb, 3);
		jfield(f, "steady_from_s",
		       s->mem.verdict == RPT_MEM_UNKNOWN ? NAN : s->mem.steady_from_s, 3);
		jfield(f, "steady_slope_mb_per_h", s->mem.steady_slope_mb_h, 4);
		fputs(", \"why\": ", f);
		json_write_str(f, rpt_mem_src_why(s, why, sizeof why));
		if (s->kinds.has)
			jkinds(f, &s->kinds);
		fputc('}', f);
		first = 0;
	}
	fputs("],\n     \"errors\": {", f);
	first = 1;
	for (int c = 0; c < ERR_NCLASS; c++) {
		if (!run->st.err_count[c])
			continue;
		fputs(first ? "" : ", ", f);
		jkey(f, err_class_name((enum err_class)c));
		fprintf(f, "{\"count\": %lld, \"side\": \"%s\", \"sample\": ",
		        (long long)run->st.err_count[c],
		        err_class_client_side((enum err_class)c) ? "client" : "server");
		json_write_str(f, run->st.err_sample[c]);
		fputc('}', f);
		first = 0;
	}
	fputs("},\n     \"steps\": [", f);
	for (int i = 0; i < run->nsteps; i++) {
		const struct rpt_step *s = &run->steps[i];
		fprintf(f, "%s\n      {\"step\": %d, \"concurrency\": %d, \"planned_s\": ",
		        i ? "," : "", s->idx, s->concurrency);
		jnum(f, (double)s->planned_ms / 1000, 3);
		fprintf(f, ", \"intervals\": %d, \"figures\": ", s->nintervals);
		jfigures(f, &s->f);
		fputs(", \"cpu\": ", f);
		jcpu(f, run, s->cpu_mean);
		jfield(f, "host_cpu_pct", s->host_cpu_pct, 3);
		jfield(f, "generator_cpu_pct", s->gen_cpu_pct, 3);
		jfield(f, "lag_p99_ms", s->lag_p99_ms, 3);
		if (run->step_drift) {
			fputs(", \"drift\": ", f);
			rpt_drift_json(&run->step_drift[i],
			               rpt_drift_sentence(&run->step_drift[i], ds, sizeof ds), f);
		}
		fputc('}', f);
	}
	fputs("],\n     \"drift\": ", f);
	rpt_drift_json(&run->drift, rpt_drift_run_sentence(run, ds, sizeof ds), f);
	fputc('}', f);
}

static void jsweep(const struct report *r, const struct rpt_sweep *sw, FILE *f)
{
	fputs("    {\"label\": ", f);
	json_write_str(f, r->labels[sw->label].name);
	jfield(f, "step_s", (double)sw->planned_ms / 1000, 3);
	fputs(", \"levels\": [", f);
	for (int i = 0; i < sw->ncells; i++) {
		const struct rpt_cell *c = &r->cells[sw->cells[i]];
		fprintf(f, "%s\n      {\"concurrency\": %d, \"runs\": ", i ? "," : "",
		        c->concurrency);
		json_write_str(f, c->runs);
		fputs(", \"figures\": ", f);
		jfigures(f, &c->f);
		fputc('}', f);
	}
	fputs("],\n     \"saturation\": ", f);
	if (sw->sat.ok) {
		const struct rpt_cell *at = &r->cells[sw->cells[sw->sat.at]];
		const struct rpt_cell *pk = &r->cells[sw->cells[sw->sat.peak]];
		fprintf(f, "{\"saturated\": %s, \"at_concurrency\": %d, \"at_tps\": ",
		        sw->sat.saturated ? "true" : "false", at->concurrency);
		jnum(f, at->f.tps, 3);
		fprintf(f, ", \"peak_concurrency\": %d, \"peak_tps\": ", pk->concurrency);
		jnum(f, pk->f.tps, 3);
		fprintf(f, ", \"share\": %.2f}", RPT_SAT_SHARE);
	} else {
		fputs("null", f);
	}
	fputs(",\n     \"usl\": ", f);
	if (sw->usl.ok) {
		fputs("{\"sigma\": ", f);
		jnum(f, sw->usl.sigma, 6);
		jfield(f, "kappa", sw->usl.kappa, 8);
		jfield(f, "lambda", sw->usl.lambda, 4);
		jfield(f, "r2", sw->usl.r2, 4);
		jfield(f, "n_star", sw->usl.n_star, 3);
		jfield(f, "x_star", sw->usl.x_star, 3);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ", \"queueing\": %s}", sw->queueing ? "true" : "false");
}

static void jcmp(const struct report *r, const struct rpt_cmp *m, FILE *f)
{
	const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
	char method[RPT_METHOD_MAX];

	fprintf(f, "    {\"kind\": \"%s\", \"concurrency\": %d, \"rate\": ",
	        c->sweep ? "sweep" : "fixed", c->concurrency);
	jnum(f, c->rate > 0 ? c->rate : NAN, 3);
	fputs(", \"step_s\": ", f);
	jnum(f, (double)c->planned_ms / 1000, 3);
	fputs(", \"label\": ", f);
	json_write_str(f, r->labels[c->label].name);
	fputs(", \"baseline\": ", f);
	json_write_str(f, r->labels[a->label].name);
	fputs(", \"runs\": ", f);
	json_write_str(f, c->runs);
	fputs(", \"baseline_runs\": ", f);
	json_write_str(f, a->runs);
	fputs(",\n     \"noise\": ", f);
	json_write_str(f, rpt_noise_name(m->noise));
	fprintf(f,
	        ", \"n_runs\": %d, \"n_runs_baseline\": %d, \"family\": %d, \"one_process\": %s, "
	        "\"alpha\": ",
	        m->nruns, m->nruns_base, m->family, m->one_process ? "true" : "false");
	jnum(f, m->alpha, 6);
	fputs(", \"level\": ", f);
	jnum(f, m->level, 6);
	fputs(", \"floor_pct\": ", f);
	jnum(f, m->floor_pct, 1);
	/* The run-to-run spread each side showed (coefficient of variation of its runs). */
	fputs(", \"run_cv_pct\": {", f);
	for (int k = 0; k < 3; k++) {
		const struct rpt_bm *x[2] = {&c->run[k], &a->run[k]};
		for (int side = 0; side < 2; side++) {
			fprintf(f, "%s\"%s%s\": ", k || side ? ", " : "",
			        rpt_metric_name((enum rpt_metric)k), side ? "_baseline" : "");
			jnum(f,
			     x[side]->n >= 2 ? 100 * x[side]->se * sqrt((double)x[side]->n) /
			                           fabs(x[side]->mean)
			                     : NAN,
			     3);
		}
	}
	fputs("},\n     \"method\": ", f);
	json_write_str(f, rpt_method_text(r, m, method, sizeof method));
	fputs(",\n     \"metrics\": {", f);
	for (int k = 0; k < RPT_NMETRIC; k++) {
		fputs(k ? ",\n       " : "\n       ", f);
		jkey(f, rpt_metric_name((enum rpt_metric)k));
		jdiff(f, m->base_value[k], m->value[k], &m->d[k]);
	}
	/* CPU per request and memory of each process, judged like the four above. */
	for (int kind = 0; kind < 2; kind++) {
		int first = 1;
		fputs(kind ? "},\n     \"memory\": {" : "},\n     \"cpu_per_request\": {", f);
		for (int s = 0; s < r->ncpu; s++) {
			int g = kind ? RPT_FIG_MEM(s) : RPT_FIG_CPU(s);
			if (m->d[g].verdict == RPT_NA &&
			    (isnan(m->base_value[g]) || isnan(m->value[g])))
				continue;
			fputs(first ? "" : ", ", f);
			jkey(f, r->cpu_names[s]);
			jdiff(f, m->base_value[g], m->value[g], &m->d[g]);
			first = 0;
		}
	}
	/* The variance components of each figure on each side, and what it resolves. */
	fputs("},\n     \"components\": {", f);
	int first = 1;
	for (int g = 0; g < RPT_NFIG; g++) {
		char key[96];
		if (isnan(m->base_value[g]) || isnan(m->value[g]))
			continue;
		fputs(first ? "" : ", ", f);
		jkey(f, rpt_fig_key(r, g, key, sizeof key));
		fprintf(f, "{\"runs\": %d, \"runs_baseline\": %d", c->vc[g].runs, a->vc[g].runs);
		jfield(f, "between_sd", sqrt(c->vc[g].between), 6);
		jfield(f, "within_sd", sqrt(c->vc[g].within), 6);
		jfield(f, "between_sd_baseline", sqrt(a->vc[g].between), 6);
		jfield(f, "within_sd_baseline", sqrt(a->vc[g].within), 6);
		jfield(f, "run_s", c->vc[g].secs, 3);
		fputc('}', f);
		first = 0;
	}
	fputs("},\n     \"resolve\": {", f);
	first = 1;
	for (int g = 0; g < RPT_NFIG; g++) {
		const struct rpt_resolve *x = &m->res[g];
		char key[96];
		if (!(x->target_pct > 0))
			continue;
		fputs(first ? "" : ", ", f);
		jkey(f, rpt_fig_key(r, g, key, sizeof key));
		fprintf(f, "{\"basis\": \"%s\"",
		        x->basis == RPT_ADV_COMPONENTS    ? "components"
		        : x->basis == RPT_ADV_CALIBRATION ? "calibration"
		                                          : "unknown");
		jfield(f, "half_pct", x->half_pct, 3);
		jfield(f, "level", x->level, 6);
		jfield(f, "target_pct", x->target_pct, 1);
		fprintf(f,
		        ", \"resolved_now\": %s, \"rounds\": ", x->now_enough ? "true" : "false");
		if (x->rounds > 0)
			fprintf(f, "%d", x->rounds);
		else
			fputs("null", f);
		jfield(f, "run_s", x->run_s, 1);
		jfield(f, "total_s", x->total_s, 1);
		jfield(f, "between_pct", x->between_pct, 3);
		jfield(f, "within_pct", x->within_pct, 3);
		fputc('}', f);
		first = 0;
	}
	fputs("}}", f);
}

static void jverdict(const struct report *r, const struct rpt_vrow *v, FILE *f)
{
	const struct rpt_cell *c = v->cell >= 0 ? &r->cells[v->cell] : NULL;
	char sentence[RPT_VERDICT_MAX];
	int first = 1;

	fputs("    {\"label\": ", f);
	json_write_str(f, r->labels[v->label].name);
	fprintf(f, ", \"baseline\": %s, \"comparison\": ", v->label == 0 ? "true" : "false");
	if (v->cmp >= 0)
		fprintf(f, "%d", v->cmp);
	else
		fputs("null", f);
	fputs(", \"at\": ", f);
	if (c) {
		fprintf(f, "{\"kind\": \"%s\", \"concurrency\": %d, \"rate\": ",
		        c->sweep ? "sweep" : "fixed", c->concurrency);
		jnum(f, c->rate > 0 ? c->rate : NAN, 3);
		fputs(", \"step_s\": ", f);
		jnum(f, (double)c->planned_ms / 1000, 3);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(", \"rate_comparison\": ", f);
	if (v->cmp_rate >= 0)
		fprintf(f, "%d", v->cmp_rate);
	else
		fputs("null", f);
	fputs(",\n     \"cpu_ms_per_request\": {", f);
	for (int s = 0; s < r->ncpu; s++) {
		const struct rpt_cmp *m = v->label == 0 || v->cmp < 0 ? NULL : &r->cmps[v->cmp];
		int g = RPT_FIG_CPU(s);
		/* A source the comparison has no figure for is left out, as the comparison
		 * leaves it out (a side without CPU samples). */
		if (isnan(v->cpu_req[s]) || (m && m->d[g].verdict == RPT_NA &&
		                             (isnan(m->base_value[g]) || isnan(m->value[g]))))
			continue;
		fputs(first ? "" : ", ", f);
		jkey(f, r->cpu_names[s]);
		if (!m)
			jnum(f, v->cpu_req[s], 4);
		else
			jdiff(f, m->base_value[g], m->value[g], &m->d[g]);
		first = 0;
	}
	fputs("},\n     \"memory\": ", f);
	json_write_str(f, v->memory);
	fputs(", \"drift\": ", f);
	if (v->drift >= 0)
		json_write_str(f, rpt_drift_name((enum rpt_drift_verdict)v->drift));
	else
		fputs("null", f);
	fprintf(f, ", \"warnings\": %d, \"sentence\": ", v->warnings);
	json_write_str(f, rpt_verdict_text(r, v, sentence, sizeof sentence));
	fputc('}', f);
}

int rpt_write_json(const struct report *r, FILE *f)
{
	fputs("{\n  \"title\": ", f);
	json_write_str(f, r->title);
	fputs(",\n  \"databases\": [", f);
	for (int i = 0; i < r->ndbs; i++) {
		fputs(i ? ", " : "", f);
		json_write_str(f, r->dbs[i]);
	}
	fputs("],\n  \"labels\": [", f);
	for (int l = 0; l < r->nlabels; l++) {
		fputs(l ? ", " : "", f);
		fputs("{\"name\": ", f);
		json_write_str(f, r->labels[l].name);
		fprintf(f, ", \"baseline\": %s, \"runs\": %d}", l == 0 ? "true" : "false",
		        r->labels[l].nruns);
	}
	fputs("],\n  \"cpu_series\": [", f);
	for (int s = 0; s < r->ncpu; s++) {
		fputs(s ? ", " : "", f);
		json_write_str(f, r->cpu_names[s]);
	}
	fputs("],\n  \"noise_method\": \"per comparison (comparisons[].noise, .method): Welch "
	      "t-test across runs when both sides have two or more, else a stored calibration, "
	      "else batch means of per-interval figures with a floor; Holm over each "
	      "comparison's figures\",\n  \"studies\": [",
	      f);
	for (int i = 0; i < r->nstudies; i++) {
		const struct rpt_study *st = &r->studies[i];
		char design[RPT_DESIGN_MAX];
		fputs(i ? ",\n    " : "\n    ", f);
		fputs("{\"name\": ", f);
		json_write_str(f, st->name);
		fprintf(f, ", \"rounds\": %d, \"order\": ", st->rounds);
		json_write_str(f, st->order);
		fprintf(f, ", \"seed\": %lld, \"warmup_runs\": %d, \"keep_running\": %s, ",
		        (long long)st->seed, st->warmup_runs, st->keep_running ? "true" : "false");
		fputs("\"before_each\": ", f);
		json_write_str(f, st->before_each);
		fputs(", \"targets\": ", f);
		json_write_str(f, st->targets);
		fprintf(f, ", \"slots\": %d, \"done_slots\": %d, \"status\": ", st->slots,
		        st->done_slots);
		json_write_str(f, st->status);
		fputs(", \"design\": ", f);
		json_write_str(f, rpt_study_design(r, i, design, sizeof design));
		fputc('}', f);
	}
	fputs(r->nstudies ? "\n  ],\n  \"verdict\": [\n" : "],\n  \"verdict\": [\n", f);
	for (int i = 0; i < r->nverdicts; i++) {
		jverdict(r, &r->verdicts[i], f);
		fputs(i + 1 < r->nverdicts ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"validity\": [\n", f);
	for (int i = 0; i < r->nvalidity; i++) {
		const struct rpt_item *v = &r->validity[i];
		fputs("    {\"severity\": ", f);
		json_write_str(f, v->severity);
		fputs(", \"code\": ", f);
		json_write_str(f, v->code);
		fputs(", \"label\": ", f);
		if (v->label >= 0)
			json_write_str(f, r->labels[v->label].name);
		else
			fputs("null", f);
		fputs(", \"run\": ", f);
		json_write_str(f, v->run);
		fputs(", \"message\": ", f);
		json_write_str(f, v->text);
		fputs(i + 1 < r->nvalidity ? "},\n" : "}\n", f);
	}
	fputs("  ],\n  \"runs\": [\n", f);
	for (int i = 0; i < r->nruns; i++) {
		jrun(r, &r->runs[i], f);
		fputs(i + 1 < r->nruns ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"sweeps\": [\n", f);
	for (int s = 0; s < r->nsweeps; s++) {
		jsweep(r, &r->sweeps[s], f);
		fputs(s + 1 < r->nsweeps ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"comparisons\": [\n", f);
	for (int i = 0; i < r->ncmps; i++) {
		jcmp(r, &r->cmps[i], f);
		fputs(i + 1 < r->ncmps ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"findings\": [\n", f);
	for (int i = 0; i < r->nfindings; i++) {
		const struct rpt_item *x = &r->findings[i];
		fputs("    {\"kind\": ", f);
		json_write_str(f, x->code);
		fputs(", \"label\": ", f);
		if (x->label >= 0)
			json_write_str(f, r->labels[x->label].name);
		else
			fputs("null", f);
		fprintf(f, ", \"score\": %.0f, \"top\": %s, \"text\": ", x->score,
		        x->top ? "true" : "false");
		json_write_str(f, r->findings[i].text);
		fputs(i + 1 < r->nfindings ? "},\n" : "}\n", f);
	}
	fputs("  ],\n", f);
	/* Night over night: only when a label and scenario have a series of runs. */
	if (r->history) {
		fputs("  \"history\": ", f);
		rpt_hist_write_json(r->history, 1, "  ", f);
		fputs(",\n", f);
	}
	fputs("  \"pictures\": [\n", f);
	for (int i = 0; i < r->npics; i++) {
		const struct rpt_picture *p = &r->pics[i];
		fputs("    {\"name\": ", f);
		json_write_str(f, p->name);
		fputs(", \"title\": ", f);
		json_write_str(f, p->title);
		fprintf(f, ", \"compare\": %s", p->compare ? "true" : "false");
		fprintf(f, ", \"svg\": \"img/%s.svg\", \"png\": \"img/%s.png\", \"drawn\": %s}%s\n",
		        p->name, p->name, p->drawn ? "true" : "false", i + 1 < r->npics ? "," : "");
	}
	fputs("  ]\n}\n", f);
	return ferror(f) ? -1 : 0;
}

/* --- CSV ---------------------------------------------------------------------------- */

/* A CSV field, quoted when it holds a comma, quote or line break. */
static void cfield(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
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
		fputs(",cpu_", f);
		cfield(f, r->cpu_names[s]);
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
			int ans = g->p50_us > 0 || g->max_us > 0;
			cfield(f, r->dbs[run->db]);
			fputc(',', f);
			cfield(f, run->key);
			fputc(',', f);
			cfield(f, r->labels[run->label].name);
			fputc(',', f);
			cfield(f, run->name);
			fprintf(f, ",%s,%s,%s,%d,%d", run->mode, run->connection, run->status,
			        s->idx, s->concurrency);
			cnum(f, (double)s->planned_ms / 1000, 3);
			cnum(f, g->seconds, 3);
			fprintf(f, ",%lld,%lld", (long long)g->requests, (long long)g->errors);
			cnum(f, g->error_pct, 4);
			cnum(f, g->tps, 3);
			cnum(f, ans ? g->mean_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->p50_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->p90_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->p95_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->p99_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->p999_us / 1000 : NAN, 3);
			cnum(f, ans ? (double)g->max_us / 1000 : NAN, 3);
			fprintf(f, ",%lld,%s", (long long)g->new_conns,
			        run->compared ? "yes"
			        : run->warmup ? "warm-up"
			                      : "no");
			for (int c = 0; c < r->ncpu; c++) {
				double v = NAN;
				for (int q = 0; q < run->nsrc; q++)
					if (!strcmp(run->src[q].name, r->cpu_names[c]))
						v = s->cpu_mean ? s->cpu_mean[q] : NAN;
				cnum(f, v, 3);
			}
			fputc(',', f);
			cfield(f, mem);
			fputs("\r\n", f);
		}
	}
	return ferror(f) ? -1 : 0;
}

int rpt_run_drift_json(const struct report *r, int step, const char *lead, FILE *f)
{
	char ds[RPT_DRIFT_SENTENCE_MAX];
	const struct rpt_run *run = r->nruns > 0 ? &r->runs[0] : NULL;

	if (!run || (step >= 0 && (!run->step_drift || step >= run->nsteps)))
		return 0;
	fputs(lead, f);
	if (step < 0)
		rpt_drift_json(&run->drift, rpt_drift_run_sentence(run, ds, sizeof ds), f);
	else
		rpt_drift_json(&run->step_drift[step],
		               rpt_drift_sentence(&run->step_drift[step], ds, sizeof ds), f);
	return 1;
}
