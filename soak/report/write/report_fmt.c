/* report_fmt: how every writer of the report shows a comparison's cell, a figure's key,
 * words and value (each from its row of rpt_figrows, never by figure) and the advice of how
 * long to run in words (numbers and levels: report_num.c; a name made safe for a file or a
 * JUnit class: common/safename.c). */
#include "report_fmt.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"
#include "report/judge/report_compare.h"
#include "report/judge/report_stats.h"

#define DASH "\xe2\x80\x94" /* "—": no value */

int rpt_change_floored(const struct rpt_cmp *m, int f)
{
	const struct rpt_diff *d = &m->d[f];
	return d->verdict == RPT_NOISE && (d->lo > 0 || d->hi < 0) && m->floor_pct > 0;
}

/* A cell; brief: the floor said by its mark only. */
static char *change_cell(const struct rpt_cmp *m, int f, int brief, char *buf, size_t len)
{
	const struct rpt_diff *d = &m->d[f];
	double a, v, half = (d->hi - d->lo) / 2;
	const struct rpt_figrow *row = rpt_fig_row(f);
	int points = row->points;
	char x[32], h[32], why[48] = "";

	rpt_cmp_values(m, f, &a, &v);
	if (isnan(a) || isnan(v)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	if (points)
		snprintf(x, sizeof x, "%s pp", rpt_fmt_signed(v - a, 2, h, sizeof h));
	else
		rpt_fmt_pct(a != 0 ? 100 * (v - a) / a : NAN, x, sizeof x);
	/* Noise although the interval excludes zero: batch means held to the floor. */
	if (rpt_change_floored(m, f) && brief)
		snprintf(why, sizeof why, "\xe2\x80\xa0");
	else if (rpt_change_floored(m, f))
		snprintf(why, sizeof why, ", under the %.0f%% floor",
		         row->floor_pct > 0 ? row->floor_pct : m->floor_pct);
	if (!isfinite(half) || (!points && !(fabs(a) > 0)))
		snprintf(buf, len, "%s (%s%s)", x, rpt_verdict_name(d->verdict), why);
	else if (points)
		snprintf(buf, len, "%s \xc2\xb1%s pp (%s%s)", x, rpt_fmt_num(half, 2, h, sizeof h),
		         rpt_verdict_name(d->verdict), why);
	else
		snprintf(buf, len, "%s \xc2\xb1%s%% (%s%s)", x,
		         rpt_fmt_num(100 * half / fabs(a), 1, h, sizeof h),
		         rpt_verdict_name(d->verdict), why);
	return buf;
}

char *rpt_change_cell(const struct rpt_cmp *m, int f, char *buf, size_t len)
{
	return change_cell(m, f, 0, buf, len);
}

char *rpt_change_cell_brief(const struct rpt_cmp *m, int f, char *buf, size_t len)
{
	return change_cell(m, f, 1, buf, len);
}

/* A row's word for figure f, then for a series figure sep and the series' name. */
static char *fig_name(const struct report *r, int f, const char *word, const char *sep, char *buf,
                      size_t len)
{
	int s = rpt_fig_series(f);

	snprintf(buf, len, "%s%s%s", word, s < 0 ? "" : sep, s < 0 ? "" : r->cpu_names[s]);
	return buf;
}

char *rpt_fig_key(const struct report *r, int f, char *buf, size_t len)
{
	return fig_name(r, f, rpt_fig_row(f)->key, ".", buf, len);
}

char *rpt_fig_what(const struct report *r, int f, char *buf, size_t len)
{
	return fig_name(r, f, rpt_fig_row(f)->what, " ", buf, len);
}

char *rpt_fig_value(int f, double v, char *buf, size_t len)
{
	const struct rpt_figrow *row = rpt_fig_row(f);
	char x[32];

	if (row->fmt == RPT_FMT_MS)
		return rpt_fmt_ms(v, buf, len);
	rpt_fmt_num(v, row->digits, x, sizeof x);
	snprintf(buf, len, "%s%s%s", x, row->fmt == RPT_FMT_UNIT ? " " : "",
	         row->fmt == RPT_FMT_NUM ? "" : row->unit);
	return buf;
}

/* Side by side: more processes, or why none can be advised. */
static char *process_advice(const struct rpt_resolve *x, char *buf, size_t len)
{
	char tot[32];

	if (x->unit == RPT_GU_PAIR)
		snprintf(buf, len,
		         "unknown with one process a side: how two processes of one server differ "
		         "needs starts = auto (a budget's worth of starts), starts = 3 or "
		         "replicas = 3");
	else if (x->rounds <= 0)
		snprintf(buf, len, "out of reach: more than %d %s", RPT_ADVISE_MAX_ROUNDS,
		         x->unit == RPT_GU_STARTS ? "starts" : "processes a side");
	else if (isnan(x->total_s))
		snprintf(buf, len, "%s: %d",
		         x->unit == RPT_GU_STARTS ? "more starts" : "more replicas", x->rounds);
	else
		snprintf(buf, len, "%s: %d (%s = %d), about %s for the study",
		         x->unit == RPT_GU_STARTS ? "more starts" : "more processes a side",
		         x->rounds, x->unit == RPT_GU_STARTS ? "starts" : "replicas", x->rounds,
		         rpt_fmt_need(x->total_s, tot, sizeof tot));
	return buf;
}

char *rpt_advice_text(const struct rpt_resolve *x, int rounds_now, double secs_now, char *buf,
                      size_t len)
{
	char t[32], tot[32];

	if (x->now_enough) {
		snprintf(buf, len, "resolved now");
		return buf;
	}
	if (x->basis == RPT_ADV_PROCESSES)
		return process_advice(x, buf, len);
	if (x->rounds <= 0) {
		if (x->basis == RPT_ADV_NONE)
			snprintf(
			    buf, len,
			    "unknown with one run a side: 3 or more rounds (or soak calibrate) "
			    "measure the run-to-run noise first");
		else
			snprintf(buf, len,
			         "out of reach: more than %d rounds even of runs 64 times as long",
			         RPT_ADVISE_MAX_ROUNDS);
		return buf;
	}
	double ratio = secs_now > 0 ? x->run_s / secs_now : 1;
	rpt_fmt_need(x->run_s, t, sizeof t);
	rpt_fmt_need(x->total_s, tot, sizeof tot);
	if (ratio >= 0.7 && ratio <= 1.4)
		snprintf(
		    buf, len,
		    "more rounds: %d rounds of runs as long as now (%s measured), %s per label; "
		    "longer runs would not help as much",
		    x->rounds, t, tot);
	else if (ratio < 0.7)
		snprintf(buf, len, "more, shorter runs: %d rounds of %s measured, %s per label",
		         x->rounds, t, tot);
	else if (x->rounds <= rounds_now)
		snprintf(buf, len, "longer runs: %d rounds of %s measured, %s per label", x->rounds,
		         t, tot);
	else
		snprintf(buf, len, "more and longer runs: %d rounds of %s measured, %s per label",
		         x->rounds, t, tot);
	return buf;
}
