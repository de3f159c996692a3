/*
 * study_run — carries out a study (scenario/study.h): starts and stops its targets (their
 * start command's key=value output fills each run's scenario), runs before_each before
 * every run, the warm-up runs after each start, then the schedule's runs through the
 * runner, each tagged in study_runs (study, seq, slot, round, position, warm-up, runs since
 * the start) in the run's own transaction; records the study in `studies` and, for a
 * study of one target, the run-to-run spread in `calibrations`.
 *
 * Warm-ups: warmup_runs runs of the first scenario after each start of a target; a target
 * the study does not start (url only) is warmed up when the study (or a resume) begins.
 *
 * --resume continues the latest study of the same name whose file (and --set overrides)
 * are unchanged, with its recorded seed: slots with a done run are skipped, the rest run.
 *
 * With run.metrics set (soak study --metrics), /metrics shows the study (its rounds, the
 * runs planned and done) beside the run going on.
 *
 * Commands run as `/bin/sh -c CMD` in their own process group with SOAK_STUDY,
 * SOAK_TARGET, SOAK_ROUND and SOAK_DB in the environment, stdout to stderr (start's
 * stdout is read: at most 64 KB), each bounded by command_timeout; a signal or the timeout
 * ends the group.  Everything the study started is stopped when it ends, also on failure
 * or a signal.  Diagnostics and progress go to stderr; each run's summary to stdout.
 * Public names carry the prefix study_run_ (scenario/study.h's are study_, never
 * study_run_).
 */
#ifndef SOAK_STUDY_RUN_H
#define SOAK_STUDY_RUN_H

#include "run/runner.h"
#include "scenario/study.h"

/* Sequential studies (`until`, `budget`): after each round from the second, the study
 * records its look in the studies row (looks, max_looks, and alpha: the share of the 5 %
 * error rate this look may spend, RPT_ALPHA x ((k/K)^2 - ((k-1)/K)^2) for look k of K,
 * K fixed from the budget after the second round), then asks `look`, which judges the
 * study's runs so far as `soak report` would (run/ cannot: the command hands it in).
 * look returns 1 when every figure of `until` is resolved in every comparison, 0 when
 * not yet (why says what is left), -1 with err. */
typedef int (*study_look_fn)(void *arg, const char *db_path, int64_t study_id,
                             const struct study *st, char *why, size_t whylen, char *err,
                             size_t errlen);

/* The alpha of look k (1-based) of K: a power-family spending function (Lan and DeMets),
 * RPT_ALPHA-free: alpha x ((k/K)^2 - ((k-1)/K)^2).  Summed over any looks it never
 * exceeds alpha, whatever their correlation (a Bonferroni bound over the looks). */
double study_look_alpha(double alpha, int k, int K);

struct study_run_opts {
	const char *db_path;    /* results database */
	study_look_fn look;     /* sequential studies: judges a look (NULL: none possible) */
	void *look_arg;         /* its argument */
	char *const *sets;      /* --set overrides for every run's scenario */
	int nsets;              /* entries in sets */
	int resume;             /* continue the latest unfinished study of this name */
	struct runner_opts run; /* each run's options (db_path, on_begin set here) */
	const char *who;        /* "soak study" or "soak calibrate", for messages */
	int64_t *study_id;      /* when not NULL, gets the study's id (-1: none) */
};

/* Returns the exit status: 0 done, 1 a run's threshold failed, 2 bad input (a scenario
 * that a target's output makes invalid, nothing to resume), 3 runtime failure (a command
 * failed, the database), 130/143 interrupted. */
int study_run_all(const struct study *st, const struct study_run_opts *o);

#endif
