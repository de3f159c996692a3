/*
 * collect — the collector processes `soak run` starts for its [collect.NAME] sections:
 * soak-procstat for processes and the host, soak-gclog for a JVM's GC log.  They are
 * children that write into the run's database themselves (`--run ID`), die with the
 * runner (PR_SET_PDEATHSIG, and their own parent check), and are stopped with SIGTERM when
 * the run ends.  A child that exits early is a loss reported once as an `events` row; the
 * run carries on.  Used by the runner's thread only.
 */
#ifndef SOAK_COLLECT_H
#define SOAK_COLLECT_H

#include <stdint.h>
#include <sys/types.h>

#include "store/recorder.h"
#include "scenario/scenario.h"

#define COLL_MAX (SCN_MAX_COLLECT * 2)

struct coll_child {
	pid_t pid;       /* 0 when not running */
	char source[64]; /* the [collect.NAME] name */
	char prog[32];   /* soak-procstat | soak-gclog */
	int status;      /* wait status once it ended */
};

struct collectors {
	struct coll_child c[COLL_MAX];
	int n;
};

/* Starts every collector of the scenario; on failure stops those already started. */
int coll_start(struct collectors *cs, const struct scenario *s, const char *db_path, int64_t run_id,
               char *err, size_t errlen);
/* Reaps children that ended; records each loss as an event (kind collector_lost). */
void coll_poll(struct collectors *cs, struct recorder *r);
/* Starts a soak-perf for step k of the run for every process set with profile = cpu (every
 * one when all is set: soak run --profile) into cs (cleared first), shortly before the
 * step's measured window, which starts at from_mono (CLOCK_MONOTONIC ms): samples before it
 * are not counted.  coll_stop ends them at its end (each stores its window before it exits,
 * so give it time).  A set without a profiler is not an error. */
int coll_profile(struct collectors *cs, const struct scenario *s, const char *db_path,
                 int64_t run_id, int k, int64_t from_mono, int all, char *err, size_t errlen);
/* SIGTERM to each, waits up to timeout_ms in all, then SIGKILL. */
void coll_stop(struct collectors *cs, int64_t timeout_ms);

#endif
