/* report_findings: the findings of the report — one line per topic and label, worded from
 * the cells, comparisons, sweeps, verdicts and collector series rpt_build judged (numbers
 * here are only formatted and compared against the thresholds below, never computed anew,
 * and nothing outside write/ reads them) — and which RPT_TOP_FINDINGS of them matter most.
 * rpt_write_files words them before it writes the files that show them.
 *
 * How much a line matters (its score, 0..100) is a fixed ranking of what a tester must
 * act on first: a suspected leak or a crashed run before a real difference, a real
 * difference before one within noise, the size of a real difference before its topic.
 */
#include "report_findings.h"
#include "report/judge/report_compare.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dur.h"
#include "report/report_text.h"
#include "report/judge/report_cost.h"
#include "report/judge/report_stats.h"
#include "report_drift_text.h"
#include "report_mem_text.h"

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
#define S_KEEPALIVE_LOST S_TOP_MIN /* a fact of the set-up: said last, if at all */
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

static int add(struct fctx *x, enum rpt_topic topic, int label, double score, struct sbuf *b)
{
	struct rpt_item it = {.topic = topic, .label = label, .score = score};
	int rc = 0;

	snprintf(it.code, sizeof it.code, "%s", rpt_topic_key(topic));
	if (rpt_sb_len(b) > 0)
		rc = rpt_item_add(&x->r->findings, &x->r->nfindings, &x->cap, &it, rpt_sb_str(b));
	rpt_sb_release(b);
	return rc;
}

/* One line per label about a topic: line() words label l's into b and raises *score (from
 * 0); a line left empty is not added.  -1 out of memory. */
static int label_lines(struct fctx *x, enum rpt_topic topic,
                       int (*line)(const struct report *r, int l, struct sbuf *b, double *score))
{
	for (int l = 0; l < x->r->nlabels; l++) {
		struct sbuf b = {0};
		double score = 0;
		if (line(x->r, l, &b, &score) < 0) {
			rpt_sb_release(&b);
			return -1;
		}
		if (add(x, topic, l, score, &b) < 0)
			return -1;
	}
	return 0;
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

/* How a run that is not done ended: "Run KEY (LABEL)", the head, its status when the
 * table has no row of its own for it (status NULL), its reason in brackets when the row
 * says it, then mid, the time measured, tail. */
static const struct {
	const char *status; /* the runs' status, or NULL: any other */
	double score;       /* how much the line matters */
	const char *head, *mid, *tail;
	int reason; /* the run's reason is said (when it has one) */
} run_ends[] = {
    {"running", S_RUN_OPEN, " is still running", ": this report covers the ", " measured so far.",
     0},
    {"crashed", S_RUN_FAILED, " crashed: its runner stopped without closing the run",
     "; the figures cover the ", " measured until then.", 0},
    {"interrupted", S_RUN_OPEN, " was interrupted", ": the figures cover the ",
     " measured before it stopped.", 1},
    {NULL, S_RUN_FAILED, " ended as '", "; the figures cover the ", " measured.", 1},
};

/* Label l's runs that are not done, each with how it ended. */
static int status_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int k = 0;
		char d[32];
		if (run->label != l || !strcmp(run->status, "done"))
			continue;
		while (run_ends[k].status && strcmp(run_ends[k].status, run->status))
			k++;
		dur_format((int64_t)llround(run->f.seconds) * 1000, d, sizeof d);
		rpt_sb_printf(b, "%sRun %s (%s)%s", rpt_sb_len(b) ? " " : "", run->key,
		              rpt_label_name(r, l), run_ends[k].head);
		if (!run_ends[k].status)
			rpt_sb_printf(b, "%s'", run->status);
		if (run_ends[k].reason && *run->reason)
			rpt_sb_printf(b, " (%s)", run->reason);
		rpt_sb_printf(b, "%s%s%s", run_ends[k].mid, d, run_ends[k].tail);
		*score = fmax(*score, run_ends[k].score);
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
		struct sbuf b = {0};
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

/* Every judged run too short to tell, said in one line for the report; 0 when not so. */
static int drift_all_short(struct fctx *x)
{
	struct report *r = x->r;
	int n = 0;
	double lo = INFINITY, hi = 0;
	char a[32], b2[32];

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!run->drift.judged)
			continue;
		if (run->drift.verdict != RPT_DRIFT_TOO_SHORT || r->nlabels < 2)
			return 0;
		lo = fmin(lo, run->drift.window_s);
		hi = fmax(hi, run->drift.window_s);
		n++;
	}
	if (n < 2)
		return 0;
	struct sbuf b = {0};
	dur_format((int64_t)llround(lo) * 1000, a, sizeof a);
	dur_format((int64_t)llround(hi) * 1000, b2, sizeof b2);
	rpt_sb_printf(
	    &b,
	    "All %d runs too short to tell whether they degrade (%s%s%s measured; a third "
	    "needs %d steady intervals).",
	    n, a, strcmp(a, b2) ? "-" : "", strcmp(a, b2) ? b2 : "", RPT_DRIFT_MIN_PART);
	return add(x, RPT_T_DRIFT, -1, S_NOTHING, &b) < 0 ? -1 : 1;
}

/* Does a run degrade over time (report_drift.c): label l's runs grouped by verdict, each
 * degrading or improving run with its sentence. */
