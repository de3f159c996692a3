/* report_profile: where CPU per request moved (report_profile.h).  Each comparison's two
 * cells are read window by window into observations (one per process a side) and frames
 * (each with its samples per observation), then every frame is put per request and the
 * family judged. */
#include "report_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report_runfig.h"
#include "report_stats.h"

#define MAX_FRAMES  8000  /* distinct frames of one comparison; the rest count as [other] */
#define MAX_STACKS  8000  /* distinct stacks kept for the flame graph */
#define SLOTS       32768 /* hash slots (a power of two, past 2 x the maxima) */
#define MAX_SHOWN   200   /* frames a comparison keeps (by CPU), judged or not */
#define SHOWN_SHARE 0.001 /* ... each holding at least this share of a side's CPU */

/* One process of one side: every window of it in the cell. */
struct obs {
	const char *pids; /* its processes (the window's pids) */
	int side;         /* 0 the baseline, 1 the label */
	double weight;    /* its windows' samples (every one, stored or not) */
	double cpu;       /* their CPU µs per request, each weighted by its samples */
	double denom;     /* weight² / cpu x 1e6: samples / denom x 1e6 is µs per request (a
	                   * frame's share of the samples times the process's CPU per request) */
	double samples;   /* the samples of its stored stacks */
};

struct frame {
	char *name;
	double *self, *total; /* samples per observation */
	int last;             /* the last stack counted in total (recursion counts once) */
};

struct work {
	const struct report *r;
	const struct rpt_cell *cell[2];
	const char *source;
	struct obs *obs;
	int nobs, nside[2], windows[2];
	size_t obscap;
	struct frame *fr;
	int nfr;
	int *fslot; /* frame index + 1, 0: free */
	struct rpt_pstack2 *st;
	int nst;
	int *sslot;
	int stack_id;
	double *x; /* room for one value per observation */
};

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The window of source src for step k of run, or NULL. */
static const struct rpt_prof *window(const struct rpt_run *run, int k, const char *src)
{
	for (int i = 0; i < run->nprof; i++)
		if (run->prof[i].step == k && strcmp(run->prof[i].source, src) == 0)
			return &run->prof[i];
	return NULL;
}

/* Calls fn for every window of the work's source in either cell, with its step. */
static int each_window(struct work *w, int (*fn)(struct work *, int, const struct rpt_run *,
                                                 const struct rpt_prof *,
                                                 const struct rpt_step *))
{
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < w->r->nruns; i++) {
			const struct rpt_run *run = &w->r->runs[i];
			if (!rpt_in_cell(run, w->cell[side]))
				continue;
			for (int k = 0; k < run->nsteps; k++) {
				const struct rpt_step *s = &run->steps[k];
				const struct rpt_prof *p = window(run, s->idx, w->source);
				if (!p || !rpt_step_in(s, w->cell[side]) || !(s->f.tps > 0) ||
				    p->sampled_ms <= 0)
					continue;
				if (fn(w, side, run, p, s) < 0)
					return -1;
			}
		}
	return 0;
}

static int find_obs(const struct work *w, int side, const char *pids)
{
	for (int i = 0; i < w->nobs; i++)
		if (w->obs[i].side == side && strcmp(w->obs[i].pids, pids) == 0)
			return i;
	return -1;
}

/* The CPU per request (µs) of source src in step s of run: the collector's CPU over the
 * window divided by its throughput (what the verdict's CPU per request is made of); else,
 * without that series, the profile's own samples / hz / (sampled seconds x throughput),
 * which counts short where perf began sampling late. */
static double cpu_us(const struct rpt_run *run, const struct rpt_step *s, const struct rpt_prof *p)
{
	for (int k = 0; k < run->nsrc && s->cpu_mean; k++)
		if (strcmp(run->src[k].name, p->source) == 0 && !isnan(s->cpu_mean[k]))
			return 1e4 * s->cpu_mean[k] / s->f.tps;
	return (double)p->samples / p->hz / ((double)p->sampled_ms / 1000) / s->f.tps * 1e6;
}

