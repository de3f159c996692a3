/* gcanalysis: counts, pause statistics and the heap-after-GC trend of a list of events.
 * It reads the events it is given and keeps nothing; the trend is over the steady
 * window only, so a warming JVM's first collections do not make a leak. */
#include "gcanalysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"

const char *gca_memory_name(enum gca_memory m)
{
	switch (m) {
	case GCA_NORMAL:
		return "normal";
	case GCA_SUSPECTED_LEAK:
		return "suspected_leak";
	case GCA_EXHAUSTED:
		return "exhausted";
	case GCA_TOO_SHORT:
		return "too_short";
	case GCA_RISING:
		return "rising";
	default:
		return "unknown";
	}
}

const char *gca_trigger_name(enum gca_trigger t)
{
	switch (t) {
	case GCA_TRIG_G1_IHOP:
		return "g1_ihop";
	case GCA_TRIG_OLD_FULL:
		return "old_full";
	case GCA_TRIG_HEAP_FULL:
		return "heap_full";
	default:
		return "none";
	}
}

const char *gca_memory_text(enum gca_memory m)
{
	switch (m) {
	case GCA_SUSPECTED_LEAK:
		return "suspected leak";
	case GCA_TOO_SHORT:
		return "too short";
	default:
		return gca_memory_name(m);
	}
}

int gca_too_short(int64_t window_ms)
{
	return window_ms < GCA_MIN_WINDOW_MS;
}

const char *gca_hours_text(double h, char *buf, size_t len)
{
	/* Rounded up to what a scenario's duration would say: seconds under two minutes,
	 * minutes under a day, hours beyond. */
	double unit = h < 2.0 / 60 ? 1000 : h < 24 ? 60000 : 3600000;
	double ms = ceil(h * 3600000.0 / unit) * unit;
	if (!isfinite(h) || h < 0)
		snprintf(buf, len, "-");
	else
		dur_format((int64_t)fmin(ms, 1e15), buf, len);
	return buf;
}

/* "the 45% of the heap (115 MB) at which G1 starts a concurrent cycle by default" */
static void trigger_text(const struct gca_result *r, char *buf, size_t len)
{
	switch (r->trigger) {
	case GCA_TRIG_G1_IHOP:
		snprintf(
		    buf, len,
		    "the %.0f%% of the heap (%.0f MB) at which G1 starts a concurrent cycle by "
		    "default",
		    GCA_G1_IHOP * 100, r->trigger_mb);
		break;
	case GCA_TRIG_OLD_FULL:
		snprintf(
		    buf, len,
		    "the old generation's capacity (%.0f MB), where a full collection comes at "
		    "the latest",
		    r->trigger_mb);
		break;
	default:
		snprintf(buf, len,
		         "the heap's capacity (%.0f MB), where an old-generation collection comes "
		         "at the latest",
		         r->trigger_mb);
	}
}

