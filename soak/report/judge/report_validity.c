/* report_validity: can these numbers be trusted?  Warnings about the data behind the
 * figures, each with its numbers and what to do:
 *   host_saturated       the generator shared a host with a collected source, and that
 *                        host's CPU reached RPT_HOST_BUSY_PCT in a measured window
 *   generator_saturated  the generator's engine threads were busy, or busy and waiting for
 *                        a core, RPT_GEN_BUSY_PCT of the time (with the advice that fits
 *                        which)
 *   generator_late       open model: neither, but its start lag p99 reached RPT_GEN_LAG_MS
 *                        (the machine woke it late; not in the latency figures)
 *   short_window         a GC log whose steady window is too short for a memory verdict
 *                        (gca_too_short); a comparison on fewer than RPT_CMP_MIN_BATCHES
 *                        batches
 *   not_steady           TPS or mean latency of the window's last third differs from its
 *                        first third beyond noise and by RPT_DRIFT_MIN_PCT or more
 *   no_steady_state      runs with no steady state in their window: left out, or compared
 *                        as they are where their label has no steady run at that point
 *                        (report_steady.c: the JIT still compiling, a late change point)
 *   errors               more than RPT_ERRORS_PCT of a window's requests failed
 *   clock_skew           a merged run's agents' clocks differ by more than a tenth of an
 *                        interval
 *   confounded           the labels compared differ in more than the label (rpt_env_keys)
 */
#include "report_validity.h"
#include "report_profile.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "dur.h"
#include "report/report_text.h"
#include "report_cold.h"
#include "report_trend.h"

#define RPT_GEN_BUSY_PCT    90.0 /* generator CPU, % of its engine threads */
#define RPT_CMP_MIN_BATCHES 5    /* a comparison needs this many batches a side */
#define RPT_DRIFT_MIN_PCT   5.0  /* not steady: a change this large, beyond noise */
#define RPT_DRIFT_MIN_IVS   9    /* intervals a window needs to be judged (3 a third) */
#define RPT_ERRORS_PCT      1.0  /* errors: share of a window's requests */
#define RPT_SKEW_FRAC       0.1  /* clock skew: share of an interval */

const struct rpt_env_key rpt_env_keys[] = {
    {"host", "host", 0, 0},
    {"kernel", "kernel", 0, 2},
    {"cpu_model", "CPU", 0, 2},
    {"cores", "cores", 0, 2},
    {"cpus", "CPUs available", 0, 2},
    {"cpu_list", "placed on CPUs", 0, 2},
    {"memory", "memory", 0, 1},
    {"soak_version", "soak", 0, 1},
    {"curl_version", "libcurl", 0, 1},
    {"threads", "engine threads", 0, 2},
    {"loop", "engine loop", 0, 1},
    {"nofile", "ulimit -n", 0, 2},
    {"ip_local_port_range", "net.ipv4.ip_local_port_range", 0, 2},
    {"tcp_tw_reuse", "net.ipv4.tcp_tw_reuse", 0, 2},
    {"somaxconn", "net.core.somaxconn", 0, 2},
    {"think_time", "think time", 0, 0},
    {"timeout", "request timeout", 0, 0},
    {"server_banner", "Server banner", 0, 0},
    {"tls_verify", "TLS certificate verification", 0, 1},
    {"tls_version", "TLS version", 0, 2},
    {"tls_cipher", "TLS cipher", 0, 2},
    {"alpn", "ALPN protocol", 0, 2},
    {"tls_resume", "TLS session resumption", 0, 2},
    {"openssl_version", "OpenSSL", 0, 1},
    {"http_version", "HTTP version", 0, 2},
    {"h2_connections", "HTTP/2 connections", 0, 2},
    {"h2_max_streams", "HTTP/2 streams the server allows", 0, 1},
    {"exe", "executable", 1, 0},
    {"cmdline", "command line", 1, 0},
    {"pids", "processes", 1, 0},
    {"cpus", "CPUs", 1, 2},
    {"cpu_list", "placed on CPUs", 1, 2},
    {"jvm_version", "JVM", 1, 2},
    {"gc", "collector", 1, 2},
    {"heap_max", "heap max", 1, 2},
};
const int rpt_nenv_keys = (int)(sizeof rpt_env_keys / sizeof rpt_env_keys[0]);

