/* report_drift_text: the drift verdict (report_drift.c) in words — one sentence with its
 * numbers, without the run's name ("degrading over its 2h measured window: from the first
 * third to the last: p99 +38.2% (real) ..."), and the breaches of soak run's drift
 * thresholds.  Every writer (report.md and report.html through the document, report.json,
 * JUnit, soak run's end-of-run check) shows the same sentence. */
#include "report_drift_text.h"
#include "report/report_int.h"

#include <math.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report/judge/report_compare.h"
#include "report/judge/report_drift.h"
#include "report/judge/report_mem.h"
#include "report/judge/report_stats.h"

/* What each kind is called in a sentence. */
static const char *const label[] = {
    [RPT_DK_TPS] = "TPS",
    [RPT_DK_MEAN] = "mean",
    [RPT_DK_P99] = "p99",
    [RPT_DK_ERR] = "errors",
    [RPT_DK_CPU_REQ] = "CPU per request",
    [RPT_DK_MEM] = "memory",
    [RPT_DK_GC] = "GC time",
    [RPT_DK_PAUSE] = "longest GC pause",
    [RPT_DK_MACHINE] = "the machine's own probe time",
};

/* "p99 +38.2% (real)", "CPU per request (app) +12.0% (real)", "errors +0.80 points (noise)" */
static void metric_phrase(struct sbuf *b, const struct rpt_drift_metric *m, int verdict)
{
	char x[32];

	rpt_sb_printf(b, "%s", label[m->kind]);
	if (*m->source)
		rpt_sb_printf(b, " (%s)", m->source);
	if (rpt_drift_points(m->kind))
		rpt_sb_printf(b, " %s points", rpt_fmt_signed(m->change, 2, x, sizeof x));
	else if (isfinite(m->change_pct))
		rpt_sb_printf(b, " %s", rpt_fmt_pct(m->change_pct, x, sizeof x));
	else
		rpt_sb_printf(b, " from %s to %s", rpt_fmt_num(m->first, 2, x, sizeof x),
		              rpt_fmt_num(m->last, 2, (char[32]){0}, 32));
	if (verdict)
		rpt_sb_printf(b, " (%s)", rpt_verdict_name(m->d.verdict));
}

void rpt_drift_phrase(struct sbuf *out, const struct rpt_drift_metric *m, int verdict)
{
	metric_phrase(out, m, verdict);
}

/* The metrics of c with this effect, comma-separated; returns how many. */
static int list(struct sbuf *b, const struct rpt_drift_cmp *c, int effect)
{
	int n = 0;
	for (int i = 0; i < c->nm; i++) {
		if (c->m[i].effect != effect)
			continue;
		rpt_sb_printf(b, "%s", n++ ? ", " : "");
		metric_phrase(b, &c->m[i], 1);
	}
	return n;
}

static const char *parts(const struct rpt_drift_cmp *c)
{
	return c->hours ? "from hour 1 to the last hour" : "from the first third to the last";
}

/* Why memory never makes the drift verdict, which is about the service: the memory
 * verdict judges it on its own (a cache filling, a leak, growth that levels off). */
static void memory_apart(struct sbuf *b, const struct rpt_source *src)
{
	const struct rpt_memkinds *k = &src->kinds;
	char v[32];

	/* levels_off, at_limit: words in a sentence */
	snprintf(v, sizeof v, "%s", rpt_mem_name(src->mem.verdict));
	for (char *c = v; *c; c++)
		if (*c == '_')
			*c = ' ';
	rpt_sb_printf(b, "memory is judged on its own (");
	if (src->gc_events)
		rpt_sb_printf(b, "GC log: %s", gca_memory_text(src->gc.memory));
	else if (src->mem.verdict == RPT_MEM_FILLING)
		rpt_sb_printf(b, "a cache filling: %.0f of %.0f MB", k->k[RPT_MEMK_SHARED].level_mb,
		              isfinite(k->shared_bound_mb) ? k->shared_bound_mb
		                                           : k->shared_buffers_mb);
	else if (src->mem.verdict == RPT_MEM_UNKNOWN)
		rpt_sb_printf(b, "too short to judge");
	else if (k->by >= 0)
		rpt_sb_printf(b, "%s: %s memory", v, rpt_memk_name((enum rpt_memk)k->by));
	else
		rpt_sb_printf(b, "%s", v);
	rpt_sb_printf(b, ")");
}

