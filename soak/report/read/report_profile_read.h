/*
 * report_profile_read — what a report reads of a run's CPU profiles (soak-perf: the
 * profile_windows and profiles tables, sql/013): each window's stacks and what it saw,
 * and the events that say why a profile was not taken.  Not for other modules.
 */
#ifndef SOAK_REPORT_PROFILE_READ_H
#define SOAK_REPORT_PROFILE_READ_H

#include "report_read.h"

/* The run's profile windows into run->prof (by step, then source), their stacks, and its
 * profile_* events into run->prof_notes; 0, or -1 with rd->err. */
int rpt_read_profiles(struct reader *rd, struct rpt_run *run);

#endif
