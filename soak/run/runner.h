/*
 * runner — one scenario from start to end: checks the target, records the run, starts the
 * collectors, drives the engine through the steps (ramp-up, warm-up, measured window),
 * writes one committed row per interval and the step figures, checks thresholds, shows
 * progress, and closes the run as done, interrupted or failed.
 *
 * Signals are observed through the counters in runner_opts (runner_prepare_process points
 * them at the process's own): the first SIGINT/SIGTERM stops sending and lets requests in
 * flight finish (at most the request timeout), the partial interval is written and the run
 * marked interrupted; a second SIGINT stops at once.
 *
 * Resuming (runner_opts.resume) takes a stopped run over under its id: the step the stop
 * cut runs for what was left of it, from a new ramp-up and warm-up (out of its window, as
 * is the gap), then the steps after it; the step's figures merge its intervals from before
 * and after the gap, over the time measured.
 */
#ifndef SOAK_RUNNER_H
#define SOAK_RUNNER_H

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>

#include "agent.h"
#include "buf.h"
#include "engine/engine.h"
#include "metrics.h"
#include "slo.h"
#include "scenario/scenario.h"

/* The capacity search (soak run --find-max-rate): raise the rate step by step, then
 * bisect, until the SLO fails; every step is a sweep step in the database. */
struct runner_search {
	const struct slo *slo; /* NULL: no search */
	double from, to;       /* rates per second; 0: from the scenario's rate, to 0 = doubling */
	int64_t step_ms;       /* each step's length (0: the scenario's duration) */
};

/* soak run --resume: where a stopped run is taken up again (cmd_run reads it back and
 * judges it resumable; the scenario is the one it ran). */
struct runner_resume {
	int64_t run_id;             /* the run to continue, under its own id */
	const char *status_was;     /* its status and heartbeat as judged: the takeover */
	int64_t heartbeat_was;      /* fails when another process changed them since */
	int64_t gap_from_ms;        /* end of its last interval: the gap starts there */
	int step;                   /* the first step to run: the one the stop cut, or the next */
	int64_t step_started_ms;    /* when `step` began (its row exists), or -1: it is new */
	const struct istats *prior; /* `step`'s steady intervals before the gap, or NULL */
	int64_t prior_from_ms;      /* their window, when prior */
	int64_t prior_to_ms;
	const struct figures *done; /* figures of steps 0 .. step-1, for the summary (or NULL) */
};

struct runner_opts {
	struct runner_search search; /* capacity search, when search.slo is set */
	const char *db_path;
	enum engine_loop loop;
	int threads;                         /* overrides the scenario when > 0 */
	int tty;                             /* redraw a status line each second */
	int quiet;                           /* no progress lines */
	int profile;                         /* --profile: every [collect] process set is
	                                      * profiled, as with its profile = cpu */
	int json;                            /* stdout is for `soak run --json`: the step
	                                      * table goes to stderr */
	int64_t *run_id;                     /* when not NULL, gets the run's id (-1: none) */
	volatile sig_atomic_t *sigint_count; /* incremented by the SIGINT handler */
	volatile sig_atomic_t *sigterm;      /* set by the SIGTERM handler */
	const struct runner_resume *resume;  /* --resume: continue that run; NULL: a new run */
	struct agent *agent;                 /* --agent: this run is the agent's share of a
	                                      * group's (agent.h); its queue plan advances
	                                      * with each run.  NULL: a plain run */
	/* The end-of-run drift check, run when the scenario sets drift thresholds.  run/ does
	 * not use report/, so soak run hands in the report's rpt_drift_check: it reads the run
	 * back from db_path, appends its drift sentence to verdict (common/buf: as long as it
	 * is) and writes up to max breaches (msglen bytes each) into msgs, and returns how
	 * many, or -1 with err.  NULL: none. */
	int (*drift_check)(const char *db_path, int64_t run_id, double tps, double mean, double p99,
	                   char *msgs, size_t msglen, int max, struct buf *verdict, char *err,
	                   size_t errlen);
	/* Called once the run's row exists, with the runner's database handle and the run's
	 * id, before anything is sent (a study tags the run there); -1 fails the run. */
	int (*on_begin)(void *arg, sqlite3 *db, int64_t run_id, char *err, size_t errlen);
	int64_t start_at_ms; /* > 0: the load starts at this wall-clock time, the run's
	                      * intervals counted from it (a study's side-by-side runs, each a
	                      * process of its own, begin in the same instant); 0: at once */
	void *on_begin_arg;  /* its first argument */
	/* /metrics (metrics.h): the command's server, which the run publishes into (it then
	 * collects the engine's counters each second, not only at interval boundaries), or
	 * NULL: a scenario with `metrics = ADDR:PORT` gets a server of its own for the run. */
	struct metrics *metrics;
};

/* Prepares this process for runs, once, before the first: the open-files limit raised to
 * its hard limit (every VU may hold a socket), SIGINT and SIGTERM counted by handlers of
 * the runner's into the counters o->sigint_count and o->sigterm now point at, SIGPIPE
 * ignored. */
void runner_prepare_process(struct runner_opts *o);

/* Returns the exit status: 0 done, 1 thresholds failed, 3 runtime failure, 130/143
 * interrupted by SIGINT/SIGTERM. */
int runner_run(const struct scenario *s, const struct runner_opts *o);

#endif
