/* report_findings: the findings of the report — one line per topic and label, built from
 * the cells, comparisons, sweeps and collector series rpt_build made (numbers here are only
 * formatted and compared against the thresholds below, never computed anew) — and which
 * RPT_TOP_FINDINGS of them matter most.
 *
 * How much a line matters (its score, 0..100) is a fixed ranking of what a tester must
 * act on first: a suspected leak or a crashed run before a real difference, a real
 * difference before one within noise, the size of a real difference before its topic.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dur.h"
#include "report/report_text.h"

#define KEEPALIVE_HELD_REQS 50   /* keep-alive held: a connection serves this many requests */
#define RSS_RISE            0.10 /* RSS rising: the trend adds this share of the mean... */
#define RSS_R2              0.60 /* ...steadily, over a window gca_too_short() accepts */
#define ERRORS_SERIOUS_PCT  1.0  /* errors above this share weigh like a failed run */
#define GC_HEAVY_PCT        5.0  /* GC pauses above this share of the wall time matter */

/* Scores: see the file comment. */
#define S_MEMORY_BAD     95
#define S_RUN_FAILED     90
#define S_ERRORS         85
#define S_RUN_OPEN       70
#define S_CLIENT_ERRORS  65
#define S_KEEPALIVE_LOST 60
#define S_GC_HEAVY       55
#define S_SATURATED      50
#define S_REAL_BASE      40 /* + the size of the change, up to 40 */
#define S_COST_BASE      30 /* + the size of the cost difference, up to 40 */
#define S_ERRORS_FEW     30
#define S_MEMORY_OK      25
#define S_NOT_SATURATED  20
#define S_NOISE          15
#define S_COST_ONE       12
#define S_CONNECTIONS    10
#define S_NOTHING        1
#define S_TOP_MIN        S_NOISE /* what matters most scores at least this */

const char *rpt_topic_key(enum rpt_topic t)
{
	static const char *const k[RPT_NTOPIC] = {"throughput", "latency", "saturation",
	                                          "memory",     "errors",  "connections",
	                                          "cost",       "runs",    "drift"};
	return (unsigned)t < RPT_NTOPIC ? k[t] : "?";
}

const char *rpt_topic_title(enum rpt_topic t)
{
	static const char *const k[RPT_NTOPIC] = {"Throughput",    "Latency", "Saturation",
	                                          "Memory and GC", "Errors",  "Connections",
	                                          "Server cost",   "Runs",    "Drift over time"};
	return (unsigned)t < RPT_NTOPIC ? k[t] : "?";
}

struct fctx {
	struct report *r; /* the report */
	int cap;          /* allocated entries of r->findings */
};

static int add(struct fctx *x, enum rpt_topic topic, int label, double score, const struct sbuf *b)
{
	struct rpt_item it = {.topic = topic, .label = label, .score = score};

	if (b->n == 0)
		return 0;
	snprintf(it.code, sizeof it.code, "%s", rpt_topic_key(topic));
	return rpt_item_add(&x->r->findings, &x->r->nfindings, &x->cap, &it, b->s);
}

/* "20 users (fixed runs of 1m5s)", "600/s (sweep steps of 20s)" */
static void cell_name(struct sbuf *b, const struct rpt_cell *c)
{
	char t[96];
	rpt_sb_printf(b, "%s", rpt_cell_text(c, t, sizeof t));
}

static void fmt_ms(struct sbuf *b, double ms)
{
	char t[32];
	rpt_sb_printf(b, "%s", rpt_fmt_ms(ms, t, sizeof t));
}

/* A separator between the clauses of one line. */
static void sep(struct sbuf *b, int *n)
{
	if ((*n)++)
		rpt_sb_printf(b, "; ");
}

/* A run as a finding names it: its key, and "(warm-up)" for a warm-up run after a start,
 * which a report shows but never compares. */
static const char *ref(const struct rpt_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", run->key, run->warmup ? " (warm-up)" : "");
	return buf;
}

/* The score of a change: real ones by their size. */
static double change_score(const struct rpt_diff *d, double pct)
{
	if (d->verdict != RPT_REAL || !isfinite(pct))
		return S_NOISE;
	return S_REAL_BASE + fmin(fabs(pct), 40);
}

/* --- runs -------------------------------------------------------------------------------- */

