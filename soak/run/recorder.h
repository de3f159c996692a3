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
	sqlite3_stmt *ins_interval, *ins_error, *heartbeat, *ins_event;
};

int rec_open(struct recorder *r, const char *path, char *err, size_t errlen);
void rec_close(struct recorder *r);
/* Inserts the run row (status running) and sets r->run_id. */
int rec_run_begin(struct recorder *r, const struct scenario *s, const char *curl_version,
		  int64_t started_ms, char *err, size_t errlen);
int rec_step_begin(struct recorder *r, int idx, int concurrency, int64_t started_ms,
		   int64_t planned_ms, char *err, size_t errlen);
int rec_interval(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
		 const char *phase, int vus, const struct istats *st, char *err, size_t errlen);
/* The step's measured window and its whole histogram. */
int rec_step_end(struct recorder *r, int idx, int64_t window_start_ms, int64_t window_end_ms,
		 const struct istats *st, char *err, size_t errlen);
int rec_event(struct recorder *r, const char *source, const char *kind, const char *detail,
	      char *err, size_t errlen);
/* Binds the figure columns shared by intervals and steps, starting at parameter `at`:
 * requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, p50, p90, p95, p99,
 * p999, max, hist (f: istats_figures of s).  *blob must be freed by the caller, after the
 * statement ran.  (soak merge writes merged intervals with it.) */
int rec_bind_figures(sqlite3_stmt *st, int at, const struct istats *s, const struct figures *f,
		     uint8_t **blob, char *err, size_t errlen);
/* status: done | interrupted | failed; reason may be NULL. */
int rec_run_end(struct recorder *r, const char *status, const char *reason, char *err,
		size_t errlen);

#endif