/* Pass one: the observations and what divides their samples. */
static int add_obs(struct work *w, int side, const struct rpt_run *run, const struct rpt_prof *p,
                   const struct rpt_step *s)
{
	int o = find_obs(w, side, p->pids);
	double cpu = cpu_us(run, s, p);

	if (p->samples <= 0 || !(cpu > 0))
		return 0; /* nothing to split */

	if (o < 0) {
		if (buf_grow(&w->obs, &w->obscap, (size_t)w->nobs + 1, sizeof *w->obs, 8) < 0)
			return -1;
		o = w->nobs++;
		w->obs[o] = (struct obs){.pids = p->pids, .side = side};
		w->nside[side]++;
	}
	w->obs[o].weight += (double)p->samples;
	w->obs[o].cpu += (double)p->samples * cpu;
	w->obs[o].denom = w->obs[o].weight * w->obs[o].weight / w->obs[o].cpu * 1e6;
	w->windows[side]++;
	return 0;
}

/* The frame named s[0..n), added when new; -1 out of memory or past MAX_FRAMES. */
static int frame_of(struct work *w, const char *s, size_t n)
{
	uint32_t h = hash(s, n) & (SLOTS - 1);

	for (; w->fslot[h]; h = (h + 1) & (SLOTS - 1)) {
		const char *name = w->fr[w->fslot[h] - 1].name;
		if (strncmp(name, s, n) == 0 && name[n] == '\0')
			return w->fslot[h] - 1;
	}
	if (w->nfr >= MAX_FRAMES)
		return -1;
	struct frame *f = &w->fr[w->nfr];
	f->name = strndup(s, n);
	f->self = calloc(2 * (size_t)w->nobs, sizeof *f->self);
	if (!f->name || !f->self) {
		free(f->name);
		free(f->self);
		return -1;
	}
	f->total = f->self + w->nobs;
	f->last = -1;
	w->fslot[h] = ++w->nfr;
	return w->nfr - 1;
}

/* The flame graph's stack of both sides, added when new; NULL past MAX_STACKS. */
static struct rpt_pstack2 *stack_of(struct work *w, const char *s)
{
	uint32_t h = hash(s, strlen(s)) & (SLOTS - 1);

	for (; w->sslot[h]; h = (h + 1) & (SLOTS - 1))
		if (strcmp(w->st[w->sslot[h] - 1].stack, s) == 0)
			return &w->st[w->sslot[h] - 1];
	if (w->nst >= MAX_STACKS || !(w->st[w->nst].stack = strdup(s)))
		return NULL;
	w->sslot[h] = ++w->nst;
	return &w->st[w->nst - 1];
}

/* One stack's samples into its frames (self: the leaf; total: each frame once). */
static void count_frames(struct work *w, int o, const char *stack, double samples)
{
	const char *p = stack;
	int leaf = -1;

	w->stack_id++;
	while (*p) {
		size_t n = strcspn(p, ";");
		int f = frame_of(w, p, n);
		if (f >= 0 && w->fr[f].last != w->stack_id) {
			w->fr[f].total[o] += samples;
			w->fr[f].last = w->stack_id;
		}
		leaf = f;
		p += n + (p[n] == ';');
	}
	if (leaf >= 0)
		w->fr[leaf].self[o] += samples;
}

/* Pass two: every stack of the window into the frames and the flame graph's stacks. */
static int add_stacks(struct work *w, int side, const struct rpt_run *run,
                      const struct rpt_prof *p, const struct rpt_step *s)
{
	int o = find_obs(w, side, p->pids);
	double per;

	(void)run, (void)s;
	if (o < 0 || p->samples <= 0 || !(cpu_us(run, s, p) > 0))
		return 0; /* add_obs left it out */
	per = 1e6 / w->obs[o].denom / w->nside[side];
	for (int i = 0; i < p->nst; i++) {
		const struct rpt_pstack *x = &p->st[i];
		struct rpt_pstack2 *y;
		w->obs[o].samples += (double)x->samples;
		if (strcmp(x->stack, "[other]") != 0)
			count_frames(w, o, x->stack, (double)x->samples);
		if (!(y = stack_of(w, x->stack)) && !(y = stack_of(w, "[other]")))
			continue;
		*(side ? &y->us : &y->base_us) += (double)x->samples * per;
	}
	return 0;
}

/* The mean over a side's processes of v[o] per request, as an rpt_bm of processes.  Its
 * standard error is never below what counting alone gives (a process's samples vary as
 * a Poisson count: a frame seen 0 or 2 times in each of two processes is not known to
 * be 0 or 2 samples' worth), so that few processes agreeing by chance on a rare frame do
 * not make it real. */
