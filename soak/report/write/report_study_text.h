/*
 * report_study_text — a study's design in words (the paragraph under "Design." and
 * report.json's studies[].design).  Not for other modules.
 */
#ifndef SOAK_REPORT_STUDY_TEXT_H
#define SOAK_REPORT_STUDY_TEXT_H

#include "report/report_int.h"

struct sbuf;
/* Appends study si's design in words. */
void rpt_study_design(struct sbuf *b, const struct report *r, int si);

#endif
