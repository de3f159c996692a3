/* report_mem_text: a memory verdict (report_mem.c) in words, with the numbers that make
 * it: what the findings and report.json say about a source's process memory. */
#include "report_mem_text.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report/judge/report_mem.h"

/* "4m30s" for a number of seconds. */
static const char *span(double s, char *buf, size_t len)
{
	return dur_format((int64_t)llround(s) * 1000, buf, len);
}

void rpt_mem_why(struct sbuf *out, const struct rpt_mem *m)
{
	char a[32], b[32], sl[32];

	switch (m->verdict) {
	case RPT_MEM_AT_LIMIT:
		rpt_sb_printf(
		    out,
		    "holds at %.1f MB, at its configured limit of %.1f MB (%.0f%% of it): it "
		    "fills what it may use; more load or data cannot grow it, only slow it or "
		    "fail it",
		    m->level_mb, m->limit_mb, 100 * m->level_mb / m->limit_mb);
		break;
	case RPT_MEM_RISING:
		rpt_sb_printf(
		    out,
		    "keeps rising: %+.1f MB/h over the %s measured (R² %.2f), %.0f%% of its "
		    "%.1f MB mean, still rising in the second half: watch it (a leak, or data "
		    "that grows with every request)",
		    m->slope_mb_h, span(m->hours * 3600, a, sizeof a), m->r2, 100 * m->rise_frac,
		    m->mean_mb);
		break;
	case RPT_MEM_LEVELS_OFF:
		rpt_sb_printf(
		    out,
		    "grows %.1f MB over the first %s, then holds at %.1f MB (%s MB/h over the "
		    "last %s): growth that levels off (buffers, caches or pools filling), not a "
		    "leak",
		    m->growth_mb, span(m->growth_s, a, sizeof a), m->level_mb,
		    rpt_fmt_signed(isfinite(m->steady_slope_mb_h) ? m->steady_slope_mb_h : 0, 1, sl,
		                   sizeof sl),
		    span(m->to_s - m->steady_from_s, b, sizeof b));
		break;
	case RPT_MEM_FILLING:
		/* Its words need the kinds: rpt_mem_src_why. */
		rpt_sb_printf(out, "fills a cache towards its bound: %.1f MB at the end",
		              m->level_mb);
		break;
	case RPT_MEM_FLAT:
		rpt_sb_printf(out, "%s at %.1f MB (%s MB/h, R² %.2f over %s)",
		              m->shrinks ? "shrinks, ending" : "flat", m->level_mb,
		              rpt_fmt_signed(m->slope_mb_h, 1, sl, sizeof sl), m->r2,
		              span(m->hours * 3600, a, sizeof a));
		break;
	default:
		if (m->unknown == RPT_MEM_NO_SAMPLES)
			rpt_sb_printf(out, "no samples in the measured window");
		else if (m->unknown == RPT_MEM_SHORT)
			rpt_sb_printf(
			    out,
			    "%.1f MB at the end; %s of samples: too short a window to judge a "
			    "trend (%s needed)",
			    m->level_mb, span(m->hours * 3600, a, sizeof a),
			    span(m->min_hours * 3600, b, sizeof b));
		else
			rpt_sb_printf(out, "the samples give no trend");
	}
}

/* What shared memory cannot pass: what the set maps shared, else shared_buffers. */
static double shared_bound(const struct rpt_memkinds *k)
{
	return isfinite(k->shared_bound_mb) ? k->shared_bound_mb : k->shared_buffers_mb;
}

/* One kind in a few words: "flat at 35.2 MB", "levels off at 40.1 MB", "rising +3.0 MB/h
 * to 52.0 MB", "52.0 MB (too short a window to judge)". */
