/*
 * report_verdict — each label against the baseline (struct rpt_vrow) and how long to run.
 * Not for other modules.
 */
#ifndef SOAK_REPORT_VERDICT_H
#define SOAK_REPORT_VERDICT_H

#include "report/report_int.h"

/* The verdict rows, their sentences and the how-long-to-run estimates (after rpt_validity:
 * a sentence counts its label's warnings); 0, or -1 out of memory. */
int rpt_verdicts(struct report *r);

#endif
