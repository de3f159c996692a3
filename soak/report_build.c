/* report_build: cells, comparisons and sweeps from the runs read; the findings. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"

#define FINDING_MAX      1024 /* one sentence, bytes */
#define QUEUE_TPS_FLAT   0.10 /* queueing: TPS within this share past saturation... */
#define QUEUE_LAT_GROWTH 1.5  /* ...while mean latency grows at least this factor */
#define KEEPALIVE_HELD_REQS 50 /* keep-alive held: a connection serves this many requests */
#define RSS_RISE         0.10 /* RSS rising: the trend adds this share of the mean... */
#define RSS_R2           0.60 /* ...steadily */
#define RSS_MIN_HOURS    0.25 /* ...over at least this long: a trend of a few minutes is
                               * warm-up (pools filling, caches loading), not a leak */

/* --- cells ------------------------------------------------------------------------------ */

static int is_sweep(const struct rpt_run *run)
{
	return strcmp(run->mode, "sweep") == 0;
}

/* Index of a CPU series in r->cpu_names, or -1. */
static int cpu_index(const struct report *r, const char *name)
{
	for (int i = 0; i < r->ncpu; i++)
		if (strcmp(r->cpu_names[i], name) == 0)
			return i;
	return -1;
}

static int collect_cpu_names(struct report *r, char *err, size_t errlen)
{
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s = &r->runs[i].src[k];
			int at = 0;
			if (!s->has_cpu || cpu_index(r, s->name) >= 0)
				continue;
			if (r->ncpu >= RPT_MAX_SOURCES) {
				snprintf(err, errlen,
				         "more than %d CPU series in the selected runs",
				         RPT_MAX_SOURCES);
				return -1;
			}
			while (at < r->ncpu && strcmp(r->cpu_names[at], s->name) < 0)
				at++;
			memmove(r->cpu_names[at + 1], r->cpu_names[at],
			        (size_t)(r->ncpu - at) * sizeof r->cpu_names[0]);
			snprintf(r->cpu_names[at], RPT_NAME_MAX, "%s", s->name);
			r->ncpu++;
		}
	return 0;
}

static int cmp_cell(const struct rpt_cell *a, const struct rpt_cell *b)
{
	if (a->sweep != b->sweep)
		return a->sweep - b->sweep;
	if (a->concurrency != b->concurrency)
		return a->concurrency < b->concurrency ? -1 : 1;
	if (a->planned_ms != b->planned_ms)
		return a->planned_ms < b->planned_ms ? -1 : 1;
	return a->label - b->label;
}

static int qcmp_cell(const void *a, const void *b)
{
	return cmp_cell(a, b);
}

static int same_key(const struct rpt_cell *a, const struct rpt_cell *b)
{
	return a->sweep == b->sweep && a->concurrency == b->concurrency &&
	       a->planned_ms == b->planned_ms;
}

/* Gathers one metric of the cell's steps (in run order) with a segment per step. */
struct gather {
	double *v;   /* values */
	size_t n;    /* how many */
	size_t *seg; /* segment lengths */
	size_t nseg; /* how many */
};

static int gather_add(struct gather *g, const struct rpt_values *v, size_t *cap_v, size_t *cap_s)
{
	if (g->n + v->n > *cap_v) {
		size_t nc = (g->n + v->n) * 2;
		double *p = realloc(g->v, nc * sizeof *p);
		if (!p)
			return -1;
		g->v = p;
		*cap_v = nc;
	}
	if (g->nseg == *cap_s) {
		size_t nc = *cap_s ? *cap_s * 2 : 8;
		size_t *p = realloc(g->seg, nc * sizeof *p);
		if (!p)
			return -1;
		g->seg = p;
		*cap_s = nc;
	}
	if (v->n)
		memcpy(g->v + g->n, v->v, v->n * sizeof *v->v);
	g->n += v->n;
	g->seg[g->nseg++] = v->n;
	return 0;
}

/* Batch means of one metric over the steps that match a cell.  which: 0 tps, 1 mean,
 * 2 p99, 3 error %, 4 + i: CPU series i of the report. */
static int cell_bm(const struct report *r, const struct rpt_cell *c, int which, struct rpt_bm *out)
{
	struct gather g = {0};
	size_t cap_v = 0, cap_s = 0;
	int rc = -1;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int si = -1;
		if (run->label != c->label || is_sweep(run) != c->sweep)
			continue;
		if (which >= 4) {
			for (int k = 0; k < run->nsrc; k++)
				if (strcmp(run->src[k].name, r->cpu_names[which - 4]) == 0)
					si = k;
			if (si < 0)
				continue;
		}
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			const struct rpt_values *v = which == 0   ? &s->tps
			                             : which == 1 ? &s->mean_ms
			                             : which == 2 ? &s->p99_ms
			                             : which == 3 ? &s->err_pct
			                                          : &s->cpu[si];
			if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
			    s->nintervals == 0)
				continue;
			if (gather_add(&g, v, &cap_v, &cap_s) < 0)
				goto done;
		}
	}
	rpt_batch_means(g.v, g.n, g.seg, g.nseg, out);
	rc = 0;
