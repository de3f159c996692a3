/*
 * queue — what `soak run` runs: its scenarios one after another (an overnight job queue),
 * each through the runner (runner.h), whatever the mode the command chose: fixed and
 * sweep runs, the open model, a capacity search, an agent's share of a group, a resumed
 * run; those are runner_opts' business.
 *
 * The queue sets the process up for load once: the open-files limit raised to its hard
 * limit (with a warning for a scenario that needs more), SIGINT and SIGTERM counted for the
 * runner (the first stops sending, a second SIGINT stops at once), SIGPIPE ignored,
 * libcurl's global state when a scenario is sent by libcurl, and one /metrics server for
 * the whole queue.  A runtime failure or a signal ends the queue; a failed threshold does
 * not.  Single-threaded; diagnostics on stderr.
 */
#ifndef SOAK_QUEUE_H
#define SOAK_QUEUE_H

#include <stdint.h>

#include "runner.h"
#include "scenario/scenario.h"

struct queue_opts {
	struct runner_opts run; /* each run's options; the queue sets tty, the signal counters,
	                         * metrics and run_id */
	const char *metrics;    /* --metrics ADDR:PORT: the queue's server, or NULL */
	/* Called after each run, once it is recorded (run_id -1: it was not), with the run's
	 * exit status; returns the status to go on with (soak run --json prints the run's
	 * verdict line here, a failure to do so being a runtime failure).  NULL: none. */
	int (*after_run)(void *arg, int64_t run_id, int rc);
	void *after_arg;  /* its first argument */
	int64_t *run_ids; /* when not NULL, gets each scenario's run id in order (-1: none) */
	int *ran;         /* when not NULL, gets how many scenarios ran (the queue may stop) */
};

/* Runs scns[0..n-1] in order.  Returns the exit status: the worst of the runs' (0 done,
 * 1 a threshold failed), or the status that ended the queue (3 runtime failure, 130/143
 * interrupted by SIGINT/SIGTERM). */
int queue_run(const struct scenario *scns, int n, const struct queue_opts *o);

#endif
