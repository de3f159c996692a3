/* gcparse: JDK 9+ unified logging (-Xlog:gc, -Xlog:gc*, any decorations).
 * Any decoration order is taken; the per-generation lines that precede a summary line
 * are held until it comes, so an event is handed on whole. */
#include "gcparse_int.h"

#include <stdio.h>
#include <string.h>

#define EQ(s, n, lit)     ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)
#define STARTS(s, n, lit) ((n) >= sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

void gcp_unified_reset(struct gcparse *p)
{
	for (int i = 0; i < GCP_SLOTS; i++)
		p->slot[i].gc_id = GCP_NONE;
}

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Decides one decorator's role from its content (HotSpot's order is fixed, but any subset
 * may be chosen): time/utctime, uptime (s), uptimemillis / timemillis (ms), nanos, pid/tid,
 * level, tags.  Returns 0 when the bracket is no decorator: the line is not unified. */
static int decoration(const char *c, size_t n, struct gcp_stamp *st, const char **tags,
                      size_t *tagn)
{
	int64_t v;

	if (!n)
		return 0;
	if (c[0] >= '0' && c[0] <= '9') {
		if (n >= 20 && c[4] == '-')
			return gcp_iso_ms(c, n, &st->t_ms) == 0;
		if (n > 2 && c[n - 2] == 'm' && c[n - 1] == 's' && all_digits(c, n - 2)) {
			if (gcp_fixed(c, n - 2, 0, &v) < 0)
				return 0;
			if (v >= 100000000000LL) /* timemillis: epoch ms (after 1973) */
				st->t_ms = v;
			else
				st->uptime_ms = v;
			return 1;
		}
		if (n > 2 && c[n - 2] == 'n' && c[n - 1] == 's' && all_digits(c, n - 2)) {
			if (gcp_fixed(c, n - 2, 0, &v) < 0)
				return 0;
			if (v >= 100000000000000000LL)
				st->t_ms = v / 1000000;
			else
				st->uptime_ms = v / 1000000;
			return 1;
		}
		if (c[n - 1] == 's') /* uptime, maybe with a decimal comma: 2,048s */
			return gcp_fixed(c, n - 1, 3, &st->uptime_ms) == 0;
		return all_digits(c, n); /* pid, tid */
	}
	if (c[0] >= 'a' && c[0] <= 'z') {
		size_t k = n;
		while (k && c[k - 1] == ' ')
			k--;
		if (EQ(c, k, "info") || EQ(c, k, "debug") || EQ(c, k, "trace") ||
		    EQ(c, k, "warning") || EQ(c, k, "error"))
			return 1;
		for (size_t i = 0; i < k; i++) {
			char ch = c[i];
			if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == ',' ||
			      ch == '+' || ch == '_'))
				return 0;
		}
		*tags = c;
		*tagn = k;
		return 1;
	}
	return 0;
}

static struct gcp_slot *slot_for(struct gcparse *p, int64_t id)
{
	struct gcp_slot *s = &p->slot[(uint64_t)id % GCP_SLOTS];
	if (s->gc_id != id) {
		s->gc_id = id;
		for (int i = 0; i < 3; i++) {
			s->young[i] = s->old[i] = s->meta[i] = GCP_NONE;
			for (int r = 0; r < 5; r++)
				s->regions[r][i] = GCP_NONE;
		}
		s->zcap_kb = GCP_NONE;
		s->tospace = 0;
	}
	return s;
}

