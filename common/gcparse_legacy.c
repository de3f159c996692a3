/* gcparse: the pre-unified HotSpot formats (JDK 1.4 - 8, Shenandoah 8u).
 *
 * A record starts at `[GC`, `[Full GC`, `[Pause ...` or `[Concurrent ...` and ends where its
 * first bracket closes; until then every continuation line is appended to it.  Before a line
 * is looked at, the records that other threads printed into its middle (CMS and G1
 * concurrent phases, a young GC nested in a CMS remark) are cut out and emitted on their
 * own, so bracket counting works on what is left.  A finished G1 record waits for its
 * `[Eden: ... Heap: ...]` size line and its `[Times:` line before it is emitted. */
#include "gcparse_int.h"

#include <stdio.h>
#include <string.h>

#define STARTS(s, n, lit) ((n) >= sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

/* [date: ][uptime: ][#id: ] at the start of s; returns the length of that prefix. */
static size_t stamps(const char *s, size_t n, struct gcp_stamp *st)
{
	size_t i = 0, j;

	st->t_ms = st->uptime_ms = st->gc_id = GCP_NONE;
	if (n >= 30 && s[4] == '-' && s[10] == 'T') {
		const char *c = memchr(s + 19, ':', n - 19 < 16 ? n - 19 : 16);
		/* the zone may hold a colon (+01:00): the stamp ends at ": " */
		while (c && (size_t)(c - s) + 1 < n && c[1] != ' ')
			c = memchr(c + 1, ':', (size_t)(s + n - c - 1));
		if (c && gcp_iso_ms(s, (size_t)(c - s), &st->t_ms) == 0)
			i = (size_t)(c - s) + 2;
	}
	for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j > i && j < n && (s[j] == '.' || s[j] == ',')) {
		for (j++; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if (j < n && s[j] == ':' && (j + 1 == n || s[j + 1] == ' ') &&
		    gcp_fixed(s + i, j - i, 3, &st->uptime_ms) == 0)
			i = j + 1 < n ? j + 2 : j + 1;
	}
	if (i + 3 < n && s[i] == '#') {
		int64_t id = 0;
		for (j = i + 1; j < n && j < i + 19 && s[j] >= '0' && s[j] <= '9'; j++)
			id = id * 10 + (s[j] - '0');
		if (j > i + 1 && j + 1 < n && s[j] == ':' && s[j + 1] == ' ') {
			st->gc_id = id;
			i = j + 2;
		}
	}
	return i;
}

static void stamp_event(struct gcp_event *ev, const struct gcp_stamp *st, int64_t back_us)
{
	int64_t d = back_us == GCP_NONE ? 0 : (back_us + 500) / 1000;
	ev->t_ms = st->t_ms == GCP_NONE ? GCP_NONE : st->t_ms - d;
	ev->uptime_ms = st->uptime_ms == GCP_NONE ? GCP_NONE : st->uptime_ms - d;
	ev->gc_id = st->gc_id;
}

/* Cuts the concurrent records and nested young GCs out of s into p->scratch, emitting
 * them; returns the length of what is left. */
