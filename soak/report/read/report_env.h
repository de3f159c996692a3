/*
 * report_env — what a report needs to judge whether a run's figures can be trusted, read
 * with the run: the facts of what ran (run_env), the process sources that shared the load
 * generator's host and that host's CPU per step, the generator's own CPU and start lag
 * per step (intervals.gen_cpu_pct, lag_p99_us: read when the file has those columns), and
 * a merged run's agent clock offsets (runs.clock_offset_ms, merged_into: likewise).
 * Not for other modules.
 */
#ifndef SOAK_REPORT_ENV_H
#define SOAK_REPORT_ENV_H

#include "report_read.h"

/* Fills run->host, env, colocated, clock_skew_ms and each step's host_cpu_pct,
 * gen_cpu_pct and lag_p99_ms; the steps must be read first (their windows). */
int rpt_read_env(struct reader *rd, struct rpt_run *run);

#endif
