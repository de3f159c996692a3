/* report_fmt: how every writer of the report shows a number, a level, a cell and a figure's
 * key, and the advice of how long to run in words: one place, so that a table, a sentence
 * and report.json never show one quantity two ways. */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"

#define DASH "\xe2\x80\x94" /* "—": no value */

char *rpt_fmt_num(double v, int decimals, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? DASH : v > 0 ? "inf" : "-inf");
		return buf;
	}
	/* No "-0.0": a value that rounds to zero is zero. */
	if (fabs(v) < 0.5 * pow(10, -decimals))
		v = 0;
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

char *rpt_fmt_signed(double v, int decimals, char *buf, size_t len)
{
	if (len < 3)
		return rpt_fmt_num(v, decimals, buf, len);
	rpt_fmt_num(v, decimals, buf + 1, len - 1);
	if (buf[1] == '-' || !isfinite(v))
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	else
		buf[0] = '+';
	return buf;
}

char *rpt_fmt_ms(double ms, char *buf, size_t len)
{
	char n[32];
	if (isnan(ms)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	snprintf(buf, len, "%s ms", rpt_fmt_num(ms, ms < 10 ? 2 : 1, n, sizeof n));
	return buf;
}

char *rpt_fmt_pct(double pct, char *buf, size_t len)
{
	char n[32];
	if (!isfinite(pct)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	rpt_fmt_num(pct, 1, n, sizeof n);
	snprintf(buf, len, "%s%s%%", n[0] == '-' || !strcmp(n, "0.0") ? "" : "+", n);
	return buf;
}

const char *rpt_metric_name(enum rpt_metric m)
{
	static const char *const names[RPT_NMETRIC] = {"tps", "mean", "p99", "error"};
	return (unsigned)m < RPT_NMETRIC ? names[m] : "?";
}

char *rpt_fmt_need(double s, char *buf, size_t len)
{
	double step;

	if (!isfinite(s)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	if (s > 366.0 * 86400) {
		snprintf(buf, len, "over a year");
		return buf;
	}
	/* Rounded up to a step that suits the size: nobody plans 14m07s. */
	step = s <= 120 ? 1 : s <= 7200 ? 60 : s <= 2 * 86400 ? 600 : 3600;
	dur_format((int64_t)(ceil(s / step) * step) * 1000, buf, len);
	return buf;
}

char *rpt_level_text(int concurrency, double rate, char *buf, size_t len)
{
	char x[32];
	if (rate > 0)
		snprintf(buf, len, "%s/s",
		         rpt_fmt_num(rate, rate == floor(rate) ? 0 : 1, x, sizeof x));
	else
		snprintf(buf, len, "%d user%s", concurrency, concurrency == 1 ? "" : "s");
	return buf;
}

char *rpt_cell_text(const struct rpt_cell *c, char *buf, size_t len)
{
	char l[48], d[32];
	snprintf(buf, len, "%s (%s of %s)", rpt_level_text(c->concurrency, c->rate, l, sizeof l),
	         c->sweep ? "sweep steps" : "fixed runs", dur_format(c->planned_ms, d, sizeof d));
	return buf;
}

char *rpt_fig_key(const struct report *r, int f, char *buf, size_t len)
{
	static const char *const base[RPT_NMETRIC] = {"tps", "mean", "p99", "error"};
	if (f < RPT_NMETRIC)
		snprintf(buf, len, "%s", base[f]);
	else if (f < RPT_FIG_MEM(0))
		snprintf(buf, len, "cpu_per_request.%s", r->cpu_names[f - RPT_FIG_CPU(0)]);
	else
		snprintf(buf, len, "memory.%s", r->cpu_names[f - RPT_FIG_MEM(0)]);
	return buf;
}

const char *rpt_memory_text(enum gca_memory m, char *buf, size_t len)
{
	snprintf(buf, len, "%s", gca_memory_name(m));
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' ';
	return buf;
}

/* Side by side: more processes, or why none can be advised. */
static char *process_advice(const struct rpt_resolve *x, char *buf, size_t len)
{
	char tot[32];

	if (x->unit == RPT_GU_PAIR)
		snprintf(buf, len,
		         "unknown with one process a side: how two processes of one server differ "
		         "needs replicas = 3 or starts = 3");
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