static size_t cut_embedded(struct gcparse *p, const char *s, size_t n)
{
	size_t pos = 0, out = 0;
	char *w = p->scratch;

	while (pos < n && gcp_match(p, PL_CONC, s, n, pos) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
		size_t b = ov[0], e = ov[1], gn;
		struct gcp_event ev;
		struct gcp_stamp st;
		const char *name;
		int64_t wall;

		gcp_event_clear(&ev);
		st.t_ms = GCP_NONE;
		const char *d = gcp_group(p, s, 1, &gn);
		if (d)
			gcp_iso_ms(d, gn, &st.t_ms);
		st.uptime_ms = gcp_group_fixed(p, s, 2, 3);
		st.gc_id = gcp_group_fixed(p, s, 3, 0);
		if ((name = gcp_group(p, s, 4, &gn)) != NULL) {
			wall = gcp_group_fixed(p, s, 6, 6);
			snprintf(ev.name, sizeof ev.name, "CMS-concurrent-%.*s", (int)gn, name);
			gcp_set_collector(p, GCP_COL_CMS);
		} else {
			name = gcp_group(p, s, 7, &gn);
			wall = gcp_group_fixed(p, s, 8, 6);
			snprintf(ev.name, sizeof ev.name, "GC concurrent-%.*s",
			         (int)(name ? gn : 0), name ? name : "");
			gcp_set_collector(p, GCP_COL_G1);
		}
		if (wall != GCP_NONE) {
			ev.kind = GCP_CONCURRENT;
			ev.conc_us = wall;
			stamp_event(&ev, &st, wall);
			gcp_emit(p, &ev);
		}
		memcpy(w + out, s + pos, b - pos);
		out += b - pos;
		pos = e > b ? e : b + 1;
	}
	if (pos < n) {
		memcpy(w + out, s + pos, n - pos);
		out += n - pos;
	}
	w[out] = 0;

	/* CMSScavengeBeforeRemark: `[GC[YG occupancy: ...]<stamps>[GC<stamps>[ParNew: ...]
	 * a->b(c), t secs] [Times: ...]` - the young GC is an event of its own. */
	const char *yg = memmem(w, out, "[YG occupancy", 13);
	if (yg) {
		const char *close = memchr(yg, ']', (size_t)(w + out - yg));
		size_t from = close ? (size_t)(close - w) + 1 : out;
		if (gcp_match(p, PL_NESTED, w, out, from) > 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
			size_t b = ov[0], e = ov[1], gn;
			struct gcp_event ev;
			struct gcp_stamp st = {GCP_NONE, GCP_NONE, GCP_NONE};
			const char *d = gcp_group(p, w, 1, &gn);

			gcp_event_clear(&ev);
			if (d)
				gcp_iso_ms(d, gn, &st.t_ms);
			st.uptime_ms = gcp_group_fixed(p, w, 2, 3);
			ev.kind = GCP_YOUNG;
			snprintf(ev.name, sizeof ev.name, "ParNew");
			gcp_group_str(p, w, 3, ev.cause, sizeof ev.cause);
			ev.young_before_kb = gcp_group_kb(p, w, 4);
			ev.young_after_kb = gcp_group_kb(p, w, 5);
			ev.young_total_kb = gcp_group_kb(p, w, 6);
			ev.heap_before_kb = gcp_group_kb(p, w, 7);
			ev.heap_after_kb = gcp_group_kb(p, w, 8);
			ev.heap_total_kb = gcp_group_kb(p, w, 9);
			ev.pause_us = gcp_group_fixed(p, w, 10, 6);
			stamp_event(&ev, &st, GCP_NONE);
			if (ev.pause_us != GCP_NONE)
				gcp_emit(p, &ev);
			memmove(w + b, w + e, out - e + 1);
			out -= e - b;
		}
	}
	return out;
}

/* The text of a record at its own bracket level: nested `[...]` groups left out. */
static size_t top_level(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	int d = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++) {
		char c = s[i];
		if (c == '[') {
			if (++d == 1)
				out[k++] = c;
		} else if (c == ']') {
			if (d == 1)
				out[k++] = c;
			if (--d <= 0)
				break;
		} else if (d == 1) {
			out[k++] = c;
		}
	}
	out[k] = 0;
	return k;
}

/* `(cause)` right after `[GC ` / `[Full GC `, allowing one nested pair: (System.gc()). */
static void record_cause(const char *s, size_t n, char *dst, size_t cap)
{
	size_t i = STARTS(s, n, "[Full GC") ? 8 : 3;
	while (i < n && s[i] == ' ')
		i++;
	dst[0] = 0;
	if (i >= n || s[i] != '(')
		return;
	size_t b = ++i;
	int d = 1;
	for (; i < n && d; i++)
		d += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
	if (!d)
		gcp_copy(dst, cap, s + b, i - 1 - b);
}

static void triple(struct gcparse *p, const char *s, int g, int64_t *b, int64_t *a, int64_t *c)
{
	*b = gcp_group_kb(p, s, g);
	*a = gcp_group_kb(p, s, g + 1);
	*c = gcp_group_kb(p, s, g + 2);
}

