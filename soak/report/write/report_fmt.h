/*
 * report_fmt — how every writer of the report shows a comparison's cell, a figure's key and
 * the advice of how long to run (numbers and levels: report_num.h; a file-safe name:
 * common/safename.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_FMT_H
#define SOAK_REPORT_FMT_H

#include "report/report_int.h"

/* Figure f of comparison m as a table cell shows it, with its interval as benchstat does:
 * "-13.1% ±16.3% (noise)", "+0.53 pp ±0.80 pp (real)" (error %: points), "+9.6% (n/a)"
 * without an interval, "—" without the figure.  The half-width is the verdict's own
 * interval's, in % of the baseline. */
char *rpt_change_cell(const struct rpt_cmp *m, int f, char *buf, size_t len);
/* The same in the verdict's form: a change held to noise by its floor although its interval
 * excludes zero is marked "(noise\u2020)" (the table's note says what the mark means) rather
 * than "(noise, under the 20% floor)". */
char *rpt_change_cell_brief(const struct rpt_cmp *m, int f, char *buf, size_t len);
/* Whether figure f of m is noise by its floor only (its interval excludes zero). */
int rpt_change_floored(const struct rpt_cmp *m, int f);
/* "tps", "mean", "p99", "error", "cpu_per_request.app", "memory.app" (r's series). */
char *rpt_fig_key(const struct report *r, int f, char *buf, size_t len);
/* Figure f in a sentence: "average latency", "CPU per request on app" (its row's what). */
char *rpt_fig_what(const struct report *r, int f, char *buf, size_t len);
/* Value v of figure f as its row prints it: "812.3", "4.21 ms", "0.25%", "310.4 MB". */
char *rpt_fig_value(int f, double v, char *buf, size_t len);
/* The advice in words: "resolved now", "more rounds: 7 rounds of runs as long as now (20s
 * measured), 4m per label", "longer runs: ...", "unknown: one run a side ...". */
char *rpt_advice_text(const struct rpt_resolve *x, int rounds_now, double secs_now, char *buf,
                      size_t len);

#endif
