/* gcanalysis: counts, pause statistics and the heap-after-GC trend of a list of events. */
#include "gcanalysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gca_memory_name(enum gca_memory m)
{
	switch (m) {
	case GCA_NORMAL: return "normal";
	case GCA_SUSPECTED_LEAK: return "suspected_leak";
	default: return "unknown";
	}
}

int gca_linreg(const double *x, const double *y, size_t n, double *slope, double *icept,
	       double *r2)
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
			int64_t hi = w == GCA_WINDOWS - 1 ? to + 1 : from + (int64_t)(width * (w + 1));
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

int gca_analyze(const struct gcp_event *ev, size_t n, struct gca_result *r, char *err,
		size_t errlen)
{
	int64_t from, to;
	double heap_max = 0, hours, tail_slope, ti, tr2;

	memset(r, 0, sizeof *r);
	r->basis = "none";
	r->memory = GCA_UNKNOWN;
	r->wall_time = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].t_ms == GCP_NONE)
			r->wall_time = 0;
		int64_t h = ev[i].heap_total_kb != GCP_NONE ? ev[i].heap_total_kb
							     : ev[i].heap_before_kb;
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
	if (series(ev, n, r, from, to, err, errlen) < 0)
		return -1;
	if (r->npoints < GCA_MIN_POINTS || heap_max <= 0 ||
	    fit(r, 0, r->npoints, from, &r->slope_mb_per_h, &r->intercept_mb, &r->r2) < 0) {
		snprintf(r->why, sizeof r->why,
			 "only %zu heap-after-GC points in the steady window: too few to judge",
			 r->npoints);
		return 0;
	}
	hours = (double)(to - from) / 3600000.0;
	r->rise_frac = r->slope_mb_per_h * hours / heap_max;
	/* The second half of the points: does the floor still rise? */
	size_t half = r->npoints / 2;
	if (r->npoints - half >= 2 &&
	    fit(r, half, r->npoints, from, &tail_slope, &ti, &tr2) == 0 && r->slope_mb_per_h > 0)
		r->tail_ratio = tail_slope / r->slope_mb_per_h;
	else
		r->tail_ratio = 0;

	if (r->rise_frac >= GCA_LEAK_RISE && r->r2 >= GCA_LEAK_R2 &&
	    r->tail_ratio >= GCA_LEAK_TAIL) {
		r->memory = GCA_SUSPECTED_LEAK;
		snprintf(r->why, sizeof r->why,
			 "heap after GC (%s) keeps rising: %+.1f MB/h over the steady window, "
			 "%.0f%% of the %.0f MB heap, R² %.2f, still rising in its second half",
			 r->basis, r->slope_mb_per_h, r->rise_frac * 100, heap_max, r->r2);
	} else {
		r->memory = GCA_NORMAL;
		const char *reason = r->rise_frac < GCA_LEAK_RISE ? "the floor is flat"
				     : r->r2 < GCA_LEAK_R2        ? "the rise is not steady"
								  : "the growth levels off";
		snprintf(r->why, sizeof r->why,
			 "heap after GC (%s) is reclaimed: %s (%+.1f MB/h, %.0f%% of the %.0f MB "
			 "heap over the steady window, R² %.2f)",
			 r->basis, reason, r->slope_mb_per_h, r->rise_frac * 100, heap_max, r->r2);
	}
	return 0;
}
