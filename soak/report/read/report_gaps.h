/*
 * report_gaps — what a report reads about resumed runs (soak run --resume): their gaps,
 * the spans without load between a stop and the restart.  No interval covers a gap, so
 * the figures built from intervals leave it out by themselves; samples and GC events are
 * left out with rpt_in_gap, up to where the measured window starts again (the new ramp-up
 * and warm-up are not measured either).  Not for other modules.
 */
#ifndef SOAK_REPORT_GAPS_H
#define SOAK_REPORT_GAPS_H

#include "report_read.h"

/* The run's gaps, oldest first, into run->gaps. */
int rpt_read_gaps(struct reader *rd, struct rpt_run *run);
/* Whether t_ms falls between a gap's start and the end of the warm-up after it. */
int rpt_in_gap(const struct rpt_run *run, int64_t t_ms);

#endif
