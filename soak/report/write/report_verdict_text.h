/*
 * report_verdict_text — a label's verdict (judge/report_verdict.h) in words: report.json's
 * sentence, and the one-sentence answer the report opens with.  Not for other modules.
 */
#ifndef SOAK_REPORT_VERDICT_TEXT_H
#define SOAK_REPORT_VERDICT_TEXT_H

#include "report/report_int.h"

/* Appends a label's verdict in words, report.json's sentence: the answer, its memory, the
 * baseline's figures at a fixed rate, what its intervals resolve and what would resolve
 * more, and how many validity warnings to read it with. */
struct sbuf;
void rpt_verdict_text(struct sbuf *b, const struct report *r, const struct rpt_vrow *v);
/* Appends a label's verdict in one short sentence, what the report opens with (report.json's
 * verdict answer): at each point it rests on, the changes beyond noise or that there are
 * none; its drift when it drifts; how many validity warnings to read it with (warnings 1;
 * 0: the caller says them once for every label).  The figures
 * and their intervals are the verdict table's. */
void rpt_verdict_brief(struct sbuf *b, const struct report *r, const struct rpt_vrow *v,
                       int warnings);

#endif
