/* report_tables: the report's tables as text cells (shared by Markdown and HTML).
 * The cells are the figures report.json holds, formatted once, so Markdown and HTML show
 * one value per quantity. */
#include "report_tables.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "report_tb.h"
#include "report/report_text.h"
#include "dur.h"
#include "report/judge/report_drift.h"
#include "report/judge/report_mem.h"
#include "report/judge/report_stats.h"
#include "report_drift_text.h"
#include "report_fmt.h"
#include "report_mem_text.h"

#define DASH     "\xe2\x80\x94" /* "—": no value */
#define MAX_COLS (16 + RPT_MAX_SOURCES)

int rpt_run_pictured(const struct report *r, int run)
{
	return r->runs[run].pictured;
}

/* --- tables built from the report (report_tables.h) ----------------------------------- */

void rpt_tb_change(struct rpt_tb *b, int row, int col, const struct rpt_cmp *m, int f)
{
	char x[128];
	rpt_tb_set(b, row, col, "%s", rpt_change_cell(m, f, x, sizeof x));
}

int rpt_tb_build(const struct report *r, int n,
                 void (*fn)(const struct report *, struct rpt_tb *, struct rpt_table *, int),
                 struct rpt_table **out, int *nout, char *err, size_t errlen)
{
	struct rpt_table *t = calloc((size_t)(n ? n : 1), sizeof *t);
	struct rpt_tb b = {0};
	int k = 0;

	*out = NULL;
	*nout = 0;
	if (!t)
		goto oom;
	for (int i = 0; i < n; i++) {
		fn(r, &b, &t[k], i);
		if (b.failed) {
			rpt_tables_free(t, k + 1);
			goto oom;
		}
		if (t[k].nrows > 0)
			k++;
		else
			rpt_table_free(&t[k]);
	}
	*out = t;
	*nout = k;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* --- the tables ----------------------------------------------------------------------- */

static char *dur_s(double seconds, char *buf, size_t len)
{
	return dur_format((int64_t)llround(seconds) * 1000, buf, len);
}

/* "app: normal; db: suspected leak" for a run's GC sources, or "—". */
static void memory_cell(const struct rpt_run *run, char *buf, size_t len)
{
	size_t n = 0;
	int many = 0;

	buf[0] = '\0';
	for (int k = 0; k < run->nsrc; k++)
		many += run->src[k].gc_events > 0;
	for (int k = 0; k < run->nsrc && n < len; k++) {
		const struct rpt_source *s = &run->src[k];
		int w;
		if (!s->gc_events)
			continue;
		w = many > 1 ? snprintf(buf + n, len - n, "%s%s: %s", n ? "; " : "", s->name,
		                        gca_memory_text(s->gc.memory))
		             : snprintf(buf + n, len - n, "%s", gca_memory_text(s->gc.memory));
		if (w > 0)
			n += (size_t)w;
	}
	if (!buf[0])
		snprintf(buf, len, DASH);
}

static const char *run_cell(const struct rpt_run *run, char *buf, size_t len)
{
	if (!strcmp(run->status, "done"))
		snprintf(buf, len, "%s%s", run->key, run->warmup ? " (warm-up)" : "");
	else
		snprintf(buf, len, "%s (%s%s)", run->key, run->status,
		         run->warmup ? ", warm-up" : "");
	return buf;
}

/* A latency cell: `us`, a figure of f in microseconds, in milliseconds ("n/a"-like when
 * f answered no request). */
static void ms_cell(struct rpt_tb *b, int row, int col, const struct figures *f, double us)
{
	char x[64];
	int ans = f->p50_us > 0 || f->max_us > 0;

	rpt_tb_set(b, row, col, "%s", rpt_fmt_ms(ans ? us / 1000 : NAN, x, sizeof x));
}

static double run_cpu(const struct rpt_run *run, const char *name)
{
	for (int k = 0; k < run->nsrc; k++)
		if (!strcmp(run->src[k].name, name))
			return run->src[k].cpu_mean;
	return NAN;
}

/* Starts a row about runs of label l: `runs` names them (column 0), the label is column 1. */
static int runs_row(const struct report *r, struct rpt_tb *b, const char *runs, int l)
{
	int row = rpt_tb_row(b);

	rpt_tb_set(b, row, 0, "%s", runs);
	rpt_tb_set(b, row, 1, "%s", rpt_label_name(r, l));
	return row;
}

/* Columns from..to-1 of a row without a value. */
static void dashes(struct rpt_tb *b, int row, int from, int to)
{
	for (int col = from; col < to; col++)
		rpt_tb_set(b, row, col, DASH);
}

/* A study's warm-up runs (warmed until steady: dozens a label) stay out of the per-run
 * tables; the table's note says how many, and report.json holds them. */
static void warmups_left_out(const struct report *r, struct rpt_table *t)
{
	size_t len = t->note ? strlen(t->note) : 0;
	int n = 0;

	for (int i = 0; i < r->nruns; i++)
		n += r->runs[i].warmup != 0;
	if (n)
		rpt_table_note(
		    t,
		    "%s%d warm-up run%s (not compared) %s left out of this table; report.json "
		    "has %s.",
		    len ? " " : "", n, n == 1 ? "" : "s", n == 1 ? "is" : "are",
		    n == 1 ? "it" : "them");
}

static void soak_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	const char *names[MAX_COLS] = {"run", "label", "load", "duration", "total",  "TPS",
	                               "avg", "90%",   "95%",  "99%",      "error %"};
	char align[MAX_COLS + 1] = "llrrrrrrrrr";
	char cpu[RPT_MAX_SOURCES][RPT_NAME_MAX + 8];
	int nc = 11;

