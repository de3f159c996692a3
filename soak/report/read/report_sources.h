/*
 * report_sources — the collector series of a run in the report model: CPU and RSS samples
 * of each source, GC events and their analysis.  Not for other modules.
 */
#ifndef SOAK_REPORT_SOURCES_H
#define SOAK_REPORT_SOURCES_H

#include "report_read.h"

/* The run's collector series (run->src) and each step's CPU values; the steps must be
 * read first (their measured windows). */
int rpt_read_sources(struct reader *rd, struct rpt_run *run);

#endif
