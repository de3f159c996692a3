/*
 * report_trend — the levels of a study whose runs moved with the order they ran in
 * (rounds_trend validity items, Mann-Kendall over the rounds).  Not for other modules.
 */
#ifndef SOAK_REPORT_TREND_H
#define SOAK_REPORT_TREND_H

#include "report/report_int.h"

/* The rounds_trend items, one per level of a study whose runs moved with the order they ran
 * in (rpt_cold_start's contract). */
int rpt_trends(const struct report *r, struct rpt_item **out, int *n);

#endif
