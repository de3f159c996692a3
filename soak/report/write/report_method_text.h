/*
 * report_method_text — how a comparison (judge/report_compare.h) was judged, in one
 * sentence that names no label.  Not for other modules.
 */
#ifndef SOAK_REPORT_METHOD_TEXT_H
#define SOAK_REPORT_METHOD_TEXT_H

#include "report/report_int.h"

struct sbuf;
/* Appends the sentences that say how comparison m was judged (its method, runs,
 * calibration, sequential looks and Holm's family). */
void rpt_method_text(struct sbuf *b, const struct report *r, const struct rpt_cmp *m);

#endif
