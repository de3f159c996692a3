/*
 * report_findings — the findings of the report, one line per topic and label worded from
 * what rpt_build judged, and which RPT_TOP_FINDINGS of them matter most.  Not for other
 * modules.
 */
#ifndef SOAK_REPORT_FINDINGS_H
#define SOAK_REPORT_FINDINGS_H

#include "report/report_int.h"

/* The sentences from what rpt_build judged (after it, once: before
 * the files are written); 0, or -1 out of memory. */
int rpt_findings(struct report *r);
/* The findings marked top, highest score first, into idx[RPT_TOP_FINDINGS]; how many. */
int rpt_top_findings(const struct report *r, int *idx);
/* "throughput", "latency", ... and the heading a report shows for it. */
const char *rpt_topic_key(enum rpt_topic t);
const char *rpt_topic_title(enum rpt_topic t);

#endif