const char *gca_headroom_text(const struct gca_result *r, char *buf, size_t len)
{
	char trig[160], t[32], pr[48];
	int old = !strcmp(r->level_of, "old generation");

	buf[0] = '\0';
	if (r->trigger == GCA_TRIG_NONE || len == 0)
		return buf;
	trigger_text(r, trig, sizeof trig);
	size_t n = (size_t)snprintf(buf, len, "%s holds %.1f MB (%.0f%% of %s %.0f MB%s), ",
	                            old ? "the old generation" : "the heap after GC", r->level_mb,
	                            r->cap_mb > 0 ? 100 * r->level_mb / r->cap_mb : 0,
	                            r->trigger == GCA_TRIG_OLD_FULL ? "its" : "the", r->cap_mb,
	                            r->trigger == GCA_TRIG_OLD_FULL ? "" : " heap");
	if (n >= len)
		return buf;
	if (r->to_trigger_h <= 0) {
		snprintf(buf + n, len - n, "already at or past %s: one is due", trig);
		return buf;
	}
	n += (size_t)snprintf(buf + n, len - n, "%.1f MB below %s; ", r->trigger_mb - r->level_mb,
	                      trig);
	snprintf(pr, sizeof pr, " (promotion %+.*f MB/h)", fabs(r->promo_mb_per_h) < 1 ? 2 : 1,
	         r->promo_mb_per_h);
	if (n >= len)
		return buf;
	if (!isfinite(r->to_trigger_h))
		snprintf(buf + n, len - n,
		         "it gains less than %.0f MB over the window%s, so none is in sight",
		         GCA_GROWTH_MIN_MB, isnan(r->promo_mb_per_h) ? "" : pr);
	else if (r->growth_of_promo)
		snprintf(
		    buf + n, len - n,
		    "at its promotion of %+.*f MB/h (the floor: %+.1f MB/h) it would get there "
		    "in about %s",
		    r->growth_mb_per_h < 1 ? 2 : 1, r->growth_mb_per_h, r->slope_mb_per_h,
		    gca_hours_text(r->to_trigger_h, t, sizeof t));
	else
		snprintf(buf + n, len - n,
		         "at the floor's %+.*f MB/h%s it would get there in about %s",
		         r->growth_mb_per_h < 1 ? 2 : 1, r->growth_mb_per_h,
		         isnan(r->promo_mb_per_h) ? "" : pr,
		         gca_hours_text(r->to_trigger_h, t, sizeof t));
	return buf;
}

int gca_linreg(const double *x, const double *y, size_t n, double *slope, double *icept, double *r2)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++)
		mx += x[i], my += y[i];
	mx /= (double)n, my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;
		sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
	}
	if (sxx <= 0)
		return -1;
	*slope = sxy / sxx;
	*icept = my - *slope * mx;
	*r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
	return 0;
}

void gca_result_free(struct gca_result *r)
{
	if (!r)
		return;
	free(r->points);
	r->points = NULL;
	r->npoints = 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_point(const void *a, const void *b)
{
	const struct gca_point *x = a, *y = b;
	return x->t_ms < y->t_ms ? -1 : x->t_ms > y->t_ms;
}

/* Whether an event's heap-after is a "after a collection" figure. */
static int collects(enum gcp_kind k)
{
	return k == GCP_YOUNG || k == GCP_MIXED || k == GCP_FULL || k == GCP_REMARK ||
	       k == GCP_CLEANUP || k == GCP_CONCURRENT;
}

static int64_t ev_time(const struct gcp_event *e, int wall)
{
	return wall ? e->t_ms : e->uptime_ms;
}

/* Pause figures, counts and the span. */
static int pauses(const struct gcp_event *ev, size_t n, struct gca_result *r, char *err,
                  size_t errlen)
{
	int64_t *p = malloc((n ? n : 1) * sizeof *p);
	size_t np = 0;
	int any = 0;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gcp_event *e = &ev[i];
		int64_t t = ev_time(e, r->wall_time);
		r->count[e->kind < GCP_KIND_COUNT ? e->kind : GCP_OTHER]++;
		r->events++;
		if (e->kind == GCP_SAFEPOINT) {
			r->safepoint_total_ms += (double)e->pause_us / 1000.0;
		} else if (e->kind != GCP_CONCURRENT && e->pause_us > 0) {
			p[np++] = e->pause_us;
			r->pause_total_ms += (double)e->pause_us / 1000.0;
		}
		if (t == GCP_NONE)
			continue;
		int64_t d = e->kind == GCP_CONCURRENT ? (e->conc_us == GCP_NONE ? 0 : e->conc_us)
		                                      : e->pause_us;
		int64_t end = t + (d > 0 ? d / 1000 : 0);
		if (!any || t < r->first_ms)
			r->first_ms = t;
		if (!any || end > r->last_ms)
			r->last_ms = end;
		any = 1;
	}
	r->pauses = (int64_t)np;
	if (np) {
		qsort(p, np, sizeof *p, cmp_i64);
		r->pause_max_ms = (double)p[np - 1] / 1000.0;
		size_t rank = (size_t)ceil(0.99 * (double)np);
		r->pause_p99_ms = (double)p[(rank ? rank : 1) - 1] / 1000.0;
	}
	if (any && r->last_ms > r->first_ms)
		r->gc_time_pct = r->pause_total_ms * 100.0 / (double)(r->last_ms - r->first_ms);
	free(p);
	return 0;
}

