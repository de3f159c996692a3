/*
 * report_verdict_text — a label's verdict (judge/report_verdict.h) in one sentence: what
 * the report opens with and report.json says.  Not for other modules.
 */
#ifndef SOAK_REPORT_VERDICT_TEXT_H
#define SOAK_REPORT_VERDICT_TEXT_H

#include "report/report_int.h"

/* Appends a label's verdict in words: the answer in one sentence and how many validity warnings to
 * read it with (RPT_VT_ANSWER, what the report opens with), or also what its intervals resolve and
 * what would resolve more (RPT_VT_ALL, report.json's sentence). */
enum rpt_vt { RPT_VT_ALL, RPT_VT_ANSWER };
struct sbuf;
void rpt_verdict_text(struct sbuf *b, const struct report *r, const struct rpt_vrow *v,
                      enum rpt_vt part);

#endif
