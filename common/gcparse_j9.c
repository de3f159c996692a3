/* gcparse: IBM J9 / Eclipse OpenJ9 verbose GC XML (-verbose:gc, -Xverbosegclog).
 * The XML is read an element a line, an element split over lines joined up to
 * GCP_J9_TAG_MAX; local timestamps follow TZ, as the JVM wrote them. */
#include "gcparse_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define EQ(s, n, lit)     ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)
#define STARTS(s, n, lit) ((n) >= sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

enum { SNAP_NONE, SNAP_BEFORE, SNAP_AFTER, SNAP_ALLOC };
/* What opened the block (gcp_j9.open): newer exclusive access, older af / sys / con. */
enum { OPEN_NONE, OPEN_EXCL, OPEN_AF, OPEN_SYS, OPEN_CON };
enum { RANK_NONE, RANK_OTHER, RANK_YOUNG, RANK_FULL };

/* Elements that open J9 XML: the first recognisable line of a log or of a rotated part. */
int gcp_j9_starts(const char *s, size_t n)
{
	static const char *const heads[] = {
	    "<?xml", "<verbosegc", "<initialized", "<exclusive-start",
	    "<af ",  "<sys ",      "<cycle-start", "<concurrent-kickoff"};
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
		if (n >= strlen(heads[i]) && memcmp(s, heads[i], strlen(heads[i])) == 0)
			return 1;
	return 0;
}

static void clear_mem(struct gcp_j9mem *m)
{
	m->heap[0] = m->heap[1] = m->young[0] = m->young[1] = m->old[0] = m->old[1] = -1;
}

/* Forgets the open block (not the JVM start: a block may be cut by a rotation). */
static void close_block(struct gcp_j9 *j)
{
	j->open = j->in_gc = j->gc_seen = j->cycles = j->have_before = j->rank = j->failed = 0;
	j->snap = SNAP_NONE;
	j->inner_pause_us = GCP_NONE;
	gcp_event_clear(&j->ev);
	for (int i = 0; i < 3; i++)
		clear_mem(&j->mem[i]);
}

void gcp_j9_reset(struct gcparse *p)
{
	close_block(&p->j9);
	p->j9.tag_open = 0;
	p->j9.tagn = 0;
	p->j9.last_ms = GCP_NONE;
}

void gcp_j9_flush(struct gcparse *p)
{
	if (p->j9.open) {
		p->st.incomplete++;
		gcp_unparsed(p, "(J9 block)", 10, "J9 block without its end at end of input");
	}
	close_block(&p->j9);
}

/* The value of attribute `name` in element text s[0..n): 1 and (v, vn), or 0. */
static int attr(const char *s, size_t n, const char *name, const char **v, size_t *vn)
{
	size_t k = strlen(name);
	for (size_t i = 1; i + k + 2 < n; i++) {
		if ((s[i - 1] != ' ' && s[i - 1] != '\t') || memcmp(s + i, name, k) != 0 ||
		    s[i + k] != '=' || s[i + k + 1] != '"')
			continue;
		const char *b = s + i + k + 2;
		const char *e = memchr(b, '"', n - (size_t)(b - s));
		if (!e)
			return 0;
		*v = b;
		*vn = (size_t)(e - b);
		return 1;
	}
	return 0;
}

/* An attribute as a fixed-point number with `scale` decimals, or GCP_NONE. */
static int64_t attr_fixed(const char *s, size_t n, const char *name, int scale)
{
	const char *v;
	size_t vn;
	int64_t x;
	if (!attr(s, n, name, &v, &vn) || gcp_fixed(v, vn, scale, &x) < 0)
		return GCP_NONE;
	return x;
}

static int attr_is(const char *s, size_t n, const char *name, const char *want)
{
	const char *v;
	size_t vn;
	return attr(s, n, name, &v, &vn) && vn == strlen(want) && memcmp(v, want, vn) == 0;
}

/* Epoch ms of a local date and time (J9 writes no zone): mktime applies TZ. */
static int64_t local_ms(int y, int mo, int d, int h, int mi, int se, int ms)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
	tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = se, tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return GCP_NONE;
	return (int64_t)t * 1000 + ms;
}

static int group_int(struct gcparse *p, const char *s, int g)
{
	int64_t v = gcp_group_fixed(p, s, g, 0);
	return v == GCP_NONE || v > 100000 ? -1 : (int)v;
}