static int drift_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	unsigned char *sel = calloc(2 * (size_t)(r->nruns ? r->nruns : 1), 1), *keys[2];
	int n = 0, any = 0, nk[2] = {0, 0};

	if (!sel)
		return -1;
	keys[0] = sel;            /* the stable runs */
	keys[1] = sel + r->nruns; /* those too short to tell */
	rpt_sb_printf(b, "%s — ", rpt_label_name(r, l));
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		enum rpt_drift_verdict v = run->drift.verdict;
		char rk[64];
		if (run->label != l || !run->drift.judged)
			continue;
		any = 1;
		if (v == RPT_DRIFT_DEGRADING || v == RPT_DRIFT_IMPROVING) {
			size_t len;
			sep(b, &n);
			rpt_sb_printf(b, "run %s: ", ref(run, rk, sizeof rk));
			rpt_drift_run_sentence(b, run);
			/* its own sentence, without its full stop: the line goes on */
			len = rpt_sb_len(b);
			if (len && rpt_sb_str(b)[len - 1] == '.')
				rpt_sb_trim(b, len - 1);
			*score =
			    fmax(*score, v == RPT_DRIFT_DEGRADING ? S_ERRORS : S_NOT_SATURATED);
		} else {
			int k = v == RPT_DRIFT_STABLE ? 0 : 1;
			keys[k][i] = 1;
			nk[k]++;
			*score = fmax(*score, v == RPT_DRIFT_STABLE ? S_MEMORY_OK : S_NOTHING);
		}
	}
	if (nk[0]) {
		sep(b, &n);
		rpt_sb_runsel(b, r, keys[0], l);
		rpt_sb_printf(b, " stable from the first third of the measured window to the last "
		                 "(what moved within noise: the Drift table)");
	}
	if (nk[1]) {
		sep(b, &n);
		rpt_sb_runsel(b, r, keys[1], l);
		rpt_sb_printf(b, " too short to tell (a third needs %d steady intervals)",
		              RPT_DRIFT_MIN_PART);
	}
	rpt_sb_printf(b, ".");
	if (!any) /* no run of the label was judged: no line */
		rpt_sb_reset(b);
	free(sel);
	return 0;
}

/* One line per label; one for the report when every run is too short to tell. */
static int drift_findings(struct fctx *x)
{
	int all = drift_all_short(x);

	if (all != 0)
		return all < 0 ? -1 : 0;
	return label_lines(x, RPT_T_DRIFT, drift_line);
}

/* A merged run's notes: agents that died, lagged or whose clocks disagree. */
static int agent_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nagent_notes; k++) {
			struct sbuf b = {0};
			rpt_sb_printf(&b, "Run %s (%s), merged from %d of %d agents: %s.", run->key,
			              rpt_label_name(r, run->label), run->agents,
			              run->agents_planned, run->agent_notes[k]);
			if (add(x, RPT_T_RUNS, run->label, S_RUN_FAILED, &b) < 0)
				return -1;
		}
	}
	return 0;
}

/* "WHAT 12.3 ms vs 10.1 ms (+21.8%, real)": latency k of comparison m; its score. */
static double latency_change(struct sbuf *b, const char *what, const struct rpt_cmp *m, int k)
{
	double a, v, pct;
	char p[32];

	rpt_cmp_values(m, k, &a, &v);
	pct = a > 0 ? 100 * (v - a) / a : NAN;
	rpt_sb_printf(b, "%s", what);
	fmt_ms(b, v);
	rpt_sb_printf(b, " vs ");
	fmt_ms(b, a);
	rpt_sb_printf(b, " (%s, %s)", rpt_fmt_pct(pct, p, sizeof p),
	              rpt_verdict_name(m->d[k].verdict));
	return change_score(&m->d[k], pct);
}

