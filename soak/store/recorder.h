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

#define REC_GEN_CPU_SATURATED                                                                      \
	90.0                        /* % of the engine threads' time busy or waiting for a core:   \
	                             * the generator is the limit */
#define REC_GEN_LAG_SATURATED 10000 /* µs of start lag p99: the generator was late */

/* intervals.gen_saturated: why the generator may have set the pace in an interval (bits;
 * files before this release hold 1 for any of them). */
enum {
	REC_GEN_BUSY = 1,    /* its threads busy >= REC_GEN_CPU_SATURATED % of the time */
	REC_GEN_STARVED = 2, /* busy plus waiting for a core >= that, busy alone below it:
	                      * other processes on its machine took the cores */
	REC_GEN_LATE = 4,    /* open model: start lag p99 > REC_GEN_LAG_SATURATED, neither
	                      * busy nor starved: the machine woke or ran it late */
};

/* What the generator did in one interval, as rec_interval judged it. */
struct rec_gen {
	int flags;          /* REC_GEN_* bits, 0: it kept up */
	double cpu_pct;     /* its threads' CPU, % of all of them */
	double wait_pct;    /* their run-queue wait, % of all of them */
	int64_t lag_p99_us; /* open model: start lag p99 (the generator's own lateness) */
	int64_t lag_max_us; /* and its maximum */
};

struct recorder {
	sqlite3 *db;
	int64_t run_id;
	int threads; /* engine threads: gen_cpu_pct is of all of them (set once known) */
	int open;    /* open-model run: the svc_* and lag_* columns are written */
	int h2;      /* HTTP/2 run: the h2_* columns are written */
	char host[256];
	int imported;    /* the run is an import (rec_run_import): no process, no heartbeat */
	double probe_us; /* the machine probe (probe.h) for the next rec_interval, which
	                  * stores and clears it; 0: not measured */
	double gen_cpus_busy_pct; /* how busy the generator's CPUs were (any process), for the
	                           * next rec_interval, which stores and clears it; NAN: none */
	int64_t unmeasured_ms;    /* time inside the next rec_step_end's window that is not
	                           * measured (a resumed step's gap, its new ramp-up and warm-up):
	                           * left out of the step's seconds and TPS; reset by rec_step_end */
	int own_db;               /* rec_open opened db (rec_close closes it); 0 after rec_attach */
	struct redact redact;     /* the run's own secret names (its scenario's redact key), set
	                           * by rec_run_begin and rec_run_resume: every text the run
	                           * stores (error samples, events, its reason) goes through it */
	sqlite3_stmt *ins_interval, *ins_error, *heartbeat, *ins_event;
};

/* A run that soak did not drive: a JMeter result file brought in by `soak import`. */
struct rec_import {
	const char *origin; /* runs.origin: "jmeter" */
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
	const struct redact *redact; /* more secret names (soak import --redact), or NULL */
};

/* A runs row as it is first written (rec_run_insert): text left NULL stays NULL, except
 * protocol, status and model, which take "http", "running" and "closed". */
struct rec_run {
	const char *uuid;           /* NULL: a new random one */
	const char *name, *label;   /* the scenario's name; the system under test */
	const char *scenario_file;  /* the scenario's file, or NULL */
	const char *scenario;       /* its text as run, or NULL */
	const char *mode;           /* fixed | sweep */
	const char *protocol;       /* http | tcp-frame */
	const char *connection;     /* keepalive | close */
	const char *url;            /* the first request's URL (tcp-frame: the address) */
	const char *host;           /* the load generator */
	int64_t pid, pid_start;     /* the runner's process, when pid > 0 */
	const char *boot_id;        /* and its machine's boot */
	const char *soak_version;   /* what wrote the run */
	const char *curl_version;   /* libcurl's, when soak drove the run */
	const char *status;         /* running | done | interrupted | failed */
	int64_t interval_ms;        /* the intervals' length */
	int64_t started_ms;         /* wall ms */
	int64_t ended_ms;           /* wall ms when > 0; else the run is open */
	int64_t heartbeat_ms;       /* the last sign of life */
	const char *model;          /* closed | open */
	const char *arrival;        /* open model: constant | poisson, or NULL; with it: */
	int max_in_flight;          /* requests outstanding at most */
	int64_t max_lag_ms;         /* arrivals later than this are dropped */
	const char *origin;         /* NULL for soak's own runs; "jmeter" for an import */
	const char *agent_group;    /* a merged run's group, or NULL; with it: */
	int agent_seq, agent_count; /* its place in the queue and the agents planned */
};

