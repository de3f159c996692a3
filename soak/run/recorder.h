/*
 * recorder — what `soak run` writes into the results database: the run row, a step row per
 * step, one interval row (with its error classes) per interval, events.  Each call is one
 * transaction, so a crash loses at most the interval in flight; each interval also moves
 * the run's heartbeat.  Used by the aggregating thread only.
 */
#ifndef SOAK_RECORDER_H
#define SOAK_RECORDER_H

#include <sqlite3.h>
#include <stdint.h>

#include "scenario/scenario.h"
#include "engine/stats.h"

struct recorder {
	sqlite3 *db;
	int64_t run_id;
	char host[256];
	int imported; /* the run is an import (rec_run_import): no process, no heartbeat */
	sqlite3_stmt *ins_interval, *ins_error, *heartbeat, *ins_event;
};

/* A run that soak did not drive: a JMeter result file brought in by `soak import`. */
struct rec_import {
	const char *origin;      /* runs.origin: "jmeter" */
	const char *name, *label;
	const char *file;        /* the imported file, as given */
	const char *description; /* stored as the scenario text: what the file shows */
	int sweep;               /* several concurrency levels */
	const char *connection;  /* keepalive | close */
	const char *url;         /* a URL the samplers used, or NULL */
	const char *host;        /* the load generator, or NULL when the file does not say */
	int64_t interval_ms;     /* of the intervals the import builds */
	int64_t started_ms;      /* first sample's start */
	int64_t ended_ms;        /* last sample's end */
};

int rec_open(struct recorder *r, const char *path, char *err, size_t errlen);
void rec_close(struct recorder *r);
/* Inserts the run row (status running) and sets r->run_id. */
int rec_run_begin(struct recorder *r, const struct scenario *s, const char *curl_version,
		  int64_t started_ms, char *err, size_t errlen);
/* Inserts an imported run, already closed as done, and sets r->run_id and r->imported;
 * its steps and intervals follow through the calls below. */
int rec_run_import(struct recorder *r, const struct rec_import *im, char *err, size_t errlen);
int rec_step_begin(struct recorder *r, int idx, int concurrency, int64_t started_ms,
		   int64_t planned_ms, char *err, size_t errlen);
int rec_interval(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
		 const char *phase, int vus, const struct istats *st, char *err, size_t errlen);
/* The step's measured window and its whole histogram. */
int rec_step_end(struct recorder *r, int idx, int64_t window_start_ms, int64_t window_end_ms,
		 const struct istats *st, char *err, size_t errlen);
/* One threshold's verdict for a step (thresholds table): unit "ms", "%" or "req/s". */
int rec_threshold(struct recorder *r, int step_idx, const char *metric, const char *unit,
		  double limit, double value, int passed, char *err, size_t errlen);
int rec_event(struct recorder *r, const char *source, const char *kind, const char *detail,
	      char *err, size_t errlen);
/* status: done | interrupted | failed; reason may be NULL. */
int rec_run_end(struct recorder *r, const char *status, const char *reason, char *err,
		size_t errlen);

#endif