/* The `timestamp` attribute: 2014-09-24T15:57:32.116 (with a zone when one is given) or
 * Mar 25 22:40:24 2010 (older releases).  GCP_NONE when absent or malformed. */
static int64_t timestamp(struct gcparse *p, const char *s, size_t n)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *v;
	size_t vn;
	int64_t ms;

	if (!attr(s, n, "timestamp", &v, &vn) || vn > 64)
		return GCP_NONE;
	if (gcp_match(p, PJ_ISO, v, vn, 0) > 0) {
		size_t fn;
		const char *f = gcp_group(p, v, 7, &fn);
		int frac = 0;
		for (size_t i = 0; i < 3; i++)
			frac = frac * 10 + (f && i < fn ? f[i] - '0' : 0);
		ms = local_ms(group_int(p, v, 1), group_int(p, v, 2), group_int(p, v, 3),
		              group_int(p, v, 4), group_int(p, v, 5), group_int(p, v, 6), frac);
	} else if (gcp_iso_ms(v, vn, &ms) == 0) {
		/* a zone was given */
	} else if (gcp_match(p, PJ_CTIME, v, vn, 0) > 0) {
		size_t mn;
		const char *m = gcp_group(p, v, 1, &mn);
		const char *at = NULL;
		for (size_t i = 0; i + 3 <= sizeof months - 1 && !at; i += 3)
			if (memcmp(months + i, m, 3) == 0)
				at = months + i;
		if (!at)
			return GCP_NONE;
		ms = local_ms(group_int(p, v, 6), (int)(at - months) / 3 + 1, group_int(p, v, 2),
		              group_int(p, v, 3), group_int(p, v, 4), group_int(p, v, 5), 0);
	} else {
		return GCP_NONE;
	}
	if (ms != GCP_NONE) {
		p->j9.last_ms = ms;
		p->st.last_t_ms = ms;
	}
	return ms;
}

/* Free and total bytes of a memory element into f[0..1]: newer `free=` / `total=`, older
 * `freebytes=` / `totalbytes=`.  0 when the element carries neither. */
static int free_total(const char *s, size_t n, int64_t f[2])
{
	int64_t fr = attr_fixed(s, n, "free", 0), to = attr_fixed(s, n, "total", 0);
	if (fr == GCP_NONE || to == GCP_NONE) {
		fr = attr_fixed(s, n, "freebytes", 0);
		to = attr_fixed(s, n, "totalbytes", 0);
	}
	if (fr == GCP_NONE || to == GCP_NONE || fr > to)
		return 0;
	f[0] = fr, f[1] = to;
	return 1;
}

/* Used KB of a (free, total) pair, rounded; GCP_NONE when unknown. */
static int64_t used_kb(const int64_t f[2])
{
	return f[1] < 0 ? GCP_NONE : (f[1] - f[0] + 512) / 1024;
}

static int64_t total_kb(const int64_t f[2])
{
	return f[1] < 0 ? GCP_NONE : (f[1] + 512) / 1024;
}

/* The heap of a snapshot: <mem-info> when given (newer), else nursery + tenure (older). */
static void heap_of(const struct gcp_j9mem *m, int64_t f[2])
{
	if (m->heap[1] >= 0) {
		f[0] = m->heap[0], f[1] = m->heap[1];
	} else if (m->old[1] >= 0 || m->young[1] >= 0) {
		f[0] = (m->old[1] >= 0 ? m->old[0] : 0) + (m->young[1] >= 0 ? m->young[0] : 0);
		f[1] = (m->old[1] >= 0 ? m->old[1] : 0) + (m->young[1] >= 0 ? m->young[1] : 0);
	} else {
		f[0] = f[1] = -1;
	}
}

static int snap_empty(const struct gcp_j9mem *m)
{
	return m->heap[1] < 0 && m->young[1] < 0 && m->old[1] < 0;
}

/* The strongest collection of the block names its kind: a scavenge that percolated into a
 * global collection is full. */