/* The regression series over [from, to]: post-full values when there are at least three,
 * else the floor of each of GCA_WINDOWS windows. */
static int series(const struct gcp_event *ev, size_t n, struct gca_result *r, int64_t from,
                  int64_t to, char *err, size_t errlen)
{
	size_t fulls = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t t = ev_time(&ev[i], r->wall_time);
		if (t == GCP_NONE || t < from || t > to || ev[i].heap_after_kb == GCP_NONE ||
		    !collects(ev[i].kind))
			continue;
		cap++;
		fulls += ev[i].kind == GCP_FULL;
	}
	r->points = malloc((cap ? cap : 1) * sizeof *r->points);
	if (!r->points) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fulls >= 3) {
		r->basis = "post-full";
		for (size_t i = 0; i < n; i++) {
			int64_t t = ev_time(&ev[i], r->wall_time);
			if (t == GCP_NONE || t < from || t > to || ev[i].kind != GCP_FULL ||
			    ev[i].heap_after_kb == GCP_NONE)
				continue;
			r->points[r->npoints].t_ms = t;
			r->points[r->npoints++].heap_mb = (double)ev[i].heap_after_kb / 1024.0;
		}
	} else {
		r->basis = "window-floor";
		double width = (double)(to - from) / GCA_WINDOWS;
		for (int w = 0; w < GCA_WINDOWS && width > 0; w++) {
			int64_t lo = from + (int64_t)(width * w);
			int64_t hi =
			    w == GCA_WINDOWS - 1 ? to + 1 : from + (int64_t)(width * (w + 1));
			int found = 0;
			struct gca_point best = {0, 0};
			for (size_t i = 0; i < n; i++) {
				int64_t t = ev_time(&ev[i], r->wall_time);
				if (t == GCP_NONE || t < lo || t >= hi ||
				    ev[i].heap_after_kb == GCP_NONE || !collects(ev[i].kind))
					continue;
				double mb = (double)ev[i].heap_after_kb / 1024.0;
				if (!found || mb < best.heap_mb)
					best.t_ms = t, best.heap_mb = mb, found = 1;
			}
			if (found)
				r->points[r->npoints++] = best;
		}
	}
	qsort(r->points, r->npoints, sizeof *r->points, cmp_point);
	return 0;
}

/* Slope in MB/h and R² of points[a..b). */
static int fit(const struct gca_result *r, size_t a, size_t b, int64_t origin, double *slope,
               double *icept, double *r2)
{
	double x[GCA_WINDOWS * 4], y[GCA_WINDOWS * 4];
	double *xs = x, *ys = y;
	int rc;

	if (b - a > GCA_WINDOWS * 4) {
		xs = malloc((b - a) * sizeof *xs);
		ys = malloc((b - a) * sizeof *ys);
		if (!xs || !ys) {
			free(xs == x ? NULL : xs);
			free(ys == y ? NULL : ys);
			return -1;
		}
	}
	for (size_t i = a; i < b; i++) {
		xs[i - a] = (double)(r->points[i].t_ms - origin) / 3600000.0;
		ys[i - a] = r->points[i].heap_mb;
	}
	rc = gca_linreg(xs, ys, b - a, slope, icept, r2);
	if (xs != x)
		free(xs), free(ys);
	return rc;
}

/* Old-generation cycles in [from, to]: distinct GC ids of full collections, remarks and
 * ZGC cycles (concurrent, with heap figures).  Ids of one cycle sit close together, so a
 * short ring of the ids counted last is enough to tell them apart. */
