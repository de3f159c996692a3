/* report_findings: the sentences of the report, built from the cells, comparisons, sweeps
 * and collector series (rpt_build has made them); numbers here are only formatted and
 * compared against the thresholds below, never computed anew. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"

#define FINDING_MAX      1024 /* one sentence, bytes */
#define KEEPALIVE_HELD_REQS 50 /* keep-alive held: a connection serves this many requests */
#define RSS_RISE         0.10 /* RSS rising: the trend adds this share of the mean... */
#define RSS_R2           0.60 /* ...steadily */
#define RSS_MIN_HOURS    0.25 /* ...over at least this long: a trend of a few minutes is
                               * warm-up (pools filling, caches loading), not a leak */

struct sbuf {
	char s[FINDING_MAX]; /* the sentence (cut at the cap) */
	size_t n;            /* bytes used */
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->n >= sizeof b->s - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = (size_t)k < sizeof b->s - b->n ? b->n + (size_t)k : sizeof b->s - 1;
}

static int add_finding(struct report *r, const char *kind, const struct sbuf *b, int *cap)
{
	if (r->nfindings == *cap) {
		int nc = *cap ? *cap * 2 : 32;
		struct rpt_finding *p = realloc(r->findings, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		r->findings = p;
		*cap = nc;
	}
	snprintf(r->findings[r->nfindings].kind, sizeof r->findings[0].kind, "%s", kind);
	r->findings[r->nfindings].text = strdup(b->s);
	if (!r->findings[r->nfindings].text)
		return -1;
	r->nfindings++;
	return 0;
}

static const char *lname(const struct report *r, int l)
{
	return r->labels[l].name;
}

/* "Run 3 (tomcat9)" */
static void run_name(struct sbuf *b, const struct report *r, const struct rpt_run *run)
{
	sb_printf(b, "Run %s (%s)", run->key, lname(r, run->label));
}

/* "20 users (fixed runs of 1m5s)", "20 users (sweep steps of 20s)" */
static void cell_name(struct sbuf *b, const struct rpt_cell *c)
{
	char d[32];
	sb_printf(b, "%d users (%s of %s)", c->concurrency, c->sweep ? "sweep steps" : "fixed runs",
	          dur_format(c->planned_ms, d, sizeof d));
}

static int status_findings(struct report *r, int *cap)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		struct sbuf b = {.n = 0};
		char d[32];
		dur_format((int64_t)llround(run->f.seconds) * 1000, d, sizeof d);
		if (!strcmp(run->status, "done"))
			continue;
		run_name(&b, r, run);
		if (!strcmp(run->status, "running"))
			sb_printf(
			    &b, " is still running: this report covers the %s measured so far.", d);
		else if (!strcmp(run->status, "crashed"))
			sb_printf(
			    &b,
			    " crashed: its runner stopped without closing the run; the figures "
			    "cover the %s measured until then.",
			    d);
		else if (!strcmp(run->status, "interrupted"))
			sb_printf(
			    &b,
			    " was interrupted%s%s%s: the figures cover the %s measured before "
			    "it stopped.",
			    *run->reason ? " (" : "", run->reason, *run->reason ? ")" : "", d);
		else
			sb_printf(&b, " ended as '%s'%s%s%s; the figures cover the %s measured.",
			          run->status, *run->reason ? " (" : "", run->reason,
			          *run->reason ? ")" : "", d);
		if (add_finding(r, "status", &b, cap) < 0)
			return -1;
	}
	return 0;
}

static void fmt_ms(struct sbuf *b, double ms)
{
	char t[32];
	sb_printf(b, "%s", rpt_fmt_ms(ms, t, sizeof t));
}