static int comparison_findings(struct fctx *x)
{
	struct report *r = x->r;

	for (int l = 1; l < r->nlabels; l++) {
		int more = 0, fewer = 0, real_more = 0, real_fewer = 0, n = 0, nt = 0, nl = 0;
		double ts = S_NOISE, ls = S_NOISE;
		struct sbuf t = {0}, lat = {0}, head = {0};
		for (int i = 0; i < r->ncmps; i++) {
			const struct rpt_cmp *m = &r->cmps[i];
			const struct rpt_cell *c = &r->cells[m->cell];
			double tb, tc, ma, mc;
			rpt_cmp_values(m, RPT_M_TPS, &tb, &tc);
			rpt_cmp_values(m, RPT_M_MEAN, &ma, &mc);
			double pct = tb > 0 ? 100 * (tc - tb) / tb : NAN;
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
			ls = fmax(ls, latency_change(&lat, " mean ", m, RPT_M_MEAN));
			ls = fmax(ls, latency_change(&lat, ", p99 ", m, RPT_M_P99));
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
		rpt_sb_printf(&head, ": %s.", rpt_sb_str(&t));
		rpt_sb_release(&t);
		if (add(x, RPT_T_THROUGHPUT, l, ts, &head) < 0) {
			rpt_sb_release(&lat);
			return -1;
		}
		if (nl)
			rpt_sb_printf(&head, "%s against %s: %s.", rpt_label_name(r, l),
			              rpt_label_name(r, 0), rpt_sb_str(&lat));
		rpt_sb_release(&lat);
		if (add(x, RPT_T_LATENCY, l, ls, &head) < 0)
			return -1;
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

/* Label l's sweeps: where each saturates, its USL fit, and whether it queues past that. */
static int sweep_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	int n = 0;

	for (int s = 0; s < r->nsweeps; s++) {
		const struct rpt_sweep *sw = &r->sweeps[s];
		const struct rpt_cell *first = &r->cells[sw->cells[0]];
		const struct rpt_cell *last = &r->cells[sw->cells[sw->ncells - 1]];
		char d[32];
		if (sw->label != l)
			continue;
		rpt_sb_printf(b, "%s%s's sweep (%d..%d users, %s steps) ", n++ ? " " : "",
		              rpt_label_name(r, l), first->concurrency, last->concurrency,
		              dur_format(sw->planned_ms, d, sizeof d));
		if (sw->ncells < 2) {
			rpt_sb_printf(b, "has one level only: no saturation to look for");
			*score = fmax(*score, S_NOT_SATURATED);
		} else if (sw->sat.saturated) {
			const struct rpt_cell *at = &r->cells[sw->cells[sw->sat.at]];
			const struct rpt_cell *pk = &r->cells[sw->cells[sw->sat.peak]];
			rpt_sb_printf(b,
			              "saturates at %d users: %.1f TPS there is %.0f%% or more "
			              "of the peak %.1f TPS (at %d users)",
			              at->concurrency, at->f.tps, 100 * RPT_SAT_SHARE, pk->f.tps,
			              pk->concurrency);
			*score = fmax(*score, S_SATURATED);
		} else {
			rpt_sb_printf(b,
			              "does not saturate: TPS still grows at the highest level "
			              "(%d users, %.1f TPS; %.0f%% of it was not reached below)",
			              last->concurrency, last->f.tps, 100 * RPT_SAT_SHARE);
			*score = fmax(*score, S_NOT_SATURATED);
		}
		rpt_sb_printf(b, "; ");
		usl_clause(b, r, sw);
		if (sw->queueing) {
			const struct rpt_cell *a = &r->cells[sw->q_from], *z = &r->cells[sw->q_to];
			char p[32];
			rpt_sb_printf(
			    b,
			    "; past saturation it queues: from %d to %d users TPS stays "
			    "within "
			    "%s%% (%.1f -> %.1f) while the mean latency grows %.1fx (",
			    a->concurrency, z->concurrency,
			    rpt_fmt_num(100 * fabs(z->f.tps - a->f.tps) / a->f.tps, 1, p, sizeof p),
			    a->f.tps, z->f.tps, z->f.mean_us / a->f.mean_us);
			fmt_ms(b, a->f.mean_us / 1000);
			rpt_sb_printf(b, " -> ");
			fmt_ms(b, z->f.mean_us / 1000);
			rpt_sb_printf(b, "): more users only wait longer (N = X R)");
			*score = fmax(*score, S_SATURATED + 5);
		}
		rpt_sb_printf(b, ".");
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
/* Which runs of each kind of memory line, per source: sel[(kind * RPT_MAX_SOURCES + s) *
 * nruns + i] for run i and source name src[s]. */
struct memsel {
	unsigned char *sel;                      /* the bits (owned) */
	char src[RPT_MAX_SOURCES][RPT_NAME_MAX]; /* the sources' names, as they come */
	int nsrc;                                /* entries in src */
	int nruns;                               /* runs of the report */
};

static void memsel_add(struct memsel *m, int kind, const char *src, int run)
{
	int s = 0;
	while (s < m->nsrc && strcmp(m->src[s], src) != 0)
		s++;
	if (s == m->nsrc) {
		if (m->nsrc == RPT_MAX_SOURCES)
			return;
		snprintf(m->src[m->nsrc++], RPT_NAME_MAX, "%s", src);
	}
	m->sel[((size_t)kind * RPT_MAX_SOURCES + (size_t)s) * (size_t)m->nruns + (size_t)run] = 1;
}

/* "app in all 8 runs (2 warm-up)", "app in runs 3 and 4, db in run 5": a kind's runs, said
 * once per source. */
static void memsel_runs(struct sbuf *b, const struct report *r, const struct memsel *m, int kind,
                        int label)
{
	int n = 0;
	for (int s = 0; s < m->nsrc; s++) {
		const unsigned char *sel =
		    m->sel + ((size_t)kind * RPT_MAX_SOURCES + (size_t)s) * (size_t)m->nruns;
		int any = 0;
		for (int i = 0; i < m->nruns && !any; i++)
			any = sel[i];
		if (!any)
			continue;
		rpt_sb_printf(b, "%s%s in ", n++ ? ", " : "", m->src[s]);
		rpt_sb_runsel(b, r, sel, label);
	}
}

/* The kinds of memory line, in the order a line says them (the worst first). */
enum mkind {
	MK_EXH,
	MK_LEAK,
	MK_RISING,
	MK_SHORT_RISING,
	MK_HEAVY,
	MK_RSS_UP,
	MK_RSS_FILLING,
	MK_RSS_LIMIT,
	MK_NORMAL,
	MK_NO_OLD,
	MK_SHORT,
	MK_UNKNOWN,
	MK_RSS_LEVELS,
	MK_FLAT,
	MK_RSS_SHORT,
	MK_N
};

/* One label's memory line as it is gathered: the runs of each kind, the first run and
 * source of each (whose numbers the line quotes), and what some kinds sum up. */
struct memline {
	const struct report *r;
	struct memsel ms;
	const struct rpt_run *run[MK_N];
	const struct rpt_source *src[MK_N];
	double short_lo, short_hi; /* MK_RSS_SHORT: the shortest and longest window, h */
	double longer;             /* MK_SHORT: the longest "run longer" of its GC logs, h */
	double gc_max;             /* the highest share of wall time in GC pauses, % */
	int label;
};

/* The kind of source s's memory line: by its GC log where it has one, else by its process
 * memory (judged like the heap, report_mem.c); -1 when neither was judged. */
static int mem_kind(const struct rpt_source *s)
{
	const struct gca_result *g = &s->gc;

	if (s->gc_events > 0)
		return g->memory == GCA_EXHAUSTED        ? MK_EXH
		       : g->memory == GCA_SUSPECTED_LEAK ? MK_LEAK
		       : g->memory == GCA_RISING         ? MK_RISING
		       : g->memory == GCA_TOO_SHORT && g->trend == GCA_SUSPECTED_LEAK
		           ? MK_SHORT_RISING
		       : g->gc_time_pct >= GC_HEAVY_PCT                ? MK_HEAVY
		       : g->memory == GCA_NORMAL && g->old_cycles == 0 ? MK_NO_OLD
		       : g->memory == GCA_NORMAL                       ? MK_NORMAL
		       : g->memory == GCA_TOO_SHORT                    ? MK_SHORT
		                                                       : MK_UNKNOWN;
	if (!s->has_rss || !s->rss_fit)
		return -1;
	return s->mem.verdict == RPT_MEM_RISING       ? MK_RSS_UP
	       : s->mem.verdict == RPT_MEM_FILLING    ? MK_RSS_FILLING
	       : s->mem.verdict == RPT_MEM_AT_LIMIT   ? MK_RSS_LIMIT
	       : s->mem.verdict == RPT_MEM_LEVELS_OFF ? MK_RSS_LEVELS
	       : s->mem.verdict == RPT_MEM_FLAT       ? MK_FLAT
	                                              : MK_RSS_SHORT;
}

/* Counts source s of run i (index ri) in m under its kind; -1 when it has none. */
static int memline_add(struct memline *m, const struct rpt_run *run, int ri,
                       const struct rpt_source *s)
{
	int kind = mem_kind(s);

	if (kind < 0)
		return -1;
	memsel_add(&m->ms, kind, s->name, ri);
	if (s->gc_events > 0)
		m->gc_max = fmax(m->gc_max, s->gc.gc_time_pct);
	if (kind == MK_RSS_SHORT) {
		m->short_lo = fmin(m->short_lo, s->mem.hours);
		m->short_hi = fmax(m->short_hi, s->mem.hours);
	}
	if (kind == MK_SHORT && isfinite(s->gc.run_longer_h))
		m->longer = fmax(m->longer, s->gc.run_longer_h);
	if (!m->src[kind]) {
		m->src[kind] = s;
		m->run[kind] = run;
	}
	return kind;
}

/* The tails of the clauses: what the first run of the kind showed. */
static void tail_gc_why(struct sbuf *b, const struct memline *m, int k)
{
	rpt_sb_printf(b, " (run %s, %s: %s)", m->run[k]->key, m->src[k]->name, m->src[k]->gc.why);
}

static void tail_leak(struct sbuf *b, const struct memline *m, int k)
{
	char v[64];
	rpt_sb_printf(b, " (run %s, %s: heap after GC %s MB/h, R² %.2f)", m->run[k]->key,
	              m->src[k]->name, rpt_fmt_signed(m->src[k]->gc.slope_mb_per_h, 1, v, sizeof v),
	              m->src[k]->gc.r2);
}

static void tail_rising(struct sbuf *b, const struct memline *m, int k)
{
	const struct gca_result *g = &m->src[k]->gc;
	char v[64], h[384];

	rpt_sb_printf(b, " (run %s, %s: %s MB/h, R² %.2f; %s): a leak is not ruled out",
	              m->run[k]->key, m->src[k]->name,
	              rpt_fmt_signed(g->slope_mb_per_h, 1, v, sizeof v), g->r2,
	              gca_headroom_text(g, h, sizeof h));
	if (isfinite(g->run_longer_h))
		rpt_sb_printf(b,
		              "; run at least %s longer to see whether an old collection frees it",
		              gca_hours_text(g->run_longer_h, h, sizeof h));
	else
		rpt_sb_printf(b, "; force a full collection at the end of a run (jcmd PID GC.run): "
		                 "what it leaves is live");
}

static void tail_short_rising(struct sbuf *b, const struct memline *m, int k)
{
	const struct gca_result *g = &m->src[k]->gc;
	char v[64], h[32];

	rpt_sb_printf(b,
	              " though the window is too short to judge (run %s, %s: %s MB/h, R² %.2f): "
	              "run at least %s longer to tell a leak",
	              m->run[k]->key, m->src[k]->name,
	              rpt_fmt_signed(g->slope_mb_per_h, 1, v, sizeof v), g->r2,
	              gca_hours_text(g->run_longer_h, h, sizeof h));
}

static void tail_heavy(struct sbuf *b, const struct memline *m, int k)
{
	rpt_sb_printf(b, " (run %s, %s: %.2f%% of the wall time in pauses, longest %.1f ms)",
	              m->run[k]->key, m->src[k]->name, m->src[k]->gc.gc_time_pct,
	              m->src[k]->gc.pause_max_ms);
}

static void tail_src_why(struct sbuf *b, const struct memline *m, int k)
{
	rpt_sb_printf(b, " (run %s, %s: ", m->run[k]->key, m->src[k]->name);
	rpt_mem_src_why(b, m->src[k]);
	rpt_sb_printf(b, ")");
}

static void tail_no_old(struct sbuf *b, const struct memline *m, int k)
{
	char v[64], h[384];
	rpt_sb_printf(b, " (run %s, %s: %s MB/h; %s)", m->run[k]->key, m->src[k]->name,
	              rpt_fmt_signed(m->src[k]->gc.slope_mb_per_h, 1, v, sizeof v),
	              gca_headroom_text(&m->src[k]->gc, h, sizeof h));
}

static void tail_short(struct sbuf *b, const struct memline *m, int k)
{
	char h[32];
	(void)k;
	rpt_sb_printf(b,
	              " is too short to judge a trend (at least %d min of steady log are needed: "
	              "run at least %s longer)",
	              GCA_MIN_WINDOW_MS / 60000, gca_hours_text(m->longer, h, sizeof h));
}

static void tail_unknown(struct sbuf *b, const struct memline *m, int k)
{
	rpt_sb_printf(b, " (%s)", m->src[k]->gc.why);
}

static void tail_rss_short(struct sbuf *b, const struct memline *m, int k)
{
	char lo[32], hi[32];
	int same;

	dur_format((int64_t)llround(m->short_lo * 3600) * 1000, lo, sizeof lo);
	dur_format((int64_t)llround(m->short_hi * 3600) * 1000, hi, sizeof hi);
	same = !strcmp(lo, hi);
	rpt_sb_printf(b,
	              " over too short a window to judge a trend (%s%s%s of samples; %.0f min "
	              "needed)",
	              lo, same ? "" : "-", same ? "" : hi, m->src[k]->mem.min_hours * 60);
}

/* Each kind: how it weighs among the findings, the words before its runs, what follows. */
static const struct {
	double score;
	const char *lead;
	void (*tail)(struct sbuf *b, const struct memline *m, int kind);
} mkinds[MK_N] = {
    [MK_EXH] = {S_MEMORY_BAD, "heap exhausted in ", tail_gc_why},
    [MK_LEAK] = {S_MEMORY_BAD, "suspected leak in ", tail_leak},
    [MK_RISING] = {S_GC_HEAVY, NULL, tail_rising},
    [MK_SHORT_RISING] = {S_GC_HEAVY, "heap after GC still rising in ", tail_short_rising},
    [MK_HEAVY] = {S_GC_HEAVY, "heavy GC in ", tail_heavy},
    [MK_RSS_UP] = {S_GC_HEAVY, "process memory rising in ", tail_src_why},
    [MK_RSS_FILLING] = {S_MEMORY_OK, "a cache filling in ", tail_src_why},
    [MK_RSS_LIMIT] = {S_GC_HEAVY, "process memory at its configured limit in ", tail_src_why},
    [MK_NORMAL] = {S_MEMORY_OK, "memory reclaimed normally in ", NULL},
    [MK_NO_OLD] = {S_MEMORY_OK, "heap after GC never needed an old-generation collection in ",
                   tail_no_old},
    [MK_SHORT] = {S_CONNECTIONS, "the GC log of ", tail_short},
    [MK_UNKNOWN] = {S_CONNECTIONS, "memory not judged in ", tail_unknown},
    [MK_RSS_LEVELS] = {S_NOT_SATURATED, "process memory grows, then levels off in ", tail_src_why},
    [MK_FLAT] = {S_NOT_SATURATED, "process memory flat in ", NULL},
    [MK_RSS_SHORT] = {S_CONNECTIONS, "process memory of ", tail_rss_short},
};

/* Label l's memory line into b; its score, or -1 when none of its runs was judged. */
static double memory_words(struct memline *m, struct sbuf *b)
{
	const struct report *r = m->r;
	double score = -1;
	int n = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->label != m->label)
			continue;
		for (int k = 0; k < run->nsrc; k++) {
			int kind = memline_add(m, run, i, &run->src[k]);
			if (kind >= 0)
				score = fmax(score, mkinds[kind].score);
		}
	}
	if (score < 0)
		return -1;
	rpt_sb_printf(b, "%s — ", rpt_label_name(r, m->label));
	for (int k = 0; k < MK_N; k++) {
		if (!m->src[k])
			continue;
		sep(b, &n);
		if (k == MK_RISING)
			rpt_sb_printf(b, "heap after GC rising with %s to tell a leak in ",
			              m->src[k]->gc.old_cycles
			                  ? "too few old-generation collections"
			                  : "no old-generation collection");
		else
			rpt_sb_printf(b, "%s", mkinds[k].lead);
		memsel_runs(b, r, &m->ms, k, m->label);
		if (mkinds[k].tail)
			mkinds[k].tail(b, m, k);
	}
	if (m->gc_max > 0 || m->src[MK_NORMAL] || m->src[MK_NO_OLD] || m->src[MK_SHORT])
		rpt_sb_printf(b, "; GC paused the application at most %.2f%% of the wall time",
		              m->gc_max);
	rpt_sb_printf(b, ".");
	return score;
}

static int memory_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	size_t nsel = (size_t)MK_N * RPT_MAX_SOURCES * (size_t)(r->nruns ? r->nruns : 1);
	struct memline m = {.r = r,
	                    .ms = {.sel = calloc(nsel, 1), .nruns = r->nruns},
	                    .label = l,
	                    .short_lo = INFINITY};

	if (!m.ms.sel)
		return -1;
	*score = memory_words(&m, b);
	free(m.ms.sel);
	return 0;
}

/* --- errors ---------------------------------------------------------------------------------- */

/* Label l's failed requests, on the server's side and on the client's, by class; those of
 * its runs not compared apart. */
static int error_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	int64_t count[ERR_NCLASS] = {0}, req = 0, client = 0, server = 0;
	int64_t wreq = 0, werr = 0; /* warm-up runs: shown apart, never pooled */
	const char *sample[ERR_NCLASS] = {0};

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
		if (side)
			rpt_sb_printf(b,
			              "%s%s: %lld client-side error%s, the load generator's own "
			              "limits (out of ephemeral ports, DNS), not the server's: ",
			              rpt_sb_len(b) ? " " : "", rpt_label_name(r, l),
			              (long long)total, total == 1 ? "" : "s");
		else
			rpt_sb_printf(b,
			              "%s: %.2f%% of requests failed on the server side over its "
			              "compared runs (%lld of %lld): ",
			              rpt_label_name(r, l), pct, (long long)total, (long long)req);
		for (int c = 0; c < ERR_NCLASS; c++) {
			if (!count[c] || err_class_client_side((enum err_class)c) != side)
				continue;
			rpt_sb_printf(b, "%s%s %lld ('%s')", first ? "" : ", ",
			              err_class_name((enum err_class)c), (long long)count[c],
			              sample[c] ? sample[c] : "");
			first = 0;
		}
		rpt_sb_printf(b, ".");
		*score = fmax(*score, side                       ? S_CLIENT_ERRORS
		                      : pct > ERRORS_SERIOUS_PCT ? S_ERRORS
		                                                 : S_ERRORS_FEW);
	}
	if (werr > 0) {
		rpt_sb_printf(b,
		              "%s%s: %lld of %lld requests failed in runs not compared "
		              "(warm-up runs, interrupted study runs).",
		              rpt_sb_len(b) ? " " : "", rpt_label_name(r, l), (long long)werr,
		              (long long)wreq);
		*score = fmax(*score, S_NOTHING);
	}
	return 0;
}

