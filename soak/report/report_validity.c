/* report_validity: can these numbers be trusted?  Warnings about the data behind the
 * figures, each with its numbers and what to do:
 *   host_saturated       the generator shared a host with a collected source, and that
 *                        host's CPU reached RPT_HOST_BUSY_PCT in a measured window
 *   generator_saturated  the generator's own CPU reached RPT_GEN_BUSY_PCT of its engine
 *                        threads, or its p99 start lag RPT_GEN_LAG_MS (open model)
 *   short_window         a GC log whose steady window is too short for a memory verdict
 *                        (gca_too_short); a comparison on fewer than RPT_CMP_MIN_BATCHES
 *                        batches
 *   not_steady           TPS or mean latency of the window's last third differs from its
 *                        first third beyond noise and by RPT_DRIFT_MIN_PCT or more
 *   errors               more than RPT_ERRORS_PCT of a window's requests failed
 *   clock_skew           a merged run's agents' clocks differ by more than a tenth of an
 *                        interval
 *   confounded           the labels compared differ in more than the label (rpt_env_keys)
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report_text.h"

#define RPT_HOST_BUSY_PCT   90.0 /* host CPU, % of all cores */
#define RPT_GEN_BUSY_PCT    90.0 /* generator CPU, % of its engine threads */
#define RPT_GEN_LAG_MS      10.0 /* open model: p99 start lag */
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
    {"exe", "executable", 1, 0},
    {"cmdline", "command line", 1, 0},
    {"pids", "processes", 1, 0},
    {"cpus", "CPUs", 1, 2},
    {"jvm_version", "JVM", 1, 2},
    {"gc", "collector", 1, 2},
    {"heap_max", "heap max", 1, 2},
};
const int rpt_nenv_keys = (int)(sizeof rpt_env_keys / sizeof rpt_env_keys[0]);

struct vctx {
	struct report *r; /* the report */
	int cap;          /* allocated entries of r->validity */
};