static void kind_brief(struct sbuf *b, const struct rpt_mem *m)
{
	char sl[32];

	switch (m->verdict) {
	case RPT_MEM_FLAT:
		rpt_sb_printf(b, "%s at %.1f MB", m->shrinks ? "shrinks, ending" : "flat",
		              m->level_mb);
		break;
	case RPT_MEM_LEVELS_OFF:
		rpt_sb_printf(b, "levels off at %.1f MB", m->level_mb);
		break;
	case RPT_MEM_RISING:
		rpt_sb_printf(b, "rising %s MB/h to %.1f MB",
		              rpt_fmt_signed(m->slope_mb_h, 1, sl, sizeof sl), m->level_mb);
		break;
	default:
		if (isfinite(m->level_mb))
			rpt_sb_printf(b, "%.1f MB (too short a window to judge)", m->level_mb);
		else
			rpt_sb_printf(b, "not sampled in the measured window");
	}
}

/* ", about 310 bytes per request answered" of a growth rate, or nothing. */
static void per_request(struct sbuf *b, double slope_mb_h, double req_per_h)
{
	double bytes = slope_mb_h / req_per_h * 1048576;

	if (isfinite(bytes) && bytes > 0)
		rpt_sb_printf(b, ", about %.0f bytes per request answered", bytes);
}

/* The shared memory a cache fills, and the private memory beside it. */
static void filling(struct sbuf *b, const struct rpt_source *s)
{
	const struct rpt_memkinds *k = &s->kinds;
	const struct rpt_mem *sh = &k->k[RPT_MEMK_SHARED];
	double bound = shared_bound(k), slope = sh->steady_slope_mb_h;
	char sl[32], a[32];

	rpt_sb_printf(b, "cache %s (%.0f of %.0f MB): shared memory grew %.1f MB to %.1f MB",
	              sh->verdict == RPT_MEM_LEVELS_OFF ? "filled" : "filling", sh->level_mb, bound,
	              sh->growth_mb, sh->level_mb);
	if (sh->verdict == RPT_MEM_LEVELS_OFF) {
		rpt_sb_printf(b, " and holds there (%s MB/h over the last %s)",
		              rpt_fmt_signed(isfinite(slope) ? slope : 0, 1, sl, sizeof sl),
		              span(sh->to_s - sh->steady_from_s, a, sizeof a));
	} else {
		rpt_sb_printf(b, ", %s MB/h to the end", rpt_fmt_signed(sh->slope_mb_h, 1, sl, 32));
		per_request(b, sh->slope_mb_h, k->req_per_h);
		if (sh->slope_mb_h > 0 && bound > sh->level_mb)
			rpt_sb_printf(
			    b, ", full in about %s at that rate",
			    span((bound - sh->level_mb) / sh->slope_mb_h * 3600, a, sizeof a));
	}
	rpt_sb_printf(b, "; it cannot pass the %.1f MB the processes map shared", bound);
	if (isfinite(k->shared_buffers_mb))
		rpt_sb_printf(b, " (shared_buffers %.0f MB%s)", k->shared_buffers_mb,
		              isfinite(k->shared_bound_mb)
		                  ? " and the server's other shared structures"
		                  : "");
	rpt_sb_printf(b, ": data that grows with every request (a table and its indexes) kept in "
	                 "a cache until it is full, not a leak; private memory ");
	kind_brief(b, &k->k[RPT_MEMK_PRIVATE]);
}

/* A kind that keeps rising: private memory (a leak), or shared memory without a bound. */
static void rising(struct sbuf *b, const struct rpt_source *s)
{
	const struct rpt_memkinds *k = &s->kinds;
	const struct rpt_mem *m = &k->k[k->by];
	char a[32], sl[32];

	rpt_sb_printf(b,
	              "%s memory keeps rising: %s MB/h over the %s measured (R² %.2f) to %.1f MB",
	              rpt_memk_name((enum rpt_memk)k->by), rpt_fmt_signed(m->slope_mb_h, 1, sl, 32),
	              span(m->hours * 3600, a, sizeof a), m->r2, m->level_mb);
	per_request(b, m->slope_mb_h, k->req_per_h);
	if (k->by == RPT_MEMK_SHARED) {
		rpt_sb_printf(b, ", with no known bound: watch it");
		return;
	}
	rpt_sb_printf(b, ", still rising in the second half: a leak (or data kept in memory with "
	                 "every request)");
	if (isfinite(k->heap_max_mb))
		rpt_sb_printf(b,
		              "; a JVM's heap filling towards its -Xmx (%.0f MB) looks the same "
		              "from outside: its GC log tells them apart",
		              k->heap_max_mb);
	if (k->k[RPT_MEMK_SHARED].verdict == RPT_MEM_RISING ||
	    k->k[RPT_MEMK_SHARED].verdict == RPT_MEM_LEVELS_OFF) {
		rpt_sb_printf(b, "; shared memory ");
		kind_brief(b, &k->k[RPT_MEMK_SHARED]);
	}
}

