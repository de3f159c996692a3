/*
 * jmeter — a JMeter result file (jtl.h) becomes a recorded run, as if `soak run` had
 * driven it, so an old JMeter baseline and a new soak run compare in one report.
 *
 * Two passes over the file, each in bounded memory whatever its size.  The first checks
 * every sample (any mistake: FILE:LINE and nothing written) and builds the timeline: the
 * run's span, and per interval the number of active threads (allThreads, else grpThreads)
 * of the sample that finished last in it.  From that timeline come the steps (below).  The
 * second pass rebuilds the intervals on the wall clock (an interval starts at a multiple
 * of interval_ms since the epoch; the first and last are cut to the run's span), each with
 * the HDR histogram of the samples that finished in it (elapsed, µs), their counts, bytes,
 * mean time to first byte (Latency) and error classes (jtl_classify), and records them
 * through a stage (stage.h): the target gets the whole run or nothing.
 *
 * Samples are placed by their end (timeStamp + elapsed, or timeStamp when the file was
 * written with sampleresult.timestamp.start=false): where soak's engine counts a request.
 * JMeter writes a sample when it ends, so files are in that order give or take the
 * threads' interleaving; a sample that ends more than JM_SLACK_MS before an earlier line's
 * sample started means the file was reordered or concatenated, and is refused.
 *
 * Steps: intervals with the same thread count in a row form a plateau; a plateau is a step
 * when it lasts at least max(min(3, L), L / 10) intervals, L being the longest plateau's
 * length (a ramp of one thread per interval or two is no step; a sweep's levels are).
 * Several steps make a sweep.  Intervals before a step (and between steps) are its
 * ramp-up, the first interval of a plateau too (its thread count changed within it), then
 * warmup_ms of warm-up; the rest is the measured window.  Intervals after the last step
 * are its drain.  Each step's planned length is the steps' nominal length: their median
 * length rounded to the minute (10 s under 5 minutes, 1 s under one), the same for every
 * step, so the report pairs the run with soak runs planned for as long.
 */
#ifndef SOAK_JMETER_H
#define SOAK_JMETER_H

#include <stddef.h>
#include <stdint.h>

#define JM_SLACK_MS      120000   /* how far out of time order lines may be */
#define JM_MAX_INTERVALS 10000000 /* intervals a run may span */
#define JM_MAX_STEPS     64

struct jmeter_opts {
	const char *path;       /* the result file (plain or gzip) */
	const char *db_path;    /* the target database */
	const char *label;      /* the run's label */
	const char *name;       /* the run's name; NULL: "JMeter FILE" */
	int64_t interval_ms;    /* of the rebuilt intervals */
	int64_t warmup_ms;      /* per step, out of the measured window */
	int ts_end;             /* timeStamp is a sample's end, not its start */
	const char *connection; /* keepalive | close: how the samplers connected */
};

struct jmeter_result {
	int64_t run_id;
	int64_t samples, errors;
	int64_t started_ms, ended_ms;
	int nsteps;
	int levels[JM_MAX_STEPS]; /* concurrency of each step */
	int threads_known;        /* the file had thread counts */
	int format_xml;           /* 1 XML, 0 CSV */
	int nlabels;              /* distinct sampler labels */
};

/* Returns 0, -1 on a runtime failure (database), -2 on bad input; err holds
 * "FILE:LINE: what is wrong" or the database's message. */
int jmeter_import(const struct jmeter_opts *o, struct jmeter_result *res, char *err, size_t errlen);

/* Phases of an interval, as the intervals table names them. */
enum jm_phase { JM_RAMPUP, JM_WARMUP, JM_STEADY, JM_DRAIN };
const char *jm_phase_name(enum jm_phase p);

/* A step found on the timeline: interval indexes (0-based, inclusive). */
struct jm_step {
	int level;                     /* concurrency */
	int first, last;               /* its intervals, ramp-up (and drain) included */
	int steady_first, steady_last; /* its measured window; -1 when it has none */
};

/* The steps of a timeline (rule above): level[i] and start_ms[i] of n intervals; fills
 * step_of[i], phase_of[i] and steps[]; returns the number of steps (at least 1 when n > 0),
 * or -1 past max_steps. */
int jm_find_steps(const int *level, const int64_t *start_ms, int n, int64_t warmup_ms, int *step_of,
                  unsigned char *phase_of, struct jm_step *steps, int max_steps);

#endif
