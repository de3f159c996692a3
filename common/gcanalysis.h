/*
 * gcanalysis — figures and a memory verdict from an array of GC events.
 *
 * Independent of the database and of files: `soak-gclog --summary` passes the events it
 * parsed, `soak report` the rows it read from gc_events (converted to struct gcp_event).
 * The caller owns the events; gca_analyze() reads them only and fills a result whose
 * points array it allocates (gca_result_free releases it).  No global state.
 *
 * Figures: counts by kind, pause total / max / p99 (stop-the-world events only: safepoint
 * records overlap GC pauses and are reported apart), gc_time_pct (pause share of the log's
 * time span), and the slope (MB/h) and R² of heap-after-GC over the steady window.
 *
 * Memory verdict, by principle rather than by collector:
 *   - the steady window leaves out the first GCA_WARMUP_FRAC of the log's span (warm-up);
 *   - the series regressed is the heap left after full GCs when the window holds at least
 *     three of them ("post-full"), otherwise the floor of heap-after-GC: the smallest value
 *     in each of GCA_WINDOWS equal time windows ("window-floor"), which is what stays live
 *     whatever the collector's schedule (young-only drift of G1 and a filling cache do not
 *     raise the floor until they are really retained);
 *   - suspected_leak when the floor rose over the window by at least GCA_LEAK_RISE of the
 *     heap's size, with R² >= GCA_LEAK_R2 (it rises steadily, not in one jump or a
 *     sawtooth), and it still rises in the window's second half at no less than
 *     GCA_LEAK_TAIL of the whole slope (warm-up growth that levels off is normal).
 *   - unknown when fewer than GCA_MIN_POINTS regression points exist.
 * That is the trend verdict (gca_result.trend).  The verdict shown (gca_result.memory) puts
 * three rules before it:
 *   - exhausted, whatever the window's length, when the heap ran out in the steady window:
 *     a run of consecutive collections (young, mixed, full; remarks, cleanups and
 *     concurrent phases neither extend nor break it) holding at least GCA_EXH_STREAK
 *     collections that are full and left the heap at its ceiling, or failed (gcp_failed:
 *     to-space exhausted, promotion failed, a J9 percolate); other collections in it are
 *     at the ceiling too.  At the ceiling: occupancy after the collection >= GCA_EXH_CEIL
 *     of the capacity, taking for a full collection the fuller of the whole heap and the
 *     old generation when the log gives it (a full old generation fails every promotion
 *     whatever room the young one has; J9 also counts its reserved survivor space as used,
 *     so its whole heap never looks full).  Measured on the fixtures: full collections of
 *     healthy runs leave at most 72 % of capacity, those of runs that died of
 *     OutOfMemoryError 92-100 %; GCA_EXH_CEIL sits between with room on both sides.
 *     This is a new verdict rather than suspected_leak because it states something else
 *     and asks for something else: the application ran out of heap during the run (its
 *     figures from then on are those of a failing JVM), through a leak or an undersized
 *     -Xmx alike; and it must not wait for a trend: a leak that has reached the ceiling
 *     levels off there, which the trend alone reads as "growth that levels off".  The
 *     reason states the collections, the level against the capacity, when, and the GC
 *     time share in the run against before it (GC time rising to most of the wall time).
 *     A log with only the whole heap (`-Xlog:gc`) cannot show an old generation that is
 *     full while the young one has room; `-Xlog:gc*` can.
 *   - too_short, otherwise, when the steady window is shorter than GCA_MIN_WINDOW_MS
 *     (gca_too_short: the one rule every memory trend of the report follows, process
 *     memory included).  The why gives what the trend alone said and how much longer the
 *     log must run (run_longer_h).
 *   - with fewer than GCA_MIN_OLD_CYCLES old-generation cycles in the window, the trend
 *     cannot tell live data from garbage waiting for an old collection, but the floor
 *     still says what accumulates: a floor that is flat or levels off is normal (nothing
 *     piles up, so no old collection is needed: the best a soak can show of a server that
 *     promotes next to nothing), and the why gives the headroom; a floor that still rises
 *     (rise >= GCA_LEAK_RISE of the heap, still rising in the second half) is `rising`: a
 *     leak is not ruled out, and the why says when, at the measured rate, an old
 *     collection would come and tell (run_longer_h, when a run could wait for it).
 * Headroom: the occupancy left by the window's last young collection (the old generation
 * when the log gives it, else the floor of heap after GC), against the level at which an
 * old-generation collection would start: for G1, GCA_G1_IHOP of the heap (its default
 * InitiatingHeapOccupancyPercent, where adaptive IHOP starts too; G1 is told by its
 * causes, "G1 ...", or by mixed and cleanup pauses); for other collectors the old
 * generation's capacity when the log gives it, else the heap's (a full collection comes
 * then at the latest).  The rate toward it is the floor's slope, counted only when it adds
 * GCA_GROWTH_MIN_MB or more over the window (unified logs print whole MB: less is
 * rounding, and a projection from it noise).  For a rising floor, not the promotion (the
 * old generation's growth at young collections, given too when the log has it): objects
 * that sat in the survivor spaces are on the floor already when they are promoted, so
 * promotion can run ahead of what the heap gains (measured: a G1 slow leak promoted 141
 * MB/h over a window in which its floor rose 121 MB/h, the rate it leaked at; its
 * concurrent cycle came 4 s after where the floor's rate put it, 4.5 min after where
 * promotion's did).  For a floor that does not keep rising, the promotion when the log
 * gives it and it is lower: the floor also holds the survivor spaces, which can fill a
 * little while nothing reaches the old generation (measured: Tomcat 9 under load for 50
 * minutes, floor +2.3 MB/h, old generation flat at 11 MB, promotion 0).
 * Old-generation cycles: distinct GC ids (events without an id count one each) of full
 * collections, remarks (a concurrent old-generation marking ended: G1, CMS, Shenandoah,
 * ZGC) and concurrent events with heap figures and no pause (ZGC cycles; generational
 * ZGC's minor marks count too: stored events do not tell them apart).
 * Time base: wall time when every event has one, else uptime.
 */