	for (int s = 0; s < r->ncpu; s++) {
		snprintf(cpu[s], sizeof cpu[s], "CPU %s", r->cpu_names[s]);
		names[nc] = cpu[s];
		align[nc++] = 'r';
	}
	names[nc] = "memory";
	align[nc++] = 'l';
	align[nc] = '\0';
	rpt_tb_start(b, t, "Soak runs", names, align);
	rpt_table_note(
	    t, "One row per fixed run. Figures cover each run's measured window (warm-up and "
	       "ramp-up excluded); percentiles come from its merged interval histograms. CPU is "
	       "the mean over that window: a process source in %% of one core, a host series in "
	       "%% of all cores. Memory is the GC-log verdict of each source with GC events.");
	warmups_left_out(r, t);
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		const struct figures *f = &run->f;
		char x[8][64], mem[256];
		int row, c;
		if (strcmp(run->mode, "fixed") != 0 || run->warmup)
			continue;
		row = runs_row(r, b, run_cell(run, x[0], sizeof x[0]), run->label);
		c = 2;
		rpt_tb_set(b, row, c++, "%s",
		           run->nsteps ? rpt_level_text(run->steps[0].concurrency,
		                                        run->steps[0].rate, x[1], sizeof x[1])
		                       : "");
		rpt_tb_set(b, row, c++, "%s", dur_s(f->seconds, x[1], sizeof x[1]));
		rpt_tb_set(b, row, c++, "%lld", (long long)f->requests);
		rpt_tb_set(b, row, c++, "%s", rpt_fmt_num(f->tps, 1, x[2], sizeof x[2]));
		ms_cell(b, row, c++, f, f->mean_us);
		ms_cell(b, row, c++, f, (double)f->p90_us);
		ms_cell(b, row, c++, f, (double)f->p95_us);
		ms_cell(b, row, c++, f, (double)f->p99_us);
		rpt_tb_set(b, row, c++, "%s%%", rpt_fmt_num(f->error_pct, 2, x[7], 64));
		for (int s = 0; s < r->ncpu; s++) {
			double v = run_cpu(run, r->cpu_names[s]);
			rpt_tb_set(b, row, c++, "%s%s", rpt_fmt_num(v, 1, x[0], 64),
			           isnan(v) ? "" : "%");
		}
		memory_cell(run, mem, sizeof mem);
		rpt_tb_set(b, row, c++, "%s", mem);
	}
}

static void sweep_table(const struct report *r, const struct rpt_sweep *sw, struct rpt_tb *b,
                        struct rpt_table *t)
{
	static const char *const names[] = {"load", "duration", "avg", "99%", "TPS", "total"};
	char title[96], d[32];

