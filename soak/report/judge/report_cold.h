/*
 * report_cold — the first run after a start that stands out from its label's compared runs
 * (cold_start validity items).  Not for other modules.
 */
#ifndef SOAK_REPORT_COLD_H
#define SOAK_REPORT_COLD_H

#include "report/report_int.h"

/* The cold_start validity items: a study's first run after a start (a warm-up, or a
 * compared run when warmup_runs is 0) whose TPS or mean latency lies outside the 95%
 * prediction interval of the label's compared runs.  *out is allocated (NULL when none);
 * rpt_items_free.  0, or -1 out of memory. */
int rpt_cold_start(const struct report *r, struct rpt_item **out, int *n);

#endif
