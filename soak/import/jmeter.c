/* jmeter: a JMeter result file becomes a recorded run (jmeter.h): a first pass checks
 * every sample and learns the steps, a second records; any mistake is FILE:LINE and
 * nothing is written. */
#include "jmeter.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dur.h"
#include "ireader.h"
#include "jtl.h"
#include "safename.h"
#include "stage.h"

#define JM_MAX_LINE     (1 << 20) /* the longest line of a result file */
#define JM_MAX_LABELS   1000      /* distinct labels described; more are summed as one */
#define JM_LABEL_SLOTS  2048      /* hash slots for them (a power of two above twice as many) */
#define JM_LABEL_VALUES (1 << 21) /* distinct elapsed values the label rows keep, in all */
#define JM_MAX_OPEN     4096      /* intervals receiving samples at once */
#define JM_URL_LEN      512

/* A sampler label and what it did. */
struct jm_label {
	char *name;           /* owned */
	int64_t order;        /* the sample that first had it: its row in JMeter's report */
	struct jmagg agg;     /* its row of JMeter's report */
	char url[JM_URL_LEN]; /* the first URL seen with it, or "" */
};

/* What the first pass learns. */
struct scan {
	int64_t run_start; /* earliest sample start, ms */
	int64_t run_end;   /* latest sample end, ms */
	int64_t max_start; /* latest start seen so far (the lateness horizon) */
	int nlabels;       /* entries of slots used */
	struct jm_label *slots[JM_LABEL_SLOTS]; /* hash of labels, owned */
	struct jmagg other;                     /* labels past JM_MAX_LABELS, as one row */
	struct jmagg total;                     /* JMeter's TOTAL row */
	int64_t label_budget;                   /* distinct values label rows may still add */
	struct jm_holds holds;                  /* the thread counts' holds */
	char url[JM_URL_LEN];                   /* the first URL seen */
	char host[256];                         /* the first Hostname seen */
};

/* A sample's start and end (ms); -1 when its times make no sense. */
static int sample_times(const struct jtl_sample *s, int ts_end, int64_t *start, int64_t *end)
{
	*end = ts_end ? s->ts : s->ts + s->elapsed;
	*start = *end - s->elapsed;
	return *start < 0 ? -1 : 0;
}

/* The sample's thread count: allThreads, else grpThreads, else -1. */
static int level_of(const struct jtl_sample *s)
{
	return s->all_threads >= 0 ? s->all_threads : s->grp_threads >= 0 ? s->grp_threads : -1;
}

/* --- first pass ------------------------------------------------------------------------- */

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int count_label(struct scan *sc, const struct jtl_sample *s, int64_t start, int64_t end)
{
	uint32_t i = hash(s->label) & (JM_LABEL_SLOTS - 1);
	struct jm_label *l;

	while ((l = sc->slots[i]) && strcmp(l->name, s->label) != 0)
		i = (i + 1) & (JM_LABEL_SLOTS - 1);
	if (!l) {
		if (sc->nlabels >= JM_MAX_LABELS)
			return jmagg_add(&sc->other, s->elapsed, !s->success, start, end);
		l = calloc(1, sizeof *l);
		if (!l || !(l->name = strdup(s->label))) {
			free(l);
			return -1;
		}
		l->order = sc->total.samples;
		jmagg_init(&l->agg, &sc->label_budget);
		sc->slots[i] = l;
		sc->nlabels++;
	}
	if (!l->url[0] && s->url[0])
		snprintf(l->url, sizeof l->url, "%s", s->url);
	return jmagg_add(&l->agg, s->elapsed, !s->success, start, end);
}

static void scan_init(struct scan *sc)
{
	memset(sc, 0, sizeof *sc);
	sc->run_start = INT64_MAX;
	sc->run_end = -1;
	sc->max_start = -1;
	sc->label_budget = JM_LABEL_VALUES;
	jmagg_init(&sc->total, NULL);
	jmagg_init(&sc->other, &sc->label_budget);
	jm_holds_init(&sc->holds);
}

static void scan_release(struct scan *sc)
{
	for (int i = 0; i < JM_LABEL_SLOTS; i++)
		if (sc->slots[i]) {
			jmagg_release(&sc->slots[i]->agg);
			free(sc->slots[i]->name);
			free(sc->slots[i]);
		}
	jmagg_release(&sc->total);
	jmagg_release(&sc->other);
	jm_holds_release(&sc->holds);
}

