#include "jmeter.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "ireader.h"
#include "jtl.h"
#include "stage.h"

#define JM_MAX_LINE    (1 << 20) /* the longest line of a result file */
#define JM_MAX_LABELS  1000      /* distinct labels described; more are summed as one */
#define JM_LABEL_SLOTS 2048      /* hash slots for them (a power of two above twice as many) */
#define JM_MAX_OPEN    4096      /* intervals receiving samples at once */
#define JM_URL_LEN     512

/* A sampler label and what it did. */
struct jm_label {
	char *name;              /* owned */
	int64_t samples, errors; /* top-level samples with this label, and the failed ones */
	char url[JM_URL_LEN];    /* the first URL seen with it, or "" */
};

/* What the first pass learns. */
struct timeline {
	int64_t interval_ms;     /* of the intervals being rebuilt */
	int64_t base;            /* interval index (ms since the epoch / interval) of slot 0 */
	int64_t *last_end;       /* per slot: the latest sample end in it, -1 when none */
	int *level;              /* per slot: active threads at that sample */
	int64_t cap;             /* slots allocated */
	int64_t run_start;       /* earliest sample start, ms */
	int64_t run_end;         /* latest sample end, ms */
	int64_t max_start;       /* latest start seen so far (the lateness horizon) */
	int64_t samples, errors; /* in the whole file */
	int nlabels;             /* entries of labels used */
	struct jm_label *slots[JM_LABEL_SLOTS]; /* hash of labels, owned */
	int64_t other_samples, other_errors;    /* labels past JM_MAX_LABELS */
	char url[JM_URL_LEN];                   /* the first URL seen */
	char host[256];                         /* the first Hostname seen */
};

const char *jm_phase_name(enum jm_phase p)
{
	static const char *const names[] = {"rampup", "warmup", "steady", "drain"};
	return (unsigned)p < 4 ? names[p] : "steady";
}

/* The interval index whose samples can no longer arrive: everything before it is final. */
static int64_t horizon(int64_t max_start, int64_t interval_ms)
{
	int64_t h = max_start - JM_SLACK_MS;
	return h < 0 ? 0 : h / interval_ms;
}

/* A sample's start and end (ms); -1 when its times make no sense. */
static int sample_times(const struct jtl_sample *s, int ts_end, int64_t *start, int64_t *end)
{
	*end = ts_end ? s->ts : s->ts + s->elapsed;
	*start = *end - s->elapsed;
	return *start < 0 ? -1 : 0;
}

/* --- first pass: the timeline ---------------------------------------------------------- */

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int count_label(struct timeline *tl, const struct jtl_sample *s)
{
	uint32_t i = hash(s->label) & (JM_LABEL_SLOTS - 1);
	struct jm_label *l;

	while ((l = tl->slots[i]) && strcmp(l->name, s->label) != 0)
		i = (i + 1) & (JM_LABEL_SLOTS - 1);
	if (!l) {
		if (tl->nlabels >= JM_MAX_LABELS) {
			tl->other_samples++;
			tl->other_errors += !s->success;
			return 0;
		}
		l = calloc(1, sizeof *l);
		if (!l || !(l->name = strdup(s->label))) {
			free(l);
			return -1;
		}
		tl->slots[i] = l;
		tl->nlabels++;
	}
	l->samples++;
	l->errors += !s->success;
	if (!l->url[0] && s->url[0])
		snprintf(l->url, sizeof l->url, "%s", s->url);
	return 0;
}