#ifndef SOAK_GCANALYSIS_H
#define SOAK_GCANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "gcparse.h"

#define GCA_WARMUP_FRAC    0.2  /* share of the span treated as warm-up */
#define GCA_WINDOWS        10   /* floor windows over the steady part */
#define GCA_MIN_POINTS     4    /* regression points needed for a verdict */
#define GCA_LEAK_RISE      0.10 /* floor rise over the window, as a share of the heap */
#define GCA_LEAK_R2        0.60 /* minimum R² of the rising floor */
#define GCA_LEAK_TAIL      0.30 /* second-half slope / whole slope below this: levelled off */
#define GCA_EXH_CEIL       0.85 /* occupancy after GC at or above this share of capacity: ceiling */
#define GCA_EXH_STREAK     3    /* full or failed collections at the ceiling in a row: exhausted */
#define GCA_MIN_WINDOW_MS  (10 * 60 * 1000) /* shortest window a memory trend is judged on */
#define GCA_MIN_OLD_CYCLES 3    /* fewest old-generation cycles a trend tells a leak on */
#define GCA_G1_IHOP        0.45 /* G1's InitiatingHeapOccupancyPercent default, as a share */
#define GCA_LONGER_MAX_H   72.0 /* longest extra run worth advising (a long soak: 72 h) */
#define GCA_GROWTH_MIN_MB  1.0  /* growth over the window below this is the log's rounding */

enum gca_memory {
	GCA_UNKNOWN,
	GCA_NORMAL,
	GCA_SUSPECTED_LEAK,
	GCA_EXHAUSTED,
	GCA_TOO_SHORT,
	GCA_RISING /* the floor rises, too few old-generation cycles to tell a leak */
};

/* What would start an old-generation collection (see "Headroom" above). */
enum gca_trigger {
	GCA_TRIG_NONE,      /* no heap figures */
	GCA_TRIG_G1_IHOP,   /* G1: old generation at GCA_G1_IHOP of the heap */
	GCA_TRIG_OLD_FULL,  /* the old generation full (its capacity from the log) */
	GCA_TRIG_HEAP_FULL, /* the heap full (no old-generation figures) */
};

/* One regression point: for a picture of heap-after-GC with its trend line. */
struct gca_point {
	int64_t t_ms;   /* time (wall or uptime, see gca_result.wall_time) */
	double heap_mb; /* heap after GC (MB) at that time */
};