static int throughput_findings(struct report *r, int *cap)
{
	for (int l = 1; l < r->nlabels; l++) {
		int more = 0, fewer = 0, real_more = 0, real_fewer = 0, n = 0;
		struct sbuf b = {.n = 0};
		for (int i = 0; i < r->ncmps; i++) {
			const struct rpt_cmp *m = &r->cmps[i];
			if (r->cells[m->cell].label != l || r->cells[m->base].label != 0)
				continue;
			n++;
			if (m->value[RPT_M_TPS] > m->base_value[RPT_M_TPS]) {
				more++;
				real_more += m->d[RPT_M_TPS].verdict == RPT_REAL;
			} else if (m->value[RPT_M_TPS] < m->base_value[RPT_M_TPS]) {
				fewer++;
				real_fewer += m->d[RPT_M_TPS].verdict == RPT_REAL;
			}
		}
		if (n == 0)
			continue;
		/* The overall picture first; each level's numbers follow in their own findings. */
		sb_printf(&b, "Of %d matching comparison%s with %s, %s serves more requests per second "
		          "in %d (%d beyond noise)",
		          n, n == 1 ? "" : "s", lname(r, 0), lname(r, l), more, real_more);
		sb_printf(&b, " and fewer in %d (%d beyond noise)", fewer, real_fewer);
		if (n - more - fewer > 0)
			sb_printf(&b, "; %d equal", n - more - fewer);
		sb_printf(&b, ".");
		if (add_finding(r, "throughput", &b, cap) < 0)
			return -1;
	}
	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		const struct rpt_diff *t = &m->d[RPT_M_TPS], *lat = &m->d[RPT_M_MEAN];
		const char *A = lname(r, a->label), *B = lname(r, c->label);
		double tb = m->base_value[RPT_M_TPS], tc = m->value[RPT_M_TPS];
		double ma = m->base_value[RPT_M_MEAN], mc = m->value[RPT_M_MEAN];
		struct sbuf b = {.n = 0};
		char p[32];

		sb_printf(&b, "At ");
		cell_name(&b, c);
		if (t->verdict == RPT_REAL)
			sb_printf(&b,
			          ", %s serves %s%% %s requests per second than %s (%.1f vs %.1f "
			          "TPS, a real difference)",
			          B, rpt_fmt_num(fabs(100 * (tc - tb) / tb), 1, p, sizeof p),
			          tc > tb ? "more" : "fewer", A, tc, tb);
		else if (t->verdict == RPT_NOISE)
			sb_printf(&b,
			          ", %s and %s serve the same within noise (%.1f vs %.1f TPS, %s)",
			          B, A, tc, tb, rpt_fmt_pct(100 * (tc - tb) / tb, p, sizeof p));
		else
			sb_printf(&b,
			          ", %s serves %.1f TPS against %.1f for %s (%s; too few %s "
			          "to judge the noise)",
			          B, tc, tb, A, rpt_fmt_pct(100 * (tc - tb) / tb, p, sizeof p),
			          m->noise == RPT_BY_RUNS ? "runs" : "intervals");
		if (!isnan(ma) && !isnan(mc) && ma > 0) {
			if (lat->verdict == RPT_REAL) {
				sb_printf(&b, " and answers %s%% %s on average (",
				          rpt_fmt_num(fabs(100 * (mc - ma) / ma), 1, p, sizeof p),
				          mc < ma ? "faster" : "slower");
				fmt_ms(&b, mc);
				sb_printf(&b, " vs ");
				fmt_ms(&b, ma);
				sb_printf(&b, ", real)");
			} else {
				sb_printf(&b, "; the mean latency is %s ",
				          lat->verdict == RPT_NOISE
				              ? "the same within noise"
				              : m->noise == RPT_BY_RUNS ? "not judged (too few runs)"
				                                         : "not judged (too few intervals)");
				sb_printf(&b, "(");
				fmt_ms(&b, mc);
				sb_printf(&b, " vs ");
				fmt_ms(&b, ma);
				sb_printf(&b, ")");
			}
			sb_printf(&b, "; p99 ");
			fmt_ms(&b, m->value[RPT_M_P99]);
			sb_printf(&b, " vs ");
			fmt_ms(&b, m->base_value[RPT_M_P99]);
			sb_printf(
			    &b, " (%s, %s)",
			    rpt_fmt_pct(100 * (m->value[RPT_M_P99] - m->base_value[RPT_M_P99]) /
			                    m->base_value[RPT_M_P99],
			                p, sizeof p),
			    rpt_verdict_name(m->d[RPT_M_P99].verdict));
		}
		sb_printf(&b, ".");
		if (add_finding(r, "throughput", &b, cap) < 0)
			return -1;
	}
	return 0;
}