static void emit_or_pend(struct gcparse *p, struct gcp_event *ev, int wait)
{
	if (wait) {
		p->pend = 1;
		p->pend_ev = *ev;
	} else {
		gcp_emit(p, ev);
	}
}

static void emit_pending(struct gcparse *p)
{
	if (p->pend) {
		p->pend = 0;
		gcp_emit(p, &p->pend_ev);
	}
}

/* The record's kind, name and cause from its first words; the collector where they name
 * it.  1 when the record is G1's (its [Times:] line may follow). */
static int classify(struct gcparse *p, const char *s, size_t n, struct gcp_event *ev)
{
	int g1 = 0;
	size_t gn;

	if (STARTS(s, n, "[GC pause")) {
		g1 = 1;
		gcp_set_collector(p, GCP_COL_G1);
		ev->kind = GCP_YOUNG;
		if (gcp_match(p, PL_G1HEAD, s, n, 0) > 0) {
			const char *t = gcp_group(p, s, 2, &gn);
			gcp_group_str(p, s, 1, ev->cause, sizeof ev->cause);
			ev->kind = t[0] == 'y' ? GCP_YOUNG : GCP_MIXED;
			snprintf(ev->name, sizeof ev->name, "GC pause (%.*s)%s", (int)gn, t,
			         memmem(s, n, "(initial-mark)", 14) ? " (initial-mark)" : "");
		}
	} else if (STARTS(s, n, "[GC remark")) {
		g1 = 1, ev->kind = GCP_REMARK;
		snprintf(ev->name, sizeof ev->name, "GC remark");
	} else if (STARTS(s, n, "[GC cleanup")) {
		g1 = 1, ev->kind = GCP_CLEANUP;
		snprintf(ev->name, sizeof ev->name, "GC cleanup");
	} else if (STARTS(s, n, "[Full GC")) {
		g1 = p->collector == GCP_COL_G1;
		ev->kind = GCP_FULL;
		snprintf(ev->name, sizeof ev->name, "Full GC");
		record_cause(s, n, ev->cause, sizeof ev->cause);
	} else if (STARTS(s, n, "[Pause ") || STARTS(s, n, "[Concurrent ")) {
		/* Shenandoah 8u: `[Pause Final Mark (process weakrefs), 4.423 ms]`, stamped at
		 * the end of the phase. */
		const char *e = memchr(s, ',', n);
		gcp_set_collector(p, GCP_COL_SHENANDOAH);
		size_t nl = e ? (size_t)(e - s) - 1 : n - 1;
		const char *sp = memmem(s, nl + 1, "M->", 3);
		if (sp) /* `[Concurrent cleanup 1613M->1361M(1636M), 0.092 ms]` */
			while (sp > s && sp[-1] != ' ')
				sp--;
		gcp_copy(ev->name, sizeof ev->name, s + 1, sp ? (size_t)(sp - s) - 2 : nl);
		if (s[1] == 'C')
			ev->kind = GCP_CONCURRENT;
		else if (STARTS(ev->name, strlen(ev->name), "Pause Final Mark"))
			ev->kind = GCP_REMARK;
		else if (STARTS(ev->name, strlen(ev->name), "Pause Full"))
			ev->kind = GCP_FULL;
		else
			ev->kind = GCP_OTHER;
	} else {
		record_cause(s, n, ev->cause, sizeof ev->cause);
		if (memmem(s, n, "CMS-initial-mark", 16)) {
			ev->kind = GCP_OTHER;
			snprintf(ev->name, sizeof ev->name, "CMS-initial-mark");
			gcp_set_collector(p, GCP_COL_CMS);
		} else if (memmem(s, n, "CMS-remark", 10)) {
			ev->kind = GCP_REMARK;
			snprintf(ev->name, sizeof ev->name, "CMS-remark");
			gcp_set_collector(p, GCP_COL_CMS);
		} else {
			/* A young GC that escalated into an old-generation collection is full. */
			ev->kind = gcp_match(p, PL_OLD, s, n, 0) > 0 ? GCP_FULL : GCP_YOUNG;
			snprintf(ev->name, sizeof ev->name, "GC");
		}
	}
	return g1;
}