/* What moved but never counts (memory, GC): said beside the verdict, with why. */
static void uncounted(struct sbuf *b, const struct rpt_drift *d)
{
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++) {
			const struct rpt_drift_metric *m = &d->cmp[i].m[k];
			if (m->counts || m->kind == RPT_DK_MACHINE || !rpt_drift_named(m))
				continue;
			rpt_sb_printf(b, "; ");
			metric_phrase(b, m, 1);
			rpt_sb_printf(b, " %s, not counted: ", parts(&d->cmp[i]));
			if (m->kind == RPT_DK_MEM && m->src)
				memory_apart(b, m->src);
			else
				rpt_sb_printf(b, "%s", m->why_not);
		}
}

/* What the worse metrics suggest, in order of how much they explain. */
static const char *hint(const struct rpt_drift *d)
{
	int worse[RPT_DK_MACHINE + 1] = {0};
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++)
			if (d->cmp[i].m[k].effect > 0)
				worse[d->cmp[i].m[k].kind] = 1;
	if (worse[RPT_DK_CPU_REQ])
		return "each request costs more CPU as the run goes on (growing tables or indexes, "
		       "caches, fragmentation)";
	if (worse[RPT_DK_ERR])
		return "more requests fail as the run goes on";
	return "the server slows down as the run goes on";
}

static void too_short(struct sbuf *b, const struct rpt_drift *d)
{
	char w[32];

	if (d->nintervals == 0)
		rpt_sb_printf(b, "too short to judge drift: no measured window");
	else
		rpt_sb_printf(b,
		              "too short to judge drift: %d steady interval%s in the %s measured "
		              "window, "
		              "and each third needs %d",
		              d->nintervals, d->nintervals == 1 ? "" : "s",
		              dur_format((int64_t)llround(d->window_s) * 1000, w, sizeof w),
		              RPT_DRIFT_MIN_PART);
	rpt_sb_printf(b, ".");
}

static void stable(struct sbuf *b, const struct rpt_drift *d, const char *w)
{
	rpt_sb_printf(b, "stable over its %s measured window:", w);
	for (int i = 0; i < d->ncmp; i++) {
		rpt_sb_printf(b, "%s %s:", i ? ";" : "", parts(&d->cmp[i]));
		for (int k = 0; k < d->cmp[i].nm && k < 3; k++) { /* TPS, mean, p99 */
			rpt_sb_printf(b, "%s ", k ? "," : "");
			metric_phrase(b, &d->cmp[i].m[k], 0);
		}
	}
	rpt_sb_printf(b, ", no real change worth naming");
	uncounted(b, d);
	rpt_sb_printf(b, ".");
}

/* The machine's own speed moved with the server's figures: it may be the cause. */
static void machine(struct sbuf *b, const struct rpt_drift *d, const struct rpt_drift_metric *m,
                    int at)
{
	int slower = d->verdict == RPT_DRIFT_DEGRADING;

	rpt_sb_printf(b, ", but ");
	metric_phrase(b, m, 1);
	rpt_sb_printf(b,
	              " %s as well: the machine soak ran on %s under the run (the same "
	              "arithmetic took %s CPU time: %s), so suspect the machine before the "
	              "server and repeat the run on another machine or at a quieter time",
	              parts(&d->cmp[at]), slower ? "slowed" : "sped up", slower ? "more" : "less",
	              slower ? "a throttled core, or a hypervisor taking time from it"
	                     : "a core no longer throttled, or a hypervisor no longer taking "
	                       "time from it");
}

