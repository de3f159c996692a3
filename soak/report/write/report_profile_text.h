/*
 * report_profile_text — where CPU per request moved, in words and a table (the report's
 * section of that name, soak profile's output): each comparison's profile
 * (judge/report_profile.h) as its answer in one sentence, then its frames by change.
 * Not for other modules.
 */
#ifndef SOAK_REPORT_PROFILE_TEXT_H
#define SOAK_REPORT_PROFILE_TEXT_H

#include "report/report_int.h"

/* "tomcat10 against tomcat9, app, 200/s" into buf; returns buf. */
char *rpt_profile_title(const struct report *r, const struct rpt_pcmp *pc, char *buf, size_t len);
/* The answer: both sides' CPU per request, what was called real (or why nothing was
 * judged); malloc'd, NULL out of memory. */
char *rpt_profile_lead(const struct report *r, const struct rpt_pcmp *pc);
/* A frame's verdict: "real", "noise", "not judged" (one process a side) or "small" (under
 * RPT_PROF_SHARE of a side's CPU: not in the family). */
const char *rpt_pframe_verdict(const struct rpt_pcmp *pc, const struct rpt_pframe *f);
/* The table of its first `top` frames (by change); 0, or -1 out of memory. */
int rpt_profile_table(const struct report *r, const struct rpt_pcmp *pc, int top,
                      struct rpt_table *t);

#endif