static int status_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 0; l < r->nlabels; l++) {
		struct sbuf b = {.n = 0};
		double score = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			char d[32];
			if (run->label != l || !strcmp(run->status, "done"))
				continue;
			dur_format((int64_t)llround(run->f.seconds) * 1000, d, sizeof d);
			rpt_sb_printf(&b, "%sRun %s (%s)", b.n ? " " : "", run->key,
			              rpt_label_name(r, l));
			if (!strcmp(run->status, "running")) {
				rpt_sb_printf(&b,
				              " is still running: this report covers the %s "
				              "measured so far.",
				              d);
				score = fmax(score, S_RUN_OPEN);
			} else if (!strcmp(run->status, "crashed")) {
				rpt_sb_printf(
				    &b,
				    " crashed: its runner stopped without closing the run; "
				    "the figures cover the %s measured until then.",
				    d);
				score = fmax(score, S_RUN_FAILED);
			} else if (!strcmp(run->status, "interrupted")) {
				rpt_sb_printf(&b,
				              " was interrupted%s%s%s: the figures cover the %s "
				              "measured before it stopped.",
				              *run->reason ? " (" : "", run->reason,
				              *run->reason ? ")" : "", d);
				score = fmax(score, S_RUN_OPEN);
			} else {
				rpt_sb_printf(&b,
				              " ended as '%s'%s%s%s; the figures cover the %s "
				              "measured.",
				              run->status, *run->reason ? " (" : "", run->reason,
				              *run->reason ? ")" : "", d);
				score = fmax(score, S_RUN_FAILED);
			}
		}
		if (add(x, RPT_T_RUNS, l, score, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- throughput and latency against the baseline --------------------------------------- */

/* A resumed run (soak run --resume): how long it went without load, left out of every
 * figure. */
static int gap_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		struct sbuf b = {.n = 0};
		char d[32], from[40], to[40];
		if (run->ngaps == 0)
			continue;
		rpt_sb_printf(&b, "Run %s (%s)", run->key, rpt_label_name(r, run->label));
		if (run->ngaps == 1)
			rpt_sb_printf(&b, " was resumed once:");
		else
			rpt_sb_printf(&b, " was resumed %d times:", run->ngaps);
		for (int k = 0; k < run->ngaps; k++) {
			const struct rpt_gap *g = &run->gaps[k];
			clock_iso(g->from_ms, from, sizeof from);
			clock_iso(g->to_ms, to, sizeof to);
			from[19] = to[19] = '\0';
			from[10] = to[10] = ' ';
			rpt_sb_printf(
			    &b, "%s %s without load (%s to %s UTC)", k ? "," : "",
			    dur_format((g->to_ms - g->from_ms) / 1000 * 1000, d, sizeof d), from,
			    to + 11);
		}
		rpt_sb_printf(&b,
		              "; that time, and the new ramp-up and warm-up after it, are left out "
		              "of every figure.");
		if (add(x, RPT_T_RUNS, run->label, S_RUN_OPEN, &b) < 0)
			return -1;
	}
	return 0;
}

/* Appends key to a comma-separated list (cut when it would not fit). */
static void keys_add(char *list, size_t len, const char *key)
{
	size_t n = strlen(list);
	if (n + strlen(key) + 2 < len)
		snprintf(list + n, len - n, "%s%s", n ? "," : "", key);
}

/* Does a run degrade over time (report_drift.c): one line per label, the runs grouped by
 * verdict, each degrading or improving run with its sentence. */
static int drift_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 0; l < r->nlabels; l++) {
		char keys[4][512];
		struct sbuf b = {.n = 0};
		double score = 0;
		int n = 0, any = 0;

		memset(keys, 0, sizeof keys);
		rpt_sb_printf(&b, "%s — ", rpt_label_name(r, l));
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			enum rpt_drift_verdict v = run->drift.verdict;
			char rk[64], ds[RPT_DRIFT_SENTENCE_MAX];
			if (run->label != l || !run->drift.judged)
				continue;
			any = 1;
			if (v == RPT_DRIFT_DEGRADING || v == RPT_DRIFT_IMPROVING) {
				size_t len = strlen(rpt_drift_run_sentence(run, ds, sizeof ds));
				sep(&b, &n);
				/* its own sentence, without its full stop: the line goes on */
				rpt_sb_printf(&b, "run %s: %.*s", ref(run, rk, sizeof rk),
				              (int)(len && ds[len - 1] == '.' ? len - 1 : len), ds);
				score = fmax(score,
				             v == RPT_DRIFT_DEGRADING ? S_ERRORS : S_NOT_SATURATED);
			} else {
				keys_add(keys[v == RPT_DRIFT_STABLE ? 0 : 1], sizeof keys[0],
				         ref(run, rk, sizeof rk));
				score =
				    fmax(score, v == RPT_DRIFT_STABLE ? S_MEMORY_OK : S_NOTHING);
			}
		}
		if (!any)
			continue;
		if (keys[0][0]) {
			sep(&b, &n);
			rpt_sb_runs(&b, keys[0]);
			rpt_sb_printf(&b,
			              " stable from the first third of the measured window to the "
			              "last (what moved within noise: the Drift table)");
		}
		if (keys[1][0]) {
			sep(&b, &n);
			rpt_sb_runs(&b, keys[1]);
			rpt_sb_printf(&b, " too short to tell (a third needs %d steady intervals)",
			              RPT_DRIFT_MIN_PART);
		}
		rpt_sb_printf(&b, ".");
		if (add(x, RPT_T_DRIFT, l, score, &b) < 0)
			return -1;
	}
	return 0;
}

/* A merged run's notes: agents that died, lagged or whose clocks disagree. */
static int agent_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nagent_notes; k++) {
			struct sbuf b = {.n = 0};
			rpt_sb_printf(&b, "Run %s (%s), merged from %d of %d agents: %s.", run->key,
			              rpt_label_name(r, run->label), run->agents,
			              run->agents_planned, run->agent_notes[k]);
			if (add(x, RPT_T_RUNS, run->label, S_RUN_FAILED, &b) < 0)
				return -1;
		}
	}
	return 0;
}