/* Makes slot idx exist; -1 (err) past JM_MAX_INTERVALS or out of memory. */
static int tl_reach(struct timeline *tl, int64_t idx, char *err, size_t errlen)
{
	int64_t lo, hi, ncap;
	int64_t *le;
	int *lv;

	if (tl->cap && idx >= tl->base && idx < tl->base + tl->cap)
		return 0;
	/* The first slot leaves room before it for samples up to the slack late. */
	lo = tl->cap ? tl->base : idx - JM_SLACK_MS / tl->interval_ms - 1;
	hi = tl->cap ? tl->base + tl->cap : idx + 1;
	if (idx < lo)
		lo = idx;
	if (idx >= hi)
		hi = idx + 1;
	if (hi - lo > JM_MAX_INTERVALS) {
		char d[32];
		snprintf(err, errlen,
		         "the samples span more than %d intervals of %s: give a longer --interval",
		         JM_MAX_INTERVALS, dur_format(tl->interval_ms, d, sizeof d));
		return -1;
	}
	ncap = hi - lo;
	if (ncap < 2 * tl->cap)
		ncap = 2 * tl->cap; /* grow geometrically at the end */
	if (ncap < 1024)
		ncap = 1024;
	if (ncap > JM_MAX_INTERVALS)
		ncap = JM_MAX_INTERVALS;
	le = malloc((size_t)ncap * sizeof *le);
	lv = malloc((size_t)ncap * sizeof *lv);
	if (!le || !lv) {
		free(le);
		free(lv);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int64_t i = 0; i < ncap; i++) {
		int64_t old = lo + i - tl->base;
		int have = tl->cap && old >= 0 && old < tl->cap;
		le[i] = have ? tl->last_end[old] : -1;
		lv[i] = have ? tl->level[old] : 0;
	}
	free(tl->last_end);
	free(tl->level);
	tl->last_end = le;
	tl->level = lv;
	tl->base = lo;
	tl->cap = ncap;
	return 0;
}

static void tl_release(struct timeline *tl)
{
	free(tl->last_end);
	free(tl->level);
	for (int i = 0; i < JM_LABEL_SLOTS; i++)
		if (tl->slots[i]) {
			free(tl->slots[i]->name);
			free(tl->slots[i]);
		}
}

/* Formats "FILE:LINE: msg" into err. */
static void at_line(char *err, size_t errlen, const char *path, long line, const char *msg)
{
	char m[512];
	snprintf(m, sizeof m, "%s", msg);
	snprintf(err, errlen, "%s:%ld: %s", path, line, m);
}

/* Reads every sample once: checks them, fills the timeline.  -2 bad input, -1 failure. */
static int scan(struct jtl_reader *j, const struct jmeter_opts *o, struct timeline *tl, char *err,
                size_t errlen)
{
	struct jtl_sample s;
	char e[400];
	long line = 0;
	int rc;

	tl->run_start = INT64_MAX;
	tl->run_end = -1;
	tl->max_start = -1;
	while ((rc = jtl_next(j, &s, e, sizeof e, &line)) == 1) {
		int64_t start, end, idx, slot;
		if (sample_times(&s, o->ts_end, &start, &end) < 0) {
			at_line(err, errlen, o->path, line,
			        "elapsed is longer than the time since 1970");
			return -2;
		}
		idx = end / o->interval_ms;
		if (tl->max_start >= 0 && idx < horizon(tl->max_start, o->interval_ms)) {
			char d[32];
			snprintf(
			    e, sizeof e,
			    "this sample ended %s before one on an earlier line started: the "
			    "file is not in time order (JMeter writes samples as they end; was "
			    "it sorted or concatenated?)",
			    dur_format((tl->max_start - end) / 1000 * 1000, d, sizeof d));
			at_line(err, errlen, o->path, line, e);
			return -2;
		}
		if (tl_reach(tl, idx, e, sizeof e) < 0) {
			at_line(err, errlen, o->path, line, e);
			return -2;
		}
		slot = idx - tl->base;
		if (end >= tl->last_end[slot]) {
			tl->last_end[slot] = end;
			tl->level[slot] = s.all_threads >= 0   ? s.all_threads
			                  : s.grp_threads >= 0 ? s.grp_threads
			                                       : 0;
		}
		if (start < tl->run_start)
			tl->run_start = start;
		if (end > tl->run_end)
			tl->run_end = end;
		if (start > tl->max_start)
			tl->max_start = start;
		tl->samples++;
		tl->errors += !s.success;
		if (!tl->url[0] && s.url[0])
			snprintf(tl->url, sizeof tl->url, "%s", s.url);
		if (!tl->host[0] && s.host[0])
			snprintf(tl->host, sizeof tl->host, "%s", s.host);
		if (count_label(tl, &s) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (rc < 0) {
		at_line(err, errlen, o->path, line, e);
		return -2;
	}
	if (tl->samples == 0) {
		snprintf(err, errlen, "%s: no samples in the file", o->path);
		return -2;
	}
	return 0;
}

/* --- steps ------------------------------------------------------------------------------ */

int jm_find_steps(const int *level, const int64_t *start_ms, int n, int64_t warmup_ms, int *step_of,
                  unsigned char *phase_of, struct jm_step *steps, int max_steps)
{
	int longest = 0, any_threads = 0, nsteps = 0, thr;

	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		any_threads |= level[i] > 0;
	for (int i = 0, len = 0; i < n; i++) {
		len = i > 0 && level[i] == level[i - 1] ? len + 1 : 1;
		if ((level[i] > 0 || !any_threads) && len > longest)
			longest = len;
	}
	thr = longest < 3 ? longest : 3;
	if ((longest + 9) / 10 > thr)
		thr = (longest + 9) / 10;
	/* Plateaus long enough (and with threads, when the file has any) are the steps. */
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && level[j + 1] == level[i])
			j++;
		if (j - i + 1 >= thr && (level[i] > 0 || !any_threads)) {
			if (nsteps >= max_steps)
				return -1;
			steps[nsteps].level = level[i];
			steps[nsteps].first = i; /* moved back over the ramp-up below */
			steps[nsteps].last = j;
			nsteps++;
		}
		i = j + 1;
	}
	for (int s = 0; s < nsteps; s++) {
		struct jm_step *st = &steps[s];
		int plateau = st->first, from, k;
		st->first = s == 0 ? 0 : steps[s - 1].last + 1;
		if (s == nsteps - 1)
			st->last = n - 1;
		for (k = st->first; k <= st->last; k++) {
			step_of[k] = s;
			phase_of[k] = k < plateau ? JM_RAMPUP : JM_DRAIN;
		}
		/* The plateau's first interval saw the thread count change: ramp-up too. */
		from = plateau;
		if (plateau == 0 || level[plateau - 1] != level[plateau])
			phase_of[from++] = JM_RAMPUP;
		st->steady_first = st->steady_last = -1;
		for (k = from; k < n && level[k] == level[plateau] && k <= st->last; k++) {
			if (start_ms[k] < start_ms[from] + warmup_ms) {
				phase_of[k] = JM_WARMUP;
				continue;
			}
			phase_of[k] = JM_STEADY;
			if (st->steady_first < 0)
				st->steady_first = k;
			st->steady_last = k;
		}
	}
	return nsteps;
}

