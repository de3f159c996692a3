/*
 * report_front — the tables a report opens with (the verdict of each label against the
 * baseline, how long to run) and the environment of each label (what ran).  Not for other
 * modules.
 */
#ifndef SOAK_REPORT_FRONT_H
#define SOAK_REPORT_FRONT_H

#include "report/report_int.h"

/* The tables a report opens with, in order: the verdict (always, id
 * "verdict"), then how long to run (when there are comparisons).  Like rpt_tables. */
int rpt_front_tables(const struct report *r, struct rpt_table **out, int *n, char *err,
                     size_t errlen);
/* What ran, as recorded: the facts every label shares, then those in which
 * they differ (a column per label); a table without rows is left out.  Like rpt_tables. */
int rpt_env_tables(const struct report *r, struct rpt_table **out, int *n, char *err,
                   size_t errlen);

#endif