	snprintf(title, sizeof title, "Sweep: %s (%s steps)", rpt_label_name(r, sw->label),
	         dur_format(sw->planned_ms, d, sizeof d));
	rpt_tb_start(b, t, title, names, "rrrrrr");
	for (int i = 0; i < sw->ncells; i++) {
		const struct rpt_cell *c = &r->cells[sw->cells[i]];
		char x[4][64];
		int row = rpt_tb_row(b);
		rpt_tb_set(b, row, 0, "%s", rpt_level_text(c->concurrency, c->rate, x[0], 64));
		rpt_tb_set(b, row, 1, "%s", dur_s(c->f.seconds, x[0], 64));
		ms_cell(b, row, 2, &c->f, c->f.mean_us);
		ms_cell(b, row, 3, &c->f, (double)c->f.p99_us);
		rpt_tb_set(b, row, 4, "%s", rpt_fmt_num(c->f.tps, 1, x[3], 64));
		rpt_tb_set(b, row, 5, "%lld", (long long)c->f.requests);
	}
}

/* Labels side by side on the concurrency levels of sweeps with one step duration. */
static void side_table(const struct report *r, int64_t planned, struct rpt_tb *b,
                       struct rpt_table *t)
{
	static const struct figures none;
	const struct rpt_sweep *sw[RPT_MAX_LABELS];
	const char *names[1 + 3 * RPT_MAX_LABELS];
	char hdr[3 * RPT_MAX_LABELS][96], align[2 + 3 * RPT_MAX_LABELS], title[96], d[32];
	int n = 0, levels[1024], nlev = 0;

	for (int s = 0; s < r->nsweeps && n < RPT_MAX_LABELS; s++)
		if (r->sweeps[s].planned_ms == planned)
			sw[n++] = &r->sweeps[s];
	if (n < 2)
		return;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < sw[k]->ncells; i++) {
			int c = r->cells[sw[k]->cells[i]].concurrency, at = 0;
			while (at < nlev && levels[at] < c)
				at++;
			if ((at < nlev && levels[at] == c) || nlev >= 1024)
				continue;
			memmove(&levels[at + 1], &levels[at], (size_t)(nlev - at) * sizeof *levels);
			levels[at] = c;
			nlev++;
		}
	names[0] = "concurrency";
	align[0] = 'r';
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < n; k++) {
			int col = m * n + k;
			snprintf(hdr[col], sizeof hdr[col], "%s %s",
			         m == 0   ? "TPS"
			         : m == 1 ? "avg"
			                  : "99%",
			         rpt_label_name(r, sw[k]->label));
			names[1 + col] = hdr[col];
			align[1 + col] = 'r';
		}
	align[1 + 3 * n] = '\0';
	snprintf(title, sizeof title, "Sweeps side by side (%s steps)",
	         dur_format(planned, d, sizeof d));
	rpt_tb_start(b, t, title, names, align);
	for (int i = 0; i < nlev; i++) {
		int row = rpt_tb_row(b);
		rpt_tb_set(b, row, 0, "%d", levels[i]);
		for (int k = 0; k < n; k++) {
			const struct rpt_cell *c = NULL;
			char x[64];
			for (int j = 0; j < sw[k]->ncells && !c; j++)
				if (r->cells[sw[k]->cells[j]].concurrency == levels[i])
					c = &r->cells[sw[k]->cells[j]];
			const struct figures *f = c ? &c->f : &none; /* none: no request answered */
			rpt_tb_set(b, row, 1 + k, "%s",
			           rpt_fmt_num(c ? c->f.tps : NAN, 1, x, sizeof x));
			ms_cell(b, row, 1 + n + k, f, f->mean_us);
			ms_cell(b, row, 1 + 2 * n + k, f, (double)f->p99_us);
		}
	}
}