/* Copies the details gathered for ev's GC id into ev, then frees the slot. */
static void apply_slot(struct gcparse *p, struct gcp_event *ev)
{
	struct gcp_slot *s;
	int64_t R = p->region_kb;

	if (ev->gc_id == GCP_NONE)
		return;
	s = &p->slot[(uint64_t)ev->gc_id % GCP_SLOTS];
	if (s->gc_id != ev->gc_id)
		return;
	ev->young_before_kb = s->young[0], ev->young_after_kb = s->young[1];
	ev->young_total_kb = s->young[2];
	ev->old_before_kb = s->old[0], ev->old_after_kb = s->old[1], ev->old_total_kb = s->old[2];
	ev->meta_before_kb = s->meta[0], ev->meta_after_kb = s->meta[1];
	ev->meta_total_kb = s->meta[2];
	/* G1 prints regions: eden + survivor make the young generation, old + humongous +
	 * archive the old one.  The capacities in parentheses are targets for eden and
	 * survivor, so young capacity is their sum; the old generation has none. */
	if (R != GCP_NONE && s->regions[0][0] != GCP_NONE && s->regions[1][0] != GCP_NONE) {
		ev->young_before_kb = (s->regions[0][0] + s->regions[1][0]) * R;
		ev->young_after_kb = (s->regions[0][1] + s->regions[1][1]) * R;
		if (s->regions[0][2] != GCP_NONE && s->regions[1][2] != GCP_NONE)
			ev->young_total_kb = (s->regions[0][2] + s->regions[1][2]) * R;
		int64_t ob = 0, oa = 0;
		int any = 0;
		for (int r = 2; r < 5; r++)
			if (s->regions[r][0] != GCP_NONE) {
				ob += s->regions[r][0], oa += s->regions[r][1], any = 1;
			}
		if (any)
			ev->old_before_kb = ob * R, ev->old_after_kb = oa * R;
	}
	if (ev->heap_total_kb == GCP_NONE && s->zcap_kb != GCP_NONE)
		ev->heap_total_kb = s->zcap_kb;
	if (s->tospace)
		gcp_mark_failed(ev, "to-space exhausted");
	s->gc_id = GCP_NONE;
}

/* Unified summary lines are written when the event ends: start = end - duration. */
static void set_times(struct gcp_event *ev, const struct gcp_stamp *st, int64_t dur_us)
{
	int64_t d = dur_us == GCP_NONE ? 0 : (dur_us + 500) / 1000;
	ev->gc_id = st->gc_id;
	ev->t_ms = st->t_ms == GCP_NONE ? GCP_NONE : st->t_ms - d;
	ev->uptime_ms = st->uptime_ms == GCP_NONE ? GCP_NONE : st->uptime_ms - d;
}

static int is_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n == k && memcmp(s, w, k) == 0;
}

/* Splits " (Normal) (G1 Evacuation Pause)" into a sub-kind and a cause.  Sub-kinds are
 * G1's young flavours and ZGC's generation; lower-case groups are Shenandoah modifiers
 * ("unload classes"); the last other group is the cause. */
static void split_groups(const char *g, size_t n, const char **sub, size_t *subn,
                         const char **cause, size_t *causen)
{
	size_t i = 0;
	*sub = *cause = NULL;
	*subn = *causen = 0;
	while (i < n) {
		while (i < n && g[i] != '(')
			i++;
		if (i >= n)
			break;
		size_t b = ++i;
		int depth = 1;
		while (i < n && depth) {
			if (g[i] == '(')
				depth++;
			else if (g[i] == ')')
				depth--;
			i++;
		}
		size_t e = depth ? i : i - 1;
		const char *w = g + b;
		size_t wn = e - b;
		if (is_word(w, wn, "Normal") || is_word(w, wn, "Concurrent Start") ||
		    is_word(w, wn, "Prepare Mixed") || is_word(w, wn, "Mixed") ||
		    is_word(w, wn, "Major") || is_word(w, wn, "Minor")) {
			*sub = w, *subn = wn;
		} else if ((wn && w[0] >= 'a' && w[0] <= 'z') ||
		           (wn >= 18 && memcmp(w, "Evacuation Failure", 18) == 0)) {
			continue; /* a modifier; JDK 21's failure mark (see pause_line) */
		} else {
			*cause = w, *causen = wn;
		}
	}
}

static enum gcp_kind pause_kind(struct gcparse *p, const char *k, size_t kn, const char *sub,
                                size_t subn)
{
	if (is_word(k, kn, "Young"))
		return sub && is_word(sub, subn, "Mixed") ? GCP_MIXED : GCP_YOUNG;
	if (is_word(k, kn, "Mixed"))
		return GCP_MIXED;
	if (is_word(k, kn, "Initial Mark")) /* G1 marks inside a young pause; CMS does not */
		return p->collector == GCP_COL_CMS ? GCP_OTHER : GCP_YOUNG;
	if (is_word(k, kn, "Full"))
		return GCP_FULL;
	if (is_word(k, kn, "Remark") || is_word(k, kn, "Final Mark") || is_word(k, kn, "Mark End"))
		return GCP_REMARK;
	if (is_word(k, kn, "Cleanup"))
		return GCP_CLEANUP;
	return GCP_OTHER;
}

