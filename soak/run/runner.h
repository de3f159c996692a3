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
#include <sqlite3.h>
#include <stdint.h>

#include "engine/engine.h"
#include "scenario/scenario.h"

struct runner_opts {
	const char *db_path;
	enum engine_loop loop;
	int threads;                         /* overrides the scenario when > 0 */
	int tty;                             /* redraw a status line each second */
	int quiet;                           /* no progress lines */
	volatile sig_atomic_t *sigint_count; /* incremented by the SIGINT handler */
	volatile sig_atomic_t *sigterm;      /* set by the SIGTERM handler */
	/* Called once the run's row exists, with the runner's database handle and the run's
	 * id, before anything is sent (a study tags the run there); -1 fails the run. */
	int (*on_begin)(void *arg, sqlite3 *db, int64_t run_id, char *err, size_t errlen);
	void *on_begin_arg; /* its first argument */
};

/* Returns the exit status: 0 done, 1 thresholds failed, 3 runtime failure, 130/143
 * interrupted by SIGINT/SIGTERM. */
int runner_run(const struct scenario *s, const struct runner_opts *o);

#endif
