/* report_mem: process memory (PSS or RSS) of a source over its measured window, judged
 * the way gcanalysis judges the heap after GC: a trend over window means rather than
 * every sample, growth that levels off named as such, a steady rise still present in the
 * window's second half as the only worrying case, and a level at a configured limit named
 * as that limit.  Numbers and a verdict only: report_mem_text.c says why in words. */
#include "report_mem.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_WINDOWS    10   /* equal windows of the measured window, each one point */
#define MEM_MIN_POINTS 4    /* windows with samples needed for a verdict */
#define MEM_RISE       0.10 /* rising: the trend adds this share of the mean ... */
#define MEM_R2         0.60 /* ... steadily ... */
#define MEM_TAIL       0.30 /* ... and the second half rises at this share of the whole */
#define MEM_LEVEL_TOL  0.05 /* the steady part stays within this share of the last level */
#define MEM_LEVEL_MB   1.0  /* ... or within this many MB (a small process) */
#define MEM_GROWTH     0.10 /* growth before the steady part worth naming: share of level */
#define MEM_AT_LIMIT   0.95 /* a level at this share of the limit is at the limit */

const char *rpt_mem_name(enum rpt_mem_verdict v)
{
	static const char *const names[] = {
	    [RPT_MEM_UNKNOWN] = "unknown",       [RPT_MEM_FLAT] = "flat",
	    [RPT_MEM_LEVELS_OFF] = "levels_off", [RPT_MEM_AT_LIMIT] = "at_limit",
	    [RPT_MEM_RISING] = "rising",         [RPT_MEM_FILLING] = "filling"};
	return v <= RPT_MEM_FILLING ? names[v] : "unknown";
}

const char *rpt_memk_name(enum rpt_memk k)
{
	static const char *const names[] = {"private", "shared", "file"};
	return k < RPT_MEMK_N ? names[k] : "";
}

/* Least squares over points p[a..b) with x in hours since t0_s. */
static int fit(const struct rpt_vpoint *p, size_t a, size_t b, double t0_s, double *slope,
               double *r2)
{
	double *x = malloc((b - a + 1) * sizeof *x), *y = malloc((b - a + 1) * sizeof *y), icept;
	int rc = -1;

	if (x && y) {
		for (size_t i = a; i < b; i++) {
			x[i - a] = (p[i].t_s - t0_s) / 3600.0;
			y[i - a] = p[i].v;
		}
		rc = gca_linreg(x, y, b - a, slope, &icept, r2);
	}
	free(x);
	free(y);
	return rc;
}

void rpt_mem_analyze(const struct rpt_vpoint *p, size_t n, double limit_mb, double min_hours,
                     struct rpt_mem *m)
{
	struct rpt_vpoint w[MEM_WINDOWS];
	size_t nw = 0, i0, half;
	double t0, t1, hours, sum = 0, slope = 0, r2 = 0, tail = 0, tr2, width, tol;
	memset(m, 0, sizeof *m);
	m->verdict = RPT_MEM_UNKNOWN;
	m->limit_mb = limit_mb > 0 ? limit_mb : NAN;
	m->min_hours = min_hours > 0 ? min_hours : RPT_MEM_MIN_HOURS;
	m->level_mb = m->growth_mb = m->steady_slope_mb_h = m->steady_r2 = NAN;
	if (n == 0) {
		m->unknown = RPT_MEM_NO_SAMPLES;
		return;
	}
	t0 = p[0].t_s;
	t1 = p[n - 1].t_s;
	m->to_s = t1;
	hours = (t1 - t0) / 3600.0;
	m->hours = hours;
	for (size_t i = 0; i < n; i++)
		sum += p[i].v;
	m->mean_mb = sum / (double)n;
	/* One point per window: its mean, at its samples' mean time. */
	width = (t1 - t0) / MEM_WINDOWS;
	for (size_t i = 0, k = 0; i < n && width > 0; k++) {
		double ts = 0, vs = 0;
		size_t c = 0;
		for (; i < n && (k == MEM_WINDOWS - 1 || p[i].t_s < t0 + width * (double)(k + 1));
		     i++)
			ts += p[i].t_s, vs += p[i].v, c++;
		if (c) {
			w[nw].t_s = ts / (double)c;
			w[nw++].v = vs / (double)c;
		}
		if (k == MEM_WINDOWS - 1)
			break;
	}
	m->level_mb = nw ? w[nw - 1].v : p[n - 1].v;
	if (m->limit_mb > 0 && m->level_mb >= MEM_AT_LIMIT * m->limit_mb) {
		m->verdict = RPT_MEM_AT_LIMIT;
		return;
	}
	/* n samples a period apart cover n periods: a 5-minute window sampled every 5 s spans
	 * 4m55s between its first and last sample, and is 5 minutes long (give or take the
	 * milliseconds a sample comes late: 1 %). */
	if (hours + (n > 1 ? hours / (double)(n - 1) : 0) < 0.99 * m->min_hours ||
	    nw < MEM_MIN_POINTS) {
		m->unknown = RPT_MEM_SHORT;
		return;
	}
	if (fit(w, 0, nw, t0, &slope, &r2) < 0) {
		m->unknown = RPT_MEM_NO_TREND;
		return;
	}
	m->slope_mb_h = slope;
	m->r2 = r2;
	m->rise_frac = m->mean_mb > 0 ? slope * hours / m->mean_mb : 0;
	half = nw / 2;
	if (slope > 0 && fit(w, half, nw, t0, &tail, &tr2) == 0)
		m->tail_ratio = tail / slope;
	/* The steady part: the longest run of last windows within tolerance of the level. */
	tol = fmax(MEM_LEVEL_TOL * fabs(m->level_mb), MEM_LEVEL_MB);
	i0 = nw - 1;
	while (i0 > 0 && fabs(w[i0 - 1].v - m->level_mb) <= tol)
		i0--;
	{
		double from = i0 == 0 ? t0 : (w[i0 - 1].t_s + w[i0].t_s) / 2;
		size_t s0 = 0;
		while (s0 < n && p[s0].t_s < from)
			s0++;
		double low = p[0].v;
		for (size_t i = 1; i < s0; i++)
			low = fmin(low, p[i].v);
		m->steady_from_s = from;
		if (n - s0 >= 2)
			fit(p, s0, n, from, &m->steady_slope_mb_h, &m->steady_r2);
		/* From the lowest sample before the steady part: where the growth started. */
		m->growth_mb = m->level_mb - low;
		m->growth_s = from - t0;
	}
	if (m->rise_frac >= MEM_RISE && r2 >= MEM_R2 && m->tail_ratio >= MEM_TAIL) {
		m->verdict = RPT_MEM_RISING;
	} else if (i0 > 0 && m->growth_mb >= fmax(MEM_GROWTH * m->level_mb, MEM_LEVEL_MB)) {
		m->verdict = RPT_MEM_LEVELS_OFF;
	} else {
		m->verdict = RPT_MEM_FLAT;
		m->shrinks = m->rise_frac <= -MEM_RISE;
	}
}

