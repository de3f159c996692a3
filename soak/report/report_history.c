/* report_history: runs grouped into series, each figure's change points, and what changed
 * in run_env across each (see report_history.h). */
#include "report_history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "db.h"

/* Runs one rpt_read reads for `soak history`: the memory of a few runs' intervals, not
 * of all of them. */
#define HIST_CHUNK 16

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

struct rpt_history *rpt_hist_new(const char *const *names, int ndbs)
{
	struct rpt_history *h = calloc(1, sizeof *h);

	if (!h)
		return NULL;
	h->min_runs = RPT_HIST_MIN_RUNS;
	cp_defaults(&h->cp);
	h->dbs = calloc((size_t)(ndbs > 0 ? ndbs : 1), sizeof *h->dbs);
	if (!h->dbs)
		goto oom;
	for (int i = 0; i < ndbs; i++) {
		h->dbs[i] = strdup(base_name(names[i]));
		if (!h->dbs[i])
			goto oom;
		h->ndbs = i + 1;
	}
	return h;
oom:
	rpt_hist_free(h);
	return NULL;
}

static void free_run(struct rpt_hist_run *p)
{
	free(p->label);
	free(p->name);
	free(p->src);
	for (int i = 0; i < p->nenv; i++) {
		free(p->env[i].source);
		free(p->env[i].key);
		free(p->env[i].value);
	}
	free(p->env);
}

static void free_cp(struct rpt_hist_cp *c)
{
	for (int i = 0; i < c->nchg; i++) {
		free(c->chg[i].source);
		free(c->chg[i].key);
		free(c->chg[i].before);
		free(c->chg[i].after);
		free(c->chg[i].diff);
	}
	free(c->chg);
}

void rpt_hist_free(struct rpt_history *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nseries; i++) {
		struct rpt_hist_series *s = &h->series[i];
		for (int k = 0; k < s->nfigs; k++)
			free(s->figs[k].v);
		free(s->figs);
		for (int k = 0; k < s->ncps; k++)
			free_cp(&s->cps[k]);
		free(s->cps);
	}
	free(h->series);
	for (int i = 0; i < h->nruns; i++)
		free_run(&h->runs[i]);
	free(h->runs);
	for (int i = 0; i < h->ndbs; i++)
		free(h->dbs[i]);
	free(h->dbs);
	free(h);
}

/* --- points -------------------------------------------------------------------------- */

/* Heap after GC of a source over the run: the mean of its steady window's regression
 * points (what stays live: the floor, or what full collections leave). */
static double heap_level(const struct rpt_source *s)
{
	double sum = 0;

	if (s->gc_events == 0 || s->gc.npoints == 0)
		return NAN;
	for (size_t i = 0; i < s->gc.npoints; i++)
		sum += s->gc.points[i].heap_mb;
	return sum / (double)s->gc.npoints;
}

static int copy_env(struct rpt_hist_run *p, const struct rpt_run *run)
{
	if (run->nenv == 0)
		return 0;
	p->env = calloc((size_t)run->nenv, sizeof *p->env);
	if (!p->env)
		return -1;
	for (int i = 0; i < run->nenv; i++) {
		struct rpt_hist_fact *f = &p->env[p->nenv++];
		f->source = strdup(run->env[i].source);
		f->key = strdup(run->env[i].key);
		f->value = strdup(run->env[i].value);
		if (!f->source || !f->key || !f->value)
			return -1;
	}
	return 0;
}