/* Formats "FILE:LINE: msg" into err. */
static void at_line(char *err, size_t errlen, const char *path, long line, const char *msg)
{
	char m[512];
	snprintf(m, sizeof m, "%s", msg);
	snprintf(err, errlen, "%s:%ld: %s", path, line, m);
}

/* Reads every sample once: checks them, learns the file.  -2 bad input, -1 failure. */
static int scan(struct jtl_reader *j, const struct jmeter_opts *o, struct scan *sc, char *err,
                size_t errlen)
{
	struct jtl_sample s;
	char e[400];
	long line = 0;
	int rc;

	while ((rc = jtl_next(j, &s, e, sizeof e, &line)) == 1) {
		int64_t start, end;
		if (sample_times(&s, o->ts_end, &start, &end) < 0) {
			at_line(err, errlen, o->path, line,
			        "elapsed is longer than the time since 1970");
			return -2;
		}
		if (sc->max_start >= 0 && end < sc->max_start - JM_SLACK_MS) {
			char d[32];
			snprintf(
			    e, sizeof e,
			    "this sample ended %s before one on an earlier line started: the "
			    "file is not in time order (JMeter writes samples as they end; was "
			    "it sorted or concatenated?)",
			    dur_format((sc->max_start - end) / 1000 * 1000, d, sizeof d));
			at_line(err, errlen, o->path, line, e);
			return -2;
		}
		if (jm_holds_add(&sc->holds, level_of(&s), end, e, sizeof e) < 0) {
			at_line(err, errlen, o->path, line, e);
			return -2;
		}
		if (start < sc->run_start)
			sc->run_start = start;
		if (end > sc->run_end)
			sc->run_end = end;
		if (start > sc->max_start)
			sc->max_start = start;
		if (!sc->url[0] && s.url[0])
			snprintf(sc->url, sizeof sc->url, "%s", s.url);
		if (!sc->host[0] && s.host[0])
			snprintf(sc->host, sizeof sc->host, "%s", s.host);
		if (jmagg_add(&sc->total, s.elapsed, !s.success, start, end) < 0 ||
		    count_label(sc, &s, start, end) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (rc < 0) {
		at_line(err, errlen, o->path, line, e);
		return -2;
	}
	if (sc->total.samples == 0) {
		snprintf(err, errlen, "%s: no samples in the file", o->path);
		return -2;
	}
	if (jm_holds_finish(&sc->holds, sc->run_end + 1, e, sizeof e) < 0) {
		snprintf(err, errlen, "%s: %s", o->path, e);
		return -2;
	}
	return 0;
}

/* --- second pass: intervals ------------------------------------------------------------- */

/* An interval receiving samples. */
struct slot {
	int64_t r;        /* its index in the run */
	int64_t last_end; /* the latest end among its samples with a thread count */
	int level;        /* that sample's count; -1 when none */
	struct istats st;
};

/* The second pass's state. */
struct writer {
	const struct jmeter_opts *o;
	struct recorder *rec;           /* the stage's */
	int64_t origin;                 /* start of the first interval: the first sample's start */
	int64_t interval_ms;            /* of the intervals */
	int64_t end;                    /* end of the last interval (exclusive), ms */
	int64_t n;                      /* intervals in the run */
	const int *step_of;             /* per interval: its step */
	const unsigned char *phase_of;  /* per interval: enum jm_phase */
	const struct jm_step *steps;    /* the layout's */
	int64_t planned_ms;             /* every step's nominal length (nominal_ms) */
	int last_vus;                   /* thread count of the last interval written */
	struct slot *open[JM_MAX_OPEN]; /* intervals receiving samples, sorted by r */
	int nopen;                      /* how many */
	struct slot *pool[JM_MAX_OPEN]; /* written slots, for reuse */
	int npool;                      /* how many */
	int64_t next_write;             /* first interval not written yet */
	struct istats empty;            /* an interval without samples */
	struct istats acc;              /* the current step's measured window */
	char err[512];                  /* the recorder's message */
};

static int64_t iv_start(const struct writer *w, int64_t r)
{
	return jm_interval_start(w->origin, w->interval_ms, r);
}

static int64_t iv_end(const struct writer *w, int64_t r)
{
	return r + 1 < w->n ? iv_start(w, r + 1) : w->end;
}

/* Writes interval r with its samples (sl; NULL when none), opening and closing steps
 * around it. */
static int write_interval(struct writer *w, int64_t r, const struct slot *sl)
{
	int s = w->step_of[r];
	const struct jm_step *sp = &w->steps[s];
	const struct istats *st = sl ? &sl->st : &w->empty;
	char *e = w->err;
	size_t el = sizeof w->err;

	if (sl && sl->level >= 0)
		w->last_vus = sl->level;
	if (r == sp->first &&
	    rec_step_begin(w->rec, s, sp->level, 0, iv_start(w, r), w->planned_ms, e, el) < 0)
		return -1;
	if (rec_interval(w->rec, s, iv_start(w, r), iv_end(w, r) - iv_start(w, r),
	                 jm_phase_name((enum jm_phase)w->phase_of[r]), w->last_vus, st, NULL, e,
	                 el) < 0)
		return -1;
	if (w->phase_of[r] == JM_STEADY)
		istats_add(&w->acc, st);
	if (r == sp->last) {
		if (sp->steady_first >= 0 &&
		    rec_step_end(w->rec, s, iv_start(w, sp->steady_first),
		                 iv_end(w, sp->steady_last), &w->acc, e, el) < 0)
			return -1;
		istats_reset(&w->acc);
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The steps' nominal length, what a scenario would have planned: their median length
 * rounded to the minute (10 s under 5 minutes, 1 s under one), the same for every step,
 * so the report lines the run up with soak runs planned for as long and keeps a sweep's
 * steps together. */
static int64_t nominal_ms(const struct writer *w, int nsteps)
{
	int64_t len[JM_MAX_STEPS], m, grain;

	for (int s = 0; s < nsteps; s++)
		len[s] = iv_end(w, w->steps[s].last) - iv_start(w, w->steps[s].first);
	qsort(len, (size_t)nsteps, sizeof *len, cmp_i64);
	m = nsteps % 2 ? len[nsteps / 2] : (len[nsteps / 2 - 1] + len[nsteps / 2]) / 2;
	grain = m < 60000 ? 1000 : m < 300000 ? 10000 : 60000;
	m = (m + grain / 2) / grain * grain;
	return m > 0 ? m : grain;
}

/* Writes every interval before index `until` (those without samples too). */
static int flush(struct writer *w, int64_t until)
{
	if (until > w->n)
		until = w->n;
	for (; w->next_write < until; w->next_write++) {
		int64_t r = w->next_write;
		if (w->nopen > 0 && w->open[0]->r == r) {
			struct slot *sl = w->open[0];
			if (write_interval(w, r, sl) < 0)
				return -1;
			istats_reset(&sl->st);
			memmove(&w->open[0], &w->open[1],
			        (size_t)(w->nopen - 1) * sizeof w->open[0]);
			w->nopen--;
			w->pool[w->npool++] = sl;
		} else if (write_interval(w, r, NULL) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The open interval r, made when new. */
static struct slot *slot_of(struct writer *w, int64_t r)
{
	int lo = 0, hi = w->nopen;
	struct slot *sl;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (w->open[mid]->r < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nopen && w->open[lo]->r == r)
		return w->open[lo];
	if (w->nopen >= JM_MAX_OPEN) {
		snprintf(w->err, sizeof w->err, "more than %d intervals receive samples at once",
		         JM_MAX_OPEN);
		return NULL;
	}
	if (w->npool > 0) {
		sl = w->pool[--w->npool];
	} else {
		sl = calloc(1, sizeof *sl);
		if (!sl || istats_init(&sl->st, w->err, sizeof w->err) < 0) {
			free(sl);
			snprintf(w->err, sizeof w->err, "out of memory");
			return NULL;
		}
	}
	sl->r = r;
	sl->last_end = -1;
	sl->level = -1;
	memmove(&w->open[lo + 1], &w->open[lo], (size_t)(w->nopen - lo) * sizeof w->open[0]);
	w->open[lo] = sl;
	w->nopen++;
	return sl;
}

/* A sample into its interval.  Every sample's elapsed goes into the histogram, failed
 * ones too: JMeter's report counts them all, and these figures are the file's. */
static void add_sample(struct slot *sl, const struct jtl_sample *s, int64_t end)
{
	struct istats *st = &sl->st;

	st->requests++;
	if (s->bytes > 0)
		st->bytes += s->bytes;
	if (!s->success) {
		char msg[ERR_SAMPLE_LEN];
		int answered;
		enum err_class c = jtl_classify(s, &answered);
		snprintf(msg, sizeof msg, "%s%s%s", s->code, *s->code && *s->message ? ": " : "",
		         s->message);
		istats_error(st, c, msg);
	}
	if (level_of(s) >= 0 && end >= sl->last_end) {
		sl->last_end = end;
		sl->level = level_of(s);
	}
	if (hdr_record(&st->hist, s->elapsed * 1000) < 0) {
		st->overflow++;
		return;
	}
	st->lat_sum_us += s->elapsed * 1000;
	if (s->latency >= 0) {
		st->ttfb_sum_us += s->latency * 1000;
		st->ttfb_n++;
	}
}

/* The first interval whose samples can no longer arrive: everything before it is final. */
static int64_t horizon(const struct writer *w, int64_t max_start)
{
	int64_t h = max_start - JM_SLACK_MS - w->origin;
	return h < 0 ? 0 : h / w->interval_ms;
}

static int write_pass(struct jtl_reader *j, struct writer *w, char *err, size_t errlen)
{
	struct jtl_sample s;
	int64_t max_start = -1;
	long line = 0;
	int rc;

	if (jtl_rewind(j, err, errlen) < 0)
		return -1;
	while ((rc = jtl_next(j, &s, err, errlen, &line)) == 1) {
		int64_t start, end, r;
		struct slot *sl;
		sample_times(&s, w->o->ts_end, &start, &end);
		r = jm_interval_of(w->origin, w->interval_ms, w->n, end);
		if (r < w->next_write || start < w->origin || end >= w->end) {
			/* The first pass refused such a file; the file changed since. */
			snprintf(err, errlen, "%s:%ld: the file changed while it was imported",
			         w->o->path, line);
			return -1;
		}
		if (!(sl = slot_of(w, r))) {
			snprintf(err, errlen, "%s:%ld: %s", w->o->path, line, w->err);
			return -1;
		}
		add_sample(sl, &s, end);
		if (start > max_start) {
			max_start = start;
			if (flush(w, horizon(w, max_start)) < 0)
				goto db;
		}
	}
	if (rc < 0) {
		char e[512];
		snprintf(e, sizeof e, "%s", err);
		at_line(err, errlen, w->o->path, line, e);
		return -1;
	}
	if (flush(w, w->n) < 0)
		goto db;
	return 0;
db:
	snprintf(err, errlen, "%s", w->err);
	return -1;
}

/* --- the run ----------------------------------------------------------------------------- */

static int cmp_order(const void *a, const void *b)
{
	const struct jm_label *x = *(struct jm_label *const *)a, *y = *(struct jm_label *const *)b;
	return (x->order > y->order) - (x->order < y->order);
}

/* The labels in JMeter's order (first appearance); returns how many. */
static int labels_in_order(const struct scan *sc, struct jm_label **ls)
{
	int n = 0;
	for (int i = 0; i < JM_LABEL_SLOTS; i++)
		if (sc->slots[i])
			ls[n++] = sc->slots[i];
	qsort(ls, (size_t)n, sizeof *ls, cmp_order);
	return n;
}

/* A row of JMeter's report as a comment: "N samples, ...". */
static void append_row(struct buf *b, const struct jmagg_row *r)
{
	buf_printf(b, "%lld samples, %lld failed (%.2f %%), average %lld ms", (long long)r->samples,
	           (long long)r->errors, 100 * r->error_frac, (long long)r->average);
	if (r->exact)
		buf_printf(b, ", median %lld, 90%% %lld, 95%% %lld, 99%% %lld",
		           (long long)r->median, (long long)r->p90, (long long)r->p95,
		           (long long)r->p99);
	buf_printf(b, ", min %lld, max %lld", (long long)r->min, (long long)r->max);
	if (!isnan(r->rate_per_s))
		buf_printf(b, ", %.1f/s", r->rate_per_s);
}

/* The run's description, stored as its scenario text: the file's shape in scenario terms,
 * JMeter's report of it, its samplers as [request.NAME] sections weighted by their
 * samples. */
static char *describe(const struct jmeter_opts *o, const struct scan *sc,
                      const struct jm_step *steps, int nsteps, int64_t interval_ms, int xml,
                      const char *name)
{
	struct jm_label *ls[JM_MAX_LABELS];
	struct jmagg_row row;
	struct buf b = {0};
	char d[32];
	int n = labels_in_order(sc, ls), bad = 0;

	buf_printf(&b,
	           "; imported by `soak import jmeter` from %s (%s)\n"
	           "; %lld samples, %lld failed; %d step%s at",
	           o->path, xml ? "XML" : "CSV", (long long)sc->total.samples,
	           (long long)sc->total.errors, nsteps, nsteps == 1 ? "" : "s");
	for (int s = 0; s < nsteps; s++)
		buf_printf(&b, "%s %d", s ? "," : "", steps[s].level);
	buf_printf(&b, " threads\n; JMeter's aggregate report, TOTAL: ");
	if (jmagg_row(&sc->total, &row) < 0)
		bad = 1;
	else
		append_row(&b, &row);
	buf_printf(&b,
	           "\n[scenario]\nname        = %s\nlabel       = %s\n"
	           "concurrency = %d\ninterval    = %s\nconnection  = %s\n",
	           name, o->label, nsteps ? steps[0].level : 0,
	           dur_format(interval_ms, d, sizeof d), o->connection);
	if (o->warmup_ms > 0)
		buf_printf(&b, "warmup      = %s\n", dur_format(o->warmup_ms, d, sizeof d));
	for (int i = 0; i < n; i++) {
		/* Section names keep INI-safe characters; the label itself is in the comment. */
		char sec[80];
		safe_name(sec, sizeof sec, ls[i]->name, "_-.", '_');
		buf_printf(&b, "\n[request.%s]\n; label \"%.200s\": ", sec[0] ? sec : "_",
		           ls[i]->name);
		if (jmagg_row(&ls[i]->agg, &row) < 0)
			bad = 1;
		else
			append_row(&b, &row);
		buf_printf(&b, "\nweight = %lld\n", (long long)ls[i]->agg.samples);
		if (ls[i]->url[0])
			buf_printf(&b, "url    = %s\n", ls[i]->url);
	}
	if (sc->other.samples)
		buf_printf(&b,
		           "\n; %lld more samples (%lld failed) under labels "
		           "past the first %d\n",
		           (long long)sc->other.samples, (long long)sc->other.errors,
		           JM_MAX_LABELS);
	if (bad) {
		buf_free(&b);
		return NULL;
	}
	return buf_done(&b);
}

/* JMeter's report into res: the TOTAL row and one per label (the labels past
 * JM_MAX_LABELS as one more).  -1 out of memory. */
static int report_rows(const struct scan *sc, struct jmeter_result *res)
{
	struct jm_label *ls[JM_MAX_LABELS];
	int n = labels_in_order(sc, ls);

	if (jmagg_row(&sc->total, &res->total.r) < 0)
		return -1;
	res->rows = calloc((size_t)n + 1, sizeof *res->rows);
	if (!res->rows)
		return -1;
	for (int i = 0; i <= n; i++) {
		const struct jmagg *a = i < n ? &ls[i]->agg : &sc->other;
		char other[64];
		if (i == n && a->samples == 0)
			break;
		snprintf(other, sizeof other, "(labels past the first %d)", JM_MAX_LABELS);
		if (!(res->rows[i].label = strdup(i < n ? ls[i]->name : other)) ||
		    jmagg_row(a, &res->rows[i].r) < 0)
			return -1;
		res->nrows++;
	}
	return 0;
}

void jmeter_result_release(struct jmeter_result *res)
{
	for (int i = 0; i < res->nrows; i++)
		free(res->rows[i].label);
	free(res->rows);
	res->rows = NULL;
	res->nrows = 0;
}

/* The interval and the layout of the file's intervals; -2 (err) when the interval does
 * not fit the file, -1 out of memory.  *n gets the number of intervals. */
static int lay_out(const struct jmeter_opts *o, const struct scan *sc, struct jm_step *steps,
                   int nsteps, int64_t *interval, int64_t *n, int **step_of,
                   unsigned char **phase_of, char *err, size_t errlen)
{
	int64_t origin = sc->run_start, end = sc->run_end + 1, measured = 0;
	char a[32], b[32], c[32];
	int short_step;

	*interval = o->interval_ms ? o->interval_ms : jm_auto_interval(steps, nsteps);
	if (o->interval_ms && end - origin < o->interval_ms) {
		snprintf(err, errlen,
		         "%s: the samples span %s, less than one --interval of %s: give a shorter "
		         "--interval, or none (%s would be chosen)",
		         o->path, dur_format(end - origin, a, sizeof a),
		         dur_format(o->interval_ms, b, sizeof b),
		         dur_format(jm_auto_interval(steps, nsteps), c, sizeof c));
		return -2;
	}
	*n = jm_interval_count(origin, end, *interval);
	if (*n > JM_MAX_INTERVALS) {
		snprintf(err, errlen,
		         "%s: the samples span more than %d intervals: give a longer --interval",
		         o->path, JM_MAX_INTERVALS);
		return -2;
	}
	*step_of = calloc((size_t)*n, sizeof **step_of);
	*phase_of = calloc((size_t)*n, 1);
	if (!*step_of || !*phase_of) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (jm_layout(origin, end, *interval, o->warmup_ms, steps, nsteps, *step_of, *phase_of,
	              &short_step) < 0) {
		const struct jm_step *st = &steps[short_step];
		snprintf(err, errlen,
		         "%s: the step at %d threads lasts %s, too short for intervals of %s: give "
		         "a shorter --interval",
		         o->path, st->level, dur_format(st->hold_to - st->hold_from, a, sizeof a),
		         dur_format(*interval, b, sizeof b));
		return -2;
	}
	for (int s = 0; s < nsteps; s++)
		measured |= steps[s].steady_first >= 0;
	if (!measured) {
		int64_t longest = 0;
		for (int s = 0; s < nsteps; s++) {
			int64_t to = steps[s].last + 1 < *n
			                 ? jm_interval_start(origin, *interval, steps[s].last + 1)
			                 : end;
			if (to - jm_interval_start(origin, *interval, steps[s].first) > longest)
				longest = to - jm_interval_start(origin, *interval, steps[s].first);
		}
		snprintf(err, errlen,
		         "%s: --warmup %s leaves nothing measured: the longest step lasts %s",
		         o->path, dur_format(o->warmup_ms, a, sizeof a),
		         dur_format(longest, b, sizeof b));
		return -2;
	}
	return 0;
}

/* The run's row in the stage: its name (--name, else "JMeter FILE"), the description of
 * the file and of what the import made of it.  0, or -1 with err. */
static int record_import(const struct jmeter_opts *o, const struct scan *sc,
                         const struct jm_step *steps, int nsteps, int64_t interval, int xml,
                         struct recorder *rec, char *err, size_t errlen)
{
	char name[300], *desc;
	int rc;

	if (o->name)
		snprintf(name, sizeof name, "%s", o->name);
	else {
		const char *base = strrchr(o->path, '/');
		snprintf(name, sizeof name, "JMeter %s", base ? base + 1 : o->path);
	}
	if (!(desc = describe(o, sc, steps, nsteps, interval, xml, name))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct rec_import im = {
	    .origin = "jmeter",
	    .name = name,
	    .label = o->label,
	    .file = o->path,
	    .description = desc,
	    .sweep = nsteps > 1,
	    .connection = o->connection,
	    .url = sc->url,
	    .host = sc->host,
	    .interval_ms = interval,
	    .started_ms = sc->run_start,
	    .ended_ms = sc->run_end + 1,
	    .redact = o->redact,
	};
	rc = rec_run_import(rec, &im, err, errlen);
	free(desc);
	return rc;
}

static void writer_free(struct writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nopen; i++) {
		istats_release(&w->open[i]->st);
		free(w->open[i]);
	}
	for (int i = 0; i < w->npool; i++) {
		istats_release(&w->pool[i]->st);
		free(w->pool[i]);
	}
	istats_release(&w->empty);
	istats_release(&w->acc);
	free(w);
}

/* What the command prints of the import, once it is committed (run_id and rows are). */
static void fill_result(struct jmeter_result *res, const struct scan *sc,
                        const struct jtl_reader *j, const struct jm_step *steps, int nsteps,
                        int64_t interval)
{
	res->samples = sc->total.samples;
	res->errors = sc->total.errors;
	res->started_ms = sc->run_start;
	res->ended_ms = sc->run_end + 1;
	res->interval_ms = interval;
	res->nsteps = nsteps;
	for (int s = 0; s < nsteps; s++) {
		res->levels[s] = steps[s].level;
		res->held_ms[s] = steps[s].hold_to - steps[s].hold_from;
		res->unmeasured[s] = steps[s].steady_first < 0;
	}
	res->threads_known = jtl_has_threads(j);
	res->format_xml = jtl_format(j) == JTL_XML;
	res->nlabels = sc->nlabels + (sc->other.samples > 0);
}

int jmeter_import(const struct jmeter_opts *o, struct jmeter_result *res, char *err, size_t errlen)
{
	struct ireader in;
	struct jtl_reader *j = NULL;
	struct scan *sc = NULL;
	struct stage sg;
	struct writer *w = NULL;
	struct jm_step steps[JM_MAX_STEPS];
	int *step_of = NULL, nsteps, rc = -2, staged = 0;
	int64_t interval = 0, n = 0, samples;
	unsigned char *phase_of = NULL;
	char e[400];
	long line = 0;

	memset(res, 0, sizeof *res);
	memset(&in, 0, sizeof in);
	memset(&sg, 0, sizeof sg);
	res->run_id = -1;
	sc = malloc(sizeof *sc);
	if (!sc) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	scan_init(sc);
	if (ird_open(&in, o->path, JM_MAX_LINE, err, errlen) < 0)
		goto done;
	if (jtl_open(&j, &in, e, sizeof e, &line) < 0) {
		at_line(err, errlen, o->path, line, e);
		goto done;
	}
	if ((rc = scan(j, o, sc, err, errlen)) < 0)
		goto done;

	nsteps = jm_find_steps(&sc->holds, sc->run_start, sc->run_end + 1, steps, JM_MAX_STEPS);
	if (nsteps < 0) {
		snprintf(err, errlen,
		         "%s: the thread counts change in more than %d steps: that is no sweep a "
		         "report can show; import a part of the file, or the file without its "
		         "allThreads and grpThreads columns (one step)",
		         o->path, JM_MAX_STEPS);
		rc = -2;
		goto done;
	}
	if ((rc = lay_out(o, sc, steps, nsteps, &interval, &n, &step_of, &phase_of, err, errlen)) <
	    0)
		goto done;
	rc = -1;

	if (!(w = calloc(1, sizeof *w))) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (stage_open(&sg, err, errlen) < 0)
		goto done;
	staged = 1;
	if (record_import(o, sc, steps, nsteps, interval, jtl_format(j) == JTL_XML, &sg.rec, err,
	                  errlen) < 0)
		goto done;
	w->o = o;
	w->rec = &sg.rec;
	w->origin = sc->run_start;
	w->interval_ms = interval;
	/* The last sample ends within its millisecond: the run covers it. */
	w->end = sc->run_end + 1;
	w->n = n;
	w->step_of = step_of;
	w->phase_of = phase_of;
	w->steps = steps;
	w->planned_ms = nominal_ms(w, nsteps);
	if (istats_init(&w->empty, err, errlen) < 0 || istats_init(&w->acc, err, errlen) < 0)
		goto done;
	if (write_pass(j, w, err, errlen) < 0)
		goto done;
	if (report_rows(sc, res) < 0) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (stage_commit(&sg, o->db_path, &res->run_id, &samples, err, errlen) < 0)
		goto done;
	fill_result(res, sc, j, steps, nsteps, interval);
	rc = 0;
done:
	if (rc < 0)
		jmeter_result_release(res);
	writer_free(w);
	if (staged)
		stage_close(&sg);
	free(step_of);
	free(phase_of);
	scan_release(sc);
	free(sc);
	jtl_free(j);
	ird_close(&in);
	return rc;
}
