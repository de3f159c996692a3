/* history: points grouped into series, each figure's change points, and what changed in
 * run_env across each (see history.h). */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

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

int rpt_hist_room(struct rpt_history *h, int n, char *err, size_t errlen)
{
	if (h->nruns + n > RPT_HIST_MAX_RUNS) {
		snprintf(err, errlen,
		         "more than %d runs (sweep steps count one each): choose some with "
		         "--label or --scenario",
		         RPT_HIST_MAX_RUNS);
		return -1;
	}
	if (buf_grow(&h->runs, &h->cap, (size_t)(h->nruns + n), sizeof *h->runs, 64) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
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

/* Adds name to names[0..*n) when new (at most RPT_HIST_SOURCES). */
static void add_name(char names[][RPT_HIST_NAME_MAX], int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	if (*n < RPT_HIST_SOURCES)
		snprintf(names[(*n)++], RPT_HIST_NAME_MAX, "%s", name);
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
	char cpu[RPT_HIST_SOURCES][RPT_HIST_NAME_MAX], heap[RPT_HIST_SOURCES][RPT_HIST_NAME_MAX];
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