static void cmp_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	const char *names[MAX_COLS] = {"at", "label", "vs"};
	char align[MAX_COLS + 1] = "lll", head[RPT_NFIG][RPT_NAME_MAX + 16];
	int nc = 3, col[RPT_NFIG], fig[RPT_NFIG], ncol = 0;

	/* A column per request figure, then per series figure some comparison has, row by
	 * row (CPU per request, then memory). */
	for (int k = 0; k < RPT_NMETRIC; k++) {
		names[nc] = rpt_figrows[k].head;
		col[ncol] = nc;
		fig[ncol++] = k;
		align[nc++] = 'r';
	}
	for (int row = RPT_NMETRIC; row < RPT_NROWS; row++)
		for (int s = 0; s < r->ncpu && nc < MAX_COLS; s++) {
			int g = rpt_fig((enum rpt_metric)row, s), any = 0;
			for (int i = 0; i < r->ncmps && !any; i++)
				any = isfinite(r->cmps[i].base_value[g]) &&
				      isfinite(r->cmps[i].value[g]);
			if (!any)
				continue;
			snprintf(head[ncol], sizeof head[ncol], "%s %s", rpt_figrows[row].head,
			         r->cpu_names[s]);
			names[nc] = head[ncol];
			col[ncol] = nc;
			fig[ncol++] = g;
			align[nc++] = 'r';
		}
	align[nc] = '\0';
	rpt_tb_start(b, t, "Comparison", names, align);
	rpt_table_note(
	    t,
	    "Each label against the baseline (%s, or the first label with data) on the same "
	    "kind of run, level (users, or arrivals per second) and step duration: the change "
	    "of the figure (error %%: in points) \xc2\xb1 the half-width of its interval (as "
	    "benchstat "
	    "shows it), 'real' when that interval excludes zero, 'noise' when not, 'n/a' "
	    "without data. Every figure of a row is judged by "
	    "the row's one method (see 'How changes are judged') and together (Holm): a system "
	    "compared with itself has at most a 5%% chance of any figure in the row called "
	    "real.",
	    rpt_label_name(r, 0));
	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cmp *m = &r->cmps[i];
		const struct rpt_cell *a = &r->cells[m->base], *c = &r->cells[m->cell];
		char at[96];
		int row = rpt_tb_row(b);
		rpt_tb_set(b, row, 0, "%s", rpt_cell_text(c, at, sizeof at));
		rpt_tb_set(b, row, 1, "%s", rpt_label_name(r, c->label));
		rpt_tb_set(b, row, 2, "%s", rpt_label_name(r, a->label));
		for (int k = 0; k < ncol; k++)
			rpt_tb_change(b, row, col[k], m, fig[k]);
	}
}

static void errors_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {"label", "side",          "class",
	                                    "count", "% of requests", "sample"};
	rpt_tb_start(b, t, "Errors", names, "lllrrl");
	rpt_table_note(
	    t, "Errors in the measured windows by class. Client-side classes (client_ports, dns) "
	       "are the load generator's own limits, not the server's; the sample is the first "
	       "message of the class.");
	for (int side = 0; side < 2; side++)
		for (int l = 0; l < r->nlabels; l++)
			for (int c = 0; c < ERR_NCLASS; c++) {
				int64_t count = 0, req = 0;
				const char *sample = NULL;
				char x[64];
				if (err_class_client_side((enum err_class)c) != side)
					continue;
				for (int i = 0; i < r->nruns; i++) {
					const struct rpt_run *run = &r->runs[i];
					if (run->label != l)
						continue;
					req += run->st.requests;
					if (run->st.err_count[c] && !sample)
						sample = run->st.err_sample[c];
					count += run->st.err_count[c];
				}
				if (!count)
					continue;
				int row = rpt_tb_row(b);
				rpt_tb_set(b, row, 0, "%s", rpt_label_name(r, l));
				rpt_tb_set(b, row, 1, "%s", side ? "client" : "server");
				rpt_tb_set(b, row, 2, "%s", err_class_name((enum err_class)c));
				rpt_tb_set(b, row, 3, "%lld", (long long)count);
				rpt_tb_set(
				    b, row, 4, "%s%%",
				    rpt_fmt_num(req ? 100.0 * (double)count / (double)req : 0, 3, x,
				                sizeof x));
				rpt_tb_set(b, row, 5, "%s", sample ? sample : "");
			}
}

