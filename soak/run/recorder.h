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

#include "engine/stats.h"
#include "scenario/scenario.h"

#define REC_GEN_CPU_SATURATED 90.0  /* % of the engine threads: the generator is the limit */
#define REC_GEN_LAG_SATURATED 10000 /* µs of start lag p99: likewise */

struct recorder {
	sqlite3 *db;
	int64_t run_id;
	int threads;       /* engine threads: gen_cpu_pct is of all of them (set once known) */
	int open;          /* open-model run: the svc_* and lag_* columns are written */
	char host[256];
	sqlite3_stmt *ins_interval, *ins_error, *heartbeat, *ins_event;
};

int rec_open(struct recorder *r, const char *path, char *err, size_t errlen);
void rec_close(struct recorder *r);
/* Inserts the run row (status running) and sets r->run_id. */
int rec_run_begin(struct recorder *r, const struct scenario *s, const char *curl_version,
		  int64_t started_ms, char *err, size_t errlen);
/* concurrency: the step's VUs (closed) or 0; rate: its arrivals per second (open) or 0. */
int rec_step_begin(struct recorder *r, int idx, int concurrency, double rate, int64_t started_ms,
		   int64_t planned_ms, char *err, size_t errlen);
/* Records the interval; *saturated (may be NULL) tells whether the generator was its own
 * bottleneck in it (CPU >= 90 % of its threads, or start lag p99 > 10 ms). */
int rec_interval(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
		 const char *phase, int vus, const struct istats *st, int *saturated, char *err,
		 size_t errlen);
/* The step's measured window and its whole histogram. */
int rec_step_end(struct recorder *r, int idx, int64_t window_start_ms, int64_t window_end_ms,
		 const struct istats *st, char *err, size_t errlen);
/* fixed | sweep, when the run's shape is decided as it goes (a capacity search). */
int rec_set_mode(struct recorder *r, const char *mode, char *err, size_t errlen);
/* The engine, once it runs: its thread count (gen_cpu_pct is of all of them) and the
 * driver that sends, "curl", "lean" or "tcp-frame" (runs.client). */
int rec_set_engine(struct recorder *r, int threads, const char *client, char *err, size_t errlen);
/* The engine threads' CPU over `seconds`, as % of all `threads` of them. */
double rec_gen_cpu_pct(const struct istats *s, double seconds, int threads);
int rec_event(struct recorder *r, const char *source, const char *kind, const char *detail,
	      char *err, size_t errlen);
/* status: done | interrupted | failed; reason may be NULL. */
int rec_run_end(struct recorder *r, const char *status, const char *reason, char *err,
		size_t errlen);

#endif