/* --- second pass: intervals ------------------------------------------------------------- */

/* An interval receiving samples. */
struct slot {
	int64_t idx; /* interval index */
	struct istats st;
};

/* The second pass's state. */
struct writer {
	const struct jmeter_opts *o;
	struct recorder *rec;           /* the stage's */
	int64_t idx0;                   /* interval index of the run's first interval */
	int n;                          /* intervals in the run */
	const int *level;               /* per interval (0-based from idx0): threads */
	const int64_t *start;           /* per interval: start, ms */
	const int *step_of;             /* per interval: its step */
	const unsigned char *phase_of;  /* per interval: enum jm_phase */
	const struct jm_step *steps;    /* jm_find_steps's */
	int64_t run_end;                /* end of the last interval (exclusive), ms */
	int64_t planned_ms;             /* every step's nominal length (nominal_ms) */
	struct slot *open[JM_MAX_OPEN]; /* intervals receiving samples, sorted by idx */
	int nopen;                      /* how many */
	struct slot *pool[JM_MAX_OPEN]; /* written slots, for reuse */
	int npool;                      /* how many */
	int64_t next_write;             /* interval index not written yet */
	struct istats empty;            /* an interval without samples */
	struct istats acc;              /* the current step's measured window */
	char err[512];                  /* the recorder's message */
};

static int64_t iv_end(const struct writer *w, int r)
{
	return r + 1 < w->n ? w->start[r + 1] : w->run_end;
}

