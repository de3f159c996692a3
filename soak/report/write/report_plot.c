/* report_plot: the pictures — data files, the gnuplot scripts copied into the report
 * directory, and a few gnuplot processes at a time, each drawing a batch of pictures (each
 * picture as SVG and PNG). */
#include "report_plot.h"
#include "report/report_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "dur.h"
#include "fmode.h"
#include "outdir.h"
#include "report_tables.h"
#include "safename.h"
#include "slurp.h"
#include "report/judge/report_drift.h"

#define MAX_JOBS_AT_ONCE 4          /* gnuplot processes in parallel, a batch each */
#define SVG_MAX          (16 << 20) /* an SVG bigger than this is not inlined */
#define SCRIPT_MAX       (1 << 20)  /* a plot script file from $SOAK_PLOTS */
#define VARS_MAX         2048       /* the assignments of one picture */
#define PATH_MAX_LEN     4096
#define PICTURE_KEEP     "-_" /* what a picture's file name keeps of a name */
#define ERR_MAX          (1 << 20)       /* what is read of a batch's messages */
#define MARK             "soak-picture " /* a batch prints it, then the picture's index */

/* The report's sub-folders, in the work folder and in the report's. */
enum sub { SUB_DATA, SUB_PLOTS, SUB_IMG, NSUB };
static const char *const sub_names[NSUB] = {"data", "plots", "img"};

/* One picture to draw. */
struct job {
	int pic;             /* index into report.pics */
	char script[32];     /* "tps_time.gp" */
	char vars[VARS_MAX]; /* gnuplot assignments */
};

/* One gnuplot process: the pictures jobs[first .. first + n - 1], in the report's order. */
struct batch {
	int first, n;
	pid_t pid; /* while running */
};

/* What planning and drawing share. */
struct ctx {
	struct report *r;         /* the report whose pictures these are */
	const struct outdir *dir; /* the report directory, or NULL: plan only */
	struct outdir work;       /* drawing: a private folder in dir where gnuplot works (its
	                           * data/, plots/ and img/ below), so nothing can be planted
	                           * where it reads or writes; moved into dir at the end */
	struct outdir wsub[3];    /* work's data/, plots/, img/ (enum sub) */
	struct job *jobs;         /* one per picture */
	int njobs;                /* how many */
	size_t cap_jobs;          /* jobs allocated */
	size_t cap_pics;          /* report.pics allocated (this planning's) */
	char *err;                /* the caller's error buffer */
	size_t errlen;            /* its size */
	int err_job;              /* 1 + the index of the job whose failure err holds, 0: none */
};

static int oom(struct ctx *c)
{
	snprintf(c->err, c->errlen, "out of memory");
	return -1;
}

/* Appends a picture; its data file is DIR/data/NAME.dat.  vars (printf format) are the
 * picture's own gnuplot variables. */
