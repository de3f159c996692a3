/*
 * report_agents — what a report reads about agents: the agent columns of a run and the
 * notes `soak merge` left on a merged run (agent_merge.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_AGENTS_H
#define SOAK_REPORT_AGENTS_H

#include "report_read.h"

/* A run's agent columns (cols 17..19 of report_data.c's rpt_runs query: agent_index,
 * agent_count, agents_merged) into run->agent, agents, agents_planned, and a merged run's
 * merge notes (its events of source "merge") into run->agent_notes. */
int rpt_read_agents(struct reader *rd, sqlite3_stmt *q, struct rpt_run *run);

#endif