static int add(struct vctx *v, const char *severity, const char *code, int label, const char *runs,
               const struct sbuf *b)
{
	struct report *r = v->r;
	struct rpt_valid *e;

	if (r->nvalidity == v->cap) {
		int nc = v->cap ? v->cap * 2 : 16;
		struct rpt_valid *p = realloc(r->validity, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		r->validity = p;
		v->cap = nc;
	}
	e = &r->validity[r->nvalidity];
	memset(e, 0, sizeof *e);
	snprintf(e->severity, sizeof e->severity, "%s", severity);
	snprintf(e->code, sizeof e->code, "%s", code);
	e->label = label;
	snprintf(e->run, sizeof e->run, "%s", runs ? runs : "");
	e->message = strdup(b->s);
	if (!e->message)
		return -1;
	r->nvalidity++;
	return 0;
}

static const char *lname(const struct report *r, int l)
{
	return r->labels[l].name;
}

/* Appends a run key to a comma-separated list (cut silently past its size). */
static void list_add(char *list, size_t len, const char *key)
{
	size_t n = strlen(list);
	snprintf(list + n, len - n, "%s%s", n ? "," : "", key);
}

/* --- the generator's host and the generator itself -------------------------------------- */

static int host_saturated(struct vctx *v)
{
	struct report *r = v->r;

	for (int l = 0; l < r->nlabels; l++) {
		char runs[96] = "";
		const char *with = NULL, *host = NULL;
		double worst = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			double top = NAN;
			if (run->label != l || !run->colocated[0])
				continue;
			for (int k = 0; k < run->nsteps; k++)
				if (run->steps[k].host_cpu_pct >= RPT_HOST_BUSY_PCT &&
				    !(run->steps[k].host_cpu_pct <= top))
					top = run->steps[k].host_cpu_pct;
			if (isnan(top))
				continue;
			list_add(runs, sizeof runs, run->key);
			worst = fmax(worst, top);
			if (!with) {
				with = run->colocated;
				host = run->host;
			}
		}
		if (!runs[0])
			continue;
		struct sbuf b = {.n = 0};
		rpt_sb_printf(&b,
		              "%s: the load generator ran on the same host as %s ('%s'), and "
		              "that host's CPU reached %.1f%% in the measured window of ",
		              lname(r, l), with, host, worst);
		rpt_sb_runs(&b, runs);
		rpt_sb_printf(&b,
		              " (%.0f%% or more): the generator and the system under test "
		              "competed for the cores, so throughput and latency measure the "
		              "machine as much as the server. Run the generator on another host.",
		              RPT_HOST_BUSY_PCT);
		if (add(v, "warn", "host_saturated", l, runs, &b) < 0)
			return -1;
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

static int generator_saturated(struct vctx *v)
{
	struct report *r = v->r;

	for (int l = 0; l < r->nlabels; l++) {
		char runs[96] = "";
		double cpu = NAN, lag = NAN;
		int threads = 0;
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			int th = run_threads(run), hit = 0;
			if (run->label != l)
				continue;
			for (int k = 0; k < run->nsteps; k++) {
				const struct rpt_step *s = &run->steps[k];
				/* gen_cpu_pct is already a share of all the engine threads */
				double share = s->gen_cpu_pct;
				if (share >= RPT_GEN_BUSY_PCT) {
					hit = 1;
					if (!(share <= cpu)) {
						cpu = share;
						threads = th;
					}
				}
				if (s->lag_p99_ms >= RPT_GEN_LAG_MS) {
					hit = 1;
					lag = fmax(isnan(lag) ? 0 : lag, s->lag_p99_ms);
				}
			}
			if (hit)
				list_add(runs, sizeof runs, run->key);
		}
		if (!runs[0])
			continue;
		struct sbuf b = {.n = 0};
		rpt_sb_printf(&b, "%s: the load generator was saturated in ", lname(r, l));
		rpt_sb_runs(&b, runs);
		rpt_sb_printf(&b, ": ");
		if (!isnan(cpu))
			rpt_sb_printf(
			    &b,
			    "its %d engine thread%s busy or waiting for a core %.0f%% of the "
			    "time",
			    threads, threads == 1 ? " was" : "s were", cpu);
		if (!isnan(cpu) && !isnan(lag))
			rpt_sb_printf(&b, " and ");
		if (!isnan(lag))
			rpt_sb_printf(&b, "requests started %.1f ms late at p99", lag);
		rpt_sb_printf(&b, ". The generator, not the server, may have set the pace: give "
		                  "it more threads (--threads) or more agents.");
		if (add(v, "warn", "generator_saturated", l, runs, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- windows too short for what they claim ------------------------------------------------ */

/* A GC source whose memory verdict is too_short (gca_too_short: the window only; with
 * fewer old-generation cycles the verdict itself says what the floor shows and when an old
 * collection would come, so no warning repeats it). */
static int short_memory(struct vctx *v)
{
	struct report *r = v->r;

	for (int l = 0; l < r->nlabels; l++)
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			if (run->label != l)
				continue;
			for (int k = 0; k < run->nsrc; k++) {
				const struct rpt_source *s = &run->src[k];
				const struct gca_result *g = &s->gc;
				double span = (double)(g->steady_to_ms - g->steady_from_ms) / 1000;
				char d[32], m[32];
				if (!s->gc_events || g->memory != GCA_TOO_SHORT)
					continue;
				struct sbuf b = {.n = 0};
				rpt_sb_printf(
				    &b,
				    "Run %s (%s), %s: memory could not be judged: %s of steady GC "
				    "log, and a trend needs at least %d min; run at least %s "
				    "longer.",
				    run->key, lname(r, l), s->name,
				    dur_format((int64_t)llround(span) * 1000, d, sizeof d),
				    GCA_MIN_WINDOW_MS / 60000,
				    gca_hours_text(g->run_longer_h, m, sizeof m));
				if (add(v, "warn", "short_window", l, run->key, &b) < 0)
					return -1;
			}
		}
	return 0;
}

static int short_comparisons(struct vctx *v)
{
	struct report *r = v->r;

	for (int l = 1; l < r->nlabels; l++) {
		struct sbuf b = {.n = 0};
		int n = 0;
		size_t least = SIZE_MAX;
		for (int i = 0; i < r->ncmps; i++) {
			const struct rpt_cmp *m = &r->cmps[i];
			const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
			size_t bt =
			    a->tps.batches < c->tps.batches ? a->tps.batches : c->tps.batches;
			char d[32];
			if (c->label != l || bt >= RPT_CMP_MIN_BATCHES)
				continue;
			if (n == 0)
				rpt_sb_printf(&b, "%s against %s: the comparison at ", lname(r, l),
				              lname(r, a->label));
			rpt_sb_printf(&b, "%s%d users (%s of %s)", n ? ", " : "", c->concurrency,
			              c->sweep ? "sweep steps" : "fixed runs",
			              dur_format(c->planned_ms, d, sizeof d));
			least = bt < least ? bt : least;
			n++;
		}
		if (n == 0)
			continue;
		rpt_sb_printf(&b,
		              " rest%s on %zu batch%s of intervals on a side (fewer than %d): "
		              "real or noise there is a guess; run longer, or with shorter "
		              "intervals.",
		              n == 1 ? "s" : "", least, least == 1 ? "" : "es",
		              RPT_CMP_MIN_BATCHES);
		if (add(v, "warn", "short_window", l, "", &b) < 0)
			return -1;
	}
	return 0;
}

/* --- what happened inside a window --------------------------------------------------------- */

/* First third against last third of x[0..n): the relative change, 0 when not real. */
static double drift_pct(const double *x, size_t n)
{
	size_t third = n / 3;
	struct rpt_bm a, b;
	struct rpt_diff d;

	rpt_batch_means(x, third, NULL, 0, &a);
	rpt_batch_means(x + n - third, third, NULL, 0, &b);
	rpt_welch(&a, &b, &d);
	if (d.verdict != RPT_REAL || !isfinite(d.rel_pct) || fabs(d.rel_pct) < RPT_DRIFT_MIN_PCT)
		return 0;
	return d.rel_pct;
}

static int not_steady(struct vctx *v)
{
	struct report *r = v->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			double t, m;
			if (s->tps.n < RPT_DRIFT_MIN_IVS)
				continue;
			t = drift_pct(s->tps.v, s->tps.n);
			m = drift_pct(s->mean_ms.v, s->mean_ms.n);
			if (t == 0 && m == 0)
				continue;
			struct sbuf b = {.n = 0};
			rpt_sb_printf(&b, "Run %s (%s) at %d users: ", run->key,
			              lname(r, run->label), s->concurrency);
			if (t != 0)
				rpt_sb_printf(&b, "TPS %s %.1f%%", t > 0 ? "rose" : "fell",
				              fabs(t));
			if (t != 0 && m != 0)
				rpt_sb_printf(&b, " and ");
			if (m != 0)
				rpt_sb_printf(&b, "the mean latency %s %.1f%%",
				              m > 0 ? "rose" : "fell", fabs(m));
			rpt_sb_printf(&b,
			              " from the first to the last third of the measured window "
			              "(beyond noise): ");
			if (t >= 0 && m <= 0)
				rpt_sb_printf(&b,
				              "it was still warming up; raise the warm-up so the "
				              "window starts once the server has settled.");
			else if (t <= 0 && m >= 0)
				rpt_sb_printf(&b,
				              "the server looks to degrade as the run goes on (a "
				              "resource filling or leaking); its figures are the "
				              "average of a moving target.");
			else
				rpt_sb_printf(&b,
				              "the load itself moved; its figures are the average "
				              "of a moving target.");
			if (add(v, "warn", "not_steady", run->label, run->key, &b) < 0)
				return -1;
		}
	}
	return 0;
}

static int errors(struct vctx *v)
{
	struct report *r = v->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			int top = -1;
			if (s->nintervals == 0 || !(s->f.error_pct > RPT_ERRORS_PCT))
				continue;
			for (int c = 0; c < ERR_NCLASS; c++)
				if (s->st.err_count[c] > 0 &&
				    (top < 0 || s->st.err_count[c] > s->st.err_count[top]))
					top = c;
			struct sbuf b = {.n = 0};
			rpt_sb_printf(&b,
			              "Run %s (%s) at %d users: %.2f%% of requests failed in the "
			              "measured window",
			              run->key, lname(r, run->label), s->concurrency,
			              s->f.error_pct);
			if (top >= 0)
				rpt_sb_printf(
				    &b, ", mostly %s (%.0f%% of them, '%s')%s",
				    err_class_name((enum err_class)top),
				    100.0 * (double)s->st.err_count[top] / (double)s->f.errors,
				    s->st.err_sample[top],
				    err_class_client_side((enum err_class)top)
				        ? ", a client-side class: the load generator's own limit"
				        : "");
			rpt_sb_printf(&b,
			              ". Throughput and latency there include the failures: fix "
			              "them before trusting a comparison.");
			if (add(v, "warn", "errors", run->label, run->key, &b) < 0)
				return -1;
		}
	}
	return 0;
}