__attribute__((format(printf, 5, 6))) static int
add(struct ctx *c, const char *name, const char *title, const char *script, const char *vars, ...)
{
	struct report *r = c->r;
	struct rpt_picture *p;
	struct job *j;
	char own[VARS_MAX / 2], qt[512];
	size_t q = 0;
	va_list ap;

	if (buf_grow(&r->pics, &c->cap_pics, (size_t)r->npics + 1, sizeof *r->pics, 16) < 0 ||
	    buf_grow(&c->jobs, &c->cap_jobs, (size_t)c->njobs + 1, sizeof *c->jobs, 16) < 0)
		return oom(c);
	p = &r->pics[r->npics];
	j = &c->jobs[c->njobs];
	memset(p, 0, sizeof *p);
	memset(j, 0, sizeof *j);
	p->run = -1;
	snprintf(p->name, sizeof p->name, "%s", name);
	p->title = strdup(title);
	if (!p->title)
		return oom(c);
	r->npics++;
	j->pic = r->npics - 1;
	snprintf(j->script, sizeof j->script, "%s", script);
	/* gnuplot single-quoted strings: a quote is doubled, and a control character (a line
	 * break would end the -e command and start another: a label is anybody's text) is a
	 * space. */
	for (const char *s = title; *s && q + 3 < sizeof qt; s++) {
		if (*s == '\'')
			qt[q++] = '\'';
		qt[q++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
	}
	qt[q] = '\0';
	va_start(ap, vars);
	vsnprintf(own, sizeof own, vars, ap);
	va_end(ap);
	snprintf(j->vars, sizeof j->vars,
	         "plotdir='plots';datafile='data/%s.dat';outfile='img/%s';title='%s'%s%s", name,
	         name, qt, *own ? ";" : "", own);
	c->njobs++;
	return 0;
}

/* Appends one run's picture, titled "LEAD: run KEY (LABEL)TAIL": add(), then the run it
 * shows and its column in the table of each run's pictures ("latency", "heap after GC,
 * app"). */
__attribute__((format(printf, 8, 9))) static int add_run(struct ctx *c, const struct rpt_run *run,
                                                         const char *col, const char *name,
                                                         const char *lead, const char *tail,
                                                         const char *script, const char *vars, ...)
{
	struct rpt_picture *p;
	char title[192], own[VARS_MAX / 2];
	va_list ap;

	snprintf(title, sizeof title, "%s: run %s (%s)%s", lead, run->key,
	         c->r->labels[run->label].name, tail);
	va_start(ap, vars);
	vsnprintf(own, sizeof own, vars, ap);
	va_end(ap);
	if (add(c, name, title, script, "%s", own) < 0)
		return -1;
	p = &c->r->pics[c->r->npics - 1];
	p->run = (int)(run - c->r->runs);
	snprintf(p->col, sizeof p->col, "%s", col);
	return 0;
}

/* Creates NAME in the work folder's sub-folder (private: nothing can be planted there). */
static FILE *work_file(struct ctx *c, enum sub k, const char *name)
{
	int fd = openat(c->wsub[k].fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                fmode_file());
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		snprintf(c->err, c->errlen, "cannot write '%s/%s/%s': %s", c->dir->path,
		         sub_names[k], name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/* The data file of the picture being added, or NULL when only planning (or on error,
 * with c->err set: check c->err[0]). */
static FILE *data_file(struct ctx *c, const char *name)
{
	char file[RPT_PIC_NAME_MAX + 8];

	if (!c->dir)
		return NULL;
	snprintf(file, sizeof file, "%s.dat", name);
	return work_file(c, SUB_DATA, file);
}

static int close_data(struct ctx *c, FILE *f, const char *name)
{
	if (!f)
		return c->dir && c->err[0] ? -1 : 0;
	if (ferror(f) | fclose(f)) {
		snprintf(c->err, c->errlen, "cannot write '%s/data/%s.dat'", c->dir->path, name);
		return -1;
	}
	return 0;
}

/* A title for a data file's header line: double quotes would end it. */
__attribute__((format(printf, 3, 4))) static void header(FILE *f, const char *x, const char *fmt,
                                                         ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (char *s = buf; *s; s++)
		if (*s == '"')
			*s = '\'';
		else if ((unsigned char)*s < 0x20 || *s == 0x7f) /* a line break would end it */
			*s = ' ';
	fprintf(f, "%s \"%s\"\n", x, buf);
}

static void num(FILE *f, double v)
{
	char b[64];
	fputs(isfinite(v) ? rpt_fmt_num(v, 3, b, sizeof b) : "NaN", f);
}

/* A data row: time (already in the axis unit) and one value. */
static void row(FILE *f, double t, double v)
{
	num(f, t);
	fputc(' ', f);
	num(f, v);
	fputc('\n', f);
}

/* Points as `T V` rows (T divided by div). */
static void points(FILE *f, const struct rpt_vpoint *p, size_t n, double div)
{
	for (size_t k = 0; k < n; k++)
		row(f, p[k].t_s / div, p[k].v);
}

/* A block of points: a header line, then its rows. */
static void rows(FILE *f, const char *hdr, const struct rpt_vpoint *p, size_t n, double div)
{
	fputs(hdr, f);
	fputc('\n', f);
	points(f, p, n, div);
}

/* The time unit of an axis spanning span_s seconds. */
static double time_unit(double span_s, const char **label)
{
	if (span_s <= 300) {
		*label = "time since the run start (s)";
		return 1;
	}
	if (span_s <= 3 * 3600) {
		*label = "time since the run start (min)";
		return 60;
	}
	*label = "time since the run start (h)";
	return 3600;
}

/* snprintf that cuts silently: names and paths here are bounded by their inputs' caps. */
__attribute__((format(printf, 3, 4))) static void fmt(char *out, size_t len, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vsnprintf(out, len, f, ap);
	va_end(ap);
}

static double run_span(const struct rpt_run *run)
{
	return (double)(run->end_ms - run->started_ms) / 1000.0;
}

/* Epoch ms as time since the run's start, in the axis unit (seconds divided by div). */
static double since(const struct rpt_run *run, int64_t ms, double div)
{
	return (double)(ms - run->started_ms) / 1000 / div;
}

static int pic_tps_time(struct ctx *c)
{
	struct report *r = c->r;
	double span = 0, div;
	const char *xl;
	int n = 0;
	FILE *f;

	for (int i = 0; i < r->nruns; i++)
		if (rpt_run_pictured(r, i) && r->runs[i].nts > 0) {
			n++;
			span = fmax(span, run_span(&r->runs[i]));
		}
	if (n == 0)
		return 0;
	div = time_unit(span, &xl);
	f = data_file(c, "tps_time");
	for (int i = 0; f && i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!rpt_run_pictured(r, i) || run->nts == 0)
			continue;
		header(f, "time", "%s #%s", r->labels[run->label].name, run->key);
		for (size_t k = 0; k < run->nts; k++)
			if (isfinite(run->ts[k].tps)) /* a drain interval is no rate */
				row(f, run->ts[k].t_s / div, run->ts[k].tps);
		fputs("\n\n", f);
	}
	if (close_data(c, f, "tps_time") < 0)
		return -1;
	return add(c, "tps_time", "Throughput over time, per run", "tps_time.gp",
	           "nseries=%d;xlabel='%s'", n, xl);
}

/* TPS (what 0) or p99 (1) against concurrency, a line per sweep. */
static int pic_concurrency(struct ctx *c, int what)
{
	struct report *r = c->r;
	const char *name = what ? "p99_concurrency" : "tps_concurrency";
	int n = 0;
	FILE *f;

	for (int s = 0; s < r->nsweeps; s++)
		n += r->sweeps[s].ncells >= 2;
	if (n == 0)
		return 0;
	f = data_file(c, name);
	for (int s = 0; f && s < r->nsweeps; s++) {
		const struct rpt_sweep *sw = &r->sweeps[s];
		int several = 0;
		if (sw->ncells < 2)
			continue;
		for (int o = 0; o < r->nsweeps; o++)
			several += r->sweeps[o].label == sw->label;
		if (several > 1)
			header(f, "users", "%s (%llds steps)", r->labels[sw->label].name,
			       (long long)(sw->planned_ms / 1000));
		else
			header(f, "users", "%s", r->labels[sw->label].name);
		for (int i = 0; i < sw->ncells; i++) {
			const struct rpt_cell *cell = &r->cells[sw->cells[i]];
			int ans = cell->f.p50_us > 0 || cell->f.max_us > 0;
			fprintf(f, "%d ", cell->concurrency);
			num(f, what ? (ans ? (double)cell->f.p99_us / 1000 : NAN) : cell->f.tps);
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
	if (close_data(c, f, name) < 0)
		return -1;
	return add(c, name,
	           what ? "99th percentile latency against concurrency, per label"
	                : "Throughput against concurrency, per label",
	           what ? "p99_concurrency.gp" : "tps_concurrency.gp", "nseries=%d", n);
}

static int pic_latency(struct ctx *c, const struct rpt_run *run, const char *key)
{
	char name[RPT_PIC_NAME_MAX];
	const char *xl;
	double div = time_unit(run_span(run), &xl);
	FILE *f;

	if (run->nts == 0)
		return 0;
	fmt(name, sizeof name, "latency_%s", key);
	f = data_file(c, name);
	if (f) {
		fputs("time p50 p90 p99\n", f);
		for (size_t k = 0; k < run->nts; k++) {
			const struct rpt_tpoint *p = &run->ts[k];
			num(f, p->t_s / div);
			fputc(' ', f);
			num(f, p->p50_ms);
			fputc(' ', f);
			row(f, p->p90_ms, p->p99_ms);
		}
	}
	if (close_data(c, f, name) < 0)
		return -1;
	return add_run(c, run, "latency", name, "Latency percentiles over time", "",
	               "latency_time.gp", "xlabel='%s'", xl);
}

/* CPU (what 0) or RSS (1) of each source of a run over time. */
static int pic_sources(struct ctx *c, const struct rpt_run *run, const char *key, int what)
{
	char name[RPT_PIC_NAME_MAX];
	const char *xl;
	double div = time_unit(run_span(run), &xl);
	int n = 0;
	FILE *f;

	for (int i = 0; i < run->nsrc; i++)
		n += (what ? run->src[i].nrss_ts : run->src[i].ncpu_ts) > 0;
	if (n == 0)
		return 0;
	fmt(name, sizeof name, "%s_%s", what ? "rss" : "cpu", key);
	f = data_file(c, name);
	for (int i = 0; f && i < run->nsrc; i++) {
		const struct rpt_source *s = &run->src[i];
		const struct rpt_vpoint *p = what ? s->rss_ts : s->cpu_ts;
		size_t np = what ? s->nrss_ts : s->ncpu_ts;
		if (np == 0)
			continue;
		header(f, "time", "%s", s->name);
		points(f, p, np, div);
		fputs("\n\n", f);
	}
	if (close_data(c, f, name) < 0)
		return -1;
	return add_run(c, run, what ? "memory" : "CPU", name,
	               what ? "Resident memory over time" : "CPU over time", "",
	               what ? "rss_time.gp" : "cpu_time.gp", "nseries=%d;xlabel='%s'", n, xl);
}

/* Heap after GC with the verdict's points and trend, and the pauses, of one source. */
static int pic_gc(struct ctx *c, const struct rpt_run *run, const char *key,
                  const struct rpt_source *s)
{
	char name[RPT_PIC_NAME_MAX], src[RPT_NAME_MAX], col[RPT_NAME_MAX + 32], tail[160];
	const struct gca_result *g = &s->gc;
	const char *xl;
	double div = time_unit(run_span(run), &xl);
	int trend = g->npoints >= GCA_MIN_POINTS && g->wall_time;
	FILE *f;

	safe_name(src, sizeof src, s->name, PICTURE_KEEP, '-');
	if (s->nheap_ts > 0) {
		fmt(name, sizeof name, "heap_%s_%s", key, src);
		f = data_file(c, name);
		if (f) {
			rows(f, "time heap", s->heap_ts, s->nheap_ts, div);
			if (trend) {
				double h0 = (double)(g->steady_from_ms - run->started_ms) / 1000.0;
				double h1 = (double)(g->steady_to_ms - run->started_ms) / 1000.0;
				double hours = (h1 - h0) / 3600.0;
				fputs("\n\ntime regressed\n", f);
				for (size_t k = 0; k < g->npoints; k++)
					row(f, since(run, g->points[k].t_ms, div),
					    g->points[k].heap_mb);
				fputs("\n\ntime trend\n", f);
				row(f, h0 / div, g->intercept_mb);
				row(f, h1 / div, g->intercept_mb + g->slope_mb_per_h * hours);
			}
		}
		if (close_data(c, f, name) < 0)
			return -1;
		/* The heap's size is drawn when the heap after GC comes within half of it: a
		 * floor near the ceiling is exhaustion, and the reader should see the ceiling. */
		double top = 0;
		for (size_t k = 0; k < s->nheap_ts; k++)
			top = fmax(top, s->heap_ts[k].v);
		double ceiling =
		    g->heap_max_mb > 0 && top >= 0.5 * g->heap_max_mb ? g->heap_max_mb : 0;
		fmt(col, sizeof col, "heap after GC, %s", s->name);
		fmt(tail, sizeof tail, ", %s: %s", s->name, gca_memory_text(g->memory));
		if (add_run(c, run, col, name, "Heap after GC", tail, "heap_gc.gp",
		            "hastrend=%d;xlabel='%s';heapmax=%.1f", trend, xl, ceiling) < 0)
			return -1;
	}
	if (s->npause_ts > 0) {
		fmt(name, sizeof name, "gc_pauses_%s_%s", key, src);
		f = data_file(c, name);
		if (f)
			rows(f, "time pause", s->pause_ts, s->npause_ts, div);
		if (close_data(c, f, name) < 0)
			return -1;
		fmt(col, sizeof col, "GC pauses, %s", s->name);
		fmt(tail, sizeof tail, ", %s", s->name);
		if (add_run(c, run, col, name, "GC pauses", tail, "gc_pauses.gp", "xlabel='%s'",
		            xl) < 0)
			return -1;
	}
	return 0;
}

/* --- the labels compared ------------------------------------------------------------------ */

/* The run that stands for label l in the comparison pictures: the first run of the cell
 * its verdict rests on, or NULL. */
static const struct rpt_run *label_run(const struct report *r, int l)
{
	const struct rpt_cell *cell;

	if (l >= r->nverdicts || r->verdicts[l].cell < 0)
		return NULL;
	cell = &r->cells[r->verdicts[l].cell];
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->label != l || (strcmp(run->mode, "sweep") == 0) != cell->sweep)
			continue;
		for (int k = 0; k < run->nsteps; k++)
			if (run->steps[k].concurrency == cell->concurrency &&
			    run->steps[k].planned_ms == cell->planned_ms &&
			    run->steps[k].nintervals > 0)
				return run;
	}
	return NULL;
}

static const struct rpt_source *run_source(const struct rpt_run *run, const char *name)
{
	for (int k = 0; k < run->nsrc; k++)
		if (!strcmp(run->src[k].name, name))
			return &run->src[k];
	return NULL;
}

enum cmp_what { CMP_TPS, CMP_LATENCY, CMP_CPU, CMP_HEAP };

/* Each kind of comparison picture: its name, what its title shows, its y axis. */
static const struct {
	const char *name, *title, *ylabel;
} cmp_kinds[] = {
    [CMP_TPS] = {"tps", "Throughput", "throughput (requests/s)"},
    [CMP_LATENCY] = {"latency", "Latency p50 (dashed) and p99", "latency (ms)"},
    [CMP_CPU] = {"cpu", "CPU", "CPU (% of one core)"},
    [CMP_HEAP] = {"heap", "Heap after GC", "heap after GC (MB)"},
};

/* One picture with a series per label (two for latency: p50 and p99) on one time axis. */
static int pic_compare(struct ctx *c, enum cmp_what what, const char *src)
{
	struct report *r = c->r;
	const struct rpt_run *runs[RPT_MAX_LABELS];
	char name[RPT_PIC_NAME_MAX], title[192], safe_src[RPT_NAME_MAX];
	double span = 0, div;
	const char *xl;
	int n = 0;
	FILE *f;

	for (int l = 0; l < r->nlabels && l < RPT_MAX_LABELS; l++) {
		const struct rpt_run *run = label_run(r, l);
		const struct rpt_source *s = run && src ? run_source(run, src) : NULL;
		int has = run && (what == CMP_TPS || what == CMP_LATENCY ? run->nts > 0
		                  : what == CMP_CPU                      ? s && s->ncpu_ts > 0
		                                                         : s && s->nheap_ts > 0);
		runs[l] = has ? run : NULL;
		if (has) {
			n++;
			span = fmax(span, run_span(run));
		}
	}
	if (n < 2)
		return 0;
	div = time_unit(span, &xl);
	safe_name(safe_src, sizeof safe_src, src ? src : "", PICTURE_KEEP, '-');
	fmt(name, sizeof name, "compare_%s%s%s", cmp_kinds[what].name, src ? "_" : "", safe_src);
	f = data_file(c, name);
	for (int l = 0; f && l < r->nlabels && l < RPT_MAX_LABELS; l++) {
		const struct rpt_run *run = runs[l];
		const char *label = r->labels[l].name;
		if (!run)
			continue;
		if (what == CMP_TPS || what == CMP_LATENCY) {
			for (int p = what == CMP_TPS ? 2 : 0; p < 3; p += 2) {
				if (what == CMP_TPS)
					header(f, "time", "%s #%s", label, run->key);
				else
					header(f, "time", "%s #%s %s", label, run->key,
					       p ? "p99" : "p50");
				for (size_t k = 0; k < run->nts; k++)
					row(f, run->ts[k].t_s / div,
					    what == CMP_TPS ? run->ts[k].tps
					    : p             ? run->ts[k].p99_ms
					                    : run->ts[k].p50_ms);
				fputs("\n\n", f);
			}
		} else {
			const struct rpt_source *s = run_source(run, src);
			header(f, "time", "%s #%s", label, run->key);
			if (what == CMP_CPU)
				points(f, s->cpu_ts, s->ncpu_ts, div);
			else
				points(f, s->heap_ts, s->nheap_ts, div);
			fputs("\n\n", f);
		}
	}
	if (close_data(c, f, name) < 0)
		return -1;
	snprintf(title, sizeof title, "%s%s%s over time, per label", cmp_kinds[what].title,
	         src ? " of " : "", src ? src : "");
	if (add(c, name, title, "compare_time.gp",
	        "nseries=%d;xlabel='%s';ylabel='%s';points=%d;paired=%d",
	        what == CMP_LATENCY ? 2 * n : n, xl, cmp_kinds[what].ylabel, what == CMP_HEAP,
	        what == CMP_LATENCY) < 0)
		return -1;
	r->pics[r->npics - 1].compare = 1;
	return 0;
}

/* TPS, latency, the CPU of each process series and the heap after GC of each GC source,
 * per label. */
static int pic_compares(struct ctx *c)
{
	struct report *r = c->r;
	char gc[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int ngc = 0;

	if (pic_compare(c, CMP_TPS, NULL) < 0 || pic_compare(c, CMP_LATENCY, NULL) < 0)
		return -1;
	for (int s = 0; s < r->ncpu; s++)
		if (strcmp(r->cpu_names[s], "host") != 0 && !strstr(r->cpu_names[s], ":host") &&
		    pic_compare(c, CMP_CPU, r->cpu_names[s]) < 0)
			return -1;
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const char *nm = r->runs[i].src[k].name;
			int seen = !r->runs[i].src[k].gc_events;
			for (int j = 0; j < ngc && !seen; j++)
				seen = !strcmp(gc[j], nm);
			if (!seen && ngc < RPT_MAX_SOURCES)
				snprintf(gc[ngc++], RPT_NAME_MAX, "%s", nm);
		}
	/* Source names sorted, so the pictures come in a stable order. */
	for (int i = 1; i < ngc; i++)
		for (int j = i; j > 0 && strcmp(gc[j - 1], gc[j]) > 0; j--) {
			char t[RPT_NAME_MAX];
			memcpy(t, gc[j], sizeof t);
			memcpy(gc[j], gc[j - 1], sizeof t);
			memcpy(gc[j - 1], t, sizeof t);
		}
	for (int j = 0; j < ngc; j++)
		if (pic_compare(c, CMP_HEAP, gc[j]) < 0)
			return -1;
	return 0;
}

/* A part of a drift comparison, for a legend: "first third (0s-12s)". */
static void part_name(char *out, size_t len, const struct rpt_run *run,
                      const struct rpt_drift_cmp *dc, int later)
{
	char a[32], b[32];
	int64_t from = later ? dc->b_from_ms : dc->a_from_ms,
	        to = later ? dc->b_to_ms : dc->a_to_ms;
	fmt(out, len, "%s (%s-%s)",
	    dc->hours ? (later ? "last hour" : "hour 1") : (later ? "last third" : "first third"),
	    dur_format((from - run->started_ms) / 1000 * 1000, a, sizeof a),
	    dur_format((to - run->started_ms) / 1000 * 1000, b, sizeof b));
}

/* The drift verdict's pictures of a fixed run: the parts' latency distributions overlaid,
 * and TPS over time with the thirds shaded. */
static int pic_drift(struct ctx *c, const struct rpt_run *run, const char *key)
{
	const struct rpt_drift *d = &run->drift;
	const struct rpt_drift_cmp *th = &d->cmp[0];
	char name[RPT_PIC_NAME_MAX], part[96], tail[64];
	const char *xl;
	double div = time_unit(run_span(run), &xl);
	FILE *f;

	if (run->step_drift || d->ncmp == 0)
		return 0;
	fmt(name, sizeof name, "drift_latency_%s", key);
	f = data_file(c, name);
	for (int i = 0; f && i < d->ncmp; i++)
		for (int later = 0; later < 2; later++) {
			const double *pct = later ? d->cmp[i].pct_b : d->cmp[i].pct_a;
			part_name(part, sizeof part, run, &d->cmp[i], later);
			header(f, "x", "%s", part);
			for (int k = 0; k < RPT_DRIFT_NPCT; k++)
				if (isfinite(pct[k]))
					row(f, pow(10, k / 4.0), pct[k]);
			fputs("\n\n", f);
		}
	if (close_data(c, f, name) < 0)
		return -1;
	fmt(tail, sizeof tail, ", %s", rpt_drift_name(d->verdict));
	if (add_run(c, run, "latency, early against late", name,
	            "Latency distribution, early against late", tail, "drift_latency.gp",
	            "nseries=%d", 2 * d->ncmp) < 0)
		return -1;
	if (run->nts == 0)
		return 0;
	fmt(name, sizeof name, "drift_tps_%s", key);
	f = data_file(c, name);
	if (f) {
		fputs("time tps\n", f);
		for (size_t k = 0; k < run->nts; k++)
			if (isfinite(run->ts[k].tps)) /* a drain interval is no rate */
				row(f, run->ts[k].t_s / div, run->ts[k].tps);
	}
	if (close_data(c, f, name) < 0)
		return -1;
	return add_run(c, run, "TPS, the thirds compared shaded", name,
	               "Throughput over time, the thirds compared shaded", "", "drift_tps.gp",
	               "xlabel='%s';a0=%.6g;a1=%.6g;b0=%.6g;b1=%.6g", xl,
	               since(run, th->a_from_ms, div), since(run, th->a_to_ms, div),
	               since(run, th->b_from_ms, div), since(run, th->b_to_ms, div));
}

static int plan(struct ctx *c)
{
	struct report *r = c->r;

	if (pic_compares(c) < 0 || pic_tps_time(c) < 0 || pic_concurrency(c, 0) < 0 ||
	    pic_concurrency(c, 1) < 0)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		char key[RPT_NAME_MAX];
		if (!rpt_run_pictured(r, i))
			continue;
		safe_name(key, sizeof key, run->key, PICTURE_KEEP, '-');
		if (pic_latency(c, run, key) < 0 || pic_drift(c, run, key) < 0 ||
		    pic_sources(c, run, key, 0) < 0 || pic_sources(c, run, key, 1) < 0)
			return -1;
		for (int k = 0; k < run->nsrc; k++)
			if (run->src[k].gc_events && pic_gc(c, run, key, &run->src[k]) < 0)
				return -1;
	}
	return 0;
}

int rpt_plan_pictures(struct report *r, char *err, size_t errlen)
{
	struct ctx c = {.r = r, .err = err, .errlen = errlen};
	int rc;

	err[0] = '\0';
	rc = plan(&c);
	free(c.jobs);
	return rc;
}

/* --- files ------------------------------------------------------------------------------ */

/* What clean() removes: names ending in one of n extensions. */
struct clean_args {
	const struct outdir *d;
	const char *const *ext;
	int n;
};

static int clean_one(void *arg, const char *name)
{
	const struct clean_args *a = arg;
	size_t n = strlen(name);

	for (int i = 0; i < a->n; i++) {
		size_t m = strlen(a->ext[i]);
		if (n > m && strcmp(name + n - m, a->ext[i]) == 0) {
			outdir_remove(a->d, name); /* another user's file stays where it is */
			return 0;
		}
	}
	return 0;
}

/* Removes the files of an earlier report (by extension) from one of the report's
 * sub-folders: only the caller's own files and links, never followed (outdir_remove). */
static void clean(const struct outdir *d, const char *const *ext, int next)
{
	struct clean_args a = {d, ext, next};
	outdir_each(d, clean_one, &a);
}

/* Writes the scripts the pictures need (and common.gp) into the work folder's plots/:
 * from $SOAK_PLOTS when set, else the copies built into soak. */
static int write_scripts(struct ctx *c)
{
	const char *from = getenv("SOAK_PLOTS");

	for (int i = 0; i < rpt_nscripts; i++) {
		char path[PATH_MAX_LEN];
		char *text = NULL;
		const char *body = rpt_scripts[i].text;
		FILE *f;
		if (from && *from) {
			snprintf(path, sizeof path, "%s/%s", from, rpt_scripts[i].name);
			text = slurp(AT_FDCWD, path, SCRIPT_MAX - 1, NULL, NULL);
			if (!text) {
				snprintf(c->err, c->errlen, "cannot read '%s' ($SOAK_PLOTS)", path);
				return -1;
			}
			body = text;
		}
		f = work_file(c, SUB_PLOTS, rpt_scripts[i].name);
		if (!f || fputs(body, f) < 0 || fclose(f) != 0) {
			snprintf(c->err, c->errlen, "cannot write '%s/plots/%s'", c->dir->path,
			         rpt_scripts[i].name);
			free(text);
			return -1;
		}
		free(text);
	}
	return 0;
}

/* gnuplot's path: $SOAK_GNUPLOT, or the first `gnuplot` on $PATH; 0 when found. */
static int find_gnuplot(char *out, size_t len)
{
	const char *env = getenv("SOAK_GNUPLOT"), *path = getenv("PATH");

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK);
	}
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		snprintf(out, len, "%.*s/gnuplot", (int)n, n ? path : ".");
		if (access(out, X_OK) == 0)
			return 0;
		path = end ? end + 1 : path + n;
	}
	return -1;
}

