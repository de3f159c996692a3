/*
 * report_data — the reading of soak report: the selected runs of every database, one
 * database at a time, into the model (runs, steps, series; the collector series, the
 * drift's comparisons, what ran and the studies through the other readers), with no
 * database left open.  What must be judged while reading is handed to it (struct
 * rpt_read_judges, report_read.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_DATA_H
#define SOAK_REPORT_DATA_H

#include "report_read.h"

/* rpt_read's reading (report.h): the selected runs of every database
 * into r, judged as they are read only by what `judge` gives (report_read.h: the drift's
 * comparisons, memory), the rest not yet (report_load.c judges what must be judged as soon
 * as read). */
int rpt_read_dbs(struct report *r, const struct rpt_opts *o, const struct rpt_read_judges *judge,
                 int *usage, char *err, size_t errlen);

#endif