static void guess_collector(struct gcparse *p, const char *k, size_t kn, const char *sub)
{
	if (is_word(k, kn, "Init Mark") || is_word(k, kn, "Final Mark") ||
	    is_word(k, kn, "Init Update Refs") || is_word(k, kn, "Final Roots") ||
	    is_word(k, kn, "Degenerated GC"))
		gcp_set_collector(p, GCP_COL_SHENANDOAH);
	else if (is_word(k, kn, "Mark Start") || is_word(k, kn, "Relocate Start"))
		gcp_set_collector(p, GCP_COL_ZGC);
	else if (sub || is_word(k, kn, "Mixed") || is_word(k, kn, "Cleanup"))
		gcp_set_collector(p, GCP_COL_G1);
}

/* `[Y: ]Pause <Kind> (...) [a->b(c)] t ms` (the gc summary or, for ZGC, gc,phases). */
static int pause_line(struct gcparse *p, const struct gcp_stamp *st, const char *m, size_t n)
{
	struct gcp_event ev;
	const char *k, *g, *gen, *sub, *cause;
	size_t kn, gn, genn, subn, causen;

	if (gcp_match(p, PU_PAUSE, m, n, 0) <= 0)
		return 0;
	gcp_event_clear(&ev);
	gen = gcp_group(p, m, 1, &genn);
	k = gcp_group(p, m, 2, &kn);
	g = gcp_group(p, m, 3, &gn);
	split_groups(g ? g : "", gn, &sub, &subn, &cause, &causen);
	guess_collector(p, k, kn, sub);
	if (gen)
		gcp_set_collector(p, GCP_COL_ZGC_GEN);
	ev.kind = pause_kind(p, k, kn, sub, subn);
	ev.pause_us = gcp_group_fixed(p, m, 7, 3);
	if (ev.pause_us == GCP_NONE)
		return 0;
	ev.heap_before_kb = gcp_group_kb(p, m, 4);
	ev.heap_after_kb = gcp_group_kb(p, m, 5);
	ev.heap_total_kb = gcp_group_kb(p, m, 6);
	if (cause)
		gcp_copy(ev.cause, sizeof ev.cause, cause, causen);
	if (g && memmem(g, gn, "(Evacuation Failure", 19))
		gcp_mark_failed(&ev, "Evacuation Failure");
	{
		char genp[8] = "";
		if (gen) /* "Y: Pause Mark Start (Major)" keeps its generation */
			snprintf(genp, sizeof genp, "%.*s: ", (int)genn, gen);
		snprintf(ev.name, sizeof ev.name, "%sPause %.*s%s%.*s%s", genp, (int)kn, k,
		         sub ? " (" : "", (int)subn, sub ? sub : "", sub ? ")" : "");
	}
	set_times(&ev, st, ev.pause_us);
	apply_slot(p, &ev);
	gcp_emit(p, &ev);
	return 1;
}

static int conc_line(struct gcparse *p, const struct gcp_stamp *st, const char *m, size_t n)
{
	struct gcp_event ev;

	if (gcp_match(p, PU_CONC, m, n, 0) <= 0)
		return 0;
	gcp_event_clear(&ev);
	ev.kind = GCP_CONCURRENT;
	ev.conc_us = gcp_group_fixed(p, m, 6, 3);
	if (ev.conc_us == GCP_NONE)
		return 0;
	gcp_group_str(p, m, 2, ev.name, sizeof ev.name);
	ev.heap_before_kb = gcp_group_kb(p, m, 3);
	ev.heap_after_kb = gcp_group_kb(p, m, 4);
	ev.heap_total_kb = gcp_group_kb(p, m, 5);
	if (strncmp(ev.name, "Concurrent cleanup", 18) == 0 ||
	    strncmp(ev.name, "Concurrent evacuation", 21) == 0)
		gcp_set_collector(p, GCP_COL_SHENANDOAH);
	set_times(&ev, st, ev.conc_us);
	apply_slot(p, &ev);
	gcp_emit(p, &ev);
	return 1;
}

/* ZGC: `Garbage Collection (cause) 50M(39%)->10M(8%)`, generational `Major Collection
 * (cause) 30M(31%)->26M(27%) 0.036s`: the cycle, concurrent, with the heap figures. */
