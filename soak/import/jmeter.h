/*
 * jmeter — a JMeter result file (jtl.h) becomes a recorded run, as if `soak run` had
 * driven it, so an old JMeter baseline and a new soak run compare in one report.
 *
 * Two passes over the file, each in bounded memory whatever its size.  The first checks
 * every sample (any mistake: FILE:LINE and nothing written), and learns the run's span,
 * the holds of its thread counts (jmsteps.h) and JMeter's Aggregate Report of the file
 * (jmagg.h: the TOTAL row and one per label, as JMeter 2.13 computes them).  From the holds
 * come the steps and, unless one is given, the interval; from those the layout of the
 * intervals (jmsteps.h: from the first sample's start, each in one step, the first
 * warmup_ms of each step left out of its measured window).  The second pass rebuilds the
 * intervals, each with the HDR histogram of the elapsed times of the samples that ended in
 * it (every sample, failed ones too, as JMeter's own report counts them), their counts,
 * bytes, mean time to first byte (Latency) and error classes (jtl_classify), and records
 * them through a stage (stage.h): the target gets the whole run or nothing.  With no
 * warm-up the steps' windows hold every sample: soak's totals are the file's.
 *
 * Samples are placed by their end (timeStamp + elapsed, or timeStamp when the file was
 * written with sampleresult.timestamp.start=false): where soak's engine counts a request.
 * JMeter writes a sample when it ends, so files are in that order give or take the
 * threads' interleaving; a sample that ends more than JM_SLACK_MS before an earlier line's
 * sample started means the file was reordered or concatenated, and is refused.
 *
 * Each step's planned length is the steps' nominal length: their median length rounded
 * to the minute (10 s under 5 minutes, 1 s under one), the same for every step, so the
 * report pairs the run with soak runs planned for as long.
 */
#ifndef SOAK_JMETER_H
#define SOAK_JMETER_H

#include <stddef.h>
#include <stdint.h>

#include "jmagg.h"
#include "jmsteps.h"

#define JM_SLACK_MS      120000   /* how far out of time order lines may be */
#define JM_MAX_INTERVALS 10000000 /* intervals a run may span */

struct jmeter_opts {
	const char *path;       /* the result file (plain or gzip) */
	const char *db_path;    /* the target database */
	const char *label;      /* the run's label */
	const char *name;       /* the run's name; NULL: "JMeter FILE" */
	int64_t interval_ms;    /* of the rebuilt intervals; 0: chosen (jm_auto_interval) */
	int64_t warmup_ms;      /* per step, out of the measured window */
	int ts_end;             /* timeStamp is a sample's end, not its start */
	const char *connection; /* keepalive | close: how the samplers connected */
	const struct redact *redact; /* more secret names (--redact), or NULL */
};

/* A row of JMeter's Aggregate Report of the file. */
struct jmeter_row {
	char *label; /* owned; "TOTAL" for the total */
	struct jmagg_row r;
};

struct jmeter_result {
	int64_t run_id;
	int64_t samples, errors;
	int64_t started_ms, ended_ms;
	int64_t interval_ms; /* of the intervals built (the given one, or the chosen) */
	int nsteps;
	int levels[JM_MAX_STEPS];      /* concurrency of each step */
	int64_t held_ms[JM_MAX_STEPS]; /* how long each step's level was held */
	int unmeasured[JM_MAX_STEPS];  /* 1: the warm-up left the step no measured window */
	int threads_known;             /* the file had thread counts */
	int format_xml;                /* 1 XML, 0 CSV */
	int nlabels;                   /* distinct sampler labels */
	struct jmeter_row total;       /* JMeter's TOTAL row */
	struct jmeter_row *rows;       /* one per label, in order of first appearance; owned */
	int nrows;
};

/* Returns 0, -1 on a runtime failure (database), -2 on bad input; err holds
 * "FILE:LINE: what is wrong" or the database's message.  Release res after a 0. */
int jmeter_import(const struct jmeter_opts *o, struct jmeter_result *res, char *err, size_t errlen);
void jmeter_result_release(struct jmeter_result *res);

#endif