static int64_t old_cycles(const struct gcp_event *ev, size_t n, int wall, int64_t from, int64_t to)
{
	int64_t seen[16], count = 0;
	size_t nseen = 0, next = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gcp_event *e = &ev[i];
		int64_t t = ev_time(e, wall);
		int old = e->kind == GCP_FULL || e->kind == GCP_REMARK ||
		          (e->kind == GCP_CONCURRENT && e->heap_before_kb != GCP_NONE &&
		           e->heap_after_kb != GCP_NONE);
		if (!old || t == GCP_NONE || t < from || t > to)
			continue;
		if (e->gc_id != GCP_NONE) {
			size_t k = 0;
			while (k < nseen && seen[k] != e->gc_id)
				k++;
			if (k < nseen)
				continue;
			seen[next] = e->gc_id;
			next = (next + 1) % 16;
			nseen += nseen < 16;
		}
		count++;
	}
	return count;
}

/* Occupancy after a collection, as a share of its capacity: the whole heap's, or the old
 * generation's after a full collection when the log gives it and it is fuller (a full old
 * generation with room in the young one still fails every promotion).  -1 when unknown. */
static double occupancy(const struct gcp_event *e, double heap_max_mb)
{
	double heap = -1, old = -1;
	double cap = e->heap_total_kb != GCP_NONE && e->heap_total_kb > 0
	                 ? (double)e->heap_total_kb / 1024.0
	                 : heap_max_mb;
	if (e->heap_after_kb != GCP_NONE && cap > 0)
		heap = (double)e->heap_after_kb / 1024.0 / cap;
	if (e->kind == GCP_FULL && e->old_after_kb != GCP_NONE && e->old_total_kb != GCP_NONE &&
	    e->old_total_kb > 0)
		old = (double)e->old_after_kb / (double)e->old_total_kb;
	return old > heap ? old : heap;
}

/* Pause share (%) of [a, b]: stop-the-world pauses that start in it. */
static double pause_share(const struct gcp_event *ev, size_t n, int wall, int64_t a, int64_t b)
{
	double ms = 0;
	if (b <= a)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int64_t t = ev_time(&ev[i], wall);
		if (t != GCP_NONE && t >= a && t <= b && ev[i].kind != GCP_SAFEPOINT &&
		    ev[i].kind != GCP_CONCURRENT)
			ms += (double)ev[i].pause_us / 1000.0;
	}
	return ms * 100.0 / (double)(b - a);
}

/* The run of collections at the ceiling with the most full or failed ones, over the steady
 * window (see the header).  A failed collection belongs to a run whatever its occupancy;
 * a full one counts when it left the heap at the ceiling; other collections at the ceiling
 * extend a run; any other collection ends it. */
