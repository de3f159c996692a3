/*
 * report_html — report.html and details.html, each one self-contained page: the document of
 * report_doc.h, marked up.  Not for other modules.
 */
#ifndef SOAK_REPORT_HTML_H
#define SOAK_REPORT_HTML_H

#include "report/report_int.h"

/* report.html to an open stream; 0, or -1 on failure. */
int rpt_write_html(const struct report *r, FILE *f);
/* details.html (the details file, report_doc.h) to an open stream; 0, or -1 on failure. */
int rpt_write_html_details(const struct report *r, FILE *f);

#endif