static void gc_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {
	    "run",       "label",         "source", "events",     "GC time", "longest pause",
	    "pause p99", "heap after GC", "R²",     "old cycles", "verdict"};
	rpt_tb_start(b, t, "Memory and GC", names, "lllrrrrrrrl");
	rpt_table_note(
	    t,
	    "From each source's GC events in the run (gca_analyze): GC time is the share of "
	    "the run's wall time spent in stop-the-world pauses; the heap trend is the slope "
	    "of heap "
	    "after GC over the steady part of the log (its first %.0f%% left out as warm-up), "
	    "on the basis named; old cycles are the old-generation collections in it (full, "
	    "or a concurrent cycle ending).  A verdict needs %d min of steady log, a "
	    "suspected leak %d old cycles as well: with fewer, a heap after GC that does not "
	    "keep rising is normal (nothing piles up) and one that does is 'rising' (a leak "
	    "is not ruled out until an old collection shows what it frees).",
	    100 * GCA_WARMUP_FRAC, GCA_MIN_WINDOW_MS / 60000, GCA_MIN_OLD_CYCLES);
	warmups_left_out(r, t);
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_run *run = &r->runs[i];
			const struct rpt_source *s = &run->src[k];
			char x[64];
			if (!s->gc_events || run->warmup)
				continue;
			int row = runs_row(r, b, run_cell(run, x, sizeof x), run->label);
			rpt_tb_set(b, row, 2, "%s", s->name);
			rpt_tb_set(b, row, 3, "%lld", (long long)s->gc_events);
			rpt_tb_set(b, row, 4, "%s%%",
			           rpt_fmt_num(s->gc.gc_time_pct, 2, x, sizeof x));
			rpt_tb_set(b, row, 5, "%s", rpt_fmt_ms(s->gc.pause_max_ms, x, sizeof x));
			rpt_tb_set(b, row, 6, "%s", rpt_fmt_ms(s->gc.pause_p99_ms, x, sizeof x));
			rpt_tb_set(b, row, 7, "%s MB/h (%s)",
			           rpt_fmt_signed(s->gc.slope_mb_per_h, 1, x, 32), s->gc.basis);
			rpt_tb_set(b, row, 8, "%s", rpt_fmt_num(s->gc.r2, 2, x, sizeof x));
			rpt_tb_set(b, row, 9, "%lld", (long long)s->gc.old_cycles);
			rpt_tb_set(b, row, 10, "%s", gca_memory_text(s->gc.memory));
		}
}

/* "lo-hi UNIT", or "lo UNIT" when both ends read the same. */
static void range_cell(struct rpt_tb *b, int row, int col, const char *lo, const char *hi,
                       const char *unit)
{
	if (strcmp(lo, hi) != 0)
		rpt_tb_set(b, row, col, "%s-%s%s", lo, hi, unit);
	else
		rpt_tb_set(b, row, col, "%s%s", lo, unit);
}

/* A source whose memory window was too short to judge: its trend says nothing yet. */
static int rss_short(const struct rpt_source *s)
{
	return s->mem.verdict == RPT_MEM_UNKNOWN && s->mem.unknown == RPT_MEM_SHORT;
}

/* The windows of label l too short to judge, one row per source: the runs, and the range
 * of each figure over them (a trend over seconds is no trend: not shown). */
static void short_rss_rows(const struct report *r, struct rpt_tb *b, int l)
{
	unsigned char *sel = calloc((size_t)(r->nruns ? r->nruns : 1), 1);
	char done[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int ndone = 0;

	if (!sel) {
		b->failed = 1;
		return;
	}
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s0 = &r->runs[i].src[k];
			double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {0, 0, 0};
			struct sbuf list = {0};
			char x[2][32];
			int seen = 0;
			if (r->runs[i].label != l || s0->gc_events || !s0->has_rss ||
			    !s0->rss_fit || !rss_short(s0))
				continue;
			for (int j = 0; j < ndone && !seen; j++)
				seen = !strcmp(done[j], s0->name);
			if (seen || ndone == RPT_MAX_SOURCES)
				continue;
			snprintf(done[ndone++], RPT_NAME_MAX, "%s", s0->name);
			memset(sel, 0, (size_t)r->nruns);
			for (int j = i; j < r->nruns; j++)
				for (int q = 0; q < r->runs[j].nsrc; q++) {
					const struct rpt_source *s = &r->runs[j].src[q];
					double v[3] = {s->rss_mean_mb, s->rss_hours * 3600,
					               s->mem.level_mb};
					if (r->runs[j].label != l ||
					    strcmp(s->name, s0->name) != 0 || s->gc_events ||
					    !s->has_rss || !s->rss_fit || !rss_short(s))
						continue;
					sel[j] = 1;
					for (int m = 0; m < 3; m++) {
						lo[m] = fmin(lo[m], v[m]);
						hi[m] = fmax(hi[m], v[m]);
					}
				}
			rpt_sb_runlist(&list, r, sel, 1);
			int row = runs_row(r, b, rpt_sb_str(&list), l);
			rpt_sb_release(&list);
			rpt_tb_set(b, row, 2, "%s", s0->name);
			range_cell(b, row, 3, rpt_fmt_num(lo[0], 1, x[0], sizeof x[0]),
			           rpt_fmt_num(hi[0], 1, x[1], sizeof x[1]), " MB");
			dashes(b, row, 4, 6);
			range_cell(b, row, 6, dur_s(lo[1], x[0], sizeof x[0]),
			           dur_s(hi[1], x[1], sizeof x[1]), "");
			range_cell(b, row, 7, rpt_fmt_num(lo[2], 1, x[0], sizeof x[0]),
			           rpt_fmt_num(hi[2], 1, x[1], sizeof x[1]), " MB");
			rpt_tb_set(b, row, 8, "%s", rpt_mem_name(RPT_MEM_UNKNOWN));
		}
	free(sel);
}