/* Failures printed inside the record mark its cause; the generations, from the whole
 * text, name the collector. */
static void generations(struct gcparse *p, const char *s, size_t n, struct gcp_event *ev)
{
	static const char *const fails[] = {"to-space exhausted", "to-space overflow",
	                                    "promotion failed", "concurrent mode failure"};

	for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++)
		if (memmem(s, n, fails[i], strlen(fails[i])))
			gcp_mark_failed(ev, fails[i]);
	if (gcp_match(p, PL_YOUNG, s, n, 0) > 0) {
		const char *g = s + pcre2_get_ovector_pointer(p->md)[0];
		triple(p, s, 1, &ev->young_before_kb, &ev->young_after_kb, &ev->young_total_kb);
		if (g[1] == 'P' && g[2] == 'a')
			gcp_set_collector(p, GCP_COL_CMS);
		else if (g[1] == 'D')
			gcp_set_collector(p, GCP_COL_SERIAL);
		else
			gcp_set_collector(p, GCP_COL_PARALLEL);
		if (ev->kind == GCP_YOUNG && !strcmp(ev->name, "GC"))
			gcp_copy(ev->name, sizeof ev->name, g + 1, strcspn(g + 1, ": ("));
	}
	if (gcp_match(p, PL_OLD, s, n, 0) > 0) {
		triple(p, s, 1, &ev->old_before_kb, &ev->old_after_kb, &ev->old_total_kb);
		const char *g = s + pcre2_get_ovector_pointer(p->md)[0];
		if (g[1] == 'T')
			gcp_set_collector(p, GCP_COL_SERIAL);
		else if (g[1] == 'P')
			gcp_set_collector(p, GCP_COL_PARALLEL);
		else
			gcp_set_collector(p, GCP_COL_CMS);
	}
	if (gcp_match(p, PL_META, s, n, 0) > 0)
		triple(p, s, 1, &ev->meta_before_kb, &ev->meta_after_kb, &ev->meta_total_kb);
}

/* Whole heap and pause, from the record's own level (top, tn bytes): the last duration
 * written in it (*ms: in ms, Shenandoah 8u's, stamped at the end), or GCP_NONE. */
static int64_t heap_and_time(struct gcparse *p, const char *top, size_t tn, struct gcp_event *ev,
                             int *ms)
{
	int64_t t = GCP_NONE;

	if (gcp_match(p, PL_HEAP, top, tn, 0) > 0) {
		ev->heap_before_kb = gcp_group_kb(p, top, 1);
		ev->heap_after_kb = gcp_group_kb(p, top, 2);
		ev->heap_total_kb = gcp_group_kb(p, top, 3);
		if (ev->heap_after_kb == GCP_NONE) /* `109176K(249088K)`: occupancy at a mark */
			ev->heap_after_kb = ev->heap_before_kb;
	}
	for (size_t pos = 0; pos < tn && gcp_match(p, PL_PAUSE, top, tn, pos) > 0;) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
		size_t un;
		*ms = gcp_group(p, top, 2, &un) != NULL;
		t = gcp_group_fixed(p, top, 1, *ms ? 3 : 6);
		pos = ov[1];
	}
	return t;
}

/* A complete record: s[0..n) is the record, tail what followed its closing bracket. */
static void finish_record(struct gcparse *p, const char *s, size_t n, const char *tail,
                          size_t tailn)
{
	struct gcp_event ev;
	size_t tn = top_level(s, n, p->top, sizeof p->top);
	int g1, ms = 0;
	int64_t t, back = GCP_NONE;

	gcp_event_clear(&ev);
	g1 = classify(p, s, n, &ev);
	generations(p, s, n, &ev);
	t = heap_and_time(p, p->top, tn, &ev, &ms);
	if (t == GCP_NONE) {
		p->st.incomplete++;
		gcp_unparsed(p, s, n, "record without a duration");
		return;
	}
	if (ev.kind == GCP_CONCURRENT) {
		ev.conc_us = t;
		back = t;
	} else {
		ev.pause_us = t;
		if (ms) /* Shenandoah 8u stamps the end of the pause */
			back = t;
	}
	stamp_event(&ev, &p->rec_stamp, back);
	emit_or_pend(p, &ev, g1 && !memmem(tail, tailn, "[Times:", 7));
}