/* Writes NAME into the work folder's sub-folder k: the lines that draw pictures
 * jobs[first .. first + n - 1] from data/ into img/ (in the report's folder, or the work
 * folder), after head.  Each picture after a line on stderr that names it, so that
 * gnuplot's words can be told apart, and a reset of whatever the picture before set;
 * gnuplot stops at the first error. */
static int write_pictures(struct ctx *c, enum sub k, const char *name, const char *head, int first,
                          int n)
{
	FILE *f = work_file(c, k, name);

	if (!f)
		return -1;
	fputs(head, f);
	for (int i = first; i < first + n; i++)
		fprintf(f, "print '" MARK "%d: %s'\nreset session\n%s\nload 'plots/%s'\n", i,
		        c->r->pics[c->jobs[i].pic].name, c->jobs[i].vars, c->jobs[i].script);
	if (ferror(f) | fclose(f)) {
		snprintf(c->err, c->errlen, "cannot write '%s/%s/%s'", c->dir->path, sub_names[k],
		         name);
		return -1;
	}
	return 0;
}

/* plots/pictures.gp: every picture, for a reader to draw them again (or without soak's
 * gnuplot) in the report's folder. */
static int write_all(struct ctx *c)
{
	return write_pictures(c, SUB_PLOTS, "pictures.gp",
	                      "# Draws every picture of this report from data/ into img/ as SVG "
	                      "and PNG:\n#   cd REPORT-FOLDER && gnuplot plots/pictures.gp\n",
	                      0, c->njobs);
}

