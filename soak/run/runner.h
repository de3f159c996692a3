/*
 * runner — one scenario from start to end: checks the target, records the run, starts the
 * collectors, drives the engine through the steps (ramp-up, warm-up, measured window),
 * writes one committed row per interval and the step figures, checks thresholds, shows
 * progress, and closes the run as done, interrupted or failed.
 *
 * Signals are observed through the counters in runner_opts (set by the command's handlers):
 * the first SIGINT/SIGTERM stops sending and lets requests in flight finish (at most the
 * request timeout), the partial interval is written and the run marked interrupted; a
 * second SIGINT stops at once.
 */
#ifndef SOAK_RUNNER_H
#define SOAK_RUNNER_H

#include <signal.h>

#include "engine/engine.h"
#include "slo.h"
#include "scenario/scenario.h"

/* The capacity search (soak run --find-max-rate): raise the rate step by step, then
 * bisect, until the SLO fails; every step is a sweep step in the database. */
struct runner_search {
	const struct slo *slo; /* NULL: no search */
	double from, to;       /* rates per second; 0: from the scenario's rate, to 0 = doubling */
	int64_t step_ms;       /* each step's length (0: the scenario's duration) */
};

struct runner_opts {
	struct runner_search search;         /* capacity search, when search.slo is set */
	const char *db_path;
	enum engine_loop loop;
	int threads;                         /* overrides the scenario when > 0 */
	int tty;                             /* redraw a status line each second */
	int quiet;                           /* no progress lines */
	volatile sig_atomic_t *sigint_count; /* incremented by the SIGINT handler */
	volatile sig_atomic_t *sigterm;      /* set by the SIGTERM handler */
	/* The end-of-run drift check, run when the scenario sets drift thresholds.  run/ does
	 * not use report/, so soak run hands in the report's rpt_drift_check: it reads the run
	 * back from db_path, writes its drift sentence into verdict and up to max breaches
	 * (msglen bytes each) into msgs, and returns how many, or -1 with err.  NULL: none. */
	int (*drift_check)(const char *db_path, int64_t run_id, double tps, double mean,
	                   double p99, char *msgs, size_t msglen, int max, char *verdict,
	                   size_t vlen, char *err, size_t errlen);
};

/* Returns the exit status: 0 done, 1 thresholds failed, 3 runtime failure, 130/143
 * interrupted by SIGINT/SIGTERM. */
int runner_run(const struct scenario *s, const struct runner_opts *o);

#endif
