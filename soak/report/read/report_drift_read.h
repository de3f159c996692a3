/*
 * report_drift_read — the reader's half of the drift verdict: for each step of a run, the
 * parts of its measured window compared (first and last third; hour 1 and the last hour
 * of windows of 3 hours or more), each part's merged histogram, and the per-interval and
 * per-sample observations of every metric, read from the open database and compared at
 * once (rd->judge->drift_compare, judge/'s rpt_drift_compare handed over by
 * report_load.c), so nothing but the comparisons stays in the model; they are judged once
 * the run is read (rpt_drift_judge_run).
 * Not for other modules; the run's steps and collector sources must be read first.
 */
#ifndef SOAK_REPORT_DRIFT_READ_H
#define SOAK_REPORT_DRIFT_READ_H

#include "report_read.h"

/* run->drift, and run->step_drift of a sweep run, compared but not judged; 0, or -1 with
 * rd->err. */
int rpt_drift_read(struct reader *rd, struct rpt_run *run);

#endif