static void exhaustion(const struct gcp_event *ev, size_t n, struct gca_result *r)
{
	struct run {
		int64_t streak, fulls, failed, from, to, last_end;
		double lo, hi, after_mb, cap_mb;
	} cur = {0}, best = {0};
	int in = 0;

	for (size_t i = 0; i <= n; i++) {
		const struct gcp_event *e = i < n ? &ev[i] : NULL;
		double occ = -1;
		int failed = 0;
		if (e) {
			int64_t t = ev_time(e, r->wall_time);
			if (e->kind != GCP_YOUNG && e->kind != GCP_MIXED && e->kind != GCP_FULL)
				continue;
			failed = gcp_failed(e);
			r->failed += failed;
			if (t == GCP_NONE || t < r->steady_from_ms)
				continue;
			occ = occupancy(e, r->heap_max_mb);
			if (occ < 0 && !failed)
				continue;
		}
		if (e && (failed || occ >= GCA_EXH_CEIL)) {
			int64_t t = ev_time(e, r->wall_time);
			if (!in) {
				memset(&cur, 0, sizeof cur);
				cur.from = t, cur.lo = 1e9, in = 1;
			}
			cur.fulls += e->kind == GCP_FULL && occ >= GCA_EXH_CEIL;
			cur.failed += failed;
			cur.streak += failed || (e->kind == GCP_FULL && occ >= GCA_EXH_CEIL);
			cur.to = t;
			cur.last_end = t + e->pause_us / 1000;
			if (occ >= 0) {
				cur.lo = occ < cur.lo ? occ : cur.lo;
				cur.hi = occ > cur.hi ? occ : cur.hi;
				cur.after_mb = (double)e->heap_after_kb / 1024.0;
				cur.cap_mb = e->heap_total_kb != GCP_NONE
				                 ? (double)e->heap_total_kb / 1024.0
				                 : r->heap_max_mb;
			}
			continue;
		}
		if (in && cur.streak >= best.streak)
			best = cur;
		in = 0;
	}
	if (best.streak == 0)
		return;
	r->exh_streak = best.streak, r->exh_fulls = best.fulls, r->exh_failed = best.failed;
	r->exh_from_ms = best.from, r->exh_to_ms = best.to;
	r->exh_min_pct = best.lo < 1e9 ? best.lo * 100 : 0, r->exh_max_pct = best.hi * 100;
	r->exh_after_mb = best.after_mb, r->exh_cap_mb = best.cap_mb;
	r->exh_gc_pct = pause_share(ev, n, r->wall_time, best.from, best.last_end);
	r->pre_gc_pct = pause_share(ev, n, r->wall_time, r->first_ms, best.from - 1);
}

/* Whether the log is G1's: its causes say so ("G1 Evacuation Pause", "G1 Humongous
 * Allocation", ...), or it has mixed or cleanup pauses, which only G1 makes. */
static int is_g1(const struct gcp_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == GCP_MIXED || ev[i].kind == GCP_CLEANUP ||
		    !strncmp(ev[i].cause, "G1 ", 3))
			return 1;
	return 0;
}

/* The headroom fields (see the header), from the steady window [from, to]; r's series and
 * slope are set. */
static void headroom(const struct gcp_event *ev, size_t n, struct gca_result *r, int64_t from,
                     int64_t to)
{
	const struct gcp_event *last = NULL;
	double promoted_kb = 0, hours = (double)(to - from) / 3600000.0, heap_cap;
	size_t npromo = 0;
	int g1 = is_g1(ev, n);

	r->promo_mb_per_h = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct gcp_event *e = &ev[i];
		int64_t t = ev_time(e, r->wall_time);
		if (t == GCP_NONE || t < from || t > to ||
		    (e->kind != GCP_YOUNG && e->kind != GCP_MIXED))
			continue;
		/* What a young collection adds to the old generation is what it promoted (a
		 * G1 young pause that frees humongous regions shrinks it: nothing promoted). */
		if (e->kind == GCP_YOUNG && e->old_before_kb != GCP_NONE &&
		    e->old_after_kb != GCP_NONE) {
			if (e->old_after_kb > e->old_before_kb)
				promoted_kb += (double)(e->old_after_kb - e->old_before_kb);
			npromo++;
		}
		if (e->heap_after_kb != GCP_NONE || e->old_after_kb != GCP_NONE)
			last = e;
	}
	if (npromo >= 2 && hours > 0)
		r->promo_mb_per_h = promoted_kb / 1024.0 / hours;
	heap_cap = last && last->heap_total_kb != GCP_NONE && last->heap_total_kb > 0
	               ? (double)last->heap_total_kb / 1024.0
	               : r->heap_max_mb;
	if (last && last->old_after_kb != GCP_NONE) {
		r->level_of = "old generation";
		r->level_mb = (double)last->old_after_kb / 1024.0;
		if (!g1 && last->old_total_kb != GCP_NONE && last->old_total_kb > 0) {
			r->trigger = GCA_TRIG_OLD_FULL;
			r->cap_mb = r->trigger_mb = (double)last->old_total_kb / 1024.0;
		}
	} else if (r->npoints > 0) {
		/* The floor of the last window: heap after GC less what a young collection
		 * happened to leave in the survivor spaces. */
		r->level_of = "heap";
		r->level_mb = r->points[r->npoints - 1].heap_mb;
	} else {
		return;
	}
	if (r->trigger == GCA_TRIG_NONE) {
		r->cap_mb = heap_cap;
		r->trigger = g1 ? GCA_TRIG_G1_IHOP : GCA_TRIG_HEAP_FULL;
		r->trigger_mb = g1 ? GCA_G1_IHOP * heap_cap : heap_cap;
	}
	/* The rate: see "Headroom" in the header.  A rate that adds less than
	 * GCA_GROWTH_MIN_MB over the window is within the log's rounding: nothing measurable
	 * grows. */
	if (r->slope_mb_per_h * hours >= GCA_GROWTH_MIN_MB)
		r->growth_mb_per_h = r->slope_mb_per_h;
	if (!isnan(r->promo_mb_per_h) && r->promo_mb_per_h < r->growth_mb_per_h &&
	    !(r->rise_frac >= GCA_LEAK_RISE && r->tail_ratio >= GCA_LEAK_TAIL)) {
		r->growth_of_promo = 1;
		r->growth_mb_per_h =
		    r->promo_mb_per_h * hours >= GCA_GROWTH_MIN_MB ? r->promo_mb_per_h : 0;
	}
	r->to_trigger_h = r->level_mb >= r->trigger_mb ? 0
	                  : r->growth_mb_per_h > 0
	                      ? (r->trigger_mb - r->level_mb) / r->growth_mb_per_h
	                      : INFINITY;
}