/* Writes interval r (0-based) with its stats, opening and closing steps around it. */
static int write_interval(struct writer *w, int r, const struct istats *st)
{
	int s = w->step_of[r];
	const struct jm_step *sp = &w->steps[s];
	char *e = w->err;
	size_t el = sizeof w->err;

	if (r == sp->first &&
	    rec_step_begin(w->rec, s, sp->level, 0, w->start[r], w->planned_ms, e, el) < 0)
		return -1;
	if (rec_interval(w->rec, s, w->start[r], iv_end(w, r) - w->start[r],
	                 jm_phase_name((enum jm_phase)w->phase_of[r]), w->level[r], st, NULL, e,
	                 el) < 0)
		return -1;
	if (w->phase_of[r] == JM_STEADY)
		istats_add(&w->acc, st);
	if (r == sp->last) {
		if (sp->steady_first >= 0 &&
		    rec_step_end(w->rec, s, w->start[sp->steady_first], iv_end(w, sp->steady_last),
		                 &w->acc, e, el) < 0)
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
		len[s] = iv_end(w, w->steps[s].last) - w->start[w->steps[s].first];
	qsort(len, (size_t)nsteps, sizeof *len, cmp_i64);
	m = nsteps % 2 ? len[nsteps / 2] : (len[nsteps / 2 - 1] + len[nsteps / 2]) / 2;
	grain = m < 60000 ? 1000 : m < 300000 ? 10000 : 60000;
	m = (m + grain / 2) / grain * grain;
	return m > 0 ? m : grain;
}

/* Writes every interval before index `until` (those without samples too). */
static int flush(struct writer *w, int64_t until)
{
	if (until > w->idx0 + w->n)
		until = w->idx0 + w->n;
	for (; w->next_write < until; w->next_write++) {
		int r = (int)(w->next_write - w->idx0);
		if (w->nopen > 0 && w->open[0]->idx == w->next_write) {
			struct slot *sl = w->open[0];
			if (write_interval(w, r, &sl->st) < 0)
				return -1;
			istats_reset(&sl->st);
			memmove(&w->open[0], &w->open[1],
			        (size_t)(w->nopen - 1) * sizeof w->open[0]);
			w->nopen--;
			w->pool[w->npool++] = sl;
		} else if (write_interval(w, r, &w->empty) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The open interval idx, made when new. */
static struct slot *slot_of(struct writer *w, int64_t idx)
{
	int lo = 0, hi = w->nopen;
	struct slot *sl;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (w->open[mid]->idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nopen && w->open[lo]->idx == idx)
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
	sl->idx = idx;
	memmove(&w->open[lo + 1], &w->open[lo], (size_t)(w->nopen - lo) * sizeof w->open[0]);
	w->open[lo] = sl;
	w->nopen++;
	return sl;
}

static void add_sample(struct istats *st, const struct jtl_sample *s)
{
	int answered = 1;

	st->requests++;
	if (s->bytes > 0)
		st->bytes += s->bytes;
	if (!s->success) {
		char msg[ERR_SAMPLE_LEN];
		enum err_class c = jtl_classify(s, &answered);
		snprintf(msg, sizeof msg, "%s%s%s", s->code, *s->code && *s->message ? ": " : "",
		         s->message);
		istats_error(st, c, msg);
	}
	if (!answered)
		return; /* as the engine does: a transport failure has no response time */
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

static int write_pass(struct jtl_reader *j, struct writer *w, char *err, size_t errlen)
{
	struct jtl_sample s;
	int64_t max_start = -1;
	long line = 0;
	int rc;

	if (jtl_rewind(j, err, errlen) < 0)
		return -1;
	while ((rc = jtl_next(j, &s, err, errlen, &line)) == 1) {
		int64_t start, end, idx;
		struct slot *sl;
		sample_times(&s, w->o->ts_end, &start, &end);
		idx = end / w->o->interval_ms;
		if (idx < w->next_write) {
			/* The first pass refused such a file; the file changed since. */
			snprintf(err, errlen, "%s:%ld: the file changed while it was imported",
			         w->o->path, line);
			return -1;
		}
		if (!(sl = slot_of(w, idx))) {
			snprintf(err, errlen, "%s:%ld: %s", w->o->path, line, w->err);
			return -1;
		}
		add_sample(&sl->st, &s);
		if (start > max_start) {
			max_start = start;
			if (flush(w, horizon(max_start, w->o->interval_ms)) < 0)
				goto db;
		}
	}
	if (rc < 0) {
		char e[512];
		snprintf(e, sizeof e, "%s", err);
		at_line(err, errlen, w->o->path, line, e);
		return -1;
	}
	if (flush(w, w->idx0 + w->n) < 0)
		goto db;
	return 0;
db:
	snprintf(err, errlen, "%s", w->err);
	return -1;
}

/* --- the run ----------------------------------------------------------------------------- */

/* Appends printf output to a growing string; -1 out of memory. */
static int appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if (*buf && *len + (size_t)n < *cap) {
			*len += (size_t)n;
			return 0;
		}
		size_t nc = *cap ? *cap * 2 : 4096;
		while (nc < *len + (size_t)n + 1)
			nc *= 2;
		char *b = realloc(*buf, nc);
		if (!b)
			return -1;
		*buf = b;
		*cap = nc;
	}
}

static int cmp_label(const void *a, const void *b)
{
	const struct jm_label *x = *(struct jm_label *const *)a, *y = *(struct jm_label *const *)b;
	return x->samples != y->samples ? (x->samples < y->samples ? 1 : -1)
	                                : strcmp(x->name, y->name);
}

/* The run's description, stored as its scenario text: the file's shape in scenario terms,
 * its samplers as [request.NAME] sections weighted by their samples. */
static char *describe(const struct jmeter_opts *o, const struct timeline *tl,
                      const struct jm_step *steps, int nsteps, int xml, const char *name)
{
	struct jm_label *ls[JM_MAX_LABELS];
	char *b = NULL, d[32];
	size_t len = 0, cap = 0;
	int n = 0, bad = 0;

	for (int i = 0; i < JM_LABEL_SLOTS; i++)
		if (tl->slots[i])
			ls[n++] = tl->slots[i];
	qsort(ls, (size_t)n, sizeof *ls, cmp_label);
	bad |= appendf(&b, &len, &cap,
	               "; imported by `soak import jmeter` from %s (%s)\n"
	               "; %lld samples, %lld failed; %d step%s at",
	               o->path, xml ? "XML" : "CSV", (long long)tl->samples, (long long)tl->errors,
	               nsteps, nsteps == 1 ? "" : "s");
	for (int s = 0; s < nsteps; s++)
		bad |= appendf(&b, &len, &cap, "%s %d", s ? "," : "", steps[s].level);
	bad |= appendf(&b, &len, &cap,
	               " threads\n[scenario]\nname        = %s\nlabel       = %s\n"
	               "concurrency = %d\ninterval    = %s\nconnection  = %s\n",
	               name, o->label, nsteps ? steps[0].level : 0,
	               dur_format(o->interval_ms, d, sizeof d), o->connection);
	if (o->warmup_ms > 0)
		bad |= appendf(&b, &len, &cap, "warmup      = %s\n",
		               dur_format(o->warmup_ms, d, sizeof d));
	for (int i = 0; i < n; i++) {
		/* Section names keep INI-safe characters; the label itself is in the comment. */
		char sec[80];
		size_t k = 0;
		for (const char *p = ls[i]->name; *p && k + 1 < sizeof sec; p++)
			sec[k++] =
			    (char)(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			            (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.')
			               ? *p
			               : '_');
		sec[k] = '\0';
		bad |= appendf(&b, &len, &cap,
		               "\n[request.%s]\n; label \"%.200s\": %lld samples, "
		               "%lld failed\nweight = %lld\n",
		               k ? sec : "_", ls[i]->name, (long long)ls[i]->samples,
		               (long long)ls[i]->errors, (long long)ls[i]->samples);
		if (ls[i]->url[0])
			bad |= appendf(&b, &len, &cap, "url    = %s\n", ls[i]->url);
	}
	if (tl->other_samples)
		bad |= appendf(&b, &len, &cap,
		               "\n; %lld more samples (%lld failed) under labels "
		               "past the first %d\n",
		               (long long)tl->other_samples, (long long)tl->other_errors,
		               JM_MAX_LABELS);
	if (bad) {
		free(b);
		return NULL;
	}
	return b;
}

int jmeter_import(const struct jmeter_opts *o, struct jmeter_result *res, char *err, size_t errlen)
{
	struct ireader in;
	struct jtl_reader *j = NULL;
	struct timeline tl;
	struct stage sg;
	struct writer *w = NULL;
	struct jm_step steps[JM_MAX_STEPS];
	struct rec_import im;
	int *lv = NULL, *step_of = NULL, n = 0, nsteps, rc = -2, staged = 0;
	int64_t *st = NULL, idx0, idxn, samples;
	unsigned char *phase_of = NULL;
	char *desc = NULL, name[300], e[400];
	long line = 0;

	memset(res, 0, sizeof *res);
	memset(&tl, 0, sizeof tl);
	memset(&in, 0, sizeof in);
	memset(&sg, 0, sizeof sg);
	res->run_id = -1;
	tl.interval_ms = o->interval_ms;
	if (ird_open(&in, o->path, JM_MAX_LINE, err, errlen) < 0)
		return -2;
	if (jtl_open(&j, &in, e, sizeof e, &line) < 0) {
		at_line(err, errlen, o->path, line, e);
		goto done;
	}
	if ((rc = scan(j, o, &tl, err, errlen)) < 0)
		goto done;
	rc = -1;

	/* The timeline over the run's whole span, gaps filled with the last thread count. */
	idx0 = tl.run_start / o->interval_ms;
	idxn = tl.run_end / o->interval_ms;
	if (idxn - idx0 + 1 > JM_MAX_INTERVALS) {
		snprintf(err, errlen,
		         "%s: the samples span more than %d intervals: give a longer "
		         "--interval",
		         o->path, JM_MAX_INTERVALS);
		rc = -2;
		goto done;
	}
	n = (int)(idxn - idx0 + 1);
	lv = calloc((size_t)n, sizeof *lv);
	st = calloc((size_t)n, sizeof *st);
	step_of = calloc((size_t)n, sizeof *step_of);
	phase_of = calloc((size_t)n, 1);
	w = calloc(1, sizeof *w);
	if (!lv || !st || !step_of || !phase_of || !w) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	for (int r = 0, prev = 0; r < n; r++) {
		int64_t k = idx0 + r, slot = k - tl.base;
		lv[r] =
		    slot >= 0 && slot < tl.cap && tl.last_end[slot] >= 0 ? tl.level[slot] : prev;
		prev = lv[r];
		st[r] = r == 0 ? tl.run_start : k * o->interval_ms;
	}
	nsteps = jm_find_steps(lv, st, n, o->warmup_ms, step_of, phase_of, steps, JM_MAX_STEPS);
	if (nsteps < 0) {
		snprintf(err, errlen,
		         "%s: the thread counts change in more than %d steps: that is no sweep a "
		         "report can show; import a part of the file, or the file without its "
		         "allThreads and grpThreads columns (one step)",
		         o->path, JM_MAX_STEPS);
		rc = -2;
		goto done;
	}

	if (o->name)
		snprintf(name, sizeof name, "%s", o->name);
	else {
		const char *base = strrchr(o->path, '/');
		snprintf(name, sizeof name, "JMeter %s", base ? base + 1 : o->path);
	}
	desc = describe(o, &tl, steps, nsteps, jtl_format(j) == JTL_XML, name);
	if (!desc) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (stage_open(&sg, err, errlen) < 0)
		goto done;
	staged = 1;
	im = (struct rec_import){
	    .origin = "jmeter",
	    .name = name,
	    .label = o->label,
	    .file = o->path,
	    .description = desc,
	    .sweep = nsteps > 1,
	    .connection = o->connection,
	    .url = tl.url,
	    .host = tl.host,
	    .interval_ms = o->interval_ms,
	    .started_ms = tl.run_start,
	    .ended_ms = tl.run_end + 1,
	};
	if (rec_run_import(&sg.rec, &im, err, errlen) < 0)
		goto done;

	w->o = o;
	w->rec = &sg.rec;
	w->idx0 = idx0;
	w->n = n;
	w->level = lv;
	w->start = st;
	w->step_of = step_of;
	w->phase_of = phase_of;
	w->steps = steps;
	/* The last sample ends within its millisecond: the run covers it. */
	w->run_end = tl.run_end + 1;
	w->next_write = idx0;
	w->planned_ms = nominal_ms(w, nsteps);
	if (istats_init(&w->empty, err, errlen) < 0 || istats_init(&w->acc, err, errlen) < 0)
		goto done;
	if (write_pass(j, w, err, errlen) < 0)
		goto done;
	if (stage_commit(&sg, o->db_path, &res->run_id, &samples, err, errlen) < 0)
		goto done;
	res->samples = tl.samples;
	res->errors = tl.errors;
	res->started_ms = tl.run_start;
	res->ended_ms = tl.run_end + 1;
	res->nsteps = nsteps;
	for (int s = 0; s < nsteps; s++)
		res->levels[s] = steps[s].level;
	res->threads_known = jtl_has_threads(j);
	res->format_xml = jtl_format(j) == JTL_XML;
	res->nlabels = tl.nlabels + (tl.other_samples > 0);
	rc = 0;
done:
	if (w) {
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
	if (staged)
		stage_close(&sg);
	free(desc);
	free(lv);
	free(st);
	free(step_of);
	free(phase_of);
	tl_release(&tl);
	jtl_free(j);
	ird_close(&in);
	return rc;
}
