/*
 * results — reads back what `soak run` recorded: the counters and merged latency histogram
 * of any window of a run, rebuilt from the interval rows (percentiles of a window come
 * from merging the stored histograms, never from averaging percentiles), and the run's
 * status as seen now (a `running` row whose process is gone is `crashed`).
 * Read-only; any connection.
 */
#ifndef SOAK_RESULTS_H
#define SOAK_RESULTS_H

#include <sqlite3.h>
#include <stdint.h>

#include "engine/stats.h"

/* Which intervals a window takes. */
struct res_window {
	int64_t run_id;
	int step_idx;      /* -1 = every step */
	const char *phase; /* "steady", ..., or NULL for every phase */
	int64_t from_ms;   /* interval start >= from_ms (-1 = no bound) */
	int64_t to_ms;     /* interval start < to_ms (-1 = no bound) */
	const struct redact *redact; /* the run's own secret names for an older file's error
	                              * samples (NULL: the built-in ones only) */
};

/* Adds the window's intervals into `into` (initialised by the caller); *seconds gets the
 * summed interval lengths, *n the number of intervals. */
int res_collect(sqlite3 *db, const struct res_window *w, struct istats *into, double *seconds,
                int *n, char *err, size_t errlen);

struct redact;

/* Adds the interval row st stands on into `into`.  st's columns 0..9 must be start_ms,
 * length_ms, requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, hist, and
 * optionally svc_hist, lag_hist, svc_mean_us (read when `into` is open; more may follow); es is
 * "SELECT class, count, sample FROM interval_errors WHERE run_id = ? AND start_ms = ?", read when
 * the row has errors; a sample is redacted (rd: the run's own names, NULL: built-in only).
 * 0, or -1 with err (a bad histogram). */
int res_add_row(sqlite3_stmt *st, sqlite3_stmt *es, int64_t run_id, const struct redact *rd,
                struct istats *into, char *err, size_t errlen);

/* A run's runner as its row stores it: what res_status judges a `running` row by. */
struct res_runner {
	char host[256];         /* the host it ran on */
	int64_t pid, pid_start; /* its process, with the process's start time */
	char boot[64];          /* the host's boot_id ("" when not stored) */
	int64_t heartbeat;      /* its last heartbeat (or its start), wall-clock ms */
};

/* Reads a runner from the row q stands on: host, pid, pid_start, boot_id and heartbeat in
 * columns i..i+4 (the query says what stands for a NULL pid or heartbeat). */
void res_runner_read(sqlite3_stmt *q, int i, struct res_runner *r);

/* The status of a run as a reader should see it: the stored status, or "crashed" for a
 * `running` row whose runner is gone (same host: the pid with its start time is not
 * alive, or the machine rebooted; another host: no heartbeat for three intervals). */
const char *res_status(const char *stored, const char *host, int64_t pid, int64_t pid_start,
                       const char *boot_id, int64_t heartbeat_ms, int64_t interval_ms,
                       int64_t now_ms);

#endif