/* No request failed in any label's runs: said once for the report. */
static int no_errors(struct fctx *x)
{
	struct sbuf b = {0};

	for (int i = 0; i < x->r->nfindings; i++)
		if (x->r->findings[i].topic == RPT_T_ERRORS)
			return 0;
	rpt_sb_printf(&b, "No request failed in any measured window.");
	return add(x, RPT_T_ERRORS, -1, S_NOTHING, &b) < 0 ? -1 : 0;
}

/* --- connections ------------------------------------------------------------------------------ */

/* Runs of one label that share an outcome, and the range of a figure over them. */
struct group {
	unsigned char *sel; /* sel[i]: run i is in the group (nruns bytes) */
	int n;              /* runs in it */
	double lo, hi;      /* the figure's range over them */
};

static void group_add(struct group *g, int i, double v)
{
	g->sel[i] = 1;
	g->lo = g->n ? fmin(g->lo, v) : v;
	g->hi = g->n ? fmax(g->hi, v) : v;
	g->n++;
}

/* The words `before`, then "92-109", or "100" when the range is one value (at `dec`
 * decimals). */
static void range(struct sbuf *b, const char *before, const struct group *g, int dec)
{
	char a[32], c[32];
	snprintf(a, sizeof a, "%.*f", dec, g->lo);
	snprintf(c, sizeof c, "%.*f", dec, g->hi);
	rpt_sb_printf(b, "%s%s", before, a);
	if (strcmp(a, c))
		rpt_sb_printf(b, "-%s", c);
}