static void side_mean(const struct work *w, int side, const double *v, struct rpt_bm *out)
{
	double *x = w->x, var = 0;
	size_t n = 0;

	for (int o = 0; o < w->nobs; o++)
		if (w->obs[o].side == side) {
			x[n++] = v[o] / w->obs[o].denom * 1e6;
			var += (v[o] + 1) / (w->obs[o].denom * w->obs[o].denom) * 1e12;
		}
	rpt_run_means(x, n, out);
	if (n >= 2 && sqrt(var) / (double)n > out->se)
		out->se = sqrt(var) / (double)n;
}

/* Frame f's change judged at a (1 - alpha) interval. */
static void judge(const struct work *w, const struct rpt_bm *a, const struct rpt_bm *b,
                  double alpha, struct rpt_diff *d)
{
	(void)w;
	if (a->n == b->n)
		rpt_student_alpha(a, b, alpha, d);
	else
		rpt_welch_alpha(a, b, alpha, d);
}

/* A change shown, not judged. */
static void unjudged(double a, double b, struct rpt_diff *d)
{
	memset(d, 0, sizeof *d);
	d->a = a;
	d->b = b;
	d->diff = b - a;
	d->rel_pct = a != 0 ? 100 * (b - a) / a : NAN;
	d->lo = d->hi = d->t = d->p = d->df = NAN;
	d->verdict = RPT_NA;
}

static int by_cpu(const void *x, const void *y)
{
	const struct rpt_pframe *a = x, *b = y;
	double u = fmax(a->base_us, a->us), v = fmax(b->base_us, b->us);
	return (u < v) - (u > v);
}

static int by_change(const void *x, const void *y)
{
	const struct rpt_pframe *a = x, *b = y;
	double u = fabs(a->us - a->base_us), v = fabs(b->us - b->base_us);
	return (u < v) - (u > v) ? (u < v) - (u > v) : strcmp(a->frame, b->frame);
}

/* Holm's step-down over the family (frames[0..k), the largest by CPU): smallest p first. */
static void holm(struct work *w, struct rpt_pcmp *pc, int k)
{
	int order[RPT_PROF_MAX_FAMILY];
	struct rpt_bm a[RPT_PROF_MAX_FAMILY], b[RPT_PROF_MAX_FAMILY];
	int stop = 0;
	double alpha = pc->alpha;

	for (int i = 0; i < k; i++) {
		struct frame *f = NULL;
		for (int j = 0; j < w->nfr && !f; j++)
			if (strcmp(w->fr[j].name, pc->frames[i].frame) == 0)
				f = &w->fr[j];
		side_mean(w, 0, f->self, &a[i]);
		side_mean(w, 1, f->self, &b[i]);
		judge(w, &a[i], &b[i], pc->alpha, &pc->frames[i].d);
		order[i] = i;
	}
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && pc->frames[order[j]].d.p < pc->frames[order[j - 1]].d.p;
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int j = 0; j < k; j++) {
		struct rpt_diff *d = &pc->frames[order[j]].d;
		if (!stop)
			alpha = pc->alpha / (k - j);
		judge(w, &a[order[j]], &b[order[j]], alpha, d);
		if (stop && d->verdict == RPT_REAL)
			d->verdict = RPT_NOISE; /* never reached here: its p is not smaller */
		stop |= d->verdict != RPT_REAL;
		pc->real += d->verdict == RPT_REAL;
	}
	pc->family = k;
}

/* The frames a side shows, each per request, the family judged, by change. */
static int frames(struct work *w, struct rpt_pcmp *pc)
{
	double cpu = fmax(pc->base_cpu_us, pc->cpu_us);
	int k = 0;

	if (!(pc->frames = calloc((size_t)(w->nfr ? w->nfr : 1), sizeof *pc->frames)))
		return -1;
	for (int i = 0; i < w->nfr; i++) {
		struct rpt_bm a, b, ta, tb;
		side_mean(w, 0, w->fr[i].self, &a);
		side_mean(w, 1, w->fr[i].self, &b);
		side_mean(w, 0, w->fr[i].total, &ta);
		side_mean(w, 1, w->fr[i].total, &tb);
		if (fmax(fmax(a.mean, b.mean), fmax(ta.mean, tb.mean)) < SHOWN_SHARE * cpu)
			continue;
		struct rpt_pframe *x = &pc->frames[pc->nframes++];
		if (!(x->frame = strdup(w->fr[i].name)))
			return -1;
		x->base_us = a.mean, x->us = b.mean;
		x->base_total_us = ta.mean, x->total_us = tb.mean;
		unjudged(a.mean, b.mean, &x->d);
	}
	qsort(pc->frames, (size_t)pc->nframes, sizeof *pc->frames, by_cpu);
	while (k < pc->nframes && k < RPT_PROF_MAX_FAMILY &&
	       fmax(pc->frames[k].base_us, pc->frames[k].us) >= RPT_PROF_SHARE * cpu)
		k++;
	if (pc->why == RPT_PROF_JUDGED)
		holm(w, pc, k);
	qsort(pc->frames, (size_t)pc->nframes, sizeof *pc->frames, by_change);
	if (pc->nframes > MAX_SHOWN) {
		for (int i = MAX_SHOWN; i < pc->nframes; i++)
			free(pc->frames[i].frame);
		pc->nframes = MAX_SHOWN;
	}
	return 0;
}