/* data/.batch-K.gp, the batch's own (its dot keeps it out of the report). */
static int write_batch(struct ctx *c, const struct batch *b, int k)
{
	char name[32];

	snprintf(name, sizeof name, ".batch-%d.gp", k);
	return write_pictures(c, SUB_DATA, name, "", b->first, b->n);
}

/* Starts gnuplot on batch k: its pid, or -1 with errno. */
static pid_t start(struct ctx *c, const char *gnuplot, int k)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* The child works in the private folder (nothing planted can be read there), its
	 * messages go into data/batch-K.err, and it reads no start-up file at all (-d; HOME and
	 * XDG_CONFIG_HOME are the empty private folder): a .gnuplot planted in the report's
	 * folder would run commands as soak's user. */
	char errfile[32], script[32], cfg[OUTDIR_PATH_MAX + 16];
	int fd;
	if (fchdir(c->work.fd) < 0)
		_exit(126);
	snprintf(errfile, sizeof errfile, "batch-%d.err", k);
	fd = openat(c->wsub[SUB_DATA].fd, errfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
	            fmode_file());
	if (fd >= 0) {
		dup2(fd, 2);
		dup2(fd, 1);
		close(fd);
	}
	/* The pictures gnuplot creates get the report's modes too (fmode.h). */
	umask(umask(0) | fmode_umask());
	snprintf(cfg, sizeof cfg, "%s/.config", c->work.path);
	setenv("HOME", c->work.path, 1);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	unsetenv("GNUPLOT_LIB");
	snprintf(script, sizeof script, "data/.batch-%d.gp", k);
	execl(gnuplot, "gnuplot", "-d", script, (char *)NULL);
	fprintf(stderr, "cannot run '%s': %s\n", gnuplot, strerror(errno));
	_exit(127);
}