/* A JVM whose memory does not rise: that clears nothing, for a JVM touches its heap
 * through early and what then leaks inside it moves no page. */
static void jvm(struct sbuf *b, const struct rpt_source *s)
{
	rpt_sb_printf(b,
	              "%s at %.1f MB (private %.1f MB), a JVM with a %.0f MB heap (-Xmx): it "
	              "touches its heap through early, so a leak inside it moves no page; its GC "
	              "log tells a leak from a full heap",
	              s->mem.verdict == RPT_MEM_FLAT ? "flat" : "levels off", s->mem.level_mb,
	              s->kinds.k[RPT_MEMK_PRIVATE].level_mb, s->kinds.heap_max_mb);
}

void rpt_mem_src_why(struct sbuf *out, const struct rpt_source *s)
{
	const struct rpt_memkinds *k = &s->kinds;

	if (s->mem.verdict == RPT_MEM_FILLING) {
		filling(out, s);
	} else if (k->by == RPT_MEMK_PRIVATE || k->by == RPT_MEMK_SHARED) {
		rising(out, s);
	} else if (k->has && isfinite(k->heap_max_mb) &&
	           (s->mem.verdict == RPT_MEM_FLAT || s->mem.verdict == RPT_MEM_LEVELS_OFF)) {
		jvm(out, s);
	} else {
		rpt_mem_why(out, &s->mem);
		if (k->by == RPT_MEMK_FILE)
			rpt_sb_printf(
			    out, "; the rise is in file-backed pages (mapped files), which the "
			         "kernel can drop: not the processes' own memory");
		else if (k->has && s->mem.verdict != RPT_MEM_UNKNOWN)
			for (int j = 0, n = 0; j < RPT_MEMK_N; j++) {
				if (!(k->k[j].level_mb > 0))
					continue; /* none of that kind: a JVM's shared memory */
				rpt_sb_printf(out, "%s%s ", n++ ? ", " : "; by kind: ",
				              rpt_memk_name((enum rpt_memk)j));
				kind_brief(out, &k->k[j]);
			}
	}
}

char *rpt_mem_cell(const struct rpt_source *s, char *buf, size_t len)
{
	const struct rpt_mem *sh = &s->kinds.k[RPT_MEMK_SHARED];

	if (s->mem.verdict == RPT_MEM_FILLING)
		snprintf(buf, len, "%s (%.0f of %.0f MB)",
		         sh->verdict == RPT_MEM_LEVELS_OFF ? "filled" : "filling", sh->level_mb,
		         shared_bound(&s->kinds));
	else if (s->mem.verdict == RPT_MEM_RISING && s->kinds.by >= 0)
		snprintf(buf, len, "rising (%s)", rpt_memk_name((enum rpt_memk)s->kinds.by));
	else
		snprintf(buf, len, "%s", rpt_mem_name(s->mem.verdict));
	return buf;
}

/* A GC memory verdict in words: "normal", "suspected leak", ... */
static const char *gc_words(enum gca_memory m, char *buf, size_t len)
{
	snprintf(buf, len, "%s", gca_memory_name(m));
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' ';
	return buf;
}

/* The classes of memory verdict a label's row names, worst first: a source with a GC log
 * by its GC verdict, another process source by its process memory's (report_mem.c); a
 * class may take both when they say the same (rising, too short to judge). */
