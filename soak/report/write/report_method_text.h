/*
 * report_method_text — how a comparison (judge/report_compare.h) was judged, in one
 * sentence that names no label.  Not for other modules.
 */
#ifndef SOAK_REPORT_METHOD_TEXT_H
#define SOAK_REPORT_METHOD_TEXT_H

#include "report/report_int.h"

/* The sentence that says how comparison m was judged (its method,
 * runs, calibration, sequential looks and Holm's family), cut at RPT_METHOD_MAX - 1 bytes. */
#define RPT_METHOD_MAX 2048
char *rpt_method_text(const struct report *r, const struct rpt_cmp *m, char *buf, size_t len);

#endif