struct vctx {
	struct report *r; /* the report */
	int cap;          /* allocated entries of r->validity */
};

/* Adds an item of text b (released) about runs (moved; NULL: none). */
static int add(struct vctx *v, const char *severity, const char *code, int label, struct buf *runs,
               struct sbuf *b)
{
	struct rpt_item it = {.label = label};
	int rc;

	snprintf(it.severity, sizeof it.severity, "%s", severity);
	snprintf(it.code, sizeof it.code, "%s", code);
	if (runs) {
		it.run = *runs;
		*runs = (struct buf){0};
	}
	rc = rpt_item_add(&v->r->validity, &v->r->nvalidity, &v->cap, &it, rpt_sb_str(b));
	rpt_sb_release(b);
	return rc;
}

/* Adds an item whose text is lead + own + tail, own being the label's own part: the items
 * of a code whose lead and tail agree are said as one (report_doc.c). */
static int add_parts(struct vctx *v, const char *severity, const char *code, int label,
                     struct buf *runs, const char *lead, struct sbuf *own, const char *tail)
{
	struct rpt_item it = {.label = label};
	struct sbuf b = {0};
	int rc;

	rpt_sb_printf(&b, "%s", lead);
	it.own_from = (int)rpt_sb_len(&b);
	rpt_sb_printf(&b, "%s", rpt_sb_str(own));
	it.own_to = (int)rpt_sb_len(&b);
	rpt_sb_printf(&b, "%s", tail);
	rpt_sb_release(own);
	snprintf(it.severity, sizeof it.severity, "%s", severity);
	snprintf(it.code, sizeof it.code, "%s", code);
	if (runs) {
		it.run = *runs;
		*runs = (struct buf){0};
	}
	rc = rpt_item_add(&v->r->validity, &v->r->nvalidity, &v->cap, &it, rpt_sb_str(&b));
	rpt_sb_release(&b);
	return rc;
}

/* A warning that lists runs: its label's own part of the sentence and the runs named. */
struct wlist {
	struct sbuf b;   /* the own part so far */
	struct buf runs; /* the run keys (rpt_item.run), moved into the item added */
	int n;           /* entries said */
};

/* The next entry of a list: "run 7", or "run 7 at 40 users" for step s of a run with
 * several, after "; " from the second on; its run added to w->runs. */
static void list_entry(struct wlist *w, const struct rpt_run *run, const struct rpt_step *s)
{
	char c[64];

	rpt_sb_printf(&w->b, "%srun %s", w->n++ ? "; " : "", run->key);
	if (run->nsteps > 1)
		rpt_sb_printf(&w->b, " at %s",
		              rpt_level_text(s->concurrency, s->rate, c, sizeof c));
	rpt_runs_add(&w->runs, run->key);
}

/* Adds name to names[0..*n) when new (RPT_MAX_SOURCES at most). */
static void name_add(char names[][RPT_NAME_MAX], int *n, const char *name)
{
	for (int j = 0; j < *n; j++)
		if (!strcmp(names[j], name))
			return;
	if (*n < RPT_MAX_SOURCES)
		snprintf(names[(*n)++], RPT_NAME_MAX, "%s", name);
}

/* --- the generator's host and the generator itself -------------------------------------- */

/* Whether a run was placed: the generator's CPUs recorded and disjoint from those of
 * every process source it shared its host with. */
static int placed(const struct rpt_run *run)
{
	const char *g = rpt_env_get(run, "", "cpu_list");
	cpu_set_t gs, ss;
	char e[128], names[256];
	int any = 0;

	if (!g || cpus_parse(g, &gs, e, sizeof e) < 0 || !run->colocated[0])
		return 0;
	snprintf(names, sizeof names, "%s", run->colocated);
	for (char *save = NULL, *n = strtok_r(names, ", ", &save); n;
	     n = strtok_r(NULL, ", ", &save)) {
		const char *l = rpt_env_get(run, n, "cpu_list");
		if (!l || cpus_parse(l, &ss, e, sizeof e) < 0 || !cpus_disjoint(&gs, &ss))
			return 0;
		any = 1;
	}
	return any;
}