struct gca_result {
	int64_t count[GCP_KIND_COUNT];        /* events by kind */
	int64_t events;                       /* all events */
	int64_t pauses;                       /* stop-the-world events with a pause */
	double pause_total_ms;                /* sum of stop-the-world pauses */
	double pause_max_ms;                  /* the longest */
	double pause_p99_ms;                  /* 99th percentile (nearest rank) */
	double safepoint_total_ms;            /* sum of safepoint records (not in the above) */
	int wall_time;                        /* 1: times below are epoch ms; 0: uptime ms */
	int64_t first_ms, last_ms;            /* span of the log (event start to last event end) */
	double gc_time_pct;                   /* pause_total / span * 100 (0 when no span) */
	double heap_max_mb;                   /* heap size the slope is judged against */
	const char *basis;                    /* "post-full", "window-floor" or "none" */
	int64_t steady_from_ms, steady_to_ms; /* the steady window */
	double slope_mb_per_h;                /* of the regression points (0 when none) */
	double intercept_mb; /* trend line: mb = intercept + slope * h since from */
	double r2;           /* coefficient of determination (0 when none) */
	double rise_frac;    /* slope * window hours / heap_max_mb */
	double tail_ratio;   /* second-half slope / whole slope */
	int64_t old_cycles;  /* old-generation cycles in the steady window */
	int64_t failed;      /* failed collections in the log (gcp_failed) */
	/* The run of collections at the ceiling with the most full or failed ones */
	int64_t exh_streak;              /* its full or failed collections (0: no such run) */
	int64_t exh_fulls;               /* of which full */
	int64_t exh_failed;              /* of which failed (a collection may be both) */
	int64_t exh_from_ms, exh_to_ms;  /* first and last collection of it (time base above) */
	double exh_min_pct, exh_max_pct; /* occupancy after its collections, % of capacity */
	double exh_after_mb, exh_cap_mb; /* heap after GC at its last collection, capacity */
	double exh_gc_pct;               /* pause share of wall time from its start to its end */
	double pre_gc_pct;               /* pause share before it (from the log's start) */
	/* Headroom, from the steady window (see the header) */
	const char *level_of;     /* "old generation" or "heap" (after GC): what level_mb is */
	double level_mb;          /* occupancy after the window's last young collection */
	double cap_mb;            /* the capacity level_mb is a share of (heap or old gen) */
	enum gca_trigger trigger; /* what would start an old-generation collection */
	double trigger_mb;        /* ... at this level_mb */
	double promo_mb_per_h;    /* promotion into the old generation; NAN: not logged */
	double growth_mb_per_h;   /* the rate projected: the floor's slope, or the promotion
	                           * (see the header); 0 when it adds less than
	                           * GCA_GROWTH_MIN_MB over the window */
	int growth_of_promo;      /* 1: growth_mb_per_h is the promotion */
	double to_trigger_h;      /* at that rate, hours to trigger_mb: 0 when already
	                           * past it, INFINITY when nothing grows; NAN (and
	                           * growth too) when the window is too short */
	double run_longer_h;      /* how much longer the log must run to decide the
	                           * verdict; NAN when running longer would not */
	enum gca_memory trend;    /* the heap-after-GC trend alone: normal, suspected_leak,
	                           * unknown */
	enum gca_memory memory;   /* the verdict: exhausted, too_short, rising, else the
	                           * trend */
	char why[768];            /* the verdict in a sentence, with its numbers */
	struct gca_point *points; /* regression points (allocated; may be NULL) */
	size_t npoints;           /* how many */
};

/* Analyses ev[0..n).  Returns 0, or -1 with err filled (out of memory); *r is then
 * still safe to free.  n may be 0. */
int gca_analyze(const struct gcp_event *ev, size_t n, struct gca_result *r, char *err,
                size_t errlen);
void gca_result_free(struct gca_result *r);
/* "normal", "suspected_leak", "exhausted", "too_short", "rising", "unknown": names for
 * data. */
const char *gca_memory_name(enum gca_memory m);
/* "normal", "suspected leak", "exhausted", "too short", "rising", "unknown": words for
 * people. */
const char *gca_memory_text(enum gca_memory m);
/* "g1_ihop", "old_full", "heap_full", "none": names for data. */
const char *gca_trigger_name(enum gca_trigger t);
/* The one minimum-window rule for a memory trend: 1 when window_ms is shorter than
 * GCA_MIN_WINDOW_MS. */
int gca_too_short(int64_t window_ms);
/* The headroom in words, from r's headroom fields: "the old generation holds 24.0 MB (9% of
 * the 256 MB heap), 91.2 MB below the 45% of the heap (115 MB) at which G1 starts a
 * concurrent cycle by default; at the floor's +0.40 MB/h (promotion +0.38 MB/h) it would
 * get there in about 9d12h".  Empty when r has no headroom (trigger GCA_TRIG_NONE).
 * Returns buf. */
const char *gca_headroom_text(const struct gca_result *r, char *buf, size_t len);
/* A duration of h hours as a scenario would write it, rounded up: "45s", "12m", "1h18m",
 * "9d12h"; "-" when not finite.  Returns buf. */
const char *gca_hours_text(double h, char *buf, size_t len);

/* Least squares over (x[i], y[i]): slope, intercept and R² (0 when every y is equal: no
 * trend to explain).  Returns -1 when n < 2 or every x is equal. */
int gca_linreg(const double *x, const double *y, size_t n, double *slope, double *icept,
               double *r2);

#endif