static int comparison_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 1; l < r->nlabels; l++) {
		int more = 0, fewer = 0, real_more = 0, real_fewer = 0, n = 0, nt = 0, nl = 0;
		double ts = S_NOISE, ls = S_NOISE;
		struct sbuf t = {.n = 0}, lat = {.n = 0}, head = {.n = 0};
		for (int i = 0; i < r->ncmps; i++) {
			const struct rpt_cmp *m = &r->cmps[i];
			const struct rpt_cell *c = &r->cells[m->cell];
			double tb = m->base_value[RPT_M_TPS], tc = m->value[RPT_M_TPS];
			double pct = tb > 0 ? 100 * (tc - tb) / tb : NAN;
			double ma = m->base_value[RPT_M_MEAN], mc = m->value[RPT_M_MEAN];
			double pa = m->base_value[RPT_M_P99], pc = m->value[RPT_M_P99];
			char p[32];
			if (c->label != l || r->cells[m->base].label != 0)
				continue;
			n++;
			if (tc > tb) {
				more++;
				real_more += m->d[RPT_M_TPS].verdict == RPT_REAL;
			} else if (tc < tb) {
				fewer++;
				real_fewer += m->d[RPT_M_TPS].verdict == RPT_REAL;
			}
			sep(&t, &nt);
			rpt_sb_printf(&t, "at ");
			cell_name(&t, c);
			rpt_sb_printf(&t, " %.1f vs %.1f TPS (%s, %s)", tc, tb,
			              rpt_fmt_pct(pct, p, sizeof p),
			              rpt_verdict_name(m->d[RPT_M_TPS].verdict));
			ts = fmax(ts, change_score(&m->d[RPT_M_TPS], pct));
			if (isnan(ma) || isnan(mc) || !(ma > 0))
				continue;
			sep(&lat, &nl);
			rpt_sb_printf(&lat, "at ");
			cell_name(&lat, c);
			rpt_sb_printf(&lat, " mean ");
			fmt_ms(&lat, mc);
			rpt_sb_printf(&lat, " vs ");
			fmt_ms(&lat, ma);
			rpt_sb_printf(&lat, " (%s, %s), p99 ",
			              rpt_fmt_pct(100 * (mc - ma) / ma, p, sizeof p),
			              rpt_verdict_name(m->d[RPT_M_MEAN].verdict));
			fmt_ms(&lat, pc);
			rpt_sb_printf(&lat, " vs ");
			fmt_ms(&lat, pa);
			rpt_sb_printf(&lat, " (%s, %s)",
			              rpt_fmt_pct(pa > 0 ? 100 * (pc - pa) / pa : NAN, p, sizeof p),
			              rpt_verdict_name(m->d[RPT_M_P99].verdict));
			ls = fmax(ls, change_score(&m->d[RPT_M_MEAN], 100 * (mc - ma) / ma));
			ls = fmax(ls, change_score(&m->d[RPT_M_P99],
			                           pa > 0 ? 100 * (pc - pa) / pa : NAN));
		}
		if (n == 0)
			continue;
		rpt_sb_printf(
		    &head,
		    "%s against %s: more requests per second in %d of %d comparison%s (%d "
		    "beyond noise), fewer in %d (%d beyond noise)",
		    rpt_label_name(r, l), rpt_label_name(r, 0), more, n, n == 1 ? "" : "s",
		    real_more, fewer, real_fewer);
		if (n - more - fewer > 0)
			rpt_sb_printf(&head, ", equal in %d", n - more - fewer);
		rpt_sb_printf(&head, ": %s.", t.s);
		if (add(x, RPT_T_THROUGHPUT, l, ts, &head) < 0)
			return -1;
		if (nl) {
			rpt_sb_reset(&head);
			rpt_sb_printf(&head, "%s against %s: %s.", rpt_label_name(r, l),
			              rpt_label_name(r, 0), lat.s);
			if (add(x, RPT_T_LATENCY, l, ls, &head) < 0)
				return -1;
		}
	}
	return 0;
}

/* --- saturation ------------------------------------------------------------------------------ */

static void usl_clause(struct sbuf *b, const struct report *r, const struct rpt_sweep *sw)
{
	const struct rpt_cell *lo = &r->cells[sw->cells[0]];

	rpt_sb_printf(b, "USL fit: ");
	if (sw->ncells < RPT_USL_MIN_LEVELS) {
		rpt_sb_printf(b, "none, the sweep has %d level%s and a fit needs %d", sw->ncells,
		              sw->ncells == 1 ? "" : "s", RPT_USL_MIN_LEVELS);
		return;
	}
	if (!sw->usl.ok) {
		rpt_sb_printf(b, "none, the levels do not fit the law (no throughput?)");
		return;
	}
	rpt_sb_printf(b, "sigma = %.4f, kappa = %.6f, lambda = %.2f TPS per user (R² %.3f), ",
	              sw->usl.sigma, sw->usl.kappa, sw->usl.lambda, sw->usl.r2);
	if (isfinite(sw->usl.n_star) && sw->usl.n_star < lo->concurrency)
		/* sigma near 1 puts N* below the lowest level measured: the law says nothing
		 * the sweep did not (saturated from the start). */
		rpt_sb_printf(b,
		              "contention dominates (sigma near 1): throughput was already flat at "
		              "the lowest level measured (%d users), so the law predicts no peak "
		              "inside the sweep; measure lower levels",
		              lo->concurrency);
	else if (isfinite(sw->usl.n_star) && isfinite(sw->usl.x_star))
		rpt_sb_printf(b, "predicted peak at N* = %.1f users, %.1f TPS", sw->usl.n_star,
		              sw->usl.x_star);
	else if (isfinite(sw->usl.x_star))
		rpt_sb_printf(b,
		              "no retrograde peak (kappa = 0); throughput approaches "
		              "lambda/sigma = %.1f TPS",
		              sw->usl.x_star);
	else
		rpt_sb_printf(b, "linear scaling (sigma = kappa = 0): no limit in sight");
}