/* The trend verdict (r->trend) and its sentence; r's series and fit are set. */
static void trend_verdict(struct gca_result *r, double heap_max, char *why, size_t len)
{
	if (r->rise_frac >= GCA_LEAK_RISE && r->r2 >= GCA_LEAK_R2 &&
	    r->tail_ratio >= GCA_LEAK_TAIL) {
		r->trend = GCA_SUSPECTED_LEAK;
		snprintf(why, len,
		         "heap after GC (%s) keeps rising: %+.1f MB/h over the steady window, "
		         "%.0f%% of the %.0f MB heap, R² %.2f, still rising in its second half",
		         r->basis, r->slope_mb_per_h, r->rise_frac * 100, heap_max, r->r2);
	} else {
		r->trend = GCA_NORMAL;
		const char *reason = r->rise_frac < GCA_LEAK_RISE ? "the floor is flat"
		                     : r->r2 < GCA_LEAK_R2        ? "the rise is not steady"
		                                                  : "the growth levels off";
		snprintf(why, len,
		         "heap after GC (%s) is reclaimed: %s (%+.1f MB/h, %.0f%% of the %.0f MB "
		         "heap over the steady window, R² %.2f)",
		         r->basis, reason, r->slope_mb_per_h, r->rise_frac * 100, heap_max, r->r2);
	}
}

static void seconds(char *buf, size_t len, int64_t ms)
{
	if (ms < 120000)
		snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
	else if (ms < 7200000)
		snprintf(buf, len, "%.1f min", (double)ms / 60000.0);
	else
		snprintf(buf, len, "%.1f h", (double)ms / 3600000.0);
}

/* " with 1 old-generation cycle" / " and no old-generation cycle" */
static void cycles_text(const struct gca_result *r, char *buf, size_t len)
{
	if (r->old_cycles == 0)
		snprintf(buf, len, "no old-generation cycle");
	else
		snprintf(buf, len, "only %lld old-generation cycle%s (%d tell a leak)",
		         (long long)r->old_cycles, r->old_cycles == 1 ? "" : "s",
		         GCA_MIN_OLD_CYCLES);
}

/* Fewer than GCA_MIN_OLD_CYCLES old-generation cycles over a window long enough: normal
 * when the floor is flat or levels off, rising when it still rises (see the header). */
