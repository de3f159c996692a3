/*
 * report_sources — the collector series of a run in the report model: CPU and RSS samples
 * of each source, GC events and their analysis, and each source's memory judged as its
 * samples are read (rd->judge->mem_judge: judge/'s rpt_mem_judge, handed over by
 * report_load.c), so that only the verdict stays in memory.  Not for other modules.
 */
#ifndef SOAK_REPORT_SOURCES_H
#define SOAK_REPORT_SOURCES_H

#include "report_read.h"

/* The run's collector series (run->src) and each step's CPU values; the steps must be
 * read first (their measured windows). */
int rpt_read_sources(struct reader *rd, struct rpt_run *run);

#endif
