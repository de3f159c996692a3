/*
 * agent_merge — folds the agents' runs of each group in a database into ONE run, so that
 * a study driven by N load generators (`soak run --agent K/N --group G`) reads like one
 * made by a single one: `soak runs`, `soak report` and the comparisons see the merged run
 * and hide its parts.
 *
 * A group is (runs.agent_group, runs.agent_seq): the agents' runs of one scenario of a
 * queue.  Its merged run (uuid "group:G:SEQ") is rebuilt from the parts the file holds
 * each time: every merged interval is the sum of the parts' intervals that start on the
 * same instant (agents align them, agent.h) — counts, bytes, new connections and error
 * classes added, latency histograms decoded, added bucket by bucket and re-encoded, so
 * its percentiles and maximum are exactly those of all requests; VUs added; the phase is
 * `steady` only where every agent present was steady.  Steps take the whole group's
 * concurrency and the sum of their steady merged intervals.  Whatever is particular to
 * one generator (its own intervals and their figures, host, clock) stays on the parts,
 * which keep their rows; parts get runs.merged_into.
 *
 * Named as events of the merged run (source "merge", kind agent_*): an agent that sent
 * nothing over a stretch of intervals (died, stalled, started late: "agent 3/3 sent
 * nothing from 12:00:10 to 12:00:20 UTC"), an agent missing altogether, agents started
 * late or given another start, and clocks that disagree by more than a tenth of the
 * interval.  The merged run's status says which agent ended how.
 *
 * Rebuilding gives the same rows from the same parts, so merging again changes nothing.
 * Runs in the caller's transaction on an open read-write connection; single-threaded.
 */
#ifndef SOAK_AGENT_MERGE_H
#define SOAK_AGENT_MERGE_H

#include <sqlite3.h>
#include <stdint.h>

#include "agent.h"

/* What folding one group gave. */
struct agm_group {
	char group[AGENT_GROUP_MAX]; /* agent_group */
	int seq;                     /* agent_seq */
	int64_t run_id;              /* the merged run's id */
	int planned;                 /* N the agents were started with */
	int merged;                  /* agents whose runs it holds */
	long long intervals;         /* merged intervals written */
	long long notes;             /* events written (gaps, skew, missing agents) */
	char status[16];             /* the merged run's status */
};

/* Folds every group of db.  *out gets a malloc'ed array of *n results (free it); none when
 * the file holds no agent runs.  0, or -1 with err. */
int agm_fold_all(sqlite3 *db, struct agm_group **out, int *n, char *err, size_t errlen);

#endif