static void set_kind(struct gcp_j9 *j, const char *type, size_t tn)
{
	int r;
	enum gcp_kind k;

	if (EQ(type, tn, "global") || STARTS(type, tn, "global ") || EQ(type, tn, "tenured"))
		r = RANK_FULL, k = GCP_FULL;
	else if (EQ(type, tn, "scavenge") || EQ(type, tn, "scavenger") || EQ(type, tn, "nursery") ||
	         STARTS(type, tn, "partial"))
		r = RANK_YOUNG, k = GCP_YOUNG;
	else
		r = RANK_OTHER, k = GCP_OTHER;
	if (r > j->rank) {
		j->rank = r;
		j->ev.kind = k;
		gcp_copy(j->ev.name, sizeof j->ev.name, type, tn);
	}
}

static void policy(struct gcparse *p, const char *v, size_t vn)
{
	static const struct {
		const char *name;
		enum gcp_collector c;
	} pol[] = {{"gencon", GCP_COL_J9_GENCON},
	           {"optthruput", GCP_COL_J9_OPTTHRUPUT},
	           {"optavgpause", GCP_COL_J9_OPTAVGPAUSE},
	           {"balanced", GCP_COL_J9_BALANCED},
	           {"metronome", GCP_COL_J9_METRONOME}};
	for (size_t i = 0; i < sizeof pol / sizeof pol[0]; i++)
		if (memmem(v, vn, pol[i].name, strlen(pol[i].name)))
			gcp_set_collector(p, pol[i].c);
}

static void open_block(struct gcparse *p, int kind, const char *s, size_t n)
{
	struct gcp_j9 *j = &p->j9;
	if (j->open) {
		/* The previous block never ended (a cut log): drop it. */
		p->st.incomplete++;
		gcp_unparsed(p, s, n, "J9 block opened inside another");
	}
	close_block(j);
	j->open = kind;
	j->ev.t_ms = timestamp(p, s, n);
	if (j->ev.t_ms != GCP_NONE && j->init_ms != GCP_NONE && j->ev.t_ms >= j->init_ms)
		j->ev.uptime_ms = j->ev.t_ms - j->init_ms;
}

/* Fills the event's sizes from the snapshots and emits it. */
static void finish_block(struct gcparse *p)
{
	struct gcp_j9 *j = &p->j9;
	struct gcp_event *ev = &j->ev;
	const struct gcp_j9mem *b = &j->mem[SNAP_BEFORE - 1];
	const struct gcp_j9mem *a =
	    snap_empty(&j->mem[SNAP_AFTER - 1]) ? &j->mem[SNAP_ALLOC - 1] : &j->mem[SNAP_AFTER - 1];
	int64_t hb[2], ha[2];

	heap_of(b, hb);
	heap_of(a, ha);
	ev->heap_before_kb = used_kb(hb);
	ev->heap_after_kb = used_kb(ha);
	ev->heap_total_kb = ha[1] >= 0 ? total_kb(ha) : total_kb(hb);
	ev->young_before_kb = used_kb(b->young);
	ev->young_after_kb = used_kb(a->young);
	ev->young_total_kb = a->young[1] >= 0 ? total_kb(a->young) : total_kb(b->young);
	ev->old_before_kb = used_kb(b->old);
	ev->old_after_kb = used_kb(a->old);
	ev->old_total_kb = a->old[1] >= 0 ? total_kb(a->old) : total_kb(b->old);
	if (j->failed)
		gcp_mark_failed(ev, "percolated to a global collection");
	gcp_emit(p, ev);
	close_block(j);
}

/* A memory element inside a block: into the current snapshot. */
static void memory(struct gcp_j9 *j, const char *name, size_t nn, const char *s, size_t n)
{
	struct gcp_j9mem *m;
	int64_t f[2];

	if (j->snap == SNAP_NONE || !free_total(s, n, f))
		return;
	m = &j->mem[j->snap - 1];
	if (EQ(name, nn, "mem-info")) {
		m->heap[0] = f[0], m->heap[1] = f[1];
	} else if (EQ(name, nn, "nursery") ||
	           (EQ(name, nn, "mem") &&
	            (attr_is(s, n, "type", "nursery") || attr_is(s, n, "type", "eden")))) {
		m->young[0] = f[0], m->young[1] = f[1];
	} else if (EQ(name, nn, "tenured") ||
	           (EQ(name, nn, "mem") && attr_is(s, n, "type", "tenure"))) {
		m->old[0] = f[0], m->old[1] = f[1];
	}
}