static void few_cycles(struct gca_result *r)
{
	char w[32], c[96], h[384], t[32];
	int rising = r->rise_frac >= GCA_LEAK_RISE && r->tail_ratio >= GCA_LEAK_TAIL;

	dur_format((r->steady_to_ms - r->steady_from_ms + 500) / 1000 * 1000, w, sizeof w);
	cycles_text(r, c, sizeof c);
	gca_headroom_text(r, h, sizeof h);
	if (!rising) {
		r->memory = GCA_NORMAL;
		snprintf(r->why, sizeof r->why,
		         "heap after GC %s%s: %+.1f MB/h over %s of steady window (%.0f%% of the "
		         "%.0f MB heap, R² %.2f), %s; %s",
		         r->rise_frac < GCA_LEAK_RISE ? "is flat" : "levels off",
		         r->old_cycles ? " and piles nothing up"
		                       : " and never needed an old-generation collection",
		         r->slope_mb_per_h, w, r->rise_frac * 100, r->heap_max_mb, r->r2, c, h);
		return;
	}
	r->memory = GCA_RISING;
	size_t n = (size_t)snprintf(
	    r->why, sizeof r->why,
	    "heap after GC rises with %s to tell live data from garbage: %+.1f MB/h over %s of "
	    "steady window (%.0f%% of the %.0f MB heap, R² %.2f), %s; a leak is not ruled out: "
	    "%s",
	    r->old_cycles ? "too few old-generation collections" : "no old-generation collection",
	    r->slope_mb_per_h, w, r->rise_frac * 100, r->heap_max_mb, r->r2, c, h);
	if (n >= sizeof r->why)
		return;
	if (r->to_trigger_h > 0 && r->to_trigger_h <= GCA_LONGER_MAX_H) {
		r->run_longer_h = r->to_trigger_h;
		snprintf(r->why + n, sizeof r->why - n,
		         "; run at least %s longer to see whether an old collection frees it, or "
		         "force a full collection at the end (jcmd PID GC.run): what it leaves is "
		         "live",
		         gca_hours_text(r->to_trigger_h, t, sizeof t));
	} else {
		snprintf(r->why + n, sizeof r->why - n,
		         "; %s force a full collection at the end (jcmd PID GC.run): what it "
		         "leaves is live",
		         r->to_trigger_h > 0 ? "that is longer than a run can wait, so"
		                             : "if none comes soon,");
	}
}

/* The verdict shown: exhausted, too_short, few cycles' or the trend (see the header). */
static void decide(struct gca_result *r, const char *trend_why)
{
	char a[32], b[32], w[32], f[96] = "", l[32];

	r->run_longer_h = NAN;
	if (r->npoints == 0 && r->exh_streak < GCA_EXH_STREAK) {
		r->memory = GCA_UNKNOWN; /* no heap figures: no trend to call short */
		snprintf(r->why, sizeof r->why, "%s", trend_why);
		return;
	}
	if (r->exh_streak >= GCA_EXH_STREAK) {
		r->memory = GCA_EXHAUSTED;
		seconds(a, sizeof a, r->exh_from_ms - r->first_ms);
		seconds(b, sizeof b, r->exh_to_ms - r->first_ms);
		if (r->exh_failed)
			snprintf(f, sizeof f,
			         " and %lld failed ones (to-space exhausted, promotion failed or "
			         "percolated)",
			         (long long)r->exh_failed);
		snprintf(
		    r->why, sizeof r->why,
		    "heap exhausted: %lld back-to-back full collections%s left the heap at its "
		    "ceiling, %.0f-%.0f%% of capacity (%.1f of %.1f MB after the last), from %s "
		    "to %s into the log; GC took %.0f%% of that time against %.1f%% before",
		    (long long)r->exh_fulls, f, r->exh_min_pct, r->exh_max_pct, r->exh_after_mb,
		    r->exh_cap_mb, a, b, r->exh_gc_pct, r->pre_gc_pct);
		return;
	}
	if (gca_too_short(r->steady_to_ms - r->steady_from_ms)) {
		/* The log a window of GCA_MIN_WINDOW_MS needs, after its warm-up share. */
		double need_ms = GCA_MIN_WINDOW_MS / (1 - GCA_WARMUP_FRAC);
		r->memory = GCA_TOO_SHORT;
		r->run_longer_h = (need_ms - (double)(r->last_ms - r->first_ms)) / 3600000.0;
		/* a rate over so short a window is no ground for a projection */
		r->growth_mb_per_h = r->to_trigger_h = NAN;
		dur_format((r->steady_to_ms - r->steady_from_ms + 500) / 1000 * 1000, w, sizeof w);
		snprintf(r->why, sizeof r->why,
		         "too short to judge a trend: %s of steady window (at least %d min are "
		         "needed, after the first %.0f%% of the log as warm-up): run at least %s "
		         "longer; alone, %s",
		         w, GCA_MIN_WINDOW_MS / 60000, GCA_WARMUP_FRAC * 100,
		         gca_hours_text(r->run_longer_h, l, sizeof l), trend_why);
		return;
	}
	if (r->trend == GCA_UNKNOWN || r->old_cycles >= GCA_MIN_OLD_CYCLES) {
		r->memory = r->trend;
		snprintf(r->why, sizeof r->why, "%s", trend_why);
		return;
	}
	few_cycles(r);
}