static int sweep_findings(struct report *r, int *cap)
{
	for (int s = 0; s < r->nsweeps; s++) {
		const struct rpt_sweep *sw = &r->sweeps[s];
		const struct rpt_cell *first = &r->cells[sw->cells[0]];
		const struct rpt_cell *last = &r->cells[sw->cells[sw->ncells - 1]];
		struct sbuf b = {.n = 0};
		char d[32];

		sb_printf(&b, "%s's sweep (%d..%d users, %s steps) ", lname(r, sw->label),
		          first->concurrency, last->concurrency,
		          dur_format(sw->planned_ms, d, sizeof d));
		if (sw->ncells < 2) {
			sb_printf(&b, "has one level only: no saturation to look for.");
		} else if (sw->sat.saturated) {
			const struct rpt_cell *at = &r->cells[sw->cells[sw->sat.at]];
			const struct rpt_cell *pk = &r->cells[sw->cells[sw->sat.peak]];
			sb_printf(&b,
			          "saturates at %d users: %.1f TPS there is %.0f%% or more of the "
			          "peak %.1f TPS (at %d users).",
			          at->concurrency, at->f.tps, 100 * RPT_SAT_SHARE, pk->f.tps,
			          pk->concurrency);
		} else {
			sb_printf(&b,
			          "does not saturate: TPS still grows at the highest level (%d "
			          "users, %.1f TPS; %.0f%% of it was not reached below).",
			          last->concurrency, last->f.tps, 100 * RPT_SAT_SHARE);
		}
		if (add_finding(r, "saturation", &b, cap) < 0)
			return -1;

		b.n = 0;
		b.s[0] = '\0';
		sb_printf(&b, "USL fit for %s: ", lname(r, sw->label));
		if (sw->ncells < RPT_USL_MIN_LEVELS) {
			sb_printf(&b, "none, the sweep has %d level%s and a fit needs %d.",
			          sw->ncells, sw->ncells == 1 ? "" : "s", RPT_USL_MIN_LEVELS);
		} else if (!sw->usl.ok) {
			sb_printf(&b, "none, the levels do not fit the law (no throughput?).");
		} else {
			sb_printf(&b,
			          "sigma = %.4f, kappa = %.6f, lambda = %.2f TPS per user "
			          "(R² %.3f); ",
			          sw->usl.sigma, sw->usl.kappa, sw->usl.lambda, sw->usl.r2);
			const struct rpt_cell *lo = &r->cells[sw->cells[0]];
			if (isfinite(sw->usl.n_star) && sw->usl.n_star < lo->concurrency)
				/* sigma near 1 puts N* below the lowest level measured: the law
				 * says nothing the sweep did not (saturated from the start). */
				sb_printf(&b,
				          "contention dominates (sigma near 1): throughput was already "
				          "flat at the lowest level measured (%d users), so the law "
				          "predicts no peak inside the sweep; measure lower levels.",
				          lo->concurrency);
			else if (isfinite(sw->usl.n_star) && isfinite(sw->usl.x_star))
				sb_printf(&b, "predicted peak at N* = %.1f users, %.1f TPS.",
				          sw->usl.n_star, sw->usl.x_star);
			else if (isfinite(sw->usl.x_star))
				sb_printf(&b,
				          "no retrograde peak (kappa = 0); throughput approaches "
				          "lambda/sigma = %.1f TPS.",
				          sw->usl.x_star);
			else
				sb_printf(&b,
				          "linear scaling (sigma = kappa = 0): no limit in sight.");
		}
		if (add_finding(r, "usl", &b, cap) < 0)
			return -1;

		if (sw->queueing) {
			const struct rpt_cell *a = &r->cells[sw->q_from], *z = &r->cells[sw->q_to];
			char p[32];
			b.n = 0;
			b.s[0] = '\0';
			sb_printf(
			    &b,
			    "Past saturation %s queues: from %d to %d users TPS stays within "
			    "%s%% (%.1f -> %.1f) while the mean latency grows %.1fx (",
			    lname(r, sw->label), a->concurrency, z->concurrency,
			    rpt_fmt_num(100 * fabs(z->f.tps - a->f.tps) / a->f.tps, 1, p, sizeof p),
			    a->f.tps, z->f.tps, z->f.mean_us / a->f.mean_us);
			fmt_ms(&b, a->f.mean_us / 1000);
			sb_printf(&b, " -> ");
			fmt_ms(&b, z->f.mean_us / 1000);
			sb_printf(&b, "): more users only wait longer (N = X R).");
			if (add_finding(r, "queueing", &b, cap) < 0)
				return -1;
		}
	}
	return 0;
}