/* Newer releases: elements inside <exclusive-start> .. <exclusive-end>. */
static void exclusive_element(struct gcparse *p, const char *name, size_t nn, int close,
                              const char *s, size_t n)
{
	struct gcp_j9 *j = &p->j9;
	const char *v;
	size_t vn;

	if (close) {
		if (EQ(name, nn, "mem-info"))
			j->snap = SNAP_NONE;
		return;
	}
	if (EQ(name, nn, "exclusive-end")) {
		int64_t d = attr_fixed(s, n, "durationms", 3);
		if (d == GCP_NONE) {
			p->st.incomplete++;
			gcp_unparsed(p, s, n, "J9 exclusive-end without durationms");
			close_block(j);
			return;
		}
		j->ev.pause_us = d;
		if (!j->cycles) {
			close_block(j); /* exclusive access for something else than a GC */
			return;
		}
		if (j->rank == RANK_NONE)
			j->ev.kind = GCP_OTHER;
		finish_block(p);
	} else if (EQ(name, nn, "af-start")) {
		snprintf(j->ev.cause, sizeof j->ev.cause, "allocation failure");
	} else if (EQ(name, nn, "sys-start")) {
		if (!attr(s, n, "reason", &v, &vn) || (vn == 8 && !memcmp(v, "explicit", 8)))
			snprintf(j->ev.cause, sizeof j->ev.cause, "System.gc()");
		else
			snprintf(j->ev.cause, sizeof j->ev.cause, "system %.*s", (int)vn, v);
	} else if (EQ(name, nn, "concurrent-collection-start")) {
		snprintf(j->ev.cause, sizeof j->ev.cause, "concurrent collection");
	} else if (EQ(name, nn, "percolate-collect")) {
		j->failed = 1;
	} else if (EQ(name, nn, "cycle-start")) {
		j->cycles++;
		if (j->ev.gc_id == GCP_NONE)
			j->ev.gc_id = attr_fixed(s, n, "id", 0);
		if (j->rank == RANK_NONE && attr(s, n, "type", &v, &vn)) {
			/* Only a collection names the kind; a cycle alone is its start. */
			snprintf(j->ev.name, sizeof j->ev.name, "cycle-start %.*s", (int)vn, v);
		}
	} else if (EQ(name, nn, "gc-start")) {
		j->cycles++;
		int64_t ctx = attr_fixed(s, n, "contextid", 0);
		if (j->ev.gc_id == GCP_NONE && ctx != GCP_NONE && ctx > 0)
			j->ev.gc_id = ctx;
		if (attr(s, n, "type", &v, &vn)) {
			set_kind(j, v, vn);
			if (EQ(v, vn, "scavenge"))
				gcp_set_collector(p, GCP_COL_J9_GENCON);
			else if (STARTS(v, vn, "partial"))
				gcp_set_collector(p, GCP_COL_J9_BALANCED);
		}
		j->snap = j->have_before ? SNAP_NONE : SNAP_BEFORE;
		j->have_before = 1;
	} else if (EQ(name, nn, "gc-end")) {
		clear_mem(&j->mem[SNAP_AFTER - 1]);
		j->snap = SNAP_AFTER;
	} else if (EQ(name, nn, "mem-info") || EQ(name, nn, "mem")) {
		memory(j, name, nn, s, n);
	}
}

/* Older releases: elements inside <af> / <sys> / <con event="collection">. */
static void old_element(struct gcparse *p, const char *name, size_t nn, int close, const char *s,
                        size_t n)
{
	struct gcp_j9 *j = &p->j9;
	const char *v;
	size_t vn;

	if (close) {
		if (EQ(name, nn, "gc")) {
			j->in_gc = 0;
			j->snap = SNAP_ALLOC;
		} else if ((j->open == OPEN_AF && EQ(name, nn, "af")) ||
		           (j->open == OPEN_SYS && EQ(name, nn, "sys")) ||
		           (j->open == OPEN_CON && EQ(name, nn, "con"))) {
			/* (a <con> nested in an <af> is a concurrent event, not the block) */
			if (!j->gc_seen) {
				close_block(j); /* no collection in it */
				return;
			}
			if (j->ev.pause_us == 0 && j->inner_pause_us != GCP_NONE)
				j->ev.pause_us = j->inner_pause_us;
			finish_block(p);
		}
		return;
	}
	if (EQ(name, nn, "gc")) {
		j->in_gc = j->gc_seen = 1;
		j->snap = SNAP_AFTER;
		if (attr(s, n, "type", &v, &vn)) {
			set_kind(j, v, vn);
			if (EQ(v, vn, "scavenger"))
				gcp_set_collector(p, GCP_COL_J9_GENCON);
		}
		int64_t id = attr_fixed(s, n, "totalid", 0);
		j->ev.gc_id = id != GCP_NONE ? id : attr_fixed(s, n, "id", 0);
	} else if (EQ(name, nn, "time") || EQ(name, nn, "timesms")) {
		int64_t t = attr_fixed(s, n, EQ(name, nn, "time") ? "totalms" : "total", 3);
		if (t == GCP_NONE)
			return;
		if (j->in_gc) {
			if (j->inner_pause_us == GCP_NONE)
				j->inner_pause_us = t;
		} else {
			j->ev.pause_us = t;
		}
	} else if (EQ(name, nn, "nursery") || EQ(name, nn, "tenured")) {
		memory(j, name, nn, s, n);
	}
}