enum { C_NONE, C_HELD, C_LOST, C_CLOSE, C_NGROUP };

/* What connecting costs, over the runs that open a connection for most requests: its
 * share of a request (HTTP) or of an iteration (tcp-frame), each as a range. */
static void connect_clause(struct sbuf *b, const struct report *r, const struct group *g)
{
	struct group con = {.sel = g->sel}, mean = {.sel = g->sel}, ttfb = {.sel = g->sel},
	             share = {.sel = g->sel};
	int frame = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		const struct figures *f = &run->f;
		if (!g->sel[i] || (double)run->st.new_conns < 0.5 * (double)run->st.requests ||
		    !(f->connect_us > 0))
			continue;
		frame = !strcmp(run->protocol, "tcp-frame");
		double all = frame ? f->connect_us + f->ttfb_us + f->mean_us : f->mean_us;
		double part = frame ? f->connect_us + f->ttfb_us : f->connect_us;
		group_add(&con, i, f->connect_us / 1000);
		group_add(&mean, i, f->mean_us / 1000);
		group_add(&ttfb, i, f->ttfb_us / 1000);
		group_add(&share, i, all > 0 ? 100 * part / all : 0);
	}
	if (con.n == 0)
		return;
	/* tcp-frame: the iteration's latency excludes connect and handshake, measured apart
	 * (the handshake in the ttfb column). */
	range(b, frame ? "; one connection per iteration: connect " : "; connecting takes ", &con,
	      3);
	if (frame) {
		range(b, " ms + handshake ", &ttfb, 3);
		range(b, " ms + the batch ", &mean, 3);
		range(b, " ms, ", &share, 1);
		rpt_sb_printf(b, "%% of each iteration going to connecting and the handshake");
		return;
	}
	range(b, " ms of a ", &mean, 3);
	range(b, " ms request (", &share, 1);
	range(b, "%), the first byte of the answer comes after ", &ttfb, 3);
	rpt_sb_printf(b, " ms");
}