/* The first of the picture's files (img/NAME.svg, img/NAME.png) that is missing or empty,
 * or NULL when both are there. */
static const char *missing_file(struct ctx *c, const struct rpt_picture *p)
{
	static const char *const ext[] = {"svg", "png"};
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		char file[RPT_PIC_NAME_MAX + 8];
		struct stat st;
		snprintf(file, sizeof file, "%s.%s", p->name, ext[i]);
		if (fstatat(c->wsub[SUB_IMG].fd, file, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_size == 0)
			return ext[i];
	}
	return NULL;
}

/* The picture a batch's messages last named (MARK), or -1. */
static int last_marked(const char *msg)
{
	const char *m = NULL;

	for (const char *s = msg; s && (s = strstr(s, MARK)) != NULL; s++)
		if (s == msg || s[-1] == '\n')
			m = s;
	return m ? atoi(m + strlen(MARK)) : -1;
}

/* What gnuplot said of picture i: the words after its mark's line up to the next mark
 * (all of them when nothing is marked: a gnuplot that is not one), blanks at the end cut,
 * into out. */
static void words_of(const char *msg, int i, char *out, size_t len)
{
	char mark[32];
	const char *from = msg ? msg : "", *end;
	size_t n;

	snprintf(mark, sizeof mark, MARK "%d:", i);
	if (msg && (end = strstr(msg, mark)) != NULL)
		from = strchr(end, '\n') ? strchr(end, '\n') + 1 : "";
	end = strstr(from, "\n" MARK);
	n = end ? (size_t)(end - from) : strlen(from);
	while (n > 0 && (from[n - 1] == '\n' || from[n - 1] == ' '))
		n--;
	snprintf(out, len, "%.*s", (int)(n < len - 1 ? n : len - 1), from);
}