int rec_open(struct recorder *r, const char *path, char *err, size_t errlen);
/* A recorder on a connection the caller keeps open and closes (soak merge's fold, inside
 * the caller's transaction); the caller sets run_id (and open) before writing. */
int rec_attach(struct recorder *r, sqlite3 *db, char *err, size_t errlen);
/* Finalizes the statements; closes the connection when rec_open opened it. */
void rec_close(struct recorder *r);
/* Inserts a runs row, the one INSERT INTO runs there is, and sets r->run_id; a row with
 * that uuid already there is left as it is and its id taken. */
int rec_run_insert(struct recorder *r, const struct rec_run *run, char *err, size_t errlen);
/* Inserts the run row of soak run (status running) and sets r->run_id and r->open. */
int rec_run_begin(struct recorder *r, const struct scenario *s, const char *curl_version,
                  int64_t started_ms, char *err, size_t errlen);
/* soak run --resume: takes run_id over from its stopped runner (this process's pid, host
 * and boot, status running, `resumed` counted up) and records the gap since gap_from_ms as
 * a gaps row and a `gap` event.  It succeeds only while the row still shows status_was
 * and heartbeat_was, as read when the run was judged resumable: two resumes of one run
 * cannot both win.  -1 with err otherwise. */
int rec_run_resume(struct recorder *r, const struct scenario *s, int64_t run_id,
                   const char *status_was, int64_t heartbeat_was, int64_t gap_from_ms, char *err,
                   size_t errlen);
/* Inserts an imported run, already closed as done, and sets r->run_id and r->imported;
 * its steps and intervals follow through the calls below. */
int rec_run_import(struct recorder *r, const struct rec_import *im, char *err, size_t errlen);
/* concurrency: the step's VUs (closed) or 0; rate: its arrivals per second (open) or 0. */
int rec_step_begin(struct recorder *r, int idx, int concurrency, double rate, int64_t started_ms,
                   int64_t planned_ms, char *err, size_t errlen);
/* Records the interval; *gen (may be NULL) gets what the generator did in it and whether
 * it may have set the pace (rec_gen), stored as intervals.gen_saturated. */
int rec_interval(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
                 const char *phase, int vus, const struct istats *st, struct rec_gen *gen,
                 char *err, size_t errlen);
/* The interval row alone, with its error classes, in the caller's transaction and without
 * the heartbeat: what rec_interval writes, and soak merge's fold for a merged interval
 * (r->threads 0: no generator CPU, a sum over machines means nothing).  gen_flags: the
 * gen_saturated column (REC_GEN_* bits).  Consumes r->probe_us. */
int rec_interval_row(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
                     const char *phase, int vus, const struct istats *st, int gen_flags, char *err,
                     size_t errlen);
/* The step's measured window and its whole histogram. */
int rec_step_end(struct recorder *r, int idx, int64_t window_start_ms, int64_t window_end_ms,
                 const struct istats *st, char *err, size_t errlen);
/* One threshold's verdict for a step (thresholds table): unit "ms", "%" or "req/s". */
int rec_threshold(struct recorder *r, int step_idx, const char *metric, const char *unit,
                  double limit, double value, int passed, char *err, size_t errlen);
/* fixed | sweep, when the run's shape is decided as it goes (a capacity search). */
int rec_set_mode(struct recorder *r, const char *mode, char *err, size_t errlen);
/* The engine, once it runs: its thread count (gen_cpu_pct is of all of them) and the
 * driver that sends, "curl", "lean" or "tcp-frame" (runs.client). */
int rec_set_engine(struct recorder *r, int threads, const char *client, char *err, size_t errlen);
/* The engine threads' CPU over `seconds`, as % of all `threads` of them; and the time they
 * waited, ready, for a core. */
double rec_gen_cpu_pct(const struct istats *s, double seconds, int threads);
double rec_gen_wait_pct(const struct istats *s, double seconds, int threads);
/* An event of the run, from this host, now. */
int rec_event(struct recorder *r, const char *source, const char *kind, const char *detail,
              char *err, size_t errlen);
/* An event of the run from another host or at another time (a merge note, a gap). */
int rec_event_at(struct recorder *r, const char *source, const char *host, int64_t t_ms,
                 const char *kind, const char *detail, char *err, size_t errlen);
/* status: done | interrupted | failed; reason may be NULL. */
int rec_run_end(struct recorder *r, const char *status, const char *reason, char *err,
                size_t errlen);

#endif