/* host_saturated: the generator shared its host with a collected source and competed with
 * it for the cores.  Without placement that is the host's CPU reaching
 * RPT_HOST_BUSY_PCT; with it (run_env: the generator's CPUs apart from the sources') the
 * host may well be full (a saturated server core is the experiment), and what must not be
 * is the generator's own CPUs: busy by anyone RPT_HOST_BUSY_PCT of the time or more. */
static int host_saturated(struct vctx *v, int l)
{
	struct report *r = v->r;

	for (int own = 0; own <= 1; own++) {
		struct rpt_item it = {.label = l,
		                      .code = "host_saturated",
		                      .severity = "warn",
		                      .kind = RPT_V_HOST,
		                      .host = {.placed = own, .first = -1}};
		for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
			double top = NAN;
			if (!run->colocated[0] || placed(run) != own)
				continue;
			for (int k = 0; k < run->nsteps; k++) {
				double x = own ? run->steps[k].gen_cpus_busy_pct
				               : run->steps[k].host_cpu_pct;
				if (x >= RPT_HOST_BUSY_PCT && !(x <= top))
					top = x;
			}
			if (isnan(top))
				continue;
			rpt_runs_add(&it.run, run->key);
			it.host.worst = fmax(it.host.worst, top);
			if (it.host.first < 0)
				it.host.first = (int)(run - r->runs);
		}
		if (it.host.first >= 0 &&
		    rpt_item_add(&r->validity, &r->nvalidity, &v->cap, &it, NULL) < 0)
			return -1;
		buf_free(&it.run); /* none, or moved */
	}
	return 0;
}

/* The engine threads a run used (recorded, else the CPUs it could use), or 0. */
static int run_threads(const struct rpt_run *run)
{
	const char *t = rpt_env_get(run, "", "threads");
	if (!t)
		t = rpt_env_get(run, "", "cpus");
	return t ? atoi(t) : 0;
}

/* How the generator may have set the pace in one step (the step means of its intervals). */
static enum rpt_gen_cause gen_cause(const struct rpt_step *s)
{
	double wait = isnan(s->gen_wait_pct) ? 0 : s->gen_wait_pct;
	if (s->gen_cpu_pct >= RPT_GEN_BUSY_PCT)
		return RPT_GEN_BUSY;
	if (s->gen_cpu_pct + wait >= RPT_GEN_BUSY_PCT)
		return RPT_GEN_STARVED;
	if (s->late_intervals > 0 || s->lag_p99_ms >= RPT_GEN_LAG_MS)
		return RPT_GEN_LATE;
	return RPT_GEN_OK;
}

/* One label's steps with cause `c`: their runs (it->run), and the figures the sentence
 * gives (it->gen). */
static void gen_tally(const struct report *r, int l, enum rpt_gen_cause c, struct rpt_item *it)
{
	struct rpt_gen *t = &it->gen;

	memset(t, 0, sizeof *t);
	t->cause = c;
	t->cpu = t->wait = t->lag = NAN;
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
		int hit = 0;
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			if (gen_cause(s) != c)
				continue;
			hit = 1;
			if (!(s->gen_cpu_pct <= t->cpu)) {
				t->cpu = s->gen_cpu_pct;
				t->threads = run_threads(run);
			}
			if (!isnan(s->gen_wait_pct) && !(s->gen_wait_pct <= t->wait))
				t->wait = s->gen_wait_pct;
			double lag = isnan(s->lag_top_ms) ? s->lag_p99_ms : s->lag_top_ms;
			if (!isnan(lag) && !(lag <= t->lag))
				t->lag = lag;
			t->late += s->late_intervals;
			t->steady += s->nintervals;
		}
		if (hit)
			rpt_runs_add(&it->run, run->key);
	}
}

/* generator_saturated: its threads were busy (more threads or agents help), or ready but
 * waiting for a core (the machine's other work took them: placement or another host
 * helps, more threads do not).  generator_late: an open-model generator that was neither
 * but sent late (the machine woke or ran it late): said as what it is, and that latency
 * leaves it out; a warning when a tenth of the intervals or more were late, else a note.
 * write/report_validity_text.c words them. */
