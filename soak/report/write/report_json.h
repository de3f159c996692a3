/*
 * report_json — report.json (the model's tables and findings as data) and summary.csv (one
 * row per run step), each to an open stream.  Not for other modules.
 */
#ifndef SOAK_REPORT_JSON_H
#define SOAK_REPORT_JSON_H

#include "report/report_int.h"
#include "jsonw.h"

/* report.json to f; 0, or -1 on failure. */
int rpt_write_json(const struct report *r, FILE *f);
/* summary.csv to f; 0, or -1 on failure. */
int rpt_write_csv(const struct report *r, FILE *f);
/* `"drift": {...}` of report.json: the object only, with its sentence. */
void rpt_drift_json(const struct rpt_drift *d, const char *sentence, struct jsonw *w);

#endif
