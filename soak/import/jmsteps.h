/*
 * jmsteps — the steps of a JMeter result file, and the intervals that carry them.
 *
 * Holds: read in file order, each sample says how many threads were active when it ended
 * (allThreads, else grpThreads).  A hold is a stretch of consecutive samples at one thread
 * count; it lasts from its first sample's end to the first end at another count (the file's
 * end for the last).  Times are the latest end seen so far, so the threads' interleaving
 * never runs a hold backwards.
 *
 * Steps: a hold is a step when it lasts at least a tenth as long as the file's longest
 * hold (JM_STEP_SHARE).  Ramps (one count after another, each held briefly), the
 * threads stopping at the end, and a brief dip are no steps: their samples belong to the
 * step around them.  Step holds at the same count with only shorter holds between them are
 * one step.  A file without thread counts is one step at 0.  Several steps make a sweep.
 * Only the holds that can still be steps are kept while reading (the longest so far sets
 * the bar), so memory stays small whatever the file's length; JM_MAX_HOLDS bounds it for a
 * file whose counts never settle.
 *
 * Intervals: they start at the file's first sample start (the origin) and follow every
 * interval_ms; samples are placed by their end.  The last is cut at the file's end, and
 * when that leaves less than half an interval it joins the one before (when both belong to
 * the same step): every interval then holds at least half an interval of time, so its rate
 * is a rate.  Every interval belongs to one step: the first step starts at the origin;
 * each later one at the interval in which the previous step's hold ended (the ramp to its
 * level is its start); the last runs to the file's end (the threads stopping are its
 * end).  Every sample is thus in exactly one step.  The first warmup_ms of each step
 * (intervals starting before step start + warmup_ms) are its warm-up; the rest is its
 * measured window, so with no warm-up the steps' windows hold the whole file.
 */
#ifndef SOAK_JMSTEPS_H
#define SOAK_JMSTEPS_H

#include <stddef.h>
#include <stdint.h>

#define JM_MAX_STEPS  64
#define JM_STEP_SHARE 10     /* a step lasts at least 1/JM_STEP_SHARE of the longest hold */
#define JM_MAX_HOLDS  100000 /* step candidates kept at once while reading */
#define JM_AUTO_IVS                                                                                \
	30 /* a chosen interval fits this many times in every step: the                            \
	    * report judges a window's drift by its thirds, each of ten                            \
	    * intervals at least */

/* A stretch of the file at one thread count. */
struct jm_hold {
	int level;       /* active threads; 0 when the file has no counts */
	int64_t from_ms; /* its first sample's end */
	int64_t to_ms;   /* the first end at another count, or the file's end (exclusive) */
};

/* Reading holds, one sample at a time. */
struct jm_holds {
	struct jm_hold cur;   /* the hold being read */
	int have;             /* cur is open */
	int any_threads;      /* some sample had a count above 0 */
	int64_t now;          /* latest end read so far */
	int64_t longest;      /* longest closed hold, ms */
	struct jm_hold *kept; /* closed holds at least longest / JM_STEP_SHARE long, in order */
	int nkept;            /* how many */
	size_t cap;           /* allocated */
};

void jm_holds_init(struct jm_holds *h);
void jm_holds_release(struct jm_holds *h);
/* The next sample in file order: its thread count (-1: none) and end.  -1 when out of
 * memory or past JM_MAX_HOLDS (err says which). */
int jm_holds_add(struct jm_holds *h, int level, int64_t end_ms, char *err, size_t errlen);
/* Closes the last hold at end_ms (exclusive) and keeps only the step holds; -1 as above. */
int jm_holds_finish(struct jm_holds *h, int64_t end_ms, char *err, size_t errlen);

/* A step of the file. */
struct jm_step {
	int level;                     /* active threads */
	int64_t hold_from, hold_to;    /* its hold (merged holds): ms */
	int first, last;               /* its intervals (0-based, inclusive) */
	int steady_first, steady_last; /* its measured window; -1 when it has none */
};

/* The steps of finished holds of a file spanning [origin, end): at least one (a file
 * without counts: one step of 0 over all of it); -1 past max_steps.  Fills level and
 * hold_*. */
int jm_find_steps(const struct jm_holds *h, int64_t origin, int64_t end, struct jm_step *steps,
                  int max_steps);

/* The intervals of a file spanning [origin, end) in steps of interval_ms, and their steps:
 * the layout above.  step_of and phase_of (enum jm_phase) get an entry per interval and
 * must hold jm_interval_count()'s; fills steps' first/last/steady_*.  Returns the number of
 * intervals, or -1 when a step would get no interval of its own (the interval is too long
 * for it; *short_step says which). */
enum jm_phase { JM_RAMPUP, JM_WARMUP, JM_STEADY, JM_DRAIN };
int64_t jm_interval_count(int64_t origin, int64_t end, int64_t interval_ms);
int64_t jm_layout(int64_t origin, int64_t end, int64_t interval_ms, int64_t warmup_ms,
                  struct jm_step *steps, int nsteps, int *step_of, unsigned char *phase_of,
                  int *short_step);
/* Start of interval r of a layout (the last one ends at `end`). */
int64_t jm_interval_start(int64_t origin, int64_t interval_ms, int64_t r);
/* The interval of a sample ending at end_ms, among n. */
int64_t jm_interval_of(int64_t origin, int64_t interval_ms, int64_t n, int64_t end_ms);
/* The default interval: the longest of 10 s, 5 s, 2 s, 1 s, 500 ms, 200 ms and 100 ms
 * that fits JM_AUTO_IVS times in every step's hold (100 ms when none does). */
int64_t jm_auto_interval(const struct jm_step *steps, int nsteps);
const char *jm_phase_name(enum jm_phase p);

#endif