static int generator_saturated(struct vctx *v, int l)
{
	for (int c = RPT_GEN_BUSY; c <= RPT_GEN_LATE; c++) {
		struct rpt_item it = {.label = l, .kind = RPT_V_GEN};
		gen_tally(v->r, l, (enum rpt_gen_cause)c, &it);
		if (!it.run.n) {
			buf_free(&it.run); /* a failed allocation's */
			continue;
		}
		int warn =
		    c != RPT_GEN_LATE || (it.gen.steady > 0 && it.gen.late * 10 >= it.gen.steady);
		snprintf(it.severity, sizeof it.severity, "%s", warn ? "warn" : "info");
		snprintf(it.code, sizeof it.code, "%s",
		         c == RPT_GEN_LATE ? "generator_late" : "generator_saturated");
		if (rpt_item_add(&v->r->validity, &v->r->nvalidity, &v->cap, &it, NULL) < 0)
			return -1;
	}
	return 0;
}

/* --- windows too short for what they claim ------------------------------------------------ */

/* A GC source whose memory verdict is too_short (gca_too_short: the window only; with
 * fewer old-generation cycles the verdict itself says what the floor shows and when an old
 * collection would come, so no warning repeats it).  Grouped per label and source: one
 * warning names every run it concerns ("runs 1, 2, 9 and 10"), not one warning per run. */
static int short_memory(struct vctx *v, int l)
{
	struct report *r = v->r;
	char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int nn = 0;

	/* The process sources of the label's runs with a GC log, in order. */
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
		for (int k = 0; k < run->nsrc; k++)
			if (run->src[k].gc_events)
				name_add(names, &nn, run->src[k].name);
	for (int j = 0; j < nn; j++) {
		struct rpt_item it = {.label = l,
		                      .code = "short_window",
		                      .severity = "warn",
		                      .kind = RPT_V_GCWIN,
		                      .gcwin = {.span_lo = INFINITY}};
		struct rpt_gcwin *w = &it.gcwin;
		memcpy(w->source, names[j], sizeof w->source); /* both RPT_NAME_MAX */
		for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
			for (int k = 0; k < run->nsrc; k++) {
				const struct rpt_source *s = &run->src[k];
				const struct gca_result *g = &s->gc;
				double span = (double)(g->steady_to_ms - g->steady_from_ms) / 1000;
				if (strcmp(s->name, names[j]) != 0 || !s->gc_events ||
				    g->memory != GCA_TOO_SHORT)
					continue;
				rpt_runs_add(&it.run, run->key);
				w->span_lo = fmin(w->span_lo, span);
				w->span_hi = fmax(w->span_hi, span);
				w->longer_h = fmax(w->longer_h, g->run_longer_h);
			}
		}
		if ((it.run.n || it.run.oom) &&
		    rpt_item_add(&r->validity, &r->nvalidity, &v->cap, &it, NULL) < 0)
			return -1;
	}
	return 0;
}

static int short_comparisons(struct vctx *v, int l)
{
	struct report *r = v->r;
	struct sbuf b = {0};
	int n = 0;
	size_t least = SIZE_MAX;

	if (l == 0)
		return 0; /* the baseline against itself */
	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		size_t bt = a->bm[RPT_M_TPS].batches < c->bm[RPT_M_TPS].batches
		                ? a->bm[RPT_M_TPS].batches
		                : c->bm[RPT_M_TPS].batches;
		char d[32];
		if (c->label != l || bt >= RPT_CMP_MIN_BATCHES)
			continue;
		if (n == 0)
			rpt_sb_printf(&b, "%s against %s: the comparison at ", rpt_label_name(r, l),
			              rpt_label_name(r, a->label));
		rpt_sb_printf(&b, "%s%d users (%s of %s)", n ? ", " : "", c->concurrency,
		              c->sweep ? "sweep steps" : "fixed runs",
		              dur_format(c->planned_ms, d, sizeof d));
		least = bt < least ? bt : least;
		n++;
	}
	if (n == 0)
		return 0;
	rpt_sb_printf(&b,
	              " rest%s on %zu batch%s of intervals on a side (fewer than %d): "
	              "real or noise there is a guess; run longer, or with shorter "
	              "intervals.",
	              n == 1 ? "s" : "", least, least == 1 ? "" : "es", RPT_CMP_MIN_BATCHES);
	if (add(v, "warn", "short_window", l, NULL, &b) < 0)
		return -1;
	return 0;
}

/* --- what happened inside a window --------------------------------------------------------- */

/* A step's drift over its thirds (the drift verdict's own comparison, report_drift.c):
 * the TPS and mean changes it judged real and of RPT_DRIFT_MIN_PCT or more, 0 otherwise,
 * so that not_steady and the drift verdict never disagree about one change. */