static int memory_findings(struct report *r, int *cap)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsrc; k++) {
			const struct rpt_source *s = &run->src[k];
			const struct gca_result *g = &s->gc;
			struct sbuf b = {.n = 0};
			char x[64], d[32];
			if (s->gc_events > 0) {
				run_name(&b, r, run);
				sb_printf(&b, ", %s: ", s->name);
				if (g->memory == GCA_SUSPECTED_LEAK)
					sb_printf(&b,
					          "suspected leak: heap after GC grows %.1f MB/h "
					          "(R² %.2f).",
					          g->slope_mb_per_h, g->r2);
				else if (g->memory == GCA_NORMAL)
					sb_printf(&b,
					          "normal: heap after GC %s MB/h (R² %.2f), "
					          "reclaimed.",
					          rpt_fmt_signed(g->slope_mb_per_h, 1, x, sizeof x),
					          g->r2);
				else
					sb_printf(&b, "memory not judged: %s.", g->why);
				if (add_finding(r, "memory", &b, cap) < 0)
					return -1;
				b.n = 0;
				b.s[0] = '\0';
				run_name(&b, r, run);
				sb_printf(
				    &b,
				    ", %s: GC paused the application %.2f%% of the wall time "
				    "(%lld pauses of %lld events; longest %.1f ms, p99 %.1f ms).",
				    s->name, g->gc_time_pct, (long long)g->pauses,
				    (long long)g->events, g->pause_max_ms, g->pause_p99_ms);
				if (add_finding(r, "gc", &b, cap) < 0)
					return -1;
			} else if (s->has_rss && s->rss_fit) {
				double rise = s->rss_slope_mb_h * s->rss_hours;
				int rising = s->rss_mean_mb > 0 &&
				             rise >= RSS_RISE * s->rss_mean_mb &&
				             s->rss_r2 >= RSS_R2;
				run_name(&b, r, run);
				sb_printf(&b,
				          ", %s: memory %.1f MB on average, trend %s MB/h (R² %.2f) "
				          "over %s: %s.",
				          s->name, s->rss_mean_mb,
				          rpt_fmt_signed(s->rss_slope_mb_h, 2, x, sizeof x),
				          s->rss_r2,
				          dur_format((int64_t)llround(s->rss_hours * 3600) * 1000,
				                     d, sizeof d),
				          s->rss_hours < RSS_MIN_HOURS
				              ? "too short a window to judge a trend"
				              : rising ? "rising steadily, watch it" : "flat");
				if (add_finding(r, "rss", &b, cap) < 0)
					return -1;
			}
		}
	}
	return 0;
}

