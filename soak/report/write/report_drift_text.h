/*
 * report_drift_text — the drift verdict (judge/report_drift.h) in words: one sentence with
 * its numbers that every writer shows alike, the phrases of its metrics, and the breaches
 * of soak run's drift thresholds (report_drift_check.c).  Not for other modules.
 */
#ifndef SOAK_REPORT_DRIFT_TEXT_H
#define SOAK_REPORT_DRIFT_TEXT_H

#include "report/report_int.h"

struct sbuf;
/* Appends "p99 +38.2% (real)", "GC time (app) +1.00 points" (verdict 0: without "(real)"). */
void rpt_drift_phrase(struct sbuf *out, const struct rpt_drift_metric *m, int verdict);
/* Appends the verdict in one sentence with its numbers, without the run's name
 * ("degrading over its 2h measured window: ..."); nothing when not judged.  Of one window
 * (a fixed run's, a sweep step's), or of a run (a sweep run: the summary over its
 * steps). */
void rpt_drift_sentence(struct sbuf *out, const struct rpt_drift *d);
void rpt_drift_run_sentence(struct sbuf *out, const struct rpt_run *run);
/* Sentences of thresholds breached: a real TPS fall beyond tps, a real mean or p99 rise
 * beyond mean or p99 (fractions; < 0: not set), in any comparison.  Up to max of them
 * into msgs (max * msglen bytes); returns how many. */
int rpt_drift_breaches(const struct rpt_drift *d, double tps, double mean, double p99, char *msgs,
                       size_t msglen, int max);

#endif