static void drift_moves(const struct rpt_drift *d, double *tps, double *mean)
{
	*tps = *mean = 0;
	if (!d || d->ncmp == 0)
		return;
	for (int i = 0; i < d->cmp[0].nm; i++) {
		const struct rpt_drift_metric *m = &d->cmp[0].m[i];
		if (m->d.verdict != RPT_REAL || !isfinite(m->change_pct) ||
		    fabs(m->change_pct) < RPT_DRIFT_MIN_PCT)
			continue;
		if (m->kind == RPT_DK_TPS)
			*tps = m->change_pct;
		else if (m->kind == RPT_DK_MEAN)
			*mean = m->change_pct;
	}
}

/* not_steady: TPS or the mean latency moved from the first to the last third of a measured
 * window, as the drift verdict judges it; one warning per label and reading (still
 * warming up, degrading, the load moving), its runs listed with their changes. */
static int not_steady(struct vctx *v, int l)
{
	struct report *r = v->r;
	static const char *const why[] = {
	    "it was still warming up; raise the warm-up so the window starts once the server "
	    "has settled.",
	    "the server looks to degrade as the run goes on (a resource filling or leaking); "
	    "its figures are the average of a moving target.",
	    "the load itself moved; its figures are the average of a moving target."};

	for (int kind = 0; kind < 3; kind++) {
		struct wlist w = {.n = 0};
		for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
			for (int k = 0; k < run->nsteps; k++) {
				const struct rpt_drift *d =
				    run->step_drift ? &run->step_drift[k] : &run->drift;
				double t, m;
				drift_moves(d, &t, &m);
				if (t == 0 && m == 0)
					continue;
				int is = t >= 0 && m <= 0 ? 0 : t <= 0 && m >= 0 ? 1 : 2;
				if (is != kind)
					continue;
				if (w.n == 0)
					rpt_sb_printf(&w.b,
					              "%s: from the first to the last third of "
					              "the measured window, ",
					              rpt_label_name(r, l));
				list_entry(&w, run, &run->steps[k]);
				rpt_sb_printf(&w.b, ": ");
				if (t != 0)
					rpt_sb_printf(&w.b, "TPS %s%.1f%%", t > 0 ? "+" : "-",
					              fabs(t));
				if (t != 0 && m != 0)
					rpt_sb_printf(&w.b, ", ");
				if (m != 0)
					rpt_sb_printf(&w.b, "mean latency %s%.1f%%",
					              m > 0 ? "+" : "-", fabs(m));
			}
		if (w.n == 0)
			continue;
		rpt_sb_printf(&w.b, " (real, as the drift verdict judges them): %s", why[kind]);
		if (add(v, "warn", "not_steady", l, &w.runs, &w.b) < 0)
			return -1;
	}
	return 0;
}

/* One no_steady_state warning: label l's runs with no steady state that were left out
 * (kept = 0) or, with fewer than RPT_STEADY_MIN_KEPT steady runs at their point, compared
 * as they are (kept = 1). */
static int no_steady_label(struct vctx *v, int l, int kept)
{
	const struct report *r = v->r;
	struct wlist w = {.n = 0};

	/* Runs without a steady state are fixed runs of one step (report_steady.c). */
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
		if (run->steady != RPT_ST_NO_STEADY || run->compared != kept)
			continue;
		if (w.n == 0 && kept)
			rpt_sb_printf(
			    &w.b,
			    "%s: runs compared as they are, for fewer than %d of its runs at "
			    "their point had a steady state: ",
			    rpt_label_name(r, l), RPT_STEADY_MIN_KEPT);
		else if (w.n == 0)
			rpt_sb_printf(&w.b,
			              "%s: runs left out of the comparisons, their window had no "
			              "steady state: ",
			              rpt_label_name(r, l));
		list_entry(&w, run, run->steps);
		if (run->jit_pct > RPT_STEADY_JIT_PCT)
			rpt_sb_printf(&w.b,
			              " (its JIT took %.1f %% of the app's CPU: still compiling)",
			              run->jit_pct);
		else
			rpt_sb_printf(&w.b,
			              " (its figure changed in the last quarter of its window)");
	}
	if (!w.n)
		return 0;
	rpt_sb_printf(&w.b, ". Warm up longer (warmup_max), or run longer.");
	return add(v, "warn", "no_steady_state", l, &w.runs, &w.b);
}

