/*
 * report_history — the report's runs as the history's points (history/history.h): the
 * history is made of what the report reads of a run (its steps' figures, each source's
 * CPU and heap after GC, its drift verdict, its run_env), so report/ makes the points and
 * history/ groups, analyses and writes them without knowing the report's model (which
 * runs make points, and what a point holds: history.h).  Functions return 0 or -1 with
 * err.  Single-threaded.
 */
#ifndef SOAK_REPORT_HISTORY_H
#define SOAK_REPORT_HISTORY_H

#include <stddef.h>

#include "history/history.h"

struct report;
struct rpt_run;

/* Adds the points of run (one of r's) as database db with key `key`; -1 out of memory
 * or past RPT_HIST_MAX_RUNS points. */
int rpt_hist_add(struct rpt_history *h, const struct report *r, const struct rpt_run *run, int db,
                 const char *key, char *err, size_t errlen);
/* `soak history`: every run of the databases (agents' runs folded into a merged run are
 * that run), the labels and scenario names filtered when given (NULL: all), read through
 * rpt_read a few runs at a time and analysed.  *usage = 1 when the input is at fault (a
 * missing file, not a soak database, a newer schema, no run), else 0. */
int rpt_hist_read(struct rpt_history **out, const char *const *dbs, int ndbs,
                  const char *const *labels, int nlabels, const char *scenario, int *usage,
                  char *err, size_t errlen);
/* `soak report`: the history of the report's runs (r->history; NULL when no series has
 * RPT_HIST_MIN_RUNS points). */
int rpt_hist_from_report(struct report *r, char *err, size_t errlen);

#endif