/* One point of a run's step. */
static int make_point(struct rpt_hist_run *p, const struct rpt_run *run, int k, int db,
                      const char *key)
{
	const struct rpt_step *st = &run->steps[k];
	const struct figures *g = &st->f;
	int sweep = strcmp(run->mode, "sweep") == 0;

	memset(p, 0, sizeof *p);
	p->db = db;
	p->id = run->id;
	snprintf(p->key, sizeof p->key, "%s", key);
	p->step = st->idx;
	p->started_ms = run->started_ms;
	p->sweep = sweep;
	p->concurrency = st->concurrency;
	p->planned_ms = st->planned_ms;
	p->tps = g->tps;
	p->p99_ms = g->p50_us > 0 || g->max_us > 0 ? (double)g->p99_us / 1000 : NAN;
	p->error_pct = g->error_pct;
	const struct rpt_drift *d =
	    sweep ? (run->step_drift ? &run->step_drift[k] : NULL) : &run->drift;
	p->drift = d && d->judged ? (int)d->verdict : -1;
	p->name = strdup(run->name);
	if (!p->name)
		return -1;
	if (run->nsrc > 0) {
		p->src = calloc((size_t)run->nsrc, sizeof *p->src);
		if (!p->src)
			return -1;
	}
	for (int i = 0; i < run->nsrc; i++) {
		struct rpt_hist_src *s = &p->src[p->nsrc++];
		double cpu = st->cpu_mean ? st->cpu_mean[i] : NAN;
		snprintf(s->name, sizeof s->name, "%s", run->src[i].name);
		/* CPU % (100 = one core) over requests per second: ms of CPU per request. */
		s->cpu_req_ms = rpt_process_series(s->name) && !isnan(cpu) && p->tps > 0
		                    ? 10 * cpu / p->tps
		                    : NAN;
		s->heap_mb = sweep ? NAN : heap_level(&run->src[i]);
	}
	return copy_env(p, run);
}

