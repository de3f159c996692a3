/*
 * report_study_text — a study's design in words (the paragraph under "Design." and
 * report.json's studies[].design).  Not for other modules.
 */
#ifndef SOAK_REPORT_STUDY_TEXT_H
#define SOAK_REPORT_STUDY_TEXT_H

#include "report/report_int.h"

/* Study si's design in words, cut at RPT_DESIGN_MAX - 1 bytes. */
#define RPT_DESIGN_MAX 1400
char *rpt_study_design(const struct report *r, int si, char *buf, size_t len);

#endif