/* Closes the open record when its first bracket has closed. */
static void check_record(struct gcparse *p)
{
	int d = 0;
	for (size_t i = 0; i < p->rec_len; i++) {
		if (p->rec[i] == '[') {
			d++;
		} else if (p->rec[i] == ']' && --d == 0) {
			p->rec_open = 0;
			finish_record(p, p->rec, i + 1, p->rec + i + 1, p->rec_len - i - 1);
			return;
		}
	}
}

static void append(struct gcparse *p, const char *s, size_t n)
{
	if (p->rec_len + n >= sizeof p->rec) {
		p->rec_open = 0;
		p->st.incomplete++;
		gcp_unparsed(p, p->rec, p->rec_len, "record too long");
		return;
	}
	memcpy(p->rec + p->rec_len, s, n);
	p->rec_len += n;
	check_record(p);
}

static void drop_open(struct gcparse *p)
{
	if (p->rec_open) {
		p->rec_open = 0;
		p->st.incomplete++;
		gcp_unparsed(p, p->rec, p->rec_len, "record never finished");
	}
}

static int record_start(const char *r, size_t n)
{
	if (STARTS(r, n, "[GC")) {
		if (n == 3)
			return 1;
		char c = r[3];
		return c == ' ' || c == '(' || c == '[' || c == '-' || (c >= '0' && c <= '9');
	}
	return STARTS(r, n, "[Full GC") || STARTS(r, n, "[Pause ") || STARTS(r, n, "[Concurrent ");
}

static void stopped_line(struct gcparse *p, const char *s, size_t n, const struct gcp_stamp *st,
                         size_t at)
{
	struct gcp_event ev;
	if (gcp_match(p, PX_STOPPED, s, n, at) <= 0) {
		gcp_unparsed(p, s, n, "bad stopped-time line");
		return;
	}
	gcp_event_clear(&ev);
	ev.kind = GCP_SAFEPOINT;
	snprintf(ev.name, sizeof ev.name, "Application stopped");
	ev.pause_us = gcp_group_fixed(p, s, 1, 6);
	if (ev.pause_us == GCP_NONE)
		ev.pause_us = 0;
	/* Unstamped (before 7u50): it belongs to the end of the preceding event. */
	ev.t_ms = st->t_ms != GCP_NONE ? st->t_ms : p->last_end_ms;
	ev.uptime_ms = st->uptime_ms != GCP_NONE ? st->uptime_ms : p->last_end_up;
	gcp_emit(p, &ev);
}

/* A G1 size line or `[Times:` while a G1 record waits; 1 when the line was consumed. */
static int pending_line(struct gcparse *p, const char *s, size_t n)
{
	struct gcp_event *ev = &p->pend_ev;

	if (memmem(s, n, "[Eden:", 6) && gcp_match(p, PL_EDEN, s, n, 0) > 0) {
		int64_t eb = gcp_group_kb(p, s, 1), ea = gcp_group_kb(p, s, 3);
		int64_t ec = gcp_group_kb(p, s, 4), sb = gcp_group_kb(p, s, 5);
		int64_t sa = gcp_group_kb(p, s, 6);
		ev->heap_before_kb = gcp_group_kb(p, s, 7);
		ev->heap_after_kb = gcp_group_kb(p, s, 9);
		ev->heap_total_kb = gcp_group_kb(p, s, 10);
		if (eb != GCP_NONE && sb != GCP_NONE && ea != GCP_NONE && sa != GCP_NONE) {
			ev->young_before_kb = eb + sb, ev->young_after_kb = ea + sa;
			if (ec != GCP_NONE)
				ev->young_total_kb = ec + sa;
			/* G1 does not print the old generation: it is the rest of the heap. */
			if (ev->heap_before_kb != GCP_NONE && ev->heap_after_kb != GCP_NONE) {
				ev->old_before_kb = ev->heap_before_kb - ev->young_before_kb;
				ev->old_after_kb = ev->heap_after_kb - ev->young_after_kb;
			}
		}
		if (gcp_match(p, PL_META, s, n, 0) > 0)
			triple(p, s, 1, &ev->meta_before_kb, &ev->meta_after_kb,
			       &ev->meta_total_kb);
		return 1;
	}
	if (memmem(s, n, "[Times:", 7)) {
		emit_pending(p);
		return 1;
	}
	return 0;
}