static const struct {
	int gc;          /* the GC verdict (gca_memory) of the class, -1: none */
	int proc;        /* the process memory verdict (rpt_mem_verdict), -1: none */
	const char *why; /* its word in the row; NULL: the GC verdict's own */
} mem_classes[] = {
    {GCA_EXHAUSTED, -1, NULL},
    {GCA_SUSPECTED_LEAK, -1, NULL},
    {GCA_RISING, RPT_MEM_RISING, "rising"},
    {-1, RPT_MEM_AT_LIMIT, "at limit"},
    {GCA_TOO_SHORT, RPT_MEM_UNKNOWN, "too short to judge"},
    {-1, RPT_MEM_FILLING, "cache filling"},
    {GCA_NORMAL, -1, NULL},
    {-1, RPT_MEM_LEVELS_OFF, "levels off"},
    {-1, RPT_MEM_FLAT, "flat"},
    {GCA_UNKNOWN, -1, NULL},
};

/* Whether a source's memory verdict is of class c. */
static int of_class(const struct rpt_source *s, int c)
{
	if (s->gc_events)
		return (int)s->gc.memory == mem_classes[c].gc;
	return s->has_rss && s->rss_fit && (int)s->mem.verdict == mem_classes[c].proc;
}

/* Whether a source has a verdict the row names. */
static int judged(const struct rpt_source *s)
{
	return s->gc_events || (s->has_rss && s->rss_fit);
}

/* Whether one of the sources names[0..nn) of label l has runs of another class than c: then
 * the row says which runs are which. */
static int other_class(const struct report *r, int l, int c, char (*names)[RPT_NAME_MAX], int nn)
{
	for (int i = 0; i < r->nruns; i++)
		for (int k = 0; k < r->runs[i].nsrc; k++) {
			const struct rpt_source *s = &r->runs[i].src[k];
			if (r->runs[i].label != l || !judged(s) || of_class(s, c))
				continue;
			for (int j = 0; j < nn; j++)
				if (!strcmp(names[j], s->name))
					return 1;
		}
	return 0;
}

void rpt_memory_verdicts(struct sbuf *out, const struct report *r, int l, int with_runs)
{
	int first = 1;

	for (size_t c = 0; c < sizeof mem_classes / sizeof mem_classes[0]; c++) {
		char names[RPT_MAX_SOURCES][RPT_NAME_MAX], m[64];
		struct sbuf runs[RPT_MAX_SOURCES] = {{{0}}};
		int nn = 0, split;
		for (int i = 0; i < r->nruns; i++)
			for (int k = 0; k < r->runs[i].nsrc; k++) {
				const struct rpt_source *s = &r->runs[i].src[k];
				int j = 0;
				if (r->runs[i].label != l || !judged(s) || !of_class(s, (int)c))
					continue;
				while (j < nn && strcmp(names[j], s->name) != 0)
					j++;
				if (j == nn) {
					if (nn == RPT_MAX_SOURCES)
						continue;
					snprintf(names[nn++], RPT_NAME_MAX, "%s", s->name);
				}
				rpt_sb_printf(&runs[j], "%s%s", rpt_sb_len(&runs[j]) ? "," : "",
				              r->runs[i].key);
			}
		if (nn == 0)
			continue;
		split = other_class(r, l, (int)c, names, nn);
		if (mem_classes[c].why)
			snprintf(m, sizeof m, "%s", mem_classes[c].why);
		else
			gc_words((enum gca_memory)mem_classes[c].gc, m, sizeof m);
		rpt_sb_printf(out, "%s%s (", first ? "" : ", ", m);
		for (int j = 0; j < nn; j++) {
			rpt_sb_printf(out, "%s%s", j ? "; " : "", names[j]);
			if (split && with_runs) {
				rpt_sb_printf(out, ", ");
				rpt_sb_runs(out, rpt_sb_str(&runs[j]));
			}
			rpt_sb_release(&runs[j]);
		}
		rpt_sb_printf(out, ")");
		first = 0;
	}
}
