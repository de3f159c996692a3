/*
 * report_steady — each compared fixed run classed by the change points of its window (enum
 * rpt_steady): flat, warm-up, slowdown or no steady state; runs with no steady state stop
 * being compared.  Not for other modules.
 */
#ifndef SOAK_REPORT_STEADY_H
#define SOAK_REPORT_STEADY_H

#include "report/report_int.h"

/* "flat", "warm-up", "slowdown", "no steady state" ("" when not judged). */
const char *rpt_steady_name(enum rpt_steady s);
/* Classifies every compared fixed run; those with no steady state stop being compared. */
void rpt_steady(struct report *r);

#endif