static void rss_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {"run", "label", "source", "mean memory", "trend",
	                                    "R²",  "over",  "level",  "verdict"};
	rpt_tb_start(b, t, "Process memory", names, "lllrrrrrl");
	rpt_table_note(
	    t, "Memory of process sources without a GC log over the measured window: the "
	       "proportional set size where recorded (shared pages divided among the processes "
	       "sharing them), else RSS.  Trend: the least-squares slope in MB/h.  Judged like "
	       "the heap: level is where it ends; 'levels_off' is growth that stops (buffers, "
	       "caches, pools filling), 'at_limit' a level at the configured memory_limit, "
	       "'rising' a steady rise still there in the second half.  Where the collector "
	       "recorded memory by kind, private memory rising is 'rising (private)', and "
	       "shared memory growing towards the bound it cannot pass (what the processes map "
	       "shared: a database's cache) is 'filling (level of bound)', not a leak.  Windows "
	       "too short to judge (under 5 minutes) share a row per label and source, with the "
	       "ranges of their figures.");
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_run *run = &r->runs[i];
			const struct rpt_source *s = &run->src[k];
			char x[64];
			if (s->gc_events || !s->has_rss || !s->rss_fit || rss_short(s))
				continue;
			int row = runs_row(r, b, run_cell(run, x, sizeof x), run->label);
			rpt_tb_set(b, row, 2, "%s", s->name);
			rpt_tb_set(b, row, 3, "%s MB", rpt_fmt_num(s->rss_mean_mb, 1, x, sizeof x));
			rpt_tb_set(b, row, 4, "%s MB/h",
			           rpt_fmt_signed(s->rss_slope_mb_h, 2, x, sizeof x));
			rpt_tb_set(b, row, 5, "%s", rpt_fmt_num(s->rss_r2, 2, x, sizeof x));
			rpt_tb_set(b, row, 6, "%s", dur_s(s->rss_hours * 3600, x, sizeof x));
			rpt_tb_set(b, row, 7, "%s MB",
			           rpt_fmt_num(s->mem.level_mb, 1, x, sizeof x));
			rpt_tb_set(b, row, 8, "%s", rpt_mem_cell(s, x, sizeof x));
		}
	for (int l = 0; l < r->nlabels && !b->failed; l++)
		short_rss_rows(r, b, l);
}

/* "-49.8% real", "+0.02 pts noise" */
static void drift_cell(struct rpt_tb *b, int row, int col, const struct rpt_drift_metric *m)
{
	char x[32];
	if (m->kind == RPT_DK_ERR)
		rpt_tb_set(b, row, col, "%s pts %s", rpt_fmt_signed(m->change, 2, x, sizeof x),
		           rpt_verdict_name(m->d.verdict));
	else
		rpt_tb_set(b, row, col, "%s %s", rpt_fmt_pct(m->change_pct, x, sizeof x),
		           rpt_verdict_name(m->d.verdict));
}

/* One row per comparison of a drift (or one saying it is too short); `step` names the
 * sweep step(s) ("" for a fixed run). */