static int sweep_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 0; l < r->nlabels; l++) {
		struct sbuf b = {.n = 0};
		double score = 0;
		int n = 0;
		for (int s = 0; s < r->nsweeps; s++) {
			const struct rpt_sweep *sw = &r->sweeps[s];
			const struct rpt_cell *first = &r->cells[sw->cells[0]];
			const struct rpt_cell *last = &r->cells[sw->cells[sw->ncells - 1]];
			char d[32];
			if (sw->label != l)
				continue;
			rpt_sb_printf(&b, "%s%s's sweep (%d..%d users, %s steps) ", n++ ? " " : "",
			              rpt_label_name(r, l), first->concurrency, last->concurrency,
			              dur_format(sw->planned_ms, d, sizeof d));
			if (sw->ncells < 2) {
				rpt_sb_printf(&b, "has one level only: no saturation to look for");
				score = fmax(score, S_NOT_SATURATED);
			} else if (sw->sat.saturated) {
				const struct rpt_cell *at = &r->cells[sw->cells[sw->sat.at]];
				const struct rpt_cell *pk = &r->cells[sw->cells[sw->sat.peak]];
				rpt_sb_printf(
				    &b,
				    "saturates at %d users: %.1f TPS there is %.0f%% or more "
				    "of the peak %.1f TPS (at %d users)",
				    at->concurrency, at->f.tps, 100 * RPT_SAT_SHARE, pk->f.tps,
				    pk->concurrency);
				score = fmax(score, S_SATURATED);
			} else {
				rpt_sb_printf(
				    &b,
				    "does not saturate: TPS still grows at the highest level "
				    "(%d users, %.1f TPS; %.0f%% of it was not reached below)",
				    last->concurrency, last->f.tps, 100 * RPT_SAT_SHARE);
				score = fmax(score, S_NOT_SATURATED);
			}
			rpt_sb_printf(&b, "; ");
			usl_clause(&b, r, sw);
			if (sw->queueing) {
				const struct rpt_cell *a = &r->cells[sw->q_from],
				                      *z = &r->cells[sw->q_to];
				char p[32];
				rpt_sb_printf(
				    &b,
				    "; past saturation it queues: from %d to %d users TPS stays "
				    "within "
				    "%s%% (%.1f -> %.1f) while the mean latency grows %.1fx (",
				    a->concurrency, z->concurrency,
				    rpt_fmt_num(100 * fabs(z->f.tps - a->f.tps) / a->f.tps, 1, p,
				                sizeof p),
				    a->f.tps, z->f.tps, z->f.mean_us / a->f.mean_us);
				fmt_ms(&b, a->f.mean_us / 1000);
				rpt_sb_printf(&b, " -> ");
				fmt_ms(&b, z->f.mean_us / 1000);
				rpt_sb_printf(&b, "): more users only wait longer (N = X R)");
				score = fmax(score, S_SATURATED + 5);
			}
			rpt_sb_printf(&b, ".");
		}
		if (add(x, RPT_T_SATURATION, l, score, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- memory and GC ------------------------------------------------------------------------ */

/* Memory and GC, one line per label: what stands out first (an exhausted heap, a suspected
 * leak, a heap rising with no old-generation collection to tell a leak, a heap still
 * rising in a window too short to judge, heavy GC, process memory rising), each kind with
 * the runs it concerns and the first one's numbers, then what the other runs showed
 * (normal, flat without needing an old collection, too short to judge, flat), so a study
 * of many runs still reads as one line. */
static int memory_findings(struct fctx *x)
{
	struct report *r = x->r;
	enum {
		EXH,
		LEAK,
		RISING,
		SHORT_RISING,
		HEAVY,
		RSS_UP,
		RSS_LIMIT,
		NORMAL,
		NO_OLD,
		SHORT,
		UNKNOWN,
		RSS_LEVELS,
		FLAT,
		RSS_SHORT,
		RSS_FILLING,
		NKIND
	};
	static const double kind_score[NKIND] = {
	    S_MEMORY_BAD,  S_MEMORY_BAD,    S_GC_HEAVY,      S_GC_HEAVY,    S_GC_HEAVY,
	    S_GC_HEAVY,    S_GC_HEAVY,      S_MEMORY_OK,     S_MEMORY_OK,   S_CONNECTIONS,
	    S_CONNECTIONS, S_NOT_SATURATED, S_NOT_SATURATED, S_CONNECTIONS, S_MEMORY_OK};

	for (int l = 0; l < r->nlabels; l++) {
		char keys[NKIND][512], w[RPT_MEM_WHY_MAX];
		const struct rpt_run *first_run[NKIND] = {0};
		const struct rpt_source *first[NKIND] = {0};
		double gc_max = 0, score = 0;
		int any = 0;

		memset(keys, 0, sizeof keys);
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			if (run->label != l)
				continue;
			for (int k = 0; k < run->nsrc; k++) {
				const struct rpt_source *s = &run->src[k];
				const struct gca_result *g = &s->gc;
				char key[RPT_NAME_MAX + 64];
				int kind;
				if (s->gc_events > 0) {
					kind = g->memory == GCA_EXHAUSTED        ? EXH
					       : g->memory == GCA_SUSPECTED_LEAK ? LEAK
					       : g->memory == GCA_RISING         ? RISING
					       : g->memory == GCA_TOO_SHORT &&
					               g->trend == GCA_SUSPECTED_LEAK
					           ? SHORT_RISING
					       : g->gc_time_pct >= GC_HEAVY_PCT ? HEAVY
					       : g->memory == GCA_NORMAL && g->old_cycles == 0
					           ? NO_OLD
					       : g->memory == GCA_NORMAL    ? NORMAL
					       : g->memory == GCA_TOO_SHORT ? SHORT
					                                    : UNKNOWN;
					gc_max = fmax(gc_max, g->gc_time_pct);
				} else if (s->has_rss && s->rss_fit) {
					/* Judged like the heap (report_mem.c): the steady part,
					 * growth that levels off, a level at the configured limit.
					 */
					kind = s->mem.verdict == RPT_MEM_RISING       ? RSS_UP
					       : s->mem.verdict == RPT_MEM_FILLING    ? RSS_FILLING
					       : s->mem.verdict == RPT_MEM_AT_LIMIT   ? RSS_LIMIT
					       : s->mem.verdict == RPT_MEM_LEVELS_OFF ? RSS_LEVELS
					       : s->mem.verdict == RPT_MEM_FLAT       ? FLAT
					                                              : RSS_SHORT;
				} else {
					continue;
				}
				snprintf(key, sizeof key, "%s%s (%s)", run->key,
				         run->warmup ? " (warm-up)" : "", s->name);
				keys_add(keys[kind], sizeof keys[kind], key);
				if (!first[kind]) {
					first[kind] = s;
					first_run[kind] = run;
				}
				score = fmax(score, kind_score[kind]);
				any = 1;
			}
		}
		if (!any)
			continue;
		struct sbuf b = {.n = 0};
		int n = 0;
		char v[64];
		rpt_sb_printf(&b, "%s — ", rpt_label_name(r, l));
		if (keys[EXH][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "heap exhausted in ");
			rpt_sb_runs(&b, keys[EXH]);
			rpt_sb_printf(&b, " (run %s, %s: %s)", first_run[EXH]->key,
			              first[EXH]->name, first[EXH]->gc.why);
		}
		if (keys[LEAK][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "suspected leak in ");
			rpt_sb_runs(&b, keys[LEAK]);
			rpt_sb_printf(
			    &b, " (run %s, %s: heap after GC %s MB/h, R² %.2f)",
			    first_run[LEAK]->key, first[LEAK]->name,
			    rpt_fmt_signed(first[LEAK]->gc.slope_mb_per_h, 1, v, sizeof v),
			    first[LEAK]->gc.r2);
		}
		if (keys[RISING][0]) {
			const struct gca_result *g = &first[RISING]->gc;
			char h[384];
			sep(&b, &n);
			rpt_sb_printf(&b, "heap after GC rising with %s to tell a leak in ",
			              g->old_cycles ? "too few old-generation collections"
			                            : "no old-generation collection");
			rpt_sb_runs(&b, keys[RISING]);
			rpt_sb_printf(
			    &b, " (run %s, %s: %s MB/h, R² %.2f; %s): a leak is not ruled out",
			    first_run[RISING]->key, first[RISING]->name,
			    rpt_fmt_signed(g->slope_mb_per_h, 1, v, sizeof v), g->r2,
			    gca_headroom_text(g, h, sizeof h));
			if (isfinite(g->run_longer_h))
				rpt_sb_printf(&b,
				              "; run at least %s longer to see whether an old "
				              "collection frees it",
				              gca_hours_text(g->run_longer_h, h, sizeof h));
			else
				rpt_sb_printf(&b, "; force a full collection at the end of a run "
				                  "(jcmd PID GC.run): what it leaves is live");
		}
		if (keys[SHORT_RISING][0]) {
			const struct gca_result *g = &first[SHORT_RISING]->gc;
			char m[32];
			sep(&b, &n);
			rpt_sb_printf(&b, "heap after GC still rising in ");
			rpt_sb_runs(&b, keys[SHORT_RISING]);
			rpt_sb_printf(&b,
			              " though the window is too short to judge (run %s, %s: %s "
			              "MB/h, R² %.2f): run at least %s longer to tell a leak",
			              first_run[SHORT_RISING]->key, first[SHORT_RISING]->name,
			              rpt_fmt_signed(g->slope_mb_per_h, 1, v, sizeof v), g->r2,
			              gca_hours_text(g->run_longer_h, m, sizeof m));
		}
		if (keys[HEAVY][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "heavy GC in ");
			rpt_sb_runs(&b, keys[HEAVY]);
			rpt_sb_printf(
			    &b, " (run %s, %s: %.2f%% of the wall time in pauses, longest %.1f ms)",
			    first_run[HEAVY]->key, first[HEAVY]->name, first[HEAVY]->gc.gc_time_pct,
			    first[HEAVY]->gc.pause_max_ms);
		}
		if (keys[RSS_UP][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "process memory rising in ");
			rpt_sb_runs(&b, keys[RSS_UP]);
			rpt_sb_printf(&b, " (run %s, %s: %s)", first_run[RSS_UP]->key,
			              first[RSS_UP]->name,
			              rpt_mem_src_why(first[RSS_UP], w, sizeof w));
		}
		if (keys[RSS_FILLING][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "a cache filling in ");
			rpt_sb_runs(&b, keys[RSS_FILLING]);
			rpt_sb_printf(&b, " (run %s, %s: %s)", first_run[RSS_FILLING]->key,
			              first[RSS_FILLING]->name,
			              rpt_mem_src_why(first[RSS_FILLING], w, sizeof w));
		}
		if (keys[RSS_LIMIT][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "process memory at its configured limit in ");
			rpt_sb_runs(&b, keys[RSS_LIMIT]);
			rpt_sb_printf(&b, " (run %s, %s: %s)", first_run[RSS_LIMIT]->key,
			              first[RSS_LIMIT]->name,
			              rpt_mem_src_why(first[RSS_LIMIT], w, sizeof w));
		}
		if (keys[NORMAL][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "memory reclaimed normally in ");
			rpt_sb_runs(&b, keys[NORMAL]);
		}
		if (keys[NO_OLD][0]) {
			char h[384];
			sep(&b, &n);
			rpt_sb_printf(&b, "heap after GC never needed an old-generation "
			                  "collection in ");
			rpt_sb_runs(&b, keys[NO_OLD]);
			rpt_sb_printf(
			    &b, " (run %s, %s: %s MB/h; %s)", first_run[NO_OLD]->key,
			    first[NO_OLD]->name,
			    rpt_fmt_signed(first[NO_OLD]->gc.slope_mb_per_h, 1, v, sizeof v),
			    gca_headroom_text(&first[NO_OLD]->gc, h, sizeof h));
		}
		if (keys[SHORT][0]) {
			char m[32];
			sep(&b, &n);
			rpt_sb_printf(&b, "the GC log of ");
			rpt_sb_runs(&b, keys[SHORT]);
			rpt_sb_printf(
			    &b,
			    " is too short to judge a trend (at least %d min of steady log "
			    "are needed; run %s, %s: run at least %s longer)",
			    GCA_MIN_WINDOW_MS / 60000, first_run[SHORT]->key, first[SHORT]->name,
			    gca_hours_text(first[SHORT]->gc.run_longer_h, m, sizeof m));
		}
		if (keys[UNKNOWN][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "memory not judged in ");
			rpt_sb_runs(&b, keys[UNKNOWN]);
			rpt_sb_printf(&b, " (%s)", first[UNKNOWN]->gc.why);
		}
		if (keys[RSS_LEVELS][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "process memory grows, then levels off in ");
			rpt_sb_runs(&b, keys[RSS_LEVELS]);
			rpt_sb_printf(&b, " (run %s, %s: %s)", first_run[RSS_LEVELS]->key,
			              first[RSS_LEVELS]->name,
			              rpt_mem_src_why(first[RSS_LEVELS], w, sizeof w));
		}
		if (keys[FLAT][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "process memory flat in ");
			rpt_sb_runs(&b, keys[FLAT]);
		}
		if (keys[RSS_SHORT][0]) {
			sep(&b, &n);
			rpt_sb_printf(&b, "process memory of ");
			rpt_sb_runs(&b, keys[RSS_SHORT]);
			rpt_sb_printf(&b, " over too short a window to judge a trend (%s)",
			              rpt_mem_src_why(first[RSS_SHORT], w, sizeof w));
		}
		if (gc_max > 0 || keys[NORMAL][0] || keys[NO_OLD][0] || keys[SHORT][0])
			rpt_sb_printf(&b,
			              "; GC paused the application at most %.2f%% of the wall time",
			              gc_max);
		rpt_sb_printf(&b, ".");
		if (add(x, RPT_T_MEMORY, l, score, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- errors ---------------------------------------------------------------------------------- */

static int error_findings(struct fctx *x)
{
	struct report *r = x->r;
	int any = 0;

	for (int l = 0; l < r->nlabels; l++) {
		int64_t count[ERR_NCLASS] = {0}, req = 0, client = 0, server = 0;
		int64_t wreq = 0, werr = 0; /* warm-up runs: shown apart, never pooled */
		const char *sample[ERR_NCLASS] = {0};
		struct sbuf b = {.n = 0};
		double score = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			if (run->label != l)
				continue;
			if (!run->compared) {
				wreq += run->st.requests;
				werr += run->st.errors;
				continue;
			}
			req += run->st.requests;
			for (int c = 0; c < ERR_NCLASS; c++) {
				if (run->st.err_count[c] && !sample[c])
					sample[c] = run->st.err_sample[c];
				count[c] += run->st.err_count[c];
			}
		}
		for (int c = 0; c < ERR_NCLASS; c++)
			*(err_class_client_side((enum err_class)c) ? &client : &server) += count[c];
		for (int side = 0; side < 2; side++) {
			int64_t total = side ? client : server;
			int first = 1;
			double pct = req ? 100.0 * (double)total / (double)req : 0.0;
			if (total == 0)
				continue;
			any = 1;
			if (side)
				rpt_sb_printf(
				    &b,
				    "%s%s: %lld client-side error%s, the load generator's own "
				    "limits (out of ephemeral ports, DNS), not the server's: ",
				    b.n ? " " : "", rpt_label_name(r, l), (long long)total,
				    total == 1 ? "" : "s");
			else
				rpt_sb_printf(
				    &b,
				    "%s: %.2f%% of requests failed on the server side over its "
				    "compared runs (%lld of %lld): ",
				    rpt_label_name(r, l), pct, (long long)total, (long long)req);
			for (int c = 0; c < ERR_NCLASS; c++) {
				if (!count[c] || err_class_client_side((enum err_class)c) != side)
					continue;
				rpt_sb_printf(&b, "%s%s %lld ('%s')", first ? "" : ", ",
				              err_class_name((enum err_class)c),
				              (long long)count[c], sample[c] ? sample[c] : "");
				first = 0;
			}
			rpt_sb_printf(&b, ".");
			score = fmax(score, side                       ? S_CLIENT_ERRORS
			                    : pct > ERRORS_SERIOUS_PCT ? S_ERRORS
			                                               : S_ERRORS_FEW);
		}
		if (werr > 0) {
			any = 1;
			rpt_sb_printf(&b,
			              "%s%s: %lld of %lld requests failed in runs not compared "
			              "(warm-up runs, interrupted study runs).",
			              b.n ? " " : "", rpt_label_name(r, l), (long long)werr,
			              (long long)wreq);
			score = fmax(score, S_NOTHING);
		}
		if (b.n == 0)
			continue;
		if (add(x, RPT_T_ERRORS, l, score, &b) < 0)
			return -1;
	}
	if (!any) {
		struct sbuf b = {.n = 0};
		rpt_sb_printf(&b, "No request failed in any measured window.");
		if (add(x, RPT_T_ERRORS, -1, S_NOTHING, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- connections ------------------------------------------------------------------------------ */

static int connection_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 0; l < r->nlabels; l++) {
		struct sbuf b = {.n = 0};
		char held[96] = "";
		double score = 0;
		int n = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			const struct figures *f = &run->f;
			int64_t req = run->st.requests, nc = run->st.new_conns;
			char rk[64];
			if (run->label != l || req == 0)
				continue;
			if (strcmp(run->connection, "close") != 0 && nc == 0) {
				size_t u = strlen(held);
				snprintf(held + u, sizeof held - u, "%s%s", u ? "," : "",
				         ref(run, rk, sizeof rk));
				continue;
			}
			sep(&b, &n);
			if (!strcmp(run->connection, "close")) {
				rpt_sb_printf(
				    &b,
				    "run %s, connection close: %lld new connections for %lld "
				    "requests (%.2f per request; one per request is the design)",
				    ref(run, rk, sizeof rk), (long long)nc, (long long)req,
				    (double)nc / (double)req);
			} else if ((double)req / (double)nc >= KEEPALIVE_HELD_REQS) {
				double per = (double)req / (double)nc;
				rpt_sb_printf(
				    &b,
				    "run %s, keep-alive held, with a new connection every %.0f "
				    "requests (%lld for %lld): the server or a proxy ends a "
				    "connection after about that many requests%s",
				    ref(run, rk, sizeof rk), per, (long long)nc, (long long)req,
				    per >= 90 && per <= 110 ? " (Tomcat's maxKeepAliveRequests "
				                              "is 100 by default)"
				                            : "");
			} else {
				rpt_sb_printf(
				    &b,
				    "run %s, keep-alive did not hold: only %.1f requests per "
				    "connection (%lld new connections for %lld requests): the "
				    "server or a proxy closes them",
				    ref(run, rk, sizeof rk), (double)req / (double)nc,
				    (long long)nc, (long long)req);
				score = fmax(score, S_KEEPALIVE_LOST);
			}
			if ((double)nc >= 0.5 * (double)req && f->connect_us > 0) {
				if (!strcmp(run->protocol, "tcp-frame")) {
					/* tcp-frame: the iteration's latency excludes connect and
					 * handshake, which are measured apart (the handshake in the
					 * ttfb column). */
					double all = f->connect_us + f->ttfb_us + f->mean_us;
					rpt_sb_printf(
					    &b,
					    "; one connection per iteration: connect %.3f ms + "
					    "handshake %.3f ms + the batch %.3f ms, %.1f%% of "
					    "each iteration going to connecting and the handshake",
					    f->connect_us / 1000, f->ttfb_us / 1000,
					    f->mean_us / 1000,
					    all > 0 ? 100 * (f->connect_us + f->ttfb_us) / all : 0);
				} else {
					rpt_sb_printf(
					    &b,
					    "; connecting takes %.3f ms of a %.3f ms request "
					    "(%.1f%%), the first byte of the answer comes after "
					    "%.3f ms",
					    f->connect_us / 1000, f->mean_us / 1000,
					    f->mean_us > 0 ? 100 * f->connect_us / f->mean_us : 0,
					    f->ttfb_us / 1000);
				}
			}
			score = fmax(score, S_CONNECTIONS);
		}
		if (held[0]) {
			sep(&b, &n);
			rpt_sb_runs(&b, held);
			rpt_sb_printf(&b, ": keep-alive held, no new connection in the measured "
			                  "window");
			score = fmax(score, S_CONNECTIONS);
		}
		if (n) {
			struct sbuf line = {.n = 0};
			rpt_sb_printf(&line, "%s — %s.", rpt_label_name(r, l), b.s);
			if (add(x, RPT_T_CONNECTIONS, l, score, &line) < 0)
				return -1;
		}
	}
	return 0;
}

/* --- server cost --------------------------------------------------------------------------------
 */

/* The first process source (not the host) of a run with CPU samples: the server. */
static const struct rpt_source *server_source(const struct rpt_run *run)
{
	for (int k = 0; k < run->nsrc; k++)
		if (run->src[k].has_cpu && strcmp(run->src[k].name, "host") != 0 &&
		    !strstr(run->src[k].name, ":host"))
			return &run->src[k];
	return NULL;
}

/* What one request costs the server: CPU ms per request and memory (mean, peak). */
struct cost {
	const struct rpt_source *src;
	double cpu_ms;  /* CPU time per request, ms (NAN when unknown) */
	double mem_mb;  /* mean memory over the measured window (NAN when unknown) */
	double peak_mb; /* largest memory seen in the run (NAN when unknown) */
};

static void run_cost(const struct rpt_run *run, struct cost *c)
{
	c->src = server_source(run);
	c->cpu_ms = c->mem_mb = c->peak_mb = NAN;
	if (!c->src || run->st.requests == 0 || run->f.seconds <= 0)
		return;
	c->cpu_ms = c->src->cpu_mean / 100.0 * run->f.seconds * 1000.0 / (double)run->st.requests;
	if (c->src->has_rss) {
		c->mem_mb = c->src->rss_mean_mb;
		c->peak_mb = 0;
		for (size_t i = 0; i < c->src->nrss_ts; i++)
			if (c->src->rss_ts[i].v > c->peak_mb)
				c->peak_mb = c->src->rss_ts[i].v;
	}
}

/* What a request costs the server per run (warm-up runs marked: they are shown, never
 * compared), then the label against the baseline: the verdict row's own figures (the
 * compared runs of the comparison it rests on), so the two sections never give one
 * quantity two values. */
static int cost_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 0; l < r->nlabels; l++) {
		struct sbuf b = {.n = 0};
		double score = S_COST_ONE;
		int k = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			struct cost c;
			if (run->label != l)
				continue;
			run_cost(run, &c);
			if (!c.src || !isfinite(c.cpu_ms))
				continue;
			sep(&b, &k);
			rpt_sb_printf(&b, "run %s%s, %s: %.3f ms of CPU per %s", run->key,
			              run->warmup      ? " (warm-up, not compared)"
			              : !run->compared ? " (not compared)"
			                               : "",
			              c.src->name, c.cpu_ms,
			              strcmp(run->protocol, "tcp-frame") ? "request" : "iteration");
			if (isfinite(c.mem_mb))
				rpt_sb_printf(&b, ", memory %.1f MB on average, %.1f MB at most",
				              c.mem_mb, c.peak_mb);
		}
		if (k == 0)
			continue;
		const struct rpt_vrow *v = l > 0 && l < r->nverdicts ? &r->verdicts[l] : NULL;
		if (v && v->cell >= 0 && v->cmp >= 0) {
			const struct rpt_cmp *m = &r->cmps[v->cmp];
			int first = 1;
			for (int s = 0; s < r->ncpu; s++) {
				int f = RPT_FIG_CPU(s);
				double a = m->base_value[f], c = m->value[f];
				char p[32], at[96];
				if (!isfinite(a) || !isfinite(c) || !(a > 0))
					continue;
				if (first)
					rpt_sb_printf(
					    &b,
					    "; against %s at %s (the verdict's compared runs): ",
					    rpt_label_name(r, 0),
					    rpt_cell_text(&r->cells[v->cell], at, sizeof at));
				rpt_sb_printf(
				    &b, "%s%s %.2fx the CPU per request (%.3f vs %.3f ms, %s, %s)",
				    first ? "" : ", ", r->cpu_names[s], c / a, c, a,
				    rpt_fmt_pct(100 * (c - a) / a, p, sizeof p),
				    rpt_verdict_name(m->d[f].verdict));
				first = 0;
				score =
				    fmax(score, m->d[f].verdict == RPT_REAL
				                    ? S_COST_BASE + fmin(40, 100 * fabs(c / a - 1))
				                    : S_COST_ONE);
			}
		}
		struct sbuf line = {.n = 0};
		rpt_sb_printf(&line, "%s — %s.", rpt_label_name(r, l), b.s);
		if (add(x, RPT_T_COST, l, score, &line) < 0)
			return -1;
	}
	return 0;
}

/* --- what matters most ---------------------------------------------------------------------- */

static int cmp_topic(const void *pa, const void *pb)
{
	const struct rpt_item *a = pa, *b = pb;
	if (a->topic != b->topic)
		return (int)a->topic - (int)b->topic;
	return (a->label < 0 ? RPT_MAX_LABELS : a->label) -
	       (b->label < 0 ? RPT_MAX_LABELS : b->label);
}

/* Marks the RPT_TOP_FINDINGS highest scores (earlier topics win ties); a line that only
 * says nothing is wrong, or too little to judge, never counts as mattering. */
static void mark_top(struct report *r)
{
	for (int k = 0; k < RPT_TOP_FINDINGS; k++) {
		int best = -1;
		for (int i = 0; i < r->nfindings; i++)
			if (!r->findings[i].top && r->findings[i].score >= S_TOP_MIN &&
			    (best < 0 || r->findings[i].score > r->findings[best].score))
				best = i;
		if (best < 0)
			break;
		r->findings[best].top = 1;
	}
}

int rpt_findings(struct report *r)
{
	struct fctx x = {.r = r, .cap = 0};

	if (status_findings(&x) < 0 || gap_findings(&x) < 0 || agent_findings(&x) < 0 ||
	    comparison_findings(&x) < 0 || sweep_findings(&x) < 0 || memory_findings(&x) < 0 ||
	    drift_findings(&x) < 0 || error_findings(&x) < 0 || connection_findings(&x) < 0 ||
	    cost_findings(&x) < 0)
		return -1;
	/* Topic order, then label order; insertion keeps it stable (few lines). */
	for (int i = 1; i < r->nfindings; i++) {
		struct rpt_item f = r->findings[i];
		int j = i;
		for (; j > 0 && cmp_topic(&r->findings[j - 1], &f) > 0; j--)
			r->findings[j] = r->findings[j - 1];
		r->findings[j] = f;
	}
	mark_top(r);
	return 0;
}

int rpt_top_findings(const struct report *r, int *idx)
{
	int n = 0;

	for (int i = 0; i < r->nfindings; i++) {
		int at;
		if (!r->findings[i].top || n == RPT_TOP_FINDINGS)
			continue;
		/* Insertion by score, highest first; equal scores keep their order. */
		for (at = n; at > 0 && r->findings[idx[at - 1]].score < r->findings[i].score; at--)
			idx[at] = idx[at - 1];
		idx[at] = i;
		n++;
	}
	return n;
}