static int clock_skew(struct vctx *v)
{
	struct report *r = v->r;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		char d[32];
		if (!(run->clock_skew_ms > RPT_SKEW_FRAC * (double)run->interval_ms))
			continue;
		struct sbuf b = {.n = 0};
		rpt_sb_printf(
		    &b,
		    "Run %s (%s) was merged from agents whose clocks disagree by %.0f ms, "
		    "more than a tenth of its %s interval: their intervals do not line "
		    "up, so per-interval figures mix different moments. Synchronise the "
		    "clocks (chrony, NTP) before the next run.",
		    run->key, lname(r, run->label), run->clock_skew_ms,
		    dur_format(run->interval_ms, d, sizeof d));
		if (add(v, "warn", "clock_skew", run->label, run->key, &b) < 0)
			return -1;
	}
	return 0;
}

/* --- labels that differ in more than the label -------------------------------------------- */

/* The value of a fact over a label's runs: the one value they agree on, "" when none
 * records it, NULL when they disagree among themselves. */
static const char *label_fact(const struct report *r, int l, const char *source, const char *key)
{
	const char *v = "";
	for (int i = 0; i < r->nruns; i++) {
		const char *x;
		if (r->runs[i].label != l || !(x = rpt_env_get(&r->runs[i], source, key)))
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
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->label != l)
			continue;
		for (int k = 0; k < run->nenv; k++) {
			int seen = !run->env[k].source[0];
			for (int j = 0; j < *n && !seen; j++)
				seen = !strcmp(names[j], run->env[k].source);
			if (!seen && *n < RPT_MAX_SOURCES)
				snprintf(names[(*n)++], RPT_NAME_MAX, "%s", run->env[k].source);
		}
	}
}