static void drift_rows(const struct report *r, struct rpt_tb *b, const struct rpt_run *run,
                       const char *step, const struct rpt_drift *d)
{
	char x[128];

	for (int i = 0; i < (d->ncmp ? d->ncmp : 1); i++) {
		const struct rpt_drift_cmp *c = &d->cmp[i];
		struct sbuf other = {0};
		int row = runs_row(r, b, run->key, run->label);
		rpt_tb_set(b, row, 2, "%s", step);
		rpt_tb_set(b, row, 3, "%s", dur_s(d->window_s, x, sizeof x));
		rpt_tb_set(b, row, 9, "%s", rpt_drift_name(d->verdict));
		if (d->ncmp == 0) {
			dashes(b, row, 4, 9);
			continue;
		}
		rpt_tb_set(b, row, 4, "%s", c->hours ? "hour 1, last hour" : "thirds");
		for (int k = 0; k < c->nm; k++) {
			const struct rpt_drift_metric *m = &c->m[k];
			if (m->kind <= RPT_DK_P99) {
				drift_cell(b, row, 5 + (int)m->kind, m);
			} else if (m->kind == RPT_DK_ERR) {
				drift_cell(b, row, 8, m);
			} else if (rpt_drift_named(m)) {
				rpt_sb_printf(&other, "%s", rpt_sb_len(&other) ? "; " : "");
				rpt_drift_phrase(&other, m, 0);
				rpt_sb_printf(&other, "%s", m->counts ? "" : " (not counted)");
			}
		}
		/* Costs and memory whose change is worth naming go with the verdict. */
		if (rpt_sb_len(&other))
			rpt_tb_set(b, row, 9, "%s (%s)", rpt_drift_name(d->verdict),
			           rpt_sb_str(&other));
		rpt_sb_release(&other);
	}
}

/* A run none of whose windows was long enough to judge for drift. */
static int wholly_short(const struct rpt_run *run)
{
	if (!run->step_drift)
		return run->drift.verdict == RPT_DRIFT_TOO_SHORT && run->drift.ncmp == 0;
	for (int k = 0; k < run->nsteps; k++)
		if (run->step_drift[k].verdict != RPT_DRIFT_TOO_SHORT)
			return 0;
	return 1;
}

/* The runs of label l too short to judge, said once: their list and measured windows. */
static void short_row(const struct report *r, struct rpt_tb *b, int l)
{
	unsigned char *sel = calloc((size_t)(r->nruns ? r->nruns : 1), 1);
	double lo = INFINITY, hi = 0;
	struct sbuf list = {0};
	char x[32], y[32];
	int n = 0;

	if (!sel) {
		b->failed = 1;
		return;
	}
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->label != l || !wholly_short(run))
			continue;
		sel[i] = 1;
		n++;
		lo = fmin(lo, run->step_drift ? run->f.seconds : run->drift.window_s);
		hi = fmax(hi, run->step_drift ? run->f.seconds : run->drift.window_s);
	}
	if (n > 0) {
		rpt_sb_runlist(&list, r, sel, 0);
		int row = runs_row(r, b, rpt_sb_str(&list), l);
		rpt_sb_release(&list);
		rpt_tb_set(b, row, 2, "%s", "");
		range_cell(b, row, 3, dur_s(lo, x, sizeof x), dur_s(hi, y, sizeof y), "");
		dashes(b, row, 4, 9);
		rpt_tb_set(b, row, 9, "too_short");
	}
	free(sel);
}

static void drift_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {"run", "label", "step", "measured", "parts",
	                                    "TPS", "mean",  "p99",  "errors",   "verdict"};
	rpt_tb_start(b, t, "Drift: does it degrade over time?", names, "lllrlrrrrl");
	rpt_table_note(
	    t,
	    "Each run against itself: the last third of its measured window against the "
	    "first (for windows of 3 h or more also the last hour against hour 1).  Changes "
	    "of the parts' figures; 'real' when the interval of the difference of the "
	    "per-interval means (batch means, Welch) excludes zero, all the metrics of the "
	    "verdict together at 95%% (Bonferroni).  The verdict is about the service: it "
	    "needs a real change of TPS, mean or CPU per request of 5%% or more (p99 10%%, "
	    "errors 0.1 points) and %d steady intervals a third.  In brackets: costs, and "
	    "memory (judged by its own verdict) and GC changes worth naming, never counted, "
	    "and the machine's own probe time (the same arithmetic timed every interval) "
	    "when it changed for real by 5%% or more: then the machine, not only the "
	    "server, changed speed.  The runs of a label too short to judge share one row.",
	    RPT_DRIFT_MIN_PART);
	for (int i = 0; i < r->nruns && !b->failed; i++) {
		const struct rpt_run *run = &r->runs[i];
		int judged = 0;
		char step[32];
		if (wholly_short(run))
			continue;
		if (!run->step_drift) {
			drift_rows(r, b, run, "", &run->drift);
			continue;
		}
		/* A sweep: its judged steps; the short ones (most sweeps' all) in one row. */
		for (int k = 0; k < run->nsteps; k++) {
			if (run->step_drift[k].verdict == RPT_DRIFT_TOO_SHORT)
				continue;
			snprintf(step, sizeof step, "%d", k + 1);
			drift_rows(r, b, run, step, &run->step_drift[k]);
			judged++;
		}
		if (judged < run->nsteps) {
			int row = runs_row(r, b, run->key, run->label);
			if (judged)
				rpt_tb_set(b, row, 2, "%d other%s", run->nsteps - judged,
				           run->nsteps - judged == 1 ? "" : "s");
			else
				rpt_tb_set(b, row, 2, "all %d", run->nsteps);
			dashes(b, row, 3, 9);
			rpt_tb_set(b, row, 9, "too_short");
		}
	}
	for (int l = 0; l < r->nlabels && !b->failed; l++)
		short_row(r, b, l);
}