done:
	free(g.v);
	free(g.seg);
	return rc;
}

/* The cell's merged figures and its list of runs. */
static int cell_figures(const struct report *r, struct rpt_cell *c, char *err, size_t errlen)
{
	double secs = 0;
	size_t used = 0;
	int rc = -1;

	if (istats_init(&c->st, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		int listed = 0;
		if (run->label != c->label || is_sweep(run) != c->sweep)
			continue;
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
			    s->nintervals == 0)
				continue;
			if (rpt_step_add(&c->st, s, err, errlen) < 0)
				goto done;
			secs += s->f.seconds;
			c->nsteps++;
			if (!listed) {
				int k2 = snprintf(c->runs + used, sizeof c->runs - used, "%s%s",
				                  used ? "," : "", run->key);
				if (k2 > 0 && (size_t)k2 < sizeof c->runs - used)
					used += (size_t)k2;
				listed = 1;
			}
		}
	}
	istats_figures(&c->st, secs, &c->f);
	rc = 0;
done:
	hdr_release(&c->st.hist);
	return rc;
}

static int build_cells(struct report *r, char *err, size_t errlen)
{
	int cap = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nsteps; k++) {
			const struct rpt_step *s = &run->steps[k];
			struct rpt_cell key = {.sweep = is_sweep(run),
			                       .label = run->label,
			                       .concurrency = s->concurrency,
			                       .planned_ms = s->planned_ms};
			int found = 0;
			if (s->nintervals == 0)
				continue;
			for (int c = 0; c < r->ncells && !found; c++)
				found =
				    same_key(&r->cells[c], &key) && r->cells[c].label == key.label;
			if (found)
				continue;
			if (r->ncells == cap) {
				int nc = cap ? cap * 2 : 16;
				struct rpt_cell *p = realloc(r->cells, (size_t)nc * sizeof *p);
				if (!p) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				r->cells = p;
				cap = nc;
			}
			r->cells[r->ncells++] = key;
		}
	}
	if (r->ncells)
		qsort(r->cells, (size_t)r->ncells, sizeof *r->cells, qcmp_cell);
	for (int c = 0; c < r->ncells; c++) {
		struct rpt_cell *cell = &r->cells[c];
		if (cell_figures(r, cell, err, errlen) < 0)
			return -1;
		if (cell_bm(r, cell, 0, &cell->tps) < 0 ||
		    cell_bm(r, cell, 1, &cell->mean_ms) < 0 ||
		    cell_bm(r, cell, 2, &cell->p99_ms) < 0 ||
		    cell_bm(r, cell, 3, &cell->err_pct) < 0)
			goto oom;
		for (int s = 0; s < r->ncpu; s++) {
			if (cell_bm(r, cell, 4 + s, &cell->cpu[s]) < 0)
				goto oom;
			cell->cpu_mean[s] = cell->cpu[s].mean;
		}
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* The merged figure of a metric, as the tables show it. */
static double cell_value(const struct rpt_cell *c, enum rpt_metric m)
{
	int answered = c->f.p50_us > 0 || c->f.max_us > 0;
	switch (m) {
	case RPT_M_TPS:
		return c->f.tps;
	case RPT_M_MEAN:
		return answered ? c->f.mean_us / 1000 : NAN;
	case RPT_M_P99:
		return answered ? (double)c->f.p99_us / 1000 : NAN;
	default:
		return c->f.error_pct;
	}
}

static int build_cmps(struct report *r, char *err, size_t errlen)
{
	r->cmps = calloc((size_t)(r->ncells ? r->ncells : 1), sizeof *r->cmps);
	if (!r->cmps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Cells are sorted by key then label: the first of each key group is the baseline. */
	for (int c = 0; c < r->ncells;) {
		int end = c + 1;
		while (end < r->ncells && same_key(&r->cells[c], &r->cells[end]))
			end++;
		for (int k = c + 1; k < end; k++) {
			struct rpt_cmp *m = &r->cmps[r->ncmps++];
			const struct rpt_cell *a = &r->cells[c], *b = &r->cells[k];
			m->base = c;
			m->cell = k;
			rpt_welch(&a->tps, &b->tps, &m->d[RPT_M_TPS]);
			rpt_welch(&a->mean_ms, &b->mean_ms, &m->d[RPT_M_MEAN]);
			rpt_welch(&a->p99_ms, &b->p99_ms, &m->d[RPT_M_P99]);
			rpt_welch(&a->err_pct, &b->err_pct, &m->d[RPT_M_ERR]);
			for (int i = 0; i < RPT_NMETRIC; i++) {
				m->base_value[i] = cell_value(a, (enum rpt_metric)i);
				m->value[i] = cell_value(b, (enum rpt_metric)i);
			}
			for (int s = 0; s < r->ncpu; s++)
				rpt_welch(&a->cpu[s], &b->cpu[s], &m->cpu[s]);
		}
		c = end;
	}
	return 0;
}

static int build_sweeps(struct report *r, char *err, size_t errlen)
{
	int cap = 0;

	for (int l = 0; l < r->nlabels; l++) {
		/* One sweep per planned step duration of this label's sweep cells. */
		for (int c = 0; c < r->ncells; c++) {
			const struct rpt_cell *cell = &r->cells[c];
			int seen = 0;
			if (!cell->sweep || cell->label != l)
				continue;
			for (int s = 0; s < r->nsweeps && !seen; s++)
				seen = r->sweeps[s].label == l &&
				       r->sweeps[s].planned_ms == cell->planned_ms;
			if (seen)
				continue;
			if (r->nsweeps == cap) {
				int nc = cap ? cap * 2 : 4;
				struct rpt_sweep *p = realloc(r->sweeps, (size_t)nc * sizeof *p);
				if (!p)
					goto oom;
				r->sweeps = p;
				cap = nc;
			}
			struct rpt_sweep *sw = &r->sweeps[r->nsweeps++];
			memset(sw, 0, sizeof *sw);
			sw->label = l;
			sw->planned_ms = cell->planned_ms;
			sw->cells = malloc((size_t)r->ncells * sizeof *sw->cells);
			if (!sw->cells)
				goto oom;
			/* Cells are sorted by concurrency within a kind. */
			for (int k = 0; k < r->ncells; k++)
				if (r->cells[k].sweep && r->cells[k].label == l &&
				    r->cells[k].planned_ms == cell->planned_ms)
					sw->cells[sw->ncells++] = k;
		}
	}
	for (int s = 0; s < r->nsweeps; s++) {
		struct rpt_sweep *sw = &r->sweeps[s];
		double *n = malloc((size_t)sw->ncells * sizeof *n);
		double *x = malloc((size_t)sw->ncells * sizeof *x);
		int k = sw->ncells;
		if (!n || !x) {
			free(n);
			free(x);
			goto oom;
		}
		for (int i = 0; i < k; i++) {
			n[i] = r->cells[sw->cells[i]].concurrency;
			x[i] = r->cells[sw->cells[i]].f.tps;
		}
		rpt_saturation(x, (size_t)k, &sw->sat);
		if (k >= RPT_USL_MIN_LEVELS)
			rpt_usl_fit(n, x, (size_t)k, &sw->usl);
		if (sw->sat.ok && sw->sat.saturated) {
			const struct rpt_cell *a = &r->cells[sw->cells[sw->sat.at]];
			const struct rpt_cell *b = &r->cells[sw->cells[k - 1]];
			double flat =
			    a->f.tps > 0 ? fabs(b->f.tps - a->f.tps) / a->f.tps : INFINITY;
			sw->q_from = sw->cells[sw->sat.at];
			sw->q_to = sw->cells[k - 1];
			sw->queueing = flat <= QUEUE_TPS_FLAT && a->f.mean_us > 0 &&
			               b->f.mean_us >= QUEUE_LAT_GROWTH * a->f.mean_us;
		}
		free(n);
		free(x);
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* --- findings ------------------------------------------------------------------------- */

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

/* What `soak merge` noted about a merged run's agents, one sentence each. */
static int agent_findings(struct report *r, int *cap)
{
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		for (int k = 0; k < run->nagent_notes; k++) {
			struct sbuf b = {.n = 0};
			run_name(&b, r, run);
			sb_printf(&b, ", merged from %d of %d agents: %s.", run->agents,
			          run->agents_planned, run->agent_notes[k]);
			if (add_finding(r, "agents", &b, cap) < 0)
				return -1;
		}
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
			          ", %s serves %.1f TPS against %.1f for %s (%s; too few intervals "
			          "to judge the noise)",
			          B, tc, tb, A, rpt_fmt_pct(100 * (tc - tb) / tb, p, sizeof p));
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

int rpt_build(struct report *r, const struct rpt_opts *o, char *err, size_t errlen)
{
	int cap = 0;

	if (o->title && *o->title) {
		r->title = strdup(o->title);
	} else {
		struct sbuf b = {.n = 0};
		sb_printf(&b, "soak report");
		for (int l = 0; l < r->nlabels && l < 4; l++)
			sb_printf(&b, "%s%s", l == 0 ? ": " : " vs ", lname(r, l));
		if (r->nlabels > 4)
			sb_printf(&b, " and %d more", r->nlabels - 4);
		r->title = strdup(b.s);
	}
	if (!r->title)
		goto oom;
	if (collect_cpu_names(r, err, errlen) < 0 || build_cells(r, err, errlen) < 0 ||
	    build_cmps(r, err, errlen) < 0 || build_sweeps(r, err, errlen) < 0)
		return -1;
	if (status_findings(r, &cap) < 0 || agent_findings(r, &cap) < 0 || throughput_findings(r, &cap) < 0 ||
	    sweep_findings(r, &cap) < 0 || memory_findings(r, &cap) < 0 ||
	    error_findings(r, &cap) < 0 || keepalive_findings(r, &cap) < 0 ||
	    cost_findings(r, &cap) < 0)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
