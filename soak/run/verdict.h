/*
 * verdict — a step's figures against its scenario's thresholds: every threshold the
 * scenario sets, with its bound, the step's value in the same unit, and whether it passed.
 * The runner records them (thresholds table), prints the failures and makes them the exit
 * status; `soak runs --json` reads them back.  No allocation, no state.
 */
#ifndef SOAK_VERDICT_H
#define SOAK_VERDICT_H

#include "engine/stats.h"
#include "scenario/scenario.h"

#define VERDICT_MAX 5 /* p99, p95, mean, error_rate, tps_min */

struct verdict {
	const char *metric; /* p99 | p95 | mean | error_rate | tps_min */
	const char *unit;   /* ms | % | req/s */
	double limit;       /* the bound, in unit */
	double value;       /* the step's figure, in unit */
	int passed;
	char text[160]; /* a failure as a sentence: "p99 912ms is above 800ms" */
};

/* Fills out[] with one entry per threshold set in t; returns how many.  Latency bounds pass
 * when nothing was answered (the error rate and TPS bounds speak for such a step). */
int verdict_check(const struct scn_thresholds *t, const struct figures *f,
                  struct verdict out[VERDICT_MAX]);

#endif
