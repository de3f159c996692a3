/*
 * jmagg — one row of JMeter's Aggregate Report, computed as JMeter 2.13 computes it, so an
 * imported file's figures can be held against what JMeter itself shows for it.
 *
 * JMeter 2.13's Aggregate Report (StatVisualizer, one SamplingStatCalculator per label and
 * one for TOTAL) keeps every elapsed value, exactly, in whole milliseconds (StatCalculator:
 * a sorted map of value to count), over every sample, failed ones included, and shows:
 *   samples   the count
 *   average   the mean cut to a whole ms: (long)(sum / count)
 *   median    getPercentPoint(0.5)
 *   90/95/99% getPercentPoint(p) with p = (double)(90f / 100f) and so on: the property
 *             aggregate_rpt_pct1..3 parsed as a Java float and divided in float, so 0.9 is
 *             0.89999997615814208984375
 *   min, max
 *   error %   failed / count
 *   throughput count / (latest end - earliest start) * 1000 per second
 * getPercentPoint(p): p >= 1 gives the max; otherwise target = Math.round(count * p) (ties
 * up), and the answer is the smallest value whose cumulative count reaches target (the
 * smallest value when target <= 0).
 *
 * Memory: a hash of the distinct values (not of the samples), bounded by JMAGG_MAX_VALUES
 * per row, and for rows that share one, by an allowance (budget): past either the row
 * keeps its counts, mean, min and max but no percentiles (jmagg_row's exact = 0).  Not
 * thread-safe.
 */
#ifndef SOAK_JMAGG_H
#define SOAK_JMAGG_H

#include <stdint.h>

#define JMAGG_MAX_VALUES (1 << 21) /* distinct elapsed values a row keeps exactly */

struct jmagg {
	int64_t *key, *count; /* open addressing; key -1 = empty slot (elapsed is >= 0) */
	int64_t slots, used;  /* slots allocated (a power of two), distinct values held */
	int64_t samples, errors;
	int64_t sum;         /* of elapsed, ms (bounded: elapsed <= 100 years of ms) */
	int64_t min, max;    /* of elapsed, ms */
	int64_t first_start; /* earliest sample start, ms */
	int64_t last_end;    /* latest sample end, ms */
	int lost;            /* the values outgrew their bound: no percentiles */
	int64_t *budget;     /* distinct values rows may still add, shared; NULL: none */
};

/* What the report's row shows.  Values in whole ms; rate_per_s is NAN when every sample
 * started and ended within one millisecond (JMeter divides by zero there). */
struct jmagg_row {
	int64_t samples, errors;
	int64_t average, median, p90, p95, p99, min, max;
	double mean_ms;    /* the mean before JMeter cuts it */
	double error_frac; /* errors / samples */
	double rate_per_s;
	int exact; /* 1: percentiles computed; 0: too many distinct values kept none */
};

/* budget may be NULL (only JMAGG_MAX_VALUES bounds the row). */
void jmagg_init(struct jmagg *a, int64_t *budget);
/* Adds a sample; -1 only when out of memory (past JMAGG_MAX_VALUES the row is marked lost,
 * which is not a failure). */
int jmagg_add(struct jmagg *a, int64_t elapsed_ms, int failed, int64_t start_ms, int64_t end_ms);
/* The row as JMeter shows it (zeros for an empty row); -1 when out of memory. */
int jmagg_row(const struct jmagg *a, struct jmagg_row *out);
void jmagg_release(struct jmagg *a);

/* JMeter's percent for a property value such as 90: (double)(90f / 100f). */
double jmagg_percent(float pct);
/* StatCalculator.getPercentPoint over sorted distinct values and their counts (n of them,
 * total samples count). */
int64_t jmagg_percent_point(const int64_t *values, const int64_t *counts, int64_t n, int64_t total,
                            double percent);

#endif