/* The picture of batch b that failed, -1 when none did (then every one is drawn), with
 * *gone the file it lacks (NULL: gnuplot failed on it).  gnuplot stops at an error: a
 * failed batch failed on the picture it named last.  One that exits 0 yet lacks a file
 * failed too (a broken terminal, a full disk, an impostor on $SOAK_GNUPLOT): a report
 * must not count pictures it does not hold. */
static int failed_picture(struct ctx *c, const struct batch *b, int st, const char *msg,
                          const char **gone)
{
	int last = b->first + b->n - 1, m = last_marked(msg);

	*gone = NULL;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return m >= b->first && m <= last ? m : b->first;
	for (int i = b->first; i <= last; i++)
		if ((*gone = missing_file(c, &c->r->pics[c->jobs[i].pic])) != NULL)
			return i;
	return -1;
}

/* Keeps the error of picture i when it comes before any kept so far in the report's order
 * (batches run in parallel: the same databases give the same message). */
static void keep_error(struct ctx *c, int i, const char *gone, const char *msg)
{
	const struct rpt_picture *p = &c->r->pics[c->jobs[i].pic];
	char said[1024];

	if (c->err_job != 0 && c->err_job <= i + 1)
		return;
	c->err_job = i + 1;
	words_of(msg, i, said, sizeof said);
	if (gone)
		snprintf(c->err, c->errlen,
		         "gnuplot exited 0 but wrote no img/%s.%s for the picture '%s' (%s); "
		         "gnuplot said: %s",
		         p->name, gone, p->name, c->jobs[i].script, said[0] ? said : "nothing");
	else
		snprintf(c->err, c->errlen, "gnuplot failed on '%s' (%s): %s", p->name,
		         c->jobs[i].script, said[0] ? said : "no message");
}

