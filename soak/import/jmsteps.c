/* jmsteps: the holds of a JMeter file's thread counts, the steps they make and the
 * intervals that carry them (jmsteps.h); times only move forward. */
#include "jmsteps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

const char *jm_phase_name(enum jm_phase p)
{
	static const char *const names[] = {"rampup", "warmup", "steady", "drain"};
	return (unsigned)p < 4 ? names[p] : "steady";
}

void jm_holds_init(struct jm_holds *h)
{
	memset(h, 0, sizeof *h);
	h->now = INT64_MIN;
}

void jm_holds_release(struct jm_holds *h)
{
	free(h->kept);
	h->kept = NULL;
	h->nkept = 0;
	h->cap = 0;
}

static int64_t len_of(const struct jm_hold *x)
{
	return x->to_ms - x->from_ms;
}

/* Drops the kept holds that can no longer be steps. */
static void prune(struct jm_holds *h)
{
	int k = 0;
	for (int i = 0; i < h->nkept; i++)
		if (len_of(&h->kept[i]) * JM_STEP_SHARE >= h->longest)
			h->kept[k++] = h->kept[i];
	h->nkept = k;
}

/* A hold ends: kept while it can still be a step. */
static int close_hold(struct jm_holds *h, const struct jm_hold *x, char *err, size_t errlen)
{
	int64_t d = len_of(x);

	if (d > h->longest) {
		h->longest = d;
		prune(h);
	}
	if (d * JM_STEP_SHARE < h->longest)
		return 0;
	if ((size_t)h->nkept == h->cap && h->nkept >= JM_MAX_HOLDS) {
		snprintf(err, errlen,
		         "the thread counts change too often to find steps (more than %d holds of "
		         "similar length): import the file without its allThreads and grpThreads "
		         "columns (one step)",
		         JM_MAX_HOLDS);
		return -1;
	}
	if (buf_grow(&h->kept, &h->cap, (size_t)h->nkept + 1, sizeof *x, 64) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->kept[h->nkept++] = *x;
	return 0;
}

int jm_holds_add(struct jm_holds *h, int level, int64_t end_ms, char *err, size_t errlen)
{
	int64_t t = end_ms > h->now ? end_ms : h->now;

	h->now = t;
	if (level < 0)
		return 0; /* no count: the hold before it goes on */
	if (h->have && level == h->cur.level)
		return 0;
	if (h->have) {
		h->cur.to_ms = t;
		if (close_hold(h, &h->cur, err, errlen) < 0)
			return -1;
	}
	h->cur = (struct jm_hold){.level = level, .from_ms = t, .to_ms = t};
	h->have = 1;
	return 0;
}

int jm_holds_finish(struct jm_holds *h, int64_t end_ms, char *err, size_t errlen)
{
	if (!h->have)
		return 0;
	h->cur.to_ms = end_ms > h->cur.from_ms ? end_ms : h->cur.from_ms;
	h->have = 0;
	return close_hold(h, &h->cur, err, errlen);
}

int jm_find_steps(const struct jm_holds *h, int64_t origin, int64_t end, struct jm_step *steps,
                  int max_steps)
{
	int n = 0;

	for (int i = 0; i < h->nkept; i++) {
		const struct jm_hold *x = &h->kept[i];
		if (n > 0 && steps[n - 1].level == x->level) {
			/* Only shorter holds between them: the same step goes on. */
			steps[n - 1].hold_to = x->to_ms;
			continue;
		}
		if (n >= max_steps)
			return -1;
		memset(&steps[n], 0, sizeof steps[n]);
		steps[n].level = x->level;
		steps[n].hold_from = x->from_ms;
		steps[n].hold_to = x->to_ms;
		n++;
	}
	if (n == 0 && max_steps > 0) {
		/* No thread counts: one step of 0 over the whole file. */
		memset(&steps[0], 0, sizeof steps[0]);
		steps[0].hold_from = origin;
		steps[0].hold_to = end;
		n = 1;
	}
	return n;
}

int64_t jm_interval_count(int64_t origin, int64_t end, int64_t interval_ms)
{
	int64_t span = end - origin, n = (span + interval_ms - 1) / interval_ms;

	if (n < 1)
		return 1;
	/* A remainder under half an interval joins the interval before it. */
	if (n >= 2 && (span - (n - 1) * interval_ms) * 2 < interval_ms)
		n--;
	return n;
}

int64_t jm_interval_start(int64_t origin, int64_t interval_ms, int64_t r)
{
	return origin + r * interval_ms;
}

int64_t jm_interval_of(int64_t origin, int64_t interval_ms, int64_t n, int64_t end_ms)
{
	int64_t r = (end_ms - origin) / interval_ms;
	return r < 0 ? 0 : r >= n ? n - 1 : r;
}

int64_t jm_layout(int64_t origin, int64_t end, int64_t interval_ms, int64_t warmup_ms,
                  struct jm_step *steps, int nsteps, int *step_of, unsigned char *phase_of,
                  int *short_step)
{
	int64_t n = jm_interval_count(origin, end, interval_ms);

	*short_step = -1;
	for (int s = 0; s < nsteps; s++) {
		steps[s].first =
		    s == 0 ? 0 : (int)jm_interval_of(origin, interval_ms, n, steps[s - 1].hold_to);
		if (s > 0 && steps[s].first <= steps[s - 1].first) {
			*short_step = s - 1;
			return -1;
		}
	}
	for (int s = 0; s < nsteps; s++) {
		struct jm_step *st = &steps[s];
		int64_t from = jm_interval_start(origin, interval_ms, st->first);
		st->last = s + 1 < nsteps ? steps[s + 1].first - 1 : (int)n - 1;
		st->steady_first = st->steady_last = -1;
		for (int r = st->first; r <= st->last; r++) {
			int64_t at = jm_interval_start(origin, interval_ms, r);
			step_of[r] = s;
			if (at < from + warmup_ms) {
				/* Left out: before the step's level was reached, ramp-up. */
				phase_of[r] =
				    at + interval_ms <= st->hold_from ? JM_RAMPUP : JM_WARMUP;
				continue;
			}
			phase_of[r] = JM_STEADY;
			if (st->steady_first < 0)
				st->steady_first = r;
			st->steady_last = r;
		}
	}
	return n;
}

int64_t jm_auto_interval(const struct jm_step *steps, int nsteps)
{
	static const int64_t choices[] = {10000, 5000, 2000, 1000, 500, 200, 100};
	int64_t shortest = INT64_MAX;

	for (int s = 0; s < nsteps; s++)
		if (steps[s].hold_to - steps[s].hold_from < shortest)
			shortest = steps[s].hold_to - steps[s].hold_from;
	for (size_t i = 0; i < sizeof choices / sizeof *choices; i++)
		if (choices[i] * JM_AUTO_IVS <= shortest)
			return choices[i];
	return 100;
}