void gcp_legacy_line(struct gcparse *p, const char *s, size_t n)
{
	struct gcp_stamp st;
	size_t i, rn, lead = 0;
	const char *r;

	if (memmem(s, n, "concurrent", 10) || memmem(s, n, "[YG occupancy", 13)) {
		n = cut_embedded(p, s, n);
		s = p->scratch;
		while (n && s[n - 1] == ' ')
			n--;
		if (!n)
			return; /* nothing but a concurrent record */
	}
	i = stamps(s, n, &st);
	r = s + i, rn = n - i;
	if (st.t_ms != GCP_NONE)
		p->st.last_t_ms = st.t_ms;
	if (st.uptime_ms != GCP_NONE && p->family == GCP_FAM_UNKNOWN)
		p->family = GCP_FAM_JDK8;
	if (i > 0)
		p->table = 0;

	if (STARTS(r, rn, "Total time for which")) {
		p->family = GCP_FAM_JDK8;
		stopped_line(p, s, n, &st, i);
		return;
	}
	if (rn && r[0] == '[' && record_start(r, rn) && gcp_match(p, PL_NOISE, s, n, 0) <= 0) {
		p->family = GCP_FAM_JDK8;
		drop_open(p);
		emit_pending(p);
		p->rec_open = 1;
		p->rec_stamp = st;
		p->rec_len = 0;
		append(p, r, rn);
		return;
	}
	while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	if (p->rec_open) {
		struct gcp_stamp st2;
		size_t k = lead + stamps(s + lead, n - lead, &st2);
		const char *q = s + k;
		size_t qn = n - k;
		if (STARTS(q, qn, "Desired survivor") || STARTS(q, qn, "- age") ||
		    STARTS(q, qn, "[G1Ergonomics") || STARTS(q, qn, "AdaptiveSize") ||
		    STARTS(q, qn, "PSAdaptiveSize") || STARTS(q, qn, "avg_") ||
		    STARTS(q, qn, "[Unloading class") || STARTS(q, qn, "Application time") ||
		    STARTS(q, qn, "  avg_") || STARTS(q, qn, "AdaptiveSizeStart") ||
		    (lead && qn && q[0] == '[' && !STARTS(q, qn, "[PSYoungGen") &&
		     !STARTS(q, qn, "[ParNew") && !STARTS(q, qn, "[DefNew") &&
		     STARTS(p->rec, p->rec_len, "[GC pause")))
			return;
		append(p, s, n);
		return;
	}
	if (p->pend && pending_line(p, s, n))
		return;
	if (gcp_match(p, PL_NOISE, s, n, 0) > 0) {
		if (p->family == GCP_FAM_UNKNOWN &&
		    (STARTS(s, n, "OpenJDK") || STARTS(s, n, "Java HotSpot") ||
		     STARTS(s, n, "CommandLine flags")))
			p->family = GCP_FAM_JDK8;
		/* Shenandoah's per-cycle and exit statistics, the exit heap summary: free
		 * text until the next stamped line. */
		if (STARTS(s, n, "All times") || STARTS(s, n, "GC STATISTICS") ||
		    STARTS(s, n, "Heap") || STARTS(s, n, "Allocation pacing"))
			p->table = 1;
		return;
	}
	if (p->table && i == 0)
		return;
	if (lead && p->family == GCP_FAM_JDK8)
		return; /* details, heap summaries, statistics tables */
	while (rn && r[0] == ' ')
		r++, rn--;
	if (p->family == GCP_FAM_JDK8 && i > 0 && rn && r[0] == '[')
		return; /* a stamped detail line of a block that already closed */
	gcp_unparsed(p, s, n, "unknown line");
}

void gcp_legacy_flush(struct gcparse *p)
{
	drop_open(p);
	emit_pending(p);
}