/* The sentence of one window (a fixed run, or a step of a sweep) into b. */
static void sentence(struct sbuf *b, const struct rpt_drift *d)
{
	const struct rpt_drift_metric *control;
	int at = 0, better = 0;
	char w[32];

	if (d->ncmp == 0) {
		too_short(b, d);
		return;
	}
	dur_format((int64_t)llround(d->window_s) * 1000, w, sizeof w);
	if (d->verdict == RPT_DRIFT_STABLE) {
		stable(b, d, w);
		return;
	}
	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm; k++)
			better += d->cmp[i].m[k].effect < 0;
	rpt_sb_printf(b, "%s over its %s measured window",
	              d->verdict == RPT_DRIFT_DEGRADING ? "degrading" : "improving", w);
	for (int pass = 0, said = 0; pass < 2; pass++) {
		int effect = d->verdict == RPT_DRIFT_DEGRADING && pass == 0 ? 1 : -1;
		if (pass == 1 && (d->verdict != RPT_DRIFT_DEGRADING || !better))
			break;
		for (int i = 0; i < d->ncmp; i++) {
			struct sbuf t = {0};
			if (list(&t, &d->cmp[i], effect) == 0) {
				rpt_sb_release(&t);
				continue;
			}
			rpt_sb_printf(b, "%s %s%s: %s", said ? ";" : ":", pass ? "better " : "",
			              parts(&d->cmp[i]), rpt_sb_str(&t));
			rpt_sb_release(&t);
			said = 1;
		}
	}
	control = rpt_drift_control(d, &at);
	if (control)
		machine(b, d, control, at);
	else
		rpt_sb_printf(b, ": %s",
		              d->verdict == RPT_DRIFT_DEGRADING ? hint(d)
		                                                : "still warming up early in the "
		                                                  "window (JIT compilation, caches "
		                                                  "and pools filling)");
	uncounted(b, d);
	rpt_sb_printf(b, ".");
}

void rpt_drift_sentence(struct sbuf *out, const struct rpt_drift *d)
{
	if (d->judged)
		sentence(out, d);
}

/* A sweep run's summary over its steps' sentences. */
static void summary(struct sbuf *b, const struct rpt_run *run)
{
	const struct rpt_drift *d = &run->drift;
	int n[4] = {0}, first = 1;

	for (int k = 0; k < run->nsteps; k++)
		n[run->step_drift[k].verdict]++;
	if (d->verdict == RPT_DRIFT_TOO_SHORT) {
		rpt_sb_printf(b,
		              "too short to judge drift: no step of the sweep has %d steady "
		              "intervals in "
		              "each "
		              "third.",
		              RPT_DRIFT_MIN_PART);
		return;
	}
	rpt_sb_printf(b, "%s at %d of %d steps", rpt_drift_name(d->verdict), n[d->verdict],
	              run->nsteps);
	if (n[RPT_DRIFT_TOO_SHORT])
		rpt_sb_printf(b, " (%d too short to judge)", n[RPT_DRIFT_TOO_SHORT]);
	for (int k = 0; k < run->nsteps; k++) {
		if (run->step_drift[k].verdict != d->verdict)
			continue;
		rpt_sb_printf(b, "%s step %d", first ? ": " : "; ", k + 1);
		if (run->steps[k].concurrency > 0 || run->steps[k].rate > 0) {
			char lv[48];
			rpt_sb_printf(b, " (%s)",
			              rpt_level_text(run->steps[k].concurrency, run->steps[k].rate,
			                             lv, sizeof lv));
		}
		rpt_sb_printf(b, " ");
		rpt_drift_sentence(b, &run->step_drift[k]);
		if (rpt_sb_len(b) > 0 && rpt_sb_str(b)[rpt_sb_len(b) - 1] == '.')
			rpt_sb_trim(b, rpt_sb_len(b) - 1);
		first = 0;
	}
	rpt_sb_printf(b, ".");
}

void rpt_drift_run_sentence(struct sbuf *out, const struct rpt_run *run)
{
	if (!rpt_is_sweep(run))
		rpt_drift_sentence(out, &run->drift);
	else if (run->drift.judged)
		summary(out, run);
}

int rpt_drift_breaches(const struct rpt_drift *d, double tps, double mean, double p99, char *msgs,
                       size_t msglen, int max)
{
	int n = 0;

	for (int i = 0; i < d->ncmp; i++)
		for (int k = 0; k < d->cmp[i].nm && n < max; k++) {
			const struct rpt_drift_metric *m = &d->cmp[i].m[k];
			double lim = m->kind == RPT_DK_TPS    ? tps
			             : m->kind == RPT_DK_MEAN ? mean
			             : m->kind == RPT_DK_P99  ? p99
			                                      : -1;
			double worse = m->kind == RPT_DK_TPS ? -m->change_pct : m->change_pct;
			if (lim < 0 || m->d.verdict != RPT_REAL || !isfinite(worse) ||
			    worse <= 100 * lim)
				continue;
			snprintf(msgs + (size_t)n++ * msglen, msglen,
			         "drift: %s %s %.1f%% %s (real; at most %g%% allowed)",
			         label[m->kind], m->kind == RPT_DK_TPS ? "fell" : "rose", worse,
			         parts(&d->cmp[i]), 100 * lim);
		}
	return n;
}