/* After batch k ended with status st: the SVGs of the pictures it drew read in, the first
 * failure kept; 0, or -1 when a picture failed (its messages stay in data/batch-K.err). */
static int finish(struct ctx *c, const struct batch *b, int k, int st)
{
	char file[32];
	const char *gone;
	char *msg;
	int bad;

	snprintf(file, sizeof file, "batch-%d.err", k);
	msg = slurp(c->wsub[SUB_DATA].fd, file, ERR_MAX, NULL, &(int){0});
	bad = failed_picture(c, b, st, msg, &gone);
	for (int i = b->first; i < (bad < 0 ? b->first + b->n : bad); i++) {
		struct rpt_picture *p = &c->r->pics[c->jobs[i].pic];
		char svg[RPT_PIC_NAME_MAX + 8];
		snprintf(svg, sizeof svg, "%s.svg", p->name);
		p->svg = slurp(c->wsub[SUB_IMG].fd, svg, SVG_MAX - 1, NULL, NULL);
		p->drawn = p->svg != NULL;
	}
	if (bad >= 0)
		keep_error(c, bad, gone, msg);
	else
		unlinkat(c->wsub[SUB_DATA].fd, file, 0);
	free(msg);
	return bad < 0 ? 0 : -1;
}

/* Splits the pictures into at most MAX_JOBS_AT_ONCE batches of the report's order (one
 * gnuplot each: a start costs more than most pictures) and writes their scripts; how many,
 * or -1. */