static int error_findings(struct report *r, int *cap)
{
	int any = 0;

	for (int l = 0; l < r->nlabels; l++) {
		int64_t count[ERR_NCLASS] = {0}, req = 0, client = 0, server = 0;
		const char *sample[ERR_NCLASS] = {0};
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			if (run->label != l)
				continue;
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
			struct sbuf b = {.n = 0};
			int first = 1;
			if (total == 0)
				continue;
			any = 1;
			if (side)
				sb_printf(
				    &b,
				    "%s: %lld client-side error%s, the load generator's own "
				    "limits (out of ephemeral ports, DNS), not the server's: ",
				    lname(r, l), (long long)total, total == 1 ? "" : "s");
			else
				sb_printf(&b,
				          "%s: %.2f%% of requests failed on the server side (%lld "
				          "of %lld): ",
				          lname(r, l),
				          req ? 100.0 * (double)total / (double)req : 0.0,
				          (long long)total, (long long)req);
			for (int c = 0; c < ERR_NCLASS; c++) {
				if (!count[c] || err_class_client_side((enum err_class)c) != side)
					continue;
				sb_printf(&b, "%s%s %lld ('%s')", first ? "" : ", ",
				          err_class_name((enum err_class)c), (long long)count[c],
				          sample[c] ? sample[c] : "");
				first = 0;
			}
			sb_printf(&b, ".");
			if (add_finding(r, side ? "client_errors" : "errors", &b, cap) < 0)
				return -1;
		}
	}
	if (!any) {
		struct sbuf b = {.n = 0};
		sb_printf(&b, "No request failed in any measured window.");
		if (add_finding(r, "errors", &b, cap) < 0)
			return -1;
	}
	return 0;
}

static int keepalive_findings(struct report *r, int *cap)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int64_t req = run->st.requests, nc = run->st.new_conns;
		struct sbuf b = {.n = 0};
		if (req == 0)
			continue;
		run_name(&b, r, run);
		if (!strcmp(run->connection, "close"))
			sb_printf(&b,
			          ", connection close: %lld new connections for %lld requests "
			          "(%.2f per request; one per request is the design).",
			          (long long)nc, (long long)req, (double)nc / (double)req);
		else if (nc == 0)
			sb_printf(&b, ", keep-alive held: no new connection in %lld requests.",
			          (long long)req);
		else if ((double)req / (double)nc >= KEEPALIVE_HELD_REQS) {
			double per = (double)req / (double)nc;
			sb_printf(&b,
			          ", keep-alive held, with a new connection every %.0f requests "
			          "(%lld for %lld): the server or a proxy ends a connection after "
			          "about that many requests%s.",
			          per, (long long)nc, (long long)req,
			          per >= 90 && per <= 110 ? " (Tomcat's maxKeepAliveRequests is 100 "
			                                    "by default)"
			                                  : "");
		}
		else
			sb_printf(&b,
			          ", keep-alive did not hold: only %.1f requests per connection "
			          "(%lld new connections for %lld requests): the server or a proxy "
			          "closes them.",
			          (double)req / (double)nc, (long long)nc, (long long)req);
		if (add_finding(r, "keepalive", &b, cap) < 0)
			return -1;
	}
	return 0;
}

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

/* Where the time of a request goes when each opens a connection, and what a request costs
 * the server; then the labels' server costs side by side. */