/* no_steady_state: runs whose window had no steady state (report_steady.c): their JIT
 * still compiling, or their last level too short.  Left out of the comparisons, or, where
 * their label had fewer than RPT_STEADY_MIN_KEPT steady runs at that point, compared as
 * they are.  One warning per label and kind, each run with why. */
static int no_steady_state(struct vctx *v, int l)
{
	return no_steady_label(v, l, 0) < 0 ? -1 : no_steady_label(v, l, 1);
}

/* errors: windows where more than RPT_ERRORS_PCT of requests failed, one warning per
 * label with each run's share and dominant class, each class's sample said once. */
static int errors(struct vctx *v, int l)
{
	struct report *r = v->r;
	struct wlist w = {.n = 0};
	char tail[256], said[ERR_NCLASS] = {0};
	int client = 0;

	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			int top = -1;
			if (s->nintervals == 0 || !(s->f.error_pct > RPT_ERRORS_PCT))
				continue;
			for (int e = 0; e < ERR_NCLASS; e++)
				if (s->st.err_count[e] > 0 &&
				    (top < 0 || s->st.err_count[e] > s->st.err_count[top]))
					top = e;
			list_entry(&w, run, s);
			rpt_sb_printf(&w.b, ": %.2f%%", s->f.error_pct);
			if (top >= 0) {
				/* a class's sample once, where it first comes */
				rpt_sb_printf(
				    &w.b, ", mostly %s (%.0f%% of them%s%s%s)",
				    err_class_name((enum err_class)top),
				    100.0 * (double)s->st.err_count[top] / (double)s->f.errors,
				    said[top] ? "" : ", '", said[top] ? "" : s->st.err_sample[top],
				    said[top] ? "" : "'");
				said[top] = 1;
				client |= err_class_client_side((enum err_class)top);
			}
		}
	}
	if (w.n == 0)
		return 0;
	struct sbuf own = {0};
	rpt_sb_printf(&own, "%s, %s", rpt_label_name(r, l), rpt_sb_str(&w.b));
	rpt_sb_release(&w.b);
	snprintf(tail, sizeof tail,
	         "%s. Throughput and latency there include the "
	         "failures: fix them before trusting a comparison.",
	         client ? " (a client-side class is the load generator's own limit)" : "");
	char lead[96];
	snprintf(lead, sizeof lead,
	         "more than %.0f%% of requests failed in a measured window: ", RPT_ERRORS_PCT);
	if (add_parts(v, "warn", "errors", l, &w.runs, lead, &own, tail) < 0)
		return -1;
	return 0;
}

/* clock_skew: merged runs whose agents' clocks disagreed by more than a tenth of an
 * interval, one warning per label. */
static int clock_skew(struct vctx *v, int l)
{
	struct report *r = v->r;
	struct sbuf b = {0};
	struct buf runs = {0};
	int n = 0;

	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
		char d[32];
		if (!(run->clock_skew_ms > RPT_SKEW_FRAC * (double)run->interval_ms))
			continue;
		rpt_sb_printf(&b, "%s %s (%.0f ms against a %s interval)",
		              n == 0 ? "Merged run" : "; run", run->key, run->clock_skew_ms,
		              dur_format(run->interval_ms, d, sizeof d));
		n++;
		rpt_runs_add(&runs, run->key);
	}
	if (n == 0)
		return 0;
	struct sbuf m = {0};
	rpt_sb_printf(&m,
	              "%s: %s: its agents' clocks disagree by more than a tenth of an "
	              "interval, so their intervals do not line up and per-interval "
	              "figures mix different moments. Synchronise the clocks (chrony, "
	              "NTP) before the next run.",
	              rpt_label_name(r, l), rpt_sb_str(&b));
	rpt_sb_release(&b);
	if (add(v, "warn", "clock_skew", l, &runs, &m) < 0)
		return -1;
	return 0;
}

/* --- labels that differ in more than the label -------------------------------------------- */

/* The value of a fact over a label's runs: the one value they agree on, "" when none
 * records it, NULL when they disagree among themselves. */