/* One label's connections, each outcome said once for the runs that share it. */
static void connection_words(const struct report *r, int l, struct group *g, struct sbuf *b,
                             double *score)
{
	int held = g[C_NONE].n + g[C_HELD].n, all = held + g[C_LOST].n + g[C_CLOSE].n;

	rpt_sb_printf(b, "%s — ", rpt_label_name(r, l));
	if (held) {
		/* the runs it held in: both groups' (sel of C_NONE, reused once said) */
		for (int i = 0; i < r->nruns; i++)
			g[C_NONE].sel[i] |= g[C_HELD].sel[i];
		rpt_sb_printf(b, "keep-alive held in ");
		rpt_sb_runsel(b, r, g[C_NONE].sel, held == all ? l : RPT_RUNS_LISTED);
		for (int i = 0; i < r->nruns; i++)
			g[C_NONE].sel[i] &= !g[C_HELD].sel[i];
	}
	if (g[C_HELD].n) {
		range(b, ", a new connection every ", &g[C_HELD], 0);
		rpt_sb_printf(b,
		              " requests (the server or a proxy ends a connection after about "
		              "that many requests%s)",
		              g[C_HELD].lo >= 90 && g[C_HELD].hi <= 110
		                  ? "; Tomcat's maxKeepAliveRequests is 100 by default"
		                  : "");
		if (g[C_NONE].n) {
			rpt_sb_printf(b, " in ");
			rpt_sb_runsel(b, r, g[C_HELD].sel, RPT_RUNS_LISTED);
		}
	}
	if (g[C_NONE].n) {
		rpt_sb_printf(b, ", no new connection in the measured window");
		if (g[C_HELD].n) {
			rpt_sb_printf(b, " in ");
			rpt_sb_runsel(b, r, g[C_NONE].sel, RPT_RUNS_LISTED);
		}
	}
	if (g[C_LOST].n) {
		rpt_sb_printf(b, "%skeep-alive did not hold in ", held ? "; " : "");
		rpt_sb_runsel(b, r, g[C_LOST].sel, l);
		range(b, ": only ", &g[C_LOST], 1);
		rpt_sb_printf(b, " requests per connection (the server or a proxy closes them)");
		connect_clause(b, r, &g[C_LOST]);
		*score = fmax(*score, S_KEEPALIVE_LOST);
	}
	if (g[C_CLOSE].n) {
		rpt_sb_printf(b, "%sconnection close in ", held || g[C_LOST].n ? "; " : "");
		rpt_sb_runsel(b, r, g[C_CLOSE].sel, l);
		range(b, ": ", &g[C_CLOSE], 2);
		rpt_sb_printf(b, " new connections per request (one per request is the design)");
		connect_clause(b, r, &g[C_CLOSE]);
	}
	rpt_sb_printf(b, ".");
}