static void runs_table(const struct report *r, struct rpt_tb *b, struct rpt_table *t)
{
	static const char *const names[] = {"run",        "label",    "name",          "mode",
	                                    "connection", "status",   "started (UTC)", "measured",
	                                    "steps",      "requests", "agents"};
	rpt_tb_start(b, t, "Runs", names, "llllllrrrrr");
	warmups_left_out(r, t);
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		char iso[40], d[32];
		if (run->warmup)
			continue;
		int row = runs_row(r, b, run->key, run->label);
		clock_iso(run->started_ms, iso, sizeof iso);
		iso[19] = '\0';
		iso[10] = ' ';
		rpt_tb_set(b, row, 2, "%s", run->name);
		rpt_tb_set(b, row, 3, "%s", run->mode);
		rpt_tb_set(b, row, 4, "%s", run->connection);
		rpt_tb_set(b, row, 5, "%s%s%s%s", run->status, *run->reason ? " (" : "",
		           run->reason, *run->reason ? ")" : "");
		rpt_tb_set(b, row, 6, "%s", iso);
		rpt_tb_set(b, row, 7, "%s", dur_s(run->f.seconds, d, sizeof d));
		rpt_tb_set(b, row, 8, "%d", run->nsteps);
		rpt_tb_set(b, row, 9, "%lld", (long long)run->f.requests);
		/* a merged run: agents it holds (of the planned); one agent's own run: K/N */
		if (run->agent)
			rpt_tb_set(b, row, 10, "#%d/%d", run->agent, run->agents);
		else if (run->agents && run->agents != run->agents_planned)
			rpt_tb_set(b, row, 10, "%d/%d", run->agents, run->agents_planned);
		else if (run->agents)
			rpt_tb_set(b, row, 10, "%d", run->agents);
		else
			rpt_tb_set(b, row, 10, "1");
	}
}

/* The tables after the sweeps', in the order the documents show them. */
#define NAFTER 6
static void (*const after_sweeps[NAFTER])(const struct report *, struct rpt_tb *,
                                          struct rpt_table *) = {
    cmp_table, errors_table, gc_table, rss_table, drift_table, runs_table};

/* Table i of the report: the soak runs, each sweep, the sweeps side by side (a table per
 * step duration, at its first sweep), then the tables after the sweeps. */
static void table_at(const struct report *r, struct rpt_tb *b, struct rpt_table *t, int i)
{
	int ns = r->nsweeps, s = i - 1 - ns, first = 1;

	if (i == 0) {
		soak_table(r, b, t);
	} else if (i <= ns) {
		sweep_table(r, &r->sweeps[i - 1], b, t);
	} else if (i <= 2 * ns) {
		for (int p = 0; p < s; p++)
			first &= r->sweeps[p].planned_ms != r->sweeps[s].planned_ms;
		if (first)
			side_table(r, r->sweeps[s].planned_ms, b, t);
	} else {
		after_sweeps[i - 1 - 2 * ns](r, b, t);
	}
}

int rpt_tables(const struct report *r, struct rpt_table **out, int *n, char *err, size_t errlen)
{
	return rpt_tb_build(r, 1 + 2 * r->nsweeps + NAFTER, table_at, out, n, err, errlen);
}