static const char *label_fact(const struct report *r, int l, const char *source, const char *key)
{
	const char *v = "", *x;
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) {
		if (!(x = rpt_env_get(run, source, key)))
			continue;
		if (*v && strcmp(v, x) != 0)
			return NULL;
		v = x;
	}
	return v;
}

/* Source names with facts in the label's runs, appended to names (unique). */
static void label_sources(const struct report *r, int l, char names[][RPT_NAME_MAX], int *n)
{
	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
		for (int k = 0; k < run->nenv; k++)
			if (run->env[k].source[0])
				name_add(names, n, run->env[k].source);
}

static int confounded(struct vctx *v, int l)
{
	struct report *r = v->r;
	char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int nnames = 0, worst = 0, n = 0;
	struct sbuf b = {0};

	if (l == 0)
		return 0; /* the baseline against itself */
	label_sources(r, l, names, &nnames);
	for (int s = -1; s < nnames; s++)
		for (int k = 0; k < rpt_nenv_keys; k++) {
			const struct rpt_env_key *e = &rpt_env_keys[k];
			const char *src = s < 0 ? "" : names[s], *x, *y;
			if (!e->confounds || e->per_source != (s >= 0))
				continue;
			x = label_fact(r, 0, src, e->key);
			y = label_fact(r, l, src, e->key);
			if (!x || !y || !*x || !*y || !strcmp(x, y))
				continue;
			if (n == 0)
				rpt_sb_printf(&b, "%s differs from %s in more than the label: ",
				              rpt_label_name(r, l), rpt_label_name(r, 0));
			rpt_sb_printf(&b, "%s%s%s%s '%s' against '%s'", n ? "; " : "",
			              s < 0 ? "" : src, s < 0 ? "" : " ", e->name, y, x);
			worst = e->confounds > worst ? e->confounds : worst;
			n++;
		}
	if (n == 0)
		return 0;
	rpt_sb_printf(&b, ". %s",
	              worst > 1 ? "Part of any difference between them may come "
	                          "from this, not from what the label names."
	                        : "This is unlikely to move the figures, but "
	                          "it is not the same setup.");
	if (add(v, worst > 1 ? "warn" : "info", "confounded", l, NULL, &b) < 0)
		return -1;
	return 0;
}

/* --- order ---------------------------------------------------------------------------- */

static int code_rank(const char *code)
{
	static const char *const order[] = {
	    "host_saturated",  "generator_saturated", "generator_late", "confounded",  "errors",
	    "no_steady_state", "not_steady",          "clock_skew",     "short_window"};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (!strcmp(order[i], code))
			return (int)i;
	return 99;
}

static int cmp_valid(const struct rpt_item *a, const struct rpt_item *b)
{
	int sa = strcmp(a->severity, "warn") != 0, sb = strcmp(b->severity, "warn") != 0;
	if (sa != sb)
		return sa - sb;
	if (code_rank(a->code) != code_rank(b->code))
		return code_rank(a->code) - code_rank(b->code);
	return a->label - b->label;
}

/* Items judged elsewhere (report_study.c's cold_start, report_trend.c's rounds_trend). */
static int items(struct vctx *v, int (*fn)(const struct report *, struct rpt_item **, int *))
{
	struct report *r = v->r;
	struct rpt_item *it;
	int n, rc = 0;

	if (fn(r, &it, &n) < 0)
		return -1;
	for (int i = 0; i < n && rc == 0; i++)
		rc = rpt_item_add(&r->validity, &r->nvalidity, &v->cap, &it[i], it[i].text);
	rpt_items_free(it, n);
	return rc;
}

/* The warnings about one label, each label in turn (the order they are shown in is
 * cmp_valid's). */
static int (*const checks[])(struct vctx *, int) = {
    host_saturated,  generator_saturated, confounded,   errors,           not_steady,
    no_steady_state, clock_skew,          short_memory, short_comparisons};

int rpt_validity(struct report *r)
{
	struct vctx v = {.r = r, .cap = 0};

	for (int l = 0; l < r->nlabels; l++)
		for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
			if (checks[i](&v, l) < 0)
				return -1;
	if (items(&v, rpt_cold_start) < 0 || items(&v, rpt_trends) < 0 ||
	    items(&v, rpt_profile_items) < 0)
		return -1;
	/* Stable: runs keep their report order within a code. */
	rpt_items_sort(r->validity, r->nvalidity, cmp_valid);
	return 0;
}
