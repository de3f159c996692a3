/*
 * report_drift — does a run degrade over time: each metric of two parts of its measured
 * window compared (rpt_drift_compare, called as the parts are read: read/ is handed it by
 * report_load.c), then each window judged once the run is read (rpt_drift_judge_run), so
 * that every reader of runs sees the verdict without a build.  write/ words it
 * (report_drift_text.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_DRIFT_H
#define SOAK_REPORT_DRIFT_H

#include "report/report_int.h"

/* "stable", "degrading", "improving", "too_short". */
const char *rpt_drift_name(enum rpt_drift_verdict v);
/* "tps", "mean", "p99", "error", "cpu_per_request", "memory", "gc_time", "longest_pause",
 * "machine_probe". */
const char *rpt_drift_kind_name(enum rpt_drift_kind k);
/* Batch means of a[0..na) and b[0..nb), Welch's test, then m->effect from m->kind,
 * m->first, m->last and m->counts (set by the caller, and cleared here for the kinds that
 * are not the service's own: memory, GC, the machine probe): real, in the worse (or
 * better) direction, and at least as large as the kind's material change. */
void rpt_drift_compare(struct rpt_drift_metric *m, const double *a, size_t na, const double *b,
                       size_t nb);
/* Whether a metric's change is worth naming: it makes the verdict, or it is a rise of a
 * material size that does not count (memory that levels off), real or not. */
int rpt_drift_named(const struct rpt_drift_metric *m);
/* 1 when a kind's change is in percentage points (errors, GC time), else 0. */
int rpt_drift_points(enum rpt_drift_kind k);
/* The machine probe when it moved, for real and materially, the way the verdict did (its
 * comparison into *cmp), else NULL: the machine may be the cause. */
const struct rpt_drift_metric *rpt_drift_control(const struct rpt_drift *d, int *cmp);
/* d->verdict from its comparisons (d->ncmp 0: too short); first widens every metric's
 * interval to a family-wise 95 % over all of them (see rpt_drift_metric.d) and reads real
 * or noise and the effects anew. */
void rpt_drift_judge(struct rpt_drift *d);
/* A run's drift once it is read: each comparison judged (rpt_drift_judge), a sweep run's
 * steps each and then the run as the worst of them. */
void rpt_drift_judge_run(struct rpt_run *run);

#endif