static int cost_findings(struct report *r, int *cap)
{
	double cpu[RPT_MAX_LABELS], mem[RPT_MAX_LABELS];
	int n[RPT_MAX_LABELS], nm[RPT_MAX_LABELS];
	const char *srcname = NULL;

	for (int l = 0; l < r->nlabels && l < RPT_MAX_LABELS; l++)
		cpu[l] = mem[l] = 0, n[l] = nm[l] = 0;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		const struct figures *f = &run->f;
		int frame = !strcmp(run->protocol, "tcp-frame");
		struct sbuf b = {.n = 0};
		struct cost c;
		if (run->st.requests == 0)
			continue;
		if ((double)run->st.new_conns >= 0.5 * (double)run->st.requests && f->connect_us > 0) {
			run_name(&b, r, run);
			if (frame) {
				/* tcp-frame: the iteration's latency excludes connect and handshake,
				 * which are measured apart (the handshake in the ttfb column). */
				double all = f->connect_us + f->ttfb_us + f->mean_us;
				sb_printf(&b,
				          ", one connection per iteration: connect %.3f ms + handshake "
				          "%.3f ms + the batch %.3f ms; %.1f%% of each iteration goes to "
				          "connecting and the handshake.",
				          f->connect_us / 1000, f->ttfb_us / 1000, f->mean_us / 1000,
				          all > 0 ? 100 * (f->connect_us + f->ttfb_us) / all : 0);
			} else {
				sb_printf(&b,
				          ", one connection per request: connecting takes %.3f ms of a "
				          "%.3f ms request (%.1f%%); the first byte of the answer comes "
				          "after %.3f ms.",
				          f->connect_us / 1000, f->mean_us / 1000,
				          f->mean_us > 0 ? 100 * f->connect_us / f->mean_us : 0,
				          f->ttfb_us / 1000);
			}
			if (add_finding(r, "connections", &b, cap) < 0)
				return -1;
		}
		run_cost(run, &c);
		if (!c.src || !isfinite(c.cpu_ms))
			continue;
		b.n = 0;
		b.s[0] = '\0';
		run_name(&b, r, run);
		sb_printf(&b, ", %s: %.3f ms of CPU per %s", c.src->name, c.cpu_ms,
		          frame ? "iteration" : "request");
		if (isfinite(c.mem_mb))
			sb_printf(&b, "; memory %.1f MB on average, %.1f MB at most", c.mem_mb,
			          c.peak_mb);
		sb_printf(&b, ".");
		if (add_finding(r, "cost", &b, cap) < 0)
			return -1;
		if (run->label < RPT_MAX_LABELS && (!srcname || !strcmp(srcname, c.src->name))) {
			srcname = c.src->name;
			cpu[run->label] += c.cpu_ms;
			n[run->label]++;
			if (isfinite(c.mem_mb)) {
				mem[run->label] += c.mem_mb;
				nm[run->label]++;
			}
		}
	}
	for (int l = 1; l < r->nlabels && l < RPT_MAX_LABELS; l++) {
		struct sbuf b = {.n = 0};
		if (!n[0] || !n[l] || cpu[0] <= 0)
			continue;
		double c0 = cpu[0] / n[0], cl = cpu[l] / n[l];
		sb_printf(&b, "Server cost (%s, mean over runs): %s needs %.2fx the CPU per request of "
		          "%s (%.3f vs %.3f ms)",
		          srcname, lname(r, l), cl / c0, lname(r, 0), cl, c0);
		if (nm[0] && nm[l] && mem[0] > 0)
			sb_printf(&b, " and holds %.2fx its memory (%.1f vs %.1f MB)",
			          (mem[l] / nm[l]) / (mem[0] / nm[0]), mem[l] / nm[l], mem[0] / nm[0]);
		sb_printf(&b, ".");
		if (add_finding(r, "cost", &b, cap) < 0)
			return -1;
	}
	return 0;
}

/* The cold_start validity items (report_study.c), as findings until the validity list
 * shows them. */
static int cold_start_findings(struct report *r, int *cap)
{
	struct rpt_validity_item *v;
	int n, rc = 0;

	if (rpt_cold_start(r, &v, &n) < 0)
		return -1;
	for (int i = 0; i < n && rc == 0; i++) {
		struct sbuf b = {.n = 0};
		sb_printf(&b, "%s", v[i].message);
		rc = add_finding(r, "cold_start", &b, cap);
	}
	rpt_validity_free(v, n);
	return rc;
}

int rpt_findings(struct report *r)
{
	int cap = 0;

	if (status_findings(r, &cap) < 0 || cold_start_findings(r, &cap) < 0 ||
	    throughput_findings(r, &cap) < 0 || sweep_findings(r, &cap) < 0 ||
	    memory_findings(r, &cap) < 0 || error_findings(r, &cap) < 0 ||
	    keepalive_findings(r, &cap) < 0 || cost_findings(r, &cap) < 0)
		return -1;
	return 0;
}
