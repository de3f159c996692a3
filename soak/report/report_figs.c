/* report_figs: the figures a comparison can hold, one row each (struct rpt_figrow): what
 * each is called, where it comes from, how it is judged and how it is printed; and the
 * figure indices the rows span.  Calls nothing else of report/, so that every room may
 * walk the rows.  The rows stay in the order of enum rpt_metric, the request rows first. */
#include "report_int.h"

_Static_assert(RPT_M_CPU == RPT_NMETRIC, "the request rows come first");

const struct rpt_figrow rpt_figrows[RPT_NROWS] = {
    [RPT_M_TPS] = {.id = RPT_M_TPS,
                   .src = RPT_SRC_REQUEST,
                   .key = "tps",
                   .until = "tps",
                   .head = "TPS",
                   .vhead = "TPS",
                   .what = "TPS",
                   .up = "more",
                   .down = "fewer",
                   .unit = "req/s",
                   .better = +1,
                   .resolve_pct = RPT_RESOLVE_TPS_PCT,
                   .cv = 1,
                   .fmt = RPT_FMT_NUM,
                   .digits = 1},
    [RPT_M_MEAN] = {.id = RPT_M_MEAN,
                    .src = RPT_SRC_REQUEST,
                    .key = "mean",
                    .until = "mean",
                    .head = "avg",
                    .vhead = "avg",
                    .what = "average latency",
                    .up = "higher",
                    .down = "lower",
                    .unit = "ms",
                    .better = -1,
                    .cv = 1,
                    .fmt = RPT_FMT_MS},
    [RPT_M_P99] = {.id = RPT_M_P99,
                   .src = RPT_SRC_REQUEST,
                   .key = "p99",
                   .until = "p99",
                   .head = "99%",
                   .vhead = "p99",
                   .what = "p99",
                   .up = "higher",
                   .down = "lower",
                   .unit = "ms",
                   .better = -1,
                   .floor_pct = RPT_FLOOR_P99_PCT,
                   .resolve_pct = RPT_RESOLVE_P99_PCT,
                   .cv = 1,
                   .fmt = RPT_FMT_MS},
    [RPT_M_ERR] = {.id = RPT_M_ERR,
                   .src = RPT_SRC_REQUEST,
                   .key = "error",
                   .until = "error",
                   .head = "error %",
                   .vhead = "error %",
                   .if_any = 1,
                   .what = "errors",
                   .up = "more",
                   .down = "fewer",
                   .unit = "%",
                   .better = -1,
                   .points = 1,
                   .fmt = RPT_FMT_PCT,
                   .digits = 2},
    [RPT_M_CPU] = {.id = RPT_M_CPU,
                   .src = RPT_SRC_CPU,
                   .key = "cpu_per_request",
                   .until = "cpu",
                   .head = "CPU/request",
                   .vhead = "CPU/request",
                   .what = "CPU per request on",
                   .up = "more",
                   .down = "less",
                   .unit = "ms",
                   .better = -1,
                   .resolve_pct = RPT_RESOLVE_CPU_PCT,
                   .fmt = RPT_FMT_MS},
    [RPT_M_MEM] = {.id = RPT_M_MEM,
                   .src = RPT_SRC_MEM,
                   .key = "memory",
                   .until = "memory",
                   .head = "memory",
                   .what = "memory on",
                   .up = "more",
                   .down = "less",
                   .unit = "MB",
                   .better = -1,
                   .runs_only = 1,
                   .fmt = RPT_FMT_UNIT,
                   .digits = 1},
};

int rpt_fig(enum rpt_metric m, int s)
{
	if (m < RPT_NMETRIC)
		return (int)m;
	return RPT_NMETRIC + (int)(m - RPT_NMETRIC) * RPT_MAX_SOURCES + s;
}

const struct rpt_figrow *rpt_fig_row(int f)
{
	if (f < RPT_NMETRIC)
		return &rpt_figrows[f];
	return &rpt_figrows[RPT_NMETRIC + (f - RPT_NMETRIC) / RPT_MAX_SOURCES];
}

int rpt_fig_series(int f)
{
	return f < RPT_NMETRIC ? -1 : (f - RPT_NMETRIC) % RPT_MAX_SOURCES;
}

int rpt_fig_in(int f, int ncpu)
{
	return f >= 0 && f < RPT_NFIG && rpt_fig_series(f) < ncpu;
}

int rpt_fig_order(int ncpu, int *out)
{
	int n = 0;

	for (int m = 0; m < RPT_NMETRIC; m++)
		out[n++] = m;
	for (int s = 0; s < ncpu; s++)
		for (int m = RPT_NMETRIC; m < RPT_NROWS; m++)
			out[n++] = rpt_fig((enum rpt_metric)m, s);
	return n;
}
