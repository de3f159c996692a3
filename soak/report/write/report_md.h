/*
 * report_md — report.md and details.md in GitHub-flavoured Markdown: the document of report_doc.h,
 * marked up.  Not for other modules.
 */
#ifndef SOAK_REPORT_MD_H
#define SOAK_REPORT_MD_H

#include "report/report_int.h"

/* report.md to an open stream; 0, or -1 on failure. */
int rpt_write_md(const struct report *r, FILE *f);
/* details.md (the details file, report_doc.h) to an open stream; 0, or -1 on failure. */
int rpt_write_md_details(const struct report *r, FILE *f);

#endif