static int zcycle_line(struct gcparse *p, const struct gcp_stamp *st, const char *m, size_t n)
{
	struct gcp_event ev;
	size_t nn;
	const char *name;

	if (gcp_match(p, PU_ZCYCLE, m, n, 0) <= 0)
		return 0;
	gcp_event_clear(&ev);
	ev.kind = GCP_CONCURRENT;
	name = gcp_group(p, m, 1, &nn);
	gcp_set_collector(p, name[0] == 'G' ? GCP_COL_ZGC : GCP_COL_ZGC_GEN);
	gcp_copy(ev.name, sizeof ev.name, name, nn);
	gcp_group_str(p, m, 2, ev.cause, sizeof ev.cause);
	ev.heap_before_kb = gcp_group_kb(p, m, 3);
	ev.heap_after_kb = gcp_group_kb(p, m, 4);
	ev.conc_us = gcp_group_fixed(p, m, 5, 6);
	set_times(&ev, st, ev.conc_us);
	apply_slot(p, &ev);
	gcp_emit(p, &ev);
	return 1;
}

static int safepoint_line(struct gcparse *p, const struct gcp_stamp *st, const char *m, size_t n)
{
	struct gcp_event ev;

	gcp_event_clear(&ev);
	ev.kind = GCP_SAFEPOINT;
	if (gcp_match(p, PU_SAFEPOINT, m, n, 0) > 0) {
		int64_t ns = gcp_group_fixed(p, m, 2, 0);
		if (ns == GCP_NONE)
			return 0;
		ev.pause_us = (ns + 500) / 1000;
		gcp_group_str(p, m, 1, ev.name, sizeof ev.name);
	} else if (gcp_match(p, PX_STOPPED, m, n, 0) > 0) {
		ev.pause_us = gcp_group_fixed(p, m, 1, 6);
		if (ev.pause_us == GCP_NONE)
			return 0;
		snprintf(ev.name, sizeof ev.name, "Application stopped");
	} else {
		return 0;
	}
	set_times(&ev, st, ev.pause_us);
	ev.gc_id = GCP_NONE;
	gcp_emit(p, &ev);
	return 1;
}

static void banner(struct gcparse *p, const char *m, size_t n)
{
	static const struct {
		const char *text;
		enum gcp_collector c;
	} using[] = {{"Using G1", GCP_COL_G1},
	             {"Using Parallel", GCP_COL_PARALLEL},
	             {"Using Serial", GCP_COL_SERIAL},
	             {"Using Concurrent Mark Sweep", GCP_COL_CMS},
	             {"Using The Z Garbage Collector", GCP_COL_ZGC},
	             {"Using Shenandoah", GCP_COL_SHENANDOAH}};
	for (size_t i = 0; i < sizeof using / sizeof using[0]; i++)
		if (n >= strlen(using[i].text) &&
		    memcmp(m, using[i].text, strlen(using[i].text)) == 0)
			gcp_set_collector(p, using[i].c);
}

/* gc,heap and gc,metaspace: per-generation figures that precede their summary line. */
static void heap_line(struct gcparse *p, const struct gcp_stamp *st, const char *m, size_t n)
{
	struct gcp_slot *s;
	size_t gn;

	if (STARTS(m, n, "Heap Region Size") || memmem(m, n, "Region Size:", 12)) {
		if (gcp_match(p, PU_REGSIZE, m, n, 0) > 0)
			p->region_kb = gcp_group_kb(p, m, 1);
		return;
	}
	if (st->gc_id == GCP_NONE)
		return;
	if (gcp_match(p, PU_GEN, m, n, 0) > 0) {
		const char *g = gcp_group(p, m, 1, &gn);
		int young = is_word(g, gn, "PSYoungGen") || is_word(g, gn, "DefNew") ||
		            is_word(g, gn, "ParNew");
		s = slot_for(p, st->gc_id);
		int64_t *v = young ? s->young : s->old;
		v[0] = gcp_group_kb(p, m, 2);
		v[1] = gcp_group_kb(p, m, 4);
		v[2] = gcp_group_kb(p, m, 5);
		if (is_word(g, gn, "PSYoungGen"))
			gcp_set_collector(p, GCP_COL_PARALLEL);
		else if (is_word(g, gn, "DefNew"))
			gcp_set_collector(p, GCP_COL_SERIAL);
		return;
	}
	if (gcp_match(p, PU_META, m, n, 0) > 0) {
		s = slot_for(p, st->gc_id);
		s->meta[0] = gcp_group_kb(p, m, 1);
		s->meta[1] = gcp_group_kb(p, m, 3);
		s->meta[2] = gcp_group_kb(p, m, 4);
		return;
	}
	if (gcp_match(p, PU_REGIONS, m, n, 0) > 0) {
		static const char *const names[5] = {"Eden", "Survivor", "Old", "Archive",
		                                     "Humongous"};
		const char *g = gcp_group(p, m, 1, &gn);
		s = slot_for(p, st->gc_id);
		for (int r = 0; r < 5; r++)
			if (is_word(g, gn, names[r])) {
				s->regions[r][0] = gcp_group_fixed(p, m, 2, 0);
				s->regions[r][1] = gcp_group_fixed(p, m, 3, 0);
				s->regions[r][2] = gcp_group_fixed(p, m, 4, 0);
			}
		gcp_set_collector(p, GCP_COL_G1);
		return;
	}
	if (memmem(m, n, "Capacity:", 9) && gcp_match(p, PU_ZCAP, m, n, 0) > 0) {
		s = slot_for(p, st->gc_id);
		s->zcap_kb = gcp_group_kb(p, m, 4);
	}
}