/* Whether a kind grows over the window: rising, or growth that levels off. */
static int grows(const struct rpt_mem *k)
{
	return k->verdict == RPT_MEM_RISING || k->verdict == RPT_MEM_LEVELS_OFF;
}

/* The whole's verdict is about what the processes hold; the kinds say whether growth can be
 * a leak.  Only private memory grows without a bound a process cannot pass; shared memory
 * is bounded by what the set maps (a database's cache fills up to it and stays); file-backed
 * pages are the kernel's to drop. */
void rpt_mem_by_kind(struct rpt_mem *m, struct rpt_memkinds *k)
{
	const struct rpt_mem *priv = &k->k[RPT_MEMK_PRIVATE], *shared = &k->k[RPT_MEMK_SHARED];
	int bound = isfinite(k->shared_bound_mb) || isfinite(k->shared_buffers_mb);

	k->by = -1;
	if (!k->has)
		return;
	if (priv->verdict == RPT_MEM_RISING) {
		m->verdict = RPT_MEM_RISING;
		k->by = RPT_MEMK_PRIVATE;
	} else if (m->verdict == RPT_MEM_AT_LIMIT) {
		return; /* held at its configured limit: said as that */
	} else if (grows(shared) && bound) {
		m->verdict = RPT_MEM_FILLING;
		k->by = RPT_MEMK_SHARED;
	} else if (shared->verdict == RPT_MEM_RISING) {
		m->verdict = RPT_MEM_RISING;
		k->by = RPT_MEMK_SHARED;
	} else if (m->verdict == RPT_MEM_RISING && k->k[RPT_MEMK_FILE].verdict == RPT_MEM_RISING) {
		k->by = RPT_MEMK_FILE;
	} else if (m->verdict == RPT_MEM_RISING) {
		/* No kind rises: the whole's slope sums growth that levels off (file pages
		 * read in once) and drifts under the bar; no memory keeps rising. */
		int any = grows(priv) || grows(shared) || grows(&k->k[RPT_MEMK_FILE]);
		m->verdict = any ? RPT_MEM_LEVELS_OFF : RPT_MEM_FLAT;
	}
}

void rpt_mem_judge(struct rpt_mem *m, struct rpt_memkinds *k, const struct rpt_vpoint *p, size_t n,
                   double limit_mb, struct rpt_vpoint *const kp[RPT_MEMK_N], size_t kn,
                   double min_hours)
{
	rpt_mem_analyze(p, n, limit_mb, min_hours, m);
	/* No limit for a kind: its growth is judged first, its bound weighed by kind. */
	for (int j = 0; j < RPT_MEMK_N && k->has; j++)
		rpt_mem_analyze(kp[j], kn, 0, min_hours, &k->k[j]);
	rpt_mem_by_kind(m, k);
}