/* Label l's runs grouped by how their connections went. */
static int connection_line(const struct report *r, int l, struct sbuf *b, double *score)
{
	unsigned char *mem = calloc((size_t)C_NGROUP * (size_t)(r->nruns ? r->nruns : 1), 1);
	struct group g[C_NGROUP];

	if (!mem)
		return -1;
	for (int k = 0; k < C_NGROUP; k++)
		g[k] = (struct group){.sel = mem + (size_t)k * (size_t)r->nruns};
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int64_t req = run->st.requests, nc = run->st.new_conns;
		if (run->label != l || req == 0)
			continue;
		if (!strcmp(run->connection, "close"))
			group_add(&g[C_CLOSE], i, (double)nc / (double)req);
		else if (nc == 0)
			group_add(&g[C_NONE], i, 0);
		else if ((double)req / (double)nc >= KEEPALIVE_HELD_REQS)
			group_add(&g[C_HELD], i, (double)req / (double)nc);
		else
			group_add(&g[C_LOST], i, (double)req / (double)nc);
	}
	*score = S_CONNECTIONS;
	if (g[C_NONE].n + g[C_HELD].n + g[C_LOST].n + g[C_CLOSE].n > 0)
		connection_words(r, l, g, b, score);
	free(mem);
	return 0;
}

/* --- server cost --------------------------------------------------------------------------------
 */

/* A run's load, what its costs are grouped by: "30 users", "600/s", or "sweep". */
static char *run_load(const struct rpt_run *run, char *buf, size_t len)
{
	if (strcmp(run->mode, "fixed") != 0 || run->nsteps == 0)
		snprintf(buf, len, "%s", run->mode);
	else
		rpt_level_text(run->steps[0].concurrency, run->steps[0].rate, buf, len);
	return buf;
}

/* The costs of label l's runs at one load, compared (side 0) or not (1): one clause with
 * the ranges over them; 0 when no run is in it. */
