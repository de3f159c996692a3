/*
 * report_runfig — which runs and steps a cell holds, and a run's figures at a cell's key
 * with their standard errors: what report_compare.c, report_groups.c and report_trend.c
 * observe of a run.  Not for other modules.
 */
#ifndef SOAK_REPORT_RUNFIG_H
#define SOAK_REPORT_RUNFIG_H

#include "report/report_int.h"

/* A CPU series of a process ("app", "db"), not a host-wide one ("host", "K:host"). */
int rpt_process_series(const char *name);
/* Whether a step belongs to a cell's key (level and planned length; a measured window). */
int rpt_step_in(const struct rpt_step *s, const struct rpt_cell *c);
/* Whether two cells have one key: kind, level and planned length (their labels aside). */
int rpt_same_key(const struct rpt_cell *a, const struct rpt_cell *b);
/* A JVM's JIT compiler threads' CPU (SOURCE:jit): shown, never judged. */
int rpt_jit_series(const char *name);
/* A run's figure f at a cell's key (NAN when it has none), with the standard error of its
 * mean from its intervals, its measured and unmeasured seconds. */
void rpt_run_fig(const struct report *r, const struct rpt_run *run, const struct rpt_cell *c, int f,
                 double *v, double *se, double *secs, double *over);
/* Whether a run is one of the cell's observations. */
int rpt_in_cell(const struct rpt_run *run, const struct rpt_cell *c);

/* Index of the run's source named like the report's CPU series s, or -1. */
int rpt_run_source(const struct report *r, const struct rpt_run *run, int s);
/* CPU ms per request with its standard error by the delta method (relative errors added
 * in quadrature; their covariance ignored: conservative when CPU and TPS move together). */
void rpt_per_request(const struct rpt_bm *cpu, const struct rpt_bm *tps, struct rpt_bm *out);
/* The per-interval observations of figure f (< RPT_NMETRIC) of a step. */
const struct rpt_values *rpt_step_values(const struct rpt_step *s, int f);
/* Metric m (< RPT_NMETRIC) of merged figures x: latency NAN when nothing was answered. */
double rpt_metric_of(const struct figures *x, int m);

#endif
