/* jmagg: one row of JMeter 2.13's Aggregate Report, computed as JMeter computes it
 * (jmagg.h), so an import's figures can be held against JMeter's own. */
#include "jmagg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jmagg_init(struct jmagg *a, int64_t *budget)
{
	memset(a, 0, sizeof *a);
	a->budget = budget;
	a->min = INT64_MAX;
	a->max = -1;
	a->first_start = INT64_MAX;
	a->last_end = INT64_MIN;
}

void jmagg_release(struct jmagg *a)
{
	free(a->key);
	free(a->count);
	a->key = a->count = NULL;
	a->slots = a->used = 0;
}

static uint64_t mix(int64_t v)
{
	uint64_t x = (uint64_t)v * 0x9E3779B97F4A7C15u; /* Fibonacci hashing */
	return x ^ (x >> 29);
}

/* Doubles the table (or makes its first one); -1 out of memory. */
static int grow(struct jmagg *a)
{
	int64_t ns = a->slots ? a->slots * 2 : 64;
	int64_t *k = malloc((size_t)ns * sizeof *k), *c = malloc((size_t)ns * sizeof *c);

	if (!k || !c) {
		free(k);
		free(c);
		return -1;
	}
	for (int64_t i = 0; i < ns; i++)
		k[i] = -1;
	for (int64_t i = 0; i < a->slots; i++) {
		if (a->key[i] < 0)
			continue;
		uint64_t j = mix(a->key[i]) & (uint64_t)(ns - 1);
		while (k[j] >= 0)
			j = (j + 1) & (uint64_t)(ns - 1);
		k[j] = a->key[i];
		c[j] = a->count[i];
	}
	free(a->key);
	free(a->count);
	a->key = k;
	a->count = c;
	a->slots = ns;
	return 0;
}

int jmagg_add(struct jmagg *a, int64_t elapsed_ms, int failed, int64_t start_ms, int64_t end_ms)
{
	a->samples++;
	a->errors += failed != 0;
	a->sum += elapsed_ms;
	if (elapsed_ms < a->min)
		a->min = elapsed_ms;
	if (elapsed_ms > a->max)
		a->max = elapsed_ms;
	if (start_ms < a->first_start)
		a->first_start = start_ms;
	if (end_ms > a->last_end)
		a->last_end = end_ms;
	if (a->lost)
		return 0;
	if (a->slots) {
		uint64_t j = mix(elapsed_ms) & (uint64_t)(a->slots - 1);
		while (a->key[j] >= 0 && a->key[j] != elapsed_ms)
			j = (j + 1) & (uint64_t)(a->slots - 1);
		if (a->key[j] == elapsed_ms) {
			a->count[j]++;
			return 0;
		}
	}
	if (a->used >= JMAGG_MAX_VALUES || (a->budget && *a->budget <= 0)) {
		/* Too many distinct values to keep: the row's percentiles are given up. */
		a->lost = 1;
		jmagg_release(a);
		return 0;
	}
	/* At most half full, so probes stay short. */
	if ((a->used + 1) * 2 > a->slots && grow(a) < 0)
		return -1;
	uint64_t j = mix(elapsed_ms) & (uint64_t)(a->slots - 1);
	while (a->key[j] >= 0)
		j = (j + 1) & (uint64_t)(a->slots - 1);
	a->key[j] = elapsed_ms;
	a->count[j] = 1;
	a->used++;
	if (a->budget)
		(*a->budget)--;
	return 0;
}

double jmagg_percent(float pct)
{
	/* As StatGraphVisualizer: new Float(Float.parseFloat(label) / 100), in float. */
	volatile float f = pct / 100.0f;
	return (double)f;
}

/* Java's Math.round(double) for non-negative x: the closest long, ties up. */
static int64_t java_round(double x)
{
	double r = floor(x);
	return (int64_t)r + (x - r >= 0.5);
}

int64_t jmagg_percent_point(const int64_t *values, const int64_t *counts, int64_t n, int64_t total,
                            double percent)
{
	int64_t target;

	if (total <= 0 || n <= 0)
		return 0;
	if (percent >= 1.0)
		return values[n - 1];
	target = java_round((double)total * percent);
	for (int64_t i = 0; i < n; i++) {
		target -= counts[i];
		if (target <= 0)
			return values[i];
	}
	return 0; /* as JMeter, when the counts do not add up (they do here) */
}

struct pair {
	int64_t v, n;
};

static int cmp_pair(const void *x, const void *y)
{
	int64_t a = ((const struct pair *)x)->v, b = ((const struct pair *)y)->v;
	return (a > b) - (a < b);
}

int jmagg_row(const struct jmagg *a, struct jmagg_row *o)
{
	struct pair *p = NULL;
	int64_t *v = NULL, *c = NULL, n = 0;
	int rc = -1;

	memset(o, 0, sizeof *o);
	o->rate_per_s = NAN;
	if (a->samples == 0)
		return 0;
	o->samples = a->samples;
	o->errors = a->errors;
	o->mean_ms = (double)a->sum / (double)a->samples;
	o->average = (int64_t)o->mean_ms; /* Java's (long) cast: toward zero */
	o->min = a->min;
	o->max = a->max;
	o->error_frac = (double)a->errors / (double)a->samples;
	if (a->last_end > a->first_start)
		o->rate_per_s =
		    (double)a->samples / (double)(a->last_end - a->first_start) * 1000.0;
	if (a->lost)
		return 0;
	p = malloc((size_t)a->used * sizeof *p);
	v = malloc((size_t)a->used * 2 * sizeof *v); /* the values, then their counts */
	if (!p || !v)
		goto done;
	c = v + a->used;
	for (int64_t i = 0; i < a->slots; i++)
		if (a->key[i] >= 0)
			p[n++] = (struct pair){a->key[i], a->count[i]};
	qsort(p, (size_t)n, sizeof *p, cmp_pair);
	for (int64_t i = 0; i < n; i++) {
		v[i] = p[i].v;
		c[i] = p[i].n;
	}
	o->median = jmagg_percent_point(v, c, n, a->samples, 0.5);
	o->p90 = jmagg_percent_point(v, c, n, a->samples, jmagg_percent(90));
	o->p95 = jmagg_percent_point(v, c, n, a->samples, jmagg_percent(95));
	o->p99 = jmagg_percent_point(v, c, n, a->samples, jmagg_percent(99));
	o->exact = 1;
	rc = 0;
done:
	free(p);
	free(v);
	return rc;
}