static int cost_group(struct sbuf *b, const struct report *r, int l, const char *load, int side,
                      unsigned char *sel, int *k)
{
	struct group cpu = {.sel = sel}, mem = {.sel = sel};
	const struct rpt_run *first = NULL;
	const struct rpt_source *server = NULL; /* first's (rpt_run_cost) */
	double peak = 0;
	char t[48];

	memset(sel, 0, (size_t)r->nruns);
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		struct rpt_cost c;
		if (run->label != l || (run->compared != 0) == side ||
		    strcmp(run_load(run, t, sizeof t), load) != 0)
			continue;
		rpt_run_cost(run, &c);
		if (!c.src || !isfinite(c.cpu_ms))
			continue;
		if (!first) {
			first = run;
			server = c.src;
		}
		group_add(&cpu, i, c.cpu_ms);
		if (isfinite(c.mem_mb)) {
			group_add(&mem, i, c.mem_mb); /* the same runs: sel is shared */
			peak = fmax(peak, c.peak_mb);
		}
	}
	if (cpu.n == 0)
		return 0;
	sep(b, k);
	rpt_sb_printf(b, "at %s, %s%s: ", load, side ? "not compared, " : "", server->name);
	range(b, "", &cpu, 3);
	rpt_sb_printf(b, " ms of CPU per %s in ",
	              strcmp(first->protocol, "tcp-frame") ? "request" : "iteration");
	rpt_sb_runsel(b, r, sel, RPT_RUNS_LISTED);
	if (mem.n) {
		range(b, ", memory ", &mem, 1);
		rpt_sb_printf(b, " MB on average and at most %.1f MB", peak);
	}
	return 1;
}

/* What a request costs the server, said once per load for the compared runs and once for
 * the others (warm-up runs: shown, never compared), each as the range over its runs. */
static int run_costs(struct sbuf *b, const struct report *r, int l, int *k)
{
	unsigned char *sel = calloc((size_t)(r->nruns ? r->nruns : 1), 1);
	char loads[16][48];
	int nloads = 0;

	if (!sel)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		char t[48];
		int seen = 0;
		if (r->runs[i].label != l)
			continue;
		run_load(&r->runs[i], t, sizeof t);
		for (int j = 0; j < nloads && !seen; j++)
			seen = !strcmp(loads[j], t);
		if (!seen && nloads < 16)
			snprintf(loads[nloads++], sizeof loads[0], "%s", t);
	}
	for (int j = 0; j < nloads; j++)
		for (int side = 0; side < 2; side++)
			cost_group(b, r, l, loads[j], side, sel, k);
	free(sel);
	return 0;
}

/* What a request costs the server per load (warm-up runs apart: they are shown, never
 * compared), then the label against the baseline: the verdict row's own figures (the
 * compared runs of the comparison it rests on), so the two sections never give one
 * quantity two values. */
static int cost_line(const struct report *r, int l, struct sbuf *line, double *score)
{
	struct sbuf b = {0};
	int k = 0;

	*score = S_COST_ONE;
	if (run_costs(&b, r, l, &k) < 0 || k == 0) {
		rpt_sb_release(&b);
		return k == 0 ? 0 : -1;
	}
	const struct rpt_vrow *v = l > 0 && l < r->nverdicts ? &r->verdicts[l] : NULL;
	if (v && v->cell >= 0 && v->cmp >= 0) {
		const struct rpt_cmp *m = &r->cmps[v->cmp];
		int first = 1;
		for (int s = 0; s < r->ncpu; s++) {
			int f = RPT_FIG_CPU(s);
			double a, c;
			char p[32], at[96];
			rpt_cmp_values(m, f, &a, &c);
			if (!isfinite(a) || !isfinite(c) || !(a > 0))
				continue;
			if (first)
				rpt_sb_printf(&b,
				              "; against %s at %s (the verdict's compared runs): ",
				              rpt_label_name(r, 0),
				              rpt_cell_text(&r->cells[v->cell], at, sizeof at));
			rpt_sb_printf(&b,
			              "%s%s %.2fx the CPU per request (%.3f vs %.3f ms, %s, %s)",
			              first ? "" : ", ", r->cpu_names[s], c / a, c, a,
			              rpt_fmt_pct(100 * (c - a) / a, p, sizeof p),
			              rpt_verdict_name(m->d[f].verdict));
			first = 0;
			*score = fmax(*score, m->d[f].verdict == RPT_REAL
			                          ? S_COST_BASE + fmin(40, 100 * fabs(c / a - 1))
			                          : S_COST_ONE);
		}
	}
	rpt_sb_printf(line, "%s — %s.", rpt_label_name(r, l), rpt_sb_str(&b));
	rpt_sb_release(&b);
	return 0;
}

/* --- what matters most ---------------------------------------------------------------------- */

static int cmp_topic(const struct rpt_item *a, const struct rpt_item *b)
{
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

	/* Worded afresh on every call (each file written from one model says the same). */
	rpt_items_free(r->findings, r->nfindings);
	r->findings = NULL;
	r->nfindings = 0;
	if (label_lines(&x, RPT_T_RUNS, status_line) < 0 || gap_findings(&x) < 0 ||
	    agent_findings(&x) < 0 || comparison_findings(&x) < 0 ||
	    label_lines(&x, RPT_T_SATURATION, sweep_line) < 0 ||
	    label_lines(&x, RPT_T_MEMORY, memory_line) < 0 || drift_findings(&x) < 0 ||
	    label_lines(&x, RPT_T_ERRORS, error_line) < 0 || no_errors(&x) < 0 ||
	    label_lines(&x, RPT_T_CONNECTIONS, connection_line) < 0 ||
	    label_lines(&x, RPT_T_COST, cost_line) < 0)
		return -1;
	/* Topic order, then label order. */
	rpt_items_sort(r->findings, r->nfindings, cmp_topic);
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
