/*
 * report_groups — a comparison of runs made side by side (a study's groups, every instance
 * driven in the same seconds, RPT_BY_GROUPS): what they replicate (struct rpt_groups) and
 * each figure's difference, so that what moved the machine cancels within a group.  Not for
 * other modules.
 */
#ifndef SOAK_REPORT_GROUPS_H
#define SOAK_REPORT_GROUPS_H

#include "report/report_int.h"

/* 1 when every run of cells a and b was made in a group of one study that holds both sides
 * (g filled), else 0. */
int rpt_groups_of(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b,
                  struct rpt_groups *g);
/* 1 when a side-by-side comparison cannot measure how two processes of one server differ
 * well enough to call small changes real: one process a side, or replicas whose pooled
 * spread rests on one degree of freedom (three processes in all).  Such a comparison holds
 * its changes to RPT_PROCESS_FLOOR_PCT. */
int rpt_groups_floored(const struct rpt_groups *g);
/* Figure f of a side-by-side comparison at a (1 - alpha) interval (d->verdict RPT_NA when a
 * run lacks it: a source only the group's first run collects, its database or host). */
void rpt_groups_diff(const struct report *r, const struct rpt_cell *a, const struct rpt_cell *b,
                     const struct rpt_groups *g, int f, double alpha, struct rpt_diff *d);

#endif