int rpt_hist_add(struct rpt_history *h, const struct report *r, const struct rpt_run *run, int db,
                 const char *key, char *err, size_t errlen)
{
	const char *label = r->labels[run->label].name;

	if (strcmp(run->status, "done") != 0 || run->nsteps == 0) {
		h->not_done++;
		return 0;
	}
	if (run->warmup) {
		h->warmups++;
		return 0;
	}
	if (h->nruns + run->nsteps > RPT_HIST_MAX_RUNS) {
		snprintf(err, errlen,
		         "more than %d runs (sweep steps count one each): choose some with "
		         "--label or --scenario",
		         RPT_HIST_MAX_RUNS);
		return -1;
	}
	if (buf_grow(&h->runs, &h->cap, (size_t)(h->nruns + run->nsteps), sizeof *h->runs, 64) < 0)
		goto oom;
	for (int k = 0; k < run->nsteps; k++) {
		struct rpt_hist_run *p = &h->runs[h->nruns];
		if (run->steps[k].nintervals == 0) /* nothing measured: no figure to show */
			continue;
		int rc = make_point(p, run, k, db, key);
		h->nruns++; /* counted either way, so rpt_hist_free releases what it holds */
		if (rc < 0 || !(p->label = strdup(label)))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* --- series -------------------------------------------------------------------------- */

/* The series key: label, scenario name, kind, concurrency, planned length. */
static int cmp_series(const struct rpt_hist_run *x, const struct rpt_hist_run *y)
{
	int c;

	if ((c = strcmp(x->label, y->label)) != 0 || (c = strcmp(x->name, y->name)) != 0)
		return c;
	if (x->sweep != y->sweep)
		return x->sweep - y->sweep;
	if (x->concurrency != y->concurrency)
		return x->concurrency < y->concurrency ? -1 : 1;
	if (x->planned_ms != y->planned_ms)
		return x->planned_ms < y->planned_ms ? -1 : 1;
	return 0;
}

/* Series order, then time (then database, id and step: a total order). */
static int cmp_point(const void *a, const void *b)
{
	const struct rpt_hist_run *x = a, *y = b;
	int c = cmp_series(x, y);

	if (c)
		return c;
	if (x->started_ms != y->started_ms)
		return x->started_ms < y->started_ms ? -1 : 1;
	if (x->db != y->db)
		return x->db - y->db;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->step - y->step;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Adds name to names[0..*n) when new (at most RPT_MAX_SOURCES). */
static void add_name(char names[][RPT_NAME_MAX], int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	if (*n < RPT_MAX_SOURCES)
		snprintf(names[(*n)++], RPT_NAME_MAX, "%s", name);
}

static const struct rpt_hist_src *find_src(const struct rpt_hist_run *p, const char *name)
{
	for (int i = 0; i < p->nsrc; i++)
		if (!strcmp(p->src[i].name, name))
			return &p->src[i];
	return NULL;
}

/* The series' figures: TPS, p99, error %, then CPU per request and heap after GC of each
 * source that has them on any of its runs (names sorted). */
static int build_figs(struct rpt_hist_series *s)
{
	char cpu[RPT_MAX_SOURCES][RPT_NAME_MAX], heap[RPT_MAX_SOURCES][RPT_NAME_MAX];
	int ncpu = 0, nheap = 0, n;

	for (int i = 0; i < s->nruns; i++)
		for (int k = 0; k < s->runs[i].nsrc; k++) {
			const struct rpt_hist_src *x = &s->runs[i].src[k];
			if (!isnan(x->cpu_req_ms))
				add_name(cpu, &ncpu, x->name);
			if (!isnan(x->heap_mb))
				add_name(heap, &nheap, x->name);
		}
	qsort(cpu, (size_t)ncpu, sizeof cpu[0], cmp_name);
	qsort(heap, (size_t)nheap, sizeof heap[0], cmp_name);
	n = 3 + ncpu + nheap;
	s->figs = calloc((size_t)n, sizeof *s->figs);
	if (!s->figs)
		return -1;
	for (int f = 0; f < n; f++) {
		struct rpt_hist_fig *g = &s->figs[s->nfigs++];
		g->kind = f == 0         ? RPT_HK_TPS
		          : f == 1       ? RPT_HK_P99
		          : f == 2       ? RPT_HK_ERR
		          : f < 3 + ncpu ? RPT_HK_CPU_REQ
		                         : RPT_HK_HEAP;
		if (g->kind == RPT_HK_CPU_REQ)
			snprintf(g->source, sizeof g->source, "%s", cpu[f - 3]);
		else if (g->kind == RPT_HK_HEAP)
			snprintf(g->source, sizeof g->source, "%s", heap[f - 3 - ncpu]);
		g->p_stop = NAN;
		g->v = malloc((size_t)s->nruns * sizeof *g->v);
		if (!g->v)
			return -1;
		for (int i = 0; i < s->nruns; i++) {
			const struct rpt_hist_run *p = &s->runs[i];
			const struct rpt_hist_src *x = g->source[0] ? find_src(p, g->source) : NULL;
			double v = g->kind == RPT_HK_TPS       ? p->tps
			           : g->kind == RPT_HK_P99     ? p->p99_ms
			           : g->kind == RPT_HK_ERR     ? p->error_pct
			           : !x                        ? NAN
			           : g->kind == RPT_HK_CPU_REQ ? x->cpu_req_ms
			                                       : x->heap_mb;
			g->v[i] = v;
			g->valid += !isnan(v);
		}
	}
	return 0;
}

/* A fact's value on a run (NULL: not recorded). */
static const char *fact(const struct rpt_hist_run *p, const char *source, const char *key)
{
	for (int i = 0; i < p->nenv; i++)
		if (!strcmp(p->env[i].source, source) && !strcmp(p->env[i].key, key))
			return p->env[i].value;
	return NULL;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

#define MAX_TOKENS 512 /* tokens of a command line compared */

/* Splits s (modified) at spaces into tok (at most MAX_TOKENS); how many. */
static int tokens(char *s, char **tok)
{
	char *save = NULL;
	int n = 0;
	for (char *p = strtok_r(s, " \t", &save); p && n < MAX_TOKENS;
	     p = strtok_r(NULL, " \t", &save))
		tok[n++] = p;
	return n;
}

/* Joins tok[a, b) with spaces into out (cut at len). */
static void join(char *const *tok, int a, int b, char *out, size_t len)
{
	size_t n = 0;
	out[0] = '\0';
	for (int i = a; i < b && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i > a ? " " : "", tok[i]);
}

/* "old → new" of two values; of command lines only the tokens between their common
 * start and common end, with the option before them when they are its value. */
static char *diff_text(const char *key, const char *a, const char *b)
{
	char *ca = strdup(a ? a : ""), *cb = strdup(b ? b : ""), *out = NULL;
	char *ta[MAX_TOKENS], *tb[MAX_TOKENS], x[1024], y[1024];
	int na, nb, pre = 0, suf = 0;

	if (!ca || !cb)
		goto done;
	if (strcmp(key, "cmdline") != 0 || !a || !b) {
		snprintf(x, sizeof x, "%s", a && *a ? a : "(not recorded)");
		snprintf(y, sizeof y, "%s", b && *b ? b : "(not recorded)");
	} else {
		na = tokens(ca, ta);
		nb = tokens(cb, tb);
		while (pre < na && pre < nb && !strcmp(ta[pre], tb[pre]))
			pre++;
		while (suf < na - pre && suf < nb - pre &&
		       !strcmp(ta[na - 1 - suf], tb[nb - 1 - suf]))
			suf++;
		/* "1 → 20" says little; "--latency 1 → --latency 20" says it. */
		if (pre > 0 && ((pre < na && ta[pre][0] != '-') || (pre < nb && tb[pre][0] != '-')))
			pre--;
		join(ta, pre, na - suf, x, sizeof x);
		join(tb, pre, nb - suf, y, sizeof y);
	}
	if (asprintf(&out, "%s → %s", x, y) < 0)
		out = NULL;
done:
	free(ca);
	free(cb);
	return out;
}

/* Whether a fact holds `v` on every run of p[a, b). */
static int holds(const struct rpt_hist_run *p, int a, int b, const char *source, const char *key,
                 const char *v)
{
	for (int i = a; i < b; i++)
		if (!same(fact(&p[i], source, key), v))
			return 0;
	return 1;
}

static int add_change(struct rpt_hist_cp *c, const struct rpt_hist_run *runs, const char *source,
                      const char *key, const char *before, const char *after)
{
	struct rpt_hist_change *g, *p = realloc(c->chg, (size_t)(c->nchg + 1) * sizeof *p);

	if (!p)
		return -1;
	c->chg = p;
	g = &c->chg[c->nchg++];
	g->source = strdup(source);
	g->key = strdup(key);
	g->before = strdup(before ? before : "");
	g->after = strdup(after ? after : "");
	g->diff = diff_text(key, before, after);
	g->steady = holds(runs, c->seg_from, c->at, source, key, before) &&
	            holds(runs, c->at, c->seg_to, source, key, after);
	return g->source && g->key && g->before && g->after && g->diff ? 0 : -1;
}

/* The facts that differ between the last run before the change point and the first after:
 * those of the run before (in its order), then those only the run after has. */
static int env_changes(struct rpt_hist_cp *c, const struct rpt_hist_run *runs)
{
	const struct rpt_hist_run *a = &runs[c->at - 1], *b = &runs[c->at];

	for (int i = 0; i < a->nenv; i++) {
		const char *v = fact(b, a->env[i].source, a->env[i].key);
		if (!same(a->env[i].value, v) &&
		    add_change(c, runs, a->env[i].source, a->env[i].key, a->env[i].value, v) < 0)
			return -1;
	}
	for (int i = 0; i < b->nenv; i++)
		if (!fact(a, b->env[i].source, b->env[i].key) &&
		    add_change(c, runs, b->env[i].source, b->env[i].key, NULL, b->env[i].value) < 0)
			return -1;
	return 0;
}

static int cmp_cp(const void *a, const void *b)
{
	const struct rpt_hist_cp *x = a, *y = b;
	return x->at != y->at ? x->at - y->at : x->fig - y->fig;
}

/* Change points of every figure of s. */
static int analyse_series(struct rpt_history *h, struct rpt_hist_series *s, char *err,
                          size_t errlen)
{
	for (int f = 0; f < s->nfigs; f++) {
		struct rpt_hist_fig *g = &s->figs[f];
		struct cp_result res;
		if (cp_detect(g->v, (size_t)s->nruns, &h->cp, &res) < 0)
			goto oom;
		g->analysed = (int)res.analysed;
		g->from = (int)res.from;
		g->tests = res.tests;
		g->perms = res.perms;
		g->p_stop = res.p_stop;
		if (res.n == 0)
			continue;
		struct rpt_hist_cp *p = realloc(s->cps, (size_t)(s->ncps + res.n) * sizeof *p);
		if (!p)
			goto oom;
		s->cps = p;
		for (int i = 0; i < res.n; i++) {
			const struct cp_point *x = &res.cp[i];
			struct rpt_hist_cp *c = &s->cps[s->ncps++];
			memset(c, 0, sizeof *c);
			c->fig = f;
			c->at = (int)x->at;
			c->before = x->mean_before;
			c->after = x->mean_after;
			c->sd_before = x->sd_before;
			c->sd_after = x->sd_after;
			c->n_before = (int)x->n_before;
			c->n_after = (int)x->n_after;
			c->seg_from = i > 0 ? (int)res.cp[i - 1].at : (int)res.from;
			c->seg_to = i + 1 < res.n ? (int)res.cp[i + 1].at : s->nruns;
			c->change_pct = x->change_pct;
			c->worse =
			    (g->kind == RPT_HK_TPS) == (x->mean_after < x->mean_before) ? 1 : -1;
			c->p = x->p;
			c->perms = x->perms;
			if (env_changes(c, s->runs) < 0)
				goto oom;
		}
	}
	if (s->ncps > 1)
		qsort(s->cps, (size_t)s->ncps, sizeof *s->cps, cmp_cp);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int rpt_hist_analyse(struct rpt_history *h, char *err, size_t errlen)
{
	if (h->nruns > 1)
		qsort(h->runs, (size_t)h->nruns, sizeof *h->runs, cmp_point);
	for (int i = 0; i < h->nruns;) {
		int j = i + 1;
		while (j < h->nruns && cmp_series(&h->runs[i], &h->runs[j]) == 0)
			j++;
		struct rpt_hist_series *p =
		    realloc(h->series, (size_t)(h->nseries + 1) * sizeof *h->series);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		h->series = p;
		struct rpt_hist_series *s = &h->series[h->nseries++];
		memset(s, 0, sizeof *s);
		s->runs = &h->runs[i];
		s->nruns = j - i;
		s->analysed = s->nruns >= h->min_runs;
		if (build_figs(s) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (s->analysed && analyse_series(h, s, err, errlen) < 0)
			return -1;
		i = j;
	}
	return 0;
}

/* --- reading ------------------------------------------------------------------------- */

/* Whether label and name pass the filters. */
static int wanted(const char *label, const char *name, const char *const *labels, int nlabels,
                  const char *scenario)
{
	int ok = nlabels == 0;
	for (int i = 0; i < nlabels && !ok; i++)
		ok = !strcmp(labels[i], label);
	return ok && (!scenario || !strcmp(scenario, name));
}

/* The ids of the runs of one database to read (agents' runs folded into a merged run are
 * that run), oldest first; *ids allocated. */
static int list_runs(const char *path, const char *const *labels, int nlabels, const char *scenario,
                     int64_t **ids, int *n, int *usage, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = -1, step, all = 0;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	/* As `soak report` opens it: migrated when writable, else read as it is. */
	if (db_open(path, 0, &db, err, errlen) < 0 &&
	    (access(path, F_OK) != 0 || access(path, W_OK) == 0 ||
	     db_open(path, DB_READONLY, &db, err, errlen) < 0)) {
		*usage = 1;
		return -1;
	}
	if (db_prepare(db, &q,
	               "SELECT id, label, name FROM runs WHERE merged_into IS NULL "
	               "ORDER BY started_ms, id",
	               err, errlen) < 0)
		goto done;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		all++;
		if (!wanted(db_col_text(q, 1), db_col_text(q, 2), labels, nlabels, scenario))
			continue;
		if (buf_grow(ids, &cap, (size_t)*n + 1, sizeof **ids, 64) < 0) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	if (step != SQLITE_DONE) {
		db_fail(db, "cannot read runs", err, errlen);
		goto done;
	}
	if (all == 0) {
		snprintf(err, errlen,
		         "'%s' holds no runs (a collector's file? fold it into the runs' database "
		         "with `soak merge` first)",
		         path);
		*usage = 1;
		goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	db_close(db);
	return rc;
}

int rpt_hist_read(struct rpt_history **out, const char *const *dbs, int ndbs,
                  const char *const *labels, int nlabels, const char *scenario, int *usage,
                  char *err, size_t errlen)
{
	struct rpt_history *h = NULL;
	int64_t *ids = NULL;
	int nids = 0, rc = -1, any = 0;
	struct report rr;

	memset(&rr, 0, sizeof rr);
	*out = NULL;
	*usage = 0;
	if (ndbs < 1 || ndbs > RPT_MAX_DBS) {
		snprintf(err, errlen, "between 1 and %d databases, please", RPT_MAX_DBS);
		*usage = 1;
		return -1;
	}
	if (!(h = rpt_hist_new(dbs, ndbs))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int d = 0; d < ndbs; d++) {
		if (list_runs(dbs[d], labels, nlabels, scenario, &ids, &nids, usage, err, errlen) <
		    0)
			goto done;
		any += nids;
		/* A few runs at a time: the report's reader and figures, bounded memory. */
		for (int i = 0; i < nids; i += HIST_CHUNK) {
			char sel[HIST_CHUNK * 24], key[48];
			size_t n = 0;
			const char *one[1] = {dbs[d]};
			struct rpt_opts o = {.dbs = one, .ndbs = 1, .runs = sel};
			for (int k = i; k < nids && k < i + HIST_CHUNK; k++)
				n += (size_t)snprintf(sel + n, sizeof sel - n, "%s%lld",
				                      k > i ? "," : "", (long long)ids[k]);
			if (rpt_read(&rr, &o, usage, err, errlen) < 0)
				goto done;
			for (int k = 0; k < rr.nruns; k++) {
				const struct rpt_run *run = &rr.runs[k];
				if (ndbs > 1)
					snprintf(key, sizeof key, "%d:%lld", d + 1,
					         (long long)run->id);
				else
					snprintf(key, sizeof key, "%lld", (long long)run->id);
				if (rpt_hist_add(h, &rr, run, d, key, err, errlen) < 0)
					goto done;
			}
			rpt_free(&rr);
		}
		free(ids);
		ids = NULL;
	}
	if (any == 0) {
		snprintf(err, errlen, "no run matches the selection (--label, --scenario)");
		*usage = 1;
		goto done;
	}
	if (rpt_hist_analyse(h, err, errlen) < 0)
		goto done;
	*out = h;
	h = NULL;
	rc = 0;
done:
	rpt_free(&rr);
	free(ids);
	rpt_hist_free(h);
	return rc;
}

int rpt_hist_from_report(struct report *r, char *err, size_t errlen)
{
	struct rpt_history *h = rpt_hist_new((const char *const *)r->dbs, r->ndbs);
	int analysed = 0;

	r->history = NULL;
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int points = 0;
	for (int i = 0; i < r->nruns; i++)
		points += r->runs[i].nsteps;
	if (points > RPT_HIST_MAX_RUNS) { /* sweeps of many steps: no history in the report */
		rpt_hist_free(h);
		return 0;
	}
	for (int i = 0; i < r->nruns; i++)
		if (rpt_hist_add(h, r, &r->runs[i], r->runs[i].db, r->runs[i].key, err, errlen) < 0)
			goto fail;
	if (rpt_hist_analyse(h, err, errlen) < 0)
		goto fail;
	for (int i = 0; i < h->nseries; i++)
		analysed += h->series[i].analysed;
	if (analysed)
		r->history = h;
	else
		rpt_hist_free(h);
	return 0;
fail:
	rpt_hist_free(h);
	return -1;
}