static int confounded(struct vctx *v)
{
	struct report *r = v->r;

	for (int l = 1; l < r->nlabels; l++) {
		char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
		int nnames = 0, worst = 0, n = 0;
		struct sbuf b = {.n = 0};
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
					rpt_sb_printf(&b,
					              "%s differs from %s in more than the label: ",
					              lname(r, l), lname(r, 0));
				rpt_sb_printf(&b, "%s%s%s%s '%s' against '%s'", n ? "; " : "",
				              s < 0 ? "" : src, s < 0 ? "" : " ", e->name, y, x);
				worst = e->confounds > worst ? e->confounds : worst;
				n++;
			}
		if (n == 0)
			continue;
		rpt_sb_printf(&b, ". %s",
		              worst > 1 ? "Part of any difference between them may come "
		                          "from this, not from what the label names."
		                        : "This is unlikely to move the figures, but "
		                          "it is not the same setup.");
		if (add(v, worst > 1 ? "warn" : "info", "confounded", l, "", &b) < 0)
			return -1;
	}
	return 0;
}

/* --- order ---------------------------------------------------------------------------- */

static int code_rank(const char *code)
{
	static const char *const order[] = {"host_saturated", "generator_saturated", "confounded",
	                                    "errors",         "not_steady",          "clock_skew",
	                                    "short_window"};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (!strcmp(order[i], code))
			return (int)i;
	return 99;
}

static int cmp_valid(const struct rpt_valid *a, const struct rpt_valid *b)
{
	int sa = strcmp(a->severity, "warn") != 0, sb = strcmp(b->severity, "warn") != 0;
	if (sa != sb)
		return sa - sb;
	if (code_rank(a->code) != code_rank(b->code))
		return code_rank(a->code) - code_rank(b->code);
	return a->label - b->label;
}

/* cold_start (report_study.c): the first run after a target started that differs from the
 * label's other runs beyond noise. */
static int cold_start(struct vctx *v)
{
	struct report *r = v->r;
	struct rpt_validity_item *it;
	int n, rc = 0;

	if (rpt_cold_start(r, &it, &n) < 0)
		return -1;
	for (int i = 0; i < n && rc == 0; i++) {
		struct sbuf b = {.n = 0};
		int label = -1;
		for (int l = 0; l < r->nlabels; l++)
			if (!strcmp(r->labels[l].name, it[i].label))
				label = l;
		rpt_sb_printf(&b, "%s", it[i].message);
		rc = add(v, "warn", "cold_start", label, it[i].run, &b);
	}
	rpt_validity_free(it, n);
	return rc;
}

int rpt_validity(struct report *r)
{
	struct vctx v = {.r = r, .cap = 0};

	if (host_saturated(&v) < 0 || generator_saturated(&v) < 0 || confounded(&v) < 0 ||
	    errors(&v) < 0 || not_steady(&v) < 0 || clock_skew(&v) < 0 || short_memory(&v) < 0 ||
	    short_comparisons(&v) < 0 || cold_start(&v) < 0)
		return -1;
	/* Insertion sort: stable, so runs keep their report order within a code. */
	for (int i = 1; i < r->nvalidity; i++) {
		struct rpt_valid x = r->validity[i];
		int j = i;
		for (; j > 0 && cmp_valid(&r->validity[j - 1], &x) > 0; j--)
			r->validity[j] = r->validity[j - 1];
		r->validity[j] = x;
	}
	return 0;
}