int gcp_unified_line(struct gcparse *p, const char *s, size_t n)
{
	struct gcp_stamp st = {GCP_NONE, GCP_NONE, GCP_NONE};
	const char *tags = NULL, *m;
	size_t tn = 0, i = 0, mn;

	while (i < n && s[i] == '[') {
		const char *e = memchr(s + i + 1, ']', n - i - 1);
		if (!e || !decoration(s + i + 1, (size_t)(e - s - i - 1), &st, &tags, &tn))
			return 0;
		i = (size_t)(e - s) + 1;
	}
	if (!tags)
		return 0;
	if (i < n && s[i] == ' ')
		i++;
	m = s + i, mn = n - i;
	if (st.t_ms != GCP_NONE)
		p->st.last_t_ms = st.t_ms;
	if (mn > 4 && memcmp(m, "GC(", 3) == 0) {
		size_t k = 3;
		int64_t id = 0; /* at most 18 digits: no overflow */
		while (k < mn && k < 21 && m[k] >= '0' && m[k] <= '9')
			id = id * 10 + (m[k++] - '0');
		if (k > 3 && k < mn && m[k] == ')') {
			st.gc_id = id;
			k++;
			if (k < mn && m[k] == ' ')
				k++;
			m += k, mn -= k;
		}
	}
	if (EQ(tags, tn, "gc")) {
		if (mn > 6 && (m[0] == 'P' || m[2] == 'P' || m[0] == 'C' || m[2] == 'C')) {
			if (pause_line(p, &st, m, mn) || conc_line(p, &st, m, mn))
				return 1;
		}
		if (mn > 6 && (m[0] == 'G' || m[0] == 'M') && zcycle_line(p, &st, m, mn))
			return 1;
		if (STARTS(m, mn, "Total time for") && safepoint_line(p, &st, m, mn))
			return 1;
		if (st.gc_id == GCP_NONE) {
			/* Banners and free text without an id: Using ..., Trigger: ..., stalls. */
			if (STARTS(m, mn, "Using "))
				banner(p, m, mn);
			return 1;
		}
		if (STARTS(m, mn, "To-space exhausted") || STARTS(m, mn, "To-space overflow")) {
			/* G1 could not evacuate: the pause logged next for this id failed. */
			slot_for(p, st.gc_id)->tospace = 1;
			return 1;
		}
		if (gcp_match(p, PU_START, m, mn, 0) > 0)
			return 1;
		gcp_unparsed(p, s, n, "unknown gc message");
		return 1;
	}
	if (EQ(tags, tn, "gc,heap") || EQ(tags, tn, "gc,metaspace") || EQ(tags, tn, "gc,init")) {
		heap_line(p, &st, m, mn);
		return 1;
	}
	if (EQ(tags, tn, "gc,phases")) {
		/* ZGC logs its pauses here; other collectors' phases are sub-durations. */
		const char *q = m;
		size_t qn = mn;
		if (qn > 3 && q[1] == ':' && q[2] == ' ')
			q += 3, qn -= 3;
		if (STARTS(q, qn, "Pause Mark Start") || STARTS(q, qn, "Pause Mark End") ||
		    STARTS(q, qn, "Pause Relocate Start"))
			pause_line(p, &st, m, mn);
		return 1;
	}
	if (EQ(tags, tn, "safepoint")) {
		safepoint_line(p, &st, m, mn);
		return 1;
	}
	return 1;
}