int gca_analyze(const struct gcp_event *ev, size_t n, struct gca_result *r, char *err,
                size_t errlen)
{
	int64_t from, to;
	double heap_max = 0, hours, tail_slope, ti, tr2;
	char why[sizeof r->why];

	memset(r, 0, sizeof *r);
	r->basis = "none";
	r->level_of = "heap";
	r->promo_mb_per_h = r->to_trigger_h = r->run_longer_h = NAN;
	r->memory = r->trend = GCA_UNKNOWN;
	r->wall_time = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].t_ms == GCP_NONE)
			r->wall_time = 0;
		int64_t h =
		    ev[i].heap_total_kb != GCP_NONE ? ev[i].heap_total_kb : ev[i].heap_before_kb;
		if (h != GCP_NONE && (double)h / 1024.0 > heap_max)
			heap_max = (double)h / 1024.0;
	}
	r->heap_max_mb = heap_max;
	if (pauses(ev, n, r, err, errlen) < 0)
		return -1;
	if (r->last_ms <= r->first_ms) {
		snprintf(r->why, sizeof r->why, "no time span to judge memory on");
		return 0;
	}
	from = r->first_ms + (int64_t)((double)(r->last_ms - r->first_ms) * GCA_WARMUP_FRAC);
	to = r->last_ms;
	r->steady_from_ms = from, r->steady_to_ms = to;
	r->old_cycles = old_cycles(ev, n, r->wall_time, from, to);
	exhaustion(ev, n, r);
	if (series(ev, n, r, from, to, err, errlen) < 0)
		return -1;
	if (r->npoints < GCA_MIN_POINTS || heap_max <= 0 ||
	    fit(r, 0, r->npoints, from, &r->slope_mb_per_h, &r->intercept_mb, &r->r2) < 0) {
		snprintf(why, sizeof why,
		         "only %zu heap-after-GC points in the steady window: too few to judge",
		         r->npoints);
		decide(r, why);
		return 0;
	}
	hours = (double)(to - from) / 3600000.0;
	r->rise_frac = r->slope_mb_per_h * hours / heap_max;
	/* The second half of the points: does the floor still rise? */
	size_t half = r->npoints / 2;
	if (r->npoints - half >= 2 && fit(r, half, r->npoints, from, &tail_slope, &ti, &tr2) == 0 &&
	    r->slope_mb_per_h > 0)
		r->tail_ratio = tail_slope / r->slope_mb_per_h;
	else
		r->tail_ratio = 0;

	headroom(ev, n, r, from, to);
	trend_verdict(r, heap_max, why, sizeof why);
	decide(r, why);
	return 0;
}