static void work_free(struct work *w)
{
	for (int i = 0; i < w->nfr; i++) {
		free(w->fr[i].name);
		free(w->fr[i].self);
	}
	for (int i = 0; i < w->nst; i++)
		free(w->st[i].stack);
	free(w->fr);
	free(w->st);
	free(w->fslot);
	free(w->sslot);
	free(w->obs);
	free(w->x);
}

/* One comparison's profile of one source into pc; 0 (pc->cmp -1: nothing to compare), or
 * -1 out of memory. */
static int compare(const struct report *r, int ci, const char *src, struct rpt_pcmp *pc)
{
	const struct rpt_cmp *m = &r->cmps[ci];
	struct work w = {.r = r, .cell = {&r->cells[m->base], &r->cells[m->cell]}, .source = src};
	int rc = -1;

	memset(pc, 0, sizeof *pc);
	pc->cmp = -1;
	if (each_window(&w, add_obs) < 0)
		goto done;
	rc = 0;
	if (w.nside[0] == 0 || w.nside[1] == 0)
		goto done;
	rc = -1;
	w.fr = calloc(MAX_FRAMES, sizeof *w.fr);
	w.st = calloc(MAX_STACKS, sizeof *w.st);
	w.fslot = calloc(SLOTS, sizeof *w.fslot);
	w.sslot = calloc(SLOTS, sizeof *w.sslot);
	w.x = calloc((size_t)w.nobs, sizeof *w.x);
	if (!w.x || !w.fr || !w.st || !w.fslot || !w.sslot || each_window(&w, add_stacks) < 0)
		goto done;
	pc->cmp = ci;
	snprintf(pc->source, sizeof pc->source, "%.*s", RPT_NAME_MAX - 1, src);
	pc->nobs_base = w.nside[0], pc->nobs = w.nside[1];
	pc->windows_base = w.windows[0], pc->windows = w.windows[1];
	pc->alpha = RPT_ALPHA;
	pc->why = pc->nobs_base >= 2 && pc->nobs >= 2 ? RPT_PROF_JUDGED : RPT_PROF_ONE_PROCESS;
	struct rpt_bm a, b;
	double *all = calloc((size_t)w.nobs, sizeof *all);
	if (!all)
		goto done;
	for (int o = 0; o < w.nobs; o++)
		all[o] = w.obs[o].weight;
	side_mean(&w, 0, all, &a);
	side_mean(&w, 1, all, &b);
	free(all);
	pc->base_cpu_us = a.mean, pc->cpu_us = b.mean;
	if (frames(&w, pc) < 0)
		goto done;
	pc->stacks = w.st, pc->nstacks = w.nst;
	w.st = NULL, w.nst = 0;
	rc = 0;
done:
	work_free(&w);
	return rc;
}

/* The sources profiled in comparison m's runs, each once, into names (at most max). */
static int sources(const struct report *r, const struct rpt_cmp *m, char names[][RPT_NAME_MAX],
                   int max)
{
	int n = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!rpt_in_cell(run, &r->cells[m->cell]))
			continue;
		for (int k = 0; k < run->nprof; k++) {
			int seen = 0;
			for (int j = 0; j < n && !seen; j++)
				seen = strcmp(names[j], run->prof[k].source) == 0;
			if (!seen && n < max)
				snprintf(names[n++], RPT_NAME_MAX, "%s", run->prof[k].source);
		}
	}
	return n;
}