/* One whole element (its first line, or several joined). */
static void element(struct gcparse *p, const char *s, size_t n)
{
	struct gcp_j9 *j = &p->j9;
	const char *name, *v;
	size_t nn, cl, vn;
	int close;

	if (gcp_match(p, PJ_TAG, s, n, 0) <= 0) {
		gcp_unparsed(p, s, n, "not J9 XML");
		return;
	}
	close = gcp_group(p, s, 1, &cl) && cl > 0;
	name = gcp_group(p, s, 2, &nn);
	if (!close && EQ(name, nn, "exclusive-start")) {
		open_block(p, OPEN_EXCL, s, n); /* even inside another: that one was cut */
		return;
	}
	if (j->open == OPEN_EXCL) {
		exclusive_element(p, name, nn, close, s, n);
		return;
	}
	if (j->open != OPEN_NONE) {
		old_element(p, name, nn, close, s, n);
		return;
	}
	if (close)
		return;
	if (EQ(name, nn, "af") || EQ(name, nn, "sys") ||
	    (EQ(name, nn, "con") && attr_is(s, n, "event", "collection"))) {
		/* The kind comes from the block's <gc type>, not from the af's type. */
		open_block(p,
		           name[0] == 'a'   ? OPEN_AF
		           : name[0] == 's' ? OPEN_SYS
		                            : OPEN_CON,
		           s, n);
		snprintf(j->ev.cause, sizeof j->ev.cause, "%s",
		         name[0] == 'a'   ? "allocation failure"
		         : name[0] == 's' ? "System.gc()"
		                          : "concurrent collection");
		j->snap = SNAP_BEFORE;
	} else if (EQ(name, nn, "initialized")) {
		j->init_ms = timestamp(p, s, n);
	} else if (EQ(name, nn, "verbosegc")) {
		j->init_ms = GCP_NONE; /* a new JVM writes from here */
	} else if (EQ(name, nn, "attribute") && attr_is(s, n, "name", "gcPolicy") &&
	           attr(s, n, "value", &v, &vn)) {
		policy(p, v, vn);
	}
	/* Everything else (concurrent-kickoff, gc-op, vmargs, ...) carries no pause. */
}

void gcp_j9_line(struct gcparse *p, const char *s, size_t n)
{
	struct gcp_j9 *j = &p->j9;
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (j->tag_open) {
		/* An element split over lines: gather it up to its '>'. */
		if (j->tagn + 1 + (n - i) > sizeof j->tag) {
			j->tag_open = 0;
			gcp_unparsed(p, j->tag, j->tagn, "J9 XML element too long");
			return;
		}
		j->tag[j->tagn++] = ' ';
		memcpy(j->tag + j->tagn, s + i, n - i);
		j->tagn += n - i;
		if (!memchr(s + i, '>', n - i))
			return;
		j->tag_open = 0;
		element(p, j->tag, j->tagn);
		return;
	}
	if (i == n || s[i] != '<') {
		gcp_unparsed(p, s, n, "not J9 XML");
		return;
	}
	if (n - i >= 2 && (s[i + 1] == '?' || s[i + 1] == '!'))
		return; /* the XML declaration, a comment */
	if (!memchr(s + i, '>', n - i)) {
		if (n - i > sizeof j->tag) {
			gcp_unparsed(p, s, n, "J9 XML element too long");
			return;
		}
		memcpy(j->tag, s + i, n - i);
		j->tagn = n - i;
		j->tag_open = 1;
		return;
	}
	element(p, s + i, n - i);
}
