/*
 * metrics_feed — fills a run's /metrics snapshot (metrics.h) from what the runner's
 * aggregating thread has anyway, and publishes it: the counters and histograms it collects
 * from the engine (mfeed_add, for each collected part), the engine's live totals
 * (mfeed_live), the step and phase, and the collectors' newest rows, which the collector
 * processes write into the run's database (mfeed_collectors reads them, a few indexed
 * look-ups, on that thread, never on the request path).
 *
 * Used by the runner's thread only; the server (metrics.h) copies each published snapshot.
 */
#ifndef SOAK_RUN_METRICS_FEED_H
#define SOAK_RUN_METRICS_FEED_H

#include <sqlite3.h>
#include <stdint.h>

#include "engine/engine.h"
#include "metrics.h"
#include "scenario/scenario.h"

struct mfeed {
	struct metrics *srv;       /* where it publishes (not owned) */
	struct msnap snap;         /* the run as it will be published next */
	sqlite3 *db;               /* the runner's connection (not owned) */
	sqlite3_stmt *q_smp;       /* the newest sample of one source's metric */
	sqlite3_stmt *q_gc;        /* GC events of the run after an id */
	int64_t since_ms;          /* samples from this wall time on are the run's */
	int64_t gc_after;          /* gc_events.id read up to here */
	int proc[SCN_MAX_COLLECT]; /* the source samples processes (cpu_pct, rss_kb, ...) */
	int host[SCN_MAX_COLLECT]; /* ... the host (cpu_user_pct, mem_used_kb, ...) */
};

/* Who and what the run is, for its labels. */
struct mfeed_run {
	int64_t run_id;
	const char *label;
	int agent, agents;  /* K and N of --agent K/N; 1 and 1 when not an agent */
	const char *client; /* curl, lean, tcp-frame */
	int threads;        /* engine threads */
	int64_t started_ms; /* wall time the run began */
	int64_t since_ms;   /* the collectors' samples of this run start here */
};

/* Prepares the feed of a run of scenario s into srv; 0, or -1 with err. */
int mfeed_init(struct mfeed *f, struct metrics *srv, const struct scenario *s, sqlite3 *db,
               const struct mfeed_run *run, char *err, size_t errlen);
/* The step (0-based k of n) and phase the run is in; vus or rate: the step's share. */
void mfeed_step(struct mfeed *f, int k, int n, int vus, double rate, enum mphase phase);
/* Adds counters the runner collected from the engine. */
void mfeed_add(struct mfeed *f, const struct istats *part);
/* The engine's live totals. */
void mfeed_live(struct mfeed *f, const struct engine_live *lv);
/* The machine probe's newest time (µs; NAN: none). */
void mfeed_probe(struct mfeed *f, double us);
/* Reads the collectors' newest rows of the run (a failed read keeps the last values). */
void mfeed_collectors(struct mfeed *f);
/* Publishes the snapshot as it stands. */
void mfeed_publish(struct mfeed *f);
/* The run has ended: publishes it as not running.  The server keeps showing it until
 * another run publishes. */
void mfeed_end(struct mfeed *f);
/* Finalizes the statements; a zeroed feed is fine. */
void mfeed_release(struct mfeed *f);

#endif