int rpt_profiles(struct report *r, char *err, size_t errlen)
{
	size_t cap = 0;

	for (int i = 0; i < r->ncmps; i++) {
		char names[RPT_MAX_SOURCES][RPT_NAME_MAX];
		int n = sources(r, &r->cmps[i], names, RPT_MAX_SOURCES);
		for (int k = 0; k < n; k++) {
			if (buf_grow(&r->pcmps, &cap, (size_t)r->npcmps + 1, sizeof *r->pcmps, 4) < 0 ||
			    compare(r, i, names[k], &r->pcmps[r->npcmps]) < 0) {
				snprintf(err, errlen, "out of memory comparing profiles");
				return -1;
			}
			if (r->pcmps[r->npcmps].cmp >= 0)
				r->npcmps++;
		}
	}
	return 0;
}

const struct rpt_pcmp *rpt_profile_of(const struct report *r, int cmp, const char *source)
{
	for (int i = 0; i < r->npcmps; i++)
		if (r->pcmps[i].cmp == cmp && (!source || !strcmp(r->pcmps[i].source, source)))
			return &r->pcmps[i];
	return NULL;
}

/* --- what keeps a profile from answering ------------------------------------------------ */


/* Item `it` with severity sev, code and the text b holds (taken); -1 out of memory. */
static int add_item(struct rpt_item **out, int *n, int *cap, struct rpt_item *it,
                    const char *sev, const char *code, struct buf *b)
{
	char *t = buf_done(b);
	int rc;

	if (!t)
		return -1;
	snprintf(it->severity, sizeof it->severity, "%s", sev);
	snprintf(it->code, sizeof it->code, "%s", code);
	rc = rpt_item_add(out, n, cap, it, t);
	free(t);
	return rc;
}
/* A JVM whose samples mostly stop within two frames (no frame pointers in JIT code), or
 * whose JIT code has no names (no symbol map), over label l's compared runs. */
static int stacks_item(const struct report *r, int l, struct rpt_item **out, int *n, int *cap)
{
	int64_t all = 0, shallow = 0, jit = 0;
	struct buf b = {0};
	struct rpt_item it = {.label = l};

	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
		for (int k = 0; k < run->nprof; k++)
			if (run->compared && run->prof[k].jvm) {
				all += run->prof[k].samples;
				shallow += run->prof[k].shallow;
				jit += run->prof[k].jit_unnamed;
			}
	if (all == 0 || (shallow * 2 <= all && jit * 10 <= all))
		return 0;
	buf_printf(&b, "%s: in its CPU profiles, ", rpt_label_name(r, l));
	if (shallow * 2 > all)
		buf_printf(&b, "%.0f %% of a JVM's samples have stacks of two frames or fewer: the "
		           "unwinding stops at JIT code, so frames are missing from where the CPU "
		           "goes. Start the JVM with -XX:+PreserveFramePointer (the container "
		           "scripts: --profile).", 100.0 * (double)shallow / (double)all);
	else
		buf_printf(&b,
		           "%.0f %% of a JVM's samples end in JIT code no symbol map named: "
		           "run soak as the JVM's user or as root (soak-perf asks the JVM for "
		           "its map through its attach socket), or start the JVM with "
		           "-XX:+DumpPerfMapAtExit.",
		           100.0 * (double)jit / (double)all);
	return add_item(out, n, cap, &it, "warn", "profile_stacks", &b);
}

/* Windows of label l that have no profile, with what soak-perf said of them. */
static int missing_item(const struct report *r, int l, struct rpt_item **out, int *n, int *cap)
{
	struct buf b = {0};
	struct rpt_item it = {.label = l};
	int said = 0;
	char *t;

	for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));)
		for (int k = 0; k < run->nprof_notes && said < 3; k++) {
			if (b.p && strstr(b.p, run->prof_notes[k]))
				continue; /* said already */
			buf_printf(&b, "%s%s", said++ ? "; " : "", run->prof_notes[k]);
			if (!it.run.n)
				rpt_runs_add(&it.run, run->key);
		}
	if (!said)
		return 0;
	if (!(t = buf_done(&b))) {
		buf_free(&it.run);
		return -1;
	}
	b = (struct buf){0};
	buf_printf(&b, "%s: a CPU profile is missing: %s.", rpt_label_name(r, l), t);
	free(t);
	return add_item(out, n, cap, &it, "info", "profile_missing", &b);
}

int rpt_profile_items(const struct report *r, struct rpt_item **out, int *n)
{
	int cap = 0;

	*out = NULL;
	*n = 0;
	for (int l = 0; l < r->nlabels; l++)
		if (stacks_item(r, l, out, n, &cap) < 0 || missing_item(r, l, out, n, &cap) < 0) {
			rpt_items_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
	return 0;
}
