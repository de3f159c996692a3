/*
 * judge_int — what report_compare.c lends the side-by-side part of comparing
 * (report_groups.c, which report_compare.c calls in turn) and report_trend.c: a run's
 * figure at a cell's key and whether a run is a cell's.  Declared apart from
 * report_compare.h so that the two modules do not include each other (tests/it/layout.py,
 * rule 2); their circle of calls stays until these move to a module of their own.  Only
 * judge/ includes it.
 */
#ifndef SOAK_REPORT_JUDGE_INT_H
#define SOAK_REPORT_JUDGE_INT_H

#include "report/report_int.h"

/* A run's figure f at a cell's key (NAN when it has none), with the standard error of its
 * mean from its intervals, its measured and unmeasured seconds. */
void rpt_run_fig(const struct report *r, const struct rpt_run *run, const struct rpt_cell *c, int f,
                 double *v, double *se, double *secs, double *over);
/* Whether a run is one of the cell's observations. */
int rpt_in_cell(const struct rpt_run *run, const struct rpt_cell *c);

#endif