static int plan_batches(struct ctx *c, struct batch *b)
{
	int nb = c->njobs < MAX_JOBS_AT_ONCE ? c->njobs : MAX_JOBS_AT_ONCE;

	for (int k = 0, first = 0; k < nb; k++) {
		b[k].first = first;
		b[k].n = c->njobs / nb + (k < c->njobs % nb);
		b[k].pid = 0;
		first += b[k].n;
		if (write_batch(c, &b[k], k + 1) < 0)
			return -1;
	}
	return nb;
}

static int draw(struct ctx *c, const char *gnuplot)
{
	struct batch b[MAX_JOBS_AT_ONCE];
	int nb = plan_batches(c, b), running = 0, failed = 0;

	for (int k = 0; k < nb; k++) {
		if ((b[k].pid = start(c, gnuplot, k + 1)) < 0) {
			snprintf(c->err, c->errlen, "cannot start gnuplot: %s", strerror(errno));
			c->err_job = b[k].first + 1;
			failed = 1;
			break;
		}
		running++;
	}
	while (running > 0) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			snprintf(c->err, c->errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
		for (int k = 0; k < nb; k++)
			if (b[k].pid == pid) {
				b[k].pid = 0;
				running--;
				failed |= finish(c, &b[k], k + 1, st) < 0;
			}
	}
	return nb < 0 || failed ? -1 : 0;
}

/* Opens the private work folder and its sub-folders in the report's folder. */
static int open_work(struct ctx *c)
{
	if (outdir_private(c->dir, "soak-plots", &c->work, c->err, c->errlen) < 0)
		return -1;
	for (int k = 0; k < NSUB; k++)
		if (outdir_sub(&c->work, sub_names[k], &c->wsub[k], c->err, c->errlen) < 0)
			return -1;
	return 0;
}

/* What publish_sub moves, and the first error. */
struct move_args {
	const struct outdir *from, *to;
	char *err;
	size_t errlen;
};

static int move_one(void *arg, const char *name)
{
	const struct move_args *a = arg;
	return name[0] == '.' ? 0 : outdir_move(a->from, name, a->to, a->err, a->errlen);
}

/* Moves one work sub-folder's files into the report's sub-folder of that name, after
 * removing an earlier report's files there; 0, or -1 with err. */
static int publish_sub(struct ctx *c, enum sub k, char *err, size_t errlen)
{
	static const char *const ext[NSUB][2] = {
	    {".dat", ".err"}, {".gp", ".gp"}, {".svg", ".png"}};
	struct outdir to;
	int rc;

	if (outdir_sub(c->dir, sub_names[k], &to, err, errlen) < 0)
		return -1;
	clean(&to, ext[k], 2);
	struct move_args a = {&c->wsub[k], &to, err, errlen};
	rc = outdir_each(&c->wsub[k], move_one, &a);
	if (rc < 0 && !err[0])
		snprintf(err, errlen, "cannot read '%s': %s", c->wsub[k].path, strerror(errno));
	outdir_close(&to);
	return rc;
}

/* Moves what the work folder holds into the report's folder, then removes the work
 * folder; 0, or -1 with c->err (kept when it already holds the drawing's error). */
static int publish(struct ctx *c)
{
	char err[512] = "";
	int rc = 0;

	for (int k = 0; k < NSUB && c->wsub[k].fd >= 0; k++)
		if (publish_sub(c, (enum sub)k, err, sizeof err) < 0)
			rc = -1;
	for (int k = 0; k < NSUB; k++)
		outdir_close(&c->wsub[k]);
	outdir_purge(c->dir, &c->work);
	if (rc < 0 && !c->err[0])
		snprintf(c->err, c->errlen, "%s", err);
	return rc;
}

int rpt_plots(struct report *r, const struct outdir *dir, char *err, size_t errlen)
{
	struct ctx c = {.r = r, .dir = dir, .err = err, .errlen = errlen, .work = {.fd = -1}};
	char gnuplot[PATH_MAX_LEN];
	int rc = -1;

	err[0] = '\0';
	for (int k = 0; k < NSUB; k++)
		c.wsub[k].fd = -1;
	if (open_work(&c) < 0 || write_scripts(&c) < 0 || plan(&c) < 0 ||
	    (c.njobs > 0 && write_all(&c) < 0))
		goto done;
	if (r->nruns > RPT_MAX_RUN_PICTURES)
		snprintf(r->plot_note, sizeof r->plot_note,
		         "Pictures of single runs are drawn for %d runs only (the first compared "
		         "ones, then warm-ups); choose others with --runs or --label.",
		         RPT_MAX_RUN_PICTURES);
	if (c.njobs > 0 && find_gnuplot(gnuplot, sizeof gnuplot) < 0) {
		snprintf(r->plot_note, sizeof r->plot_note,
		         "gnuplot was not found (install gnuplot-nox, or set $SOAK_GNUPLOT): the "
		         "pictures are not drawn; gnuplot plots/pictures.gp in the report's folder "
		         "draws them.");
		rc = 0;
		goto done;
	}
	rc = draw(&c, gnuplot);
done:
	if (c.work.fd >= 0 && publish(&c) < 0)
		rc = -1;
	free(c.jobs);
	return rc;
}
