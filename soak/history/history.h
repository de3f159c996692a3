/*
 * history — night over night: every run of one or more databases grouped into series,
 * each figure over time, and where it shifted (change points, changepoint.h) with what
 * changed in run_env across the shift (history.c); which runs of a database it holds
 * (history_runs.c); and the history in words (write/history_write.c: tables, aligned
 * text, JSON).  The front of history/: the rest of soak includes only this header.
 * report/ makes the points of its runs (report/report_history.h): `soak history` reads
 * every run of the databases (rpt_hist_read) and `soak report` takes the runs it read
 * (rpt_hist_from_report); both print it with the writers below.  history/ uses nothing
 * of report/, so that the report's night over night section can use it.
 *
 * A series is one label and one scenario: the runs' label, their scenario's name
 * (runs.name, what the user calls the nightly job; calibrations key on it too) and the
 * report's cell key (fixed or sweep step, concurrency, planned step length), so that a
 * sweep gives one series per level.  The scenario text is not part of it: it holds
 * what changes from night to night without changing what is measured (the target's URL
 * and port, --set overrides, comments), while the cell key is what decides whether two
 * runs measured the same thing (MongoDB's performance CI keys its series by test and
 * thread level the same way).  What else changed between two runs is in run_env, and is
 * shown at every change point.
 *
 * A point is one done run (a sweep run: one point per step); runs still running,
 * interrupted, failed or crashed and a study's warm-up runs are left out and counted.
 * Figures per point: TPS, p99, error %, CPU per request of each process source (ms of
 * CPU per request: its mean CPU over the measured window / TPS) and heap after GC of
 * each GC source (MB: the mean of the steady window's regression points, gcanalysis.h;
 * fixed runs only), with the drift verdict beside them.  Change points are looked for in
 * each figure of a series of at least RPT_HIST_MIN_RUNS points.
 *
 * Ownership: a struct rpt_history owns everything below it; rpt_hist_free() releases it
 * (NULL is fine).  Single-threaded.  Functions return 0 or -1 with err.
 */
#ifndef SOAK_HISTORY_H
#define SOAK_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#include "changepoint.h"

/* Points one series needs for change points: with three a side at least (CP_MIN_SIZE),
 * 10 is the shortest series in which a perfect step can reach p <= 0.01 (1/C(10,5) =
 * 0.004; with 8, 1/C(8,4) = 0.014 never can).  Also when `soak report` shows a history. */
#define RPT_HIST_MIN_RUNS  10
#define RPT_HIST_MAX_RUNS  5000 /* points one history holds (a sweep run: one a step) */
#define RPT_HIST_SHOW_ROWS 100  /* newest points a report's history table lists */
#define RPT_HIST_NAME_MAX  64   /* a source's name (as the report's RPT_NAME_MAX) */
#define RPT_HIST_SOURCES   16   /* sources of one series (as the report's RPT_MAX_SOURCES) */
#define RPT_HIST_FIGS_MAX  (3 + 2 * RPT_HIST_SOURCES) /* figures of one series */

enum rpt_hist_kind {
	RPT_HK_TPS,     /* requests per second; a fall is worse */
	RPT_HK_P99,     /* 99th percentile latency, ms */
	RPT_HK_ERR,     /* error %, of requests */
	RPT_HK_CPU_REQ, /* CPU ms per request of a process source */
	RPT_HK_HEAP,    /* heap after GC of a GC source, MB */
};

/* A fact of run_env (the report's struct rpt_env_fact), copied. */
struct rpt_hist_fact {
	char *source; /* "" for the load generator */
	char *key;    /* soak/run/env.h */
	char *value;  /* as recorded */
};

/* A source's figures at one point. */
struct rpt_hist_src {
	char name[RPT_HIST_NAME_MAX]; /* the source */
	double cpu_req_ms;            /* CPU ms per request (NAN: not a process source, no CPU) */
	double heap_mb;               /* heap after GC, MB (NAN: no GC log, or a sweep step) */
};

/* One point of a series: a run, or one step of a sweep run. */
struct rpt_hist_run {
	int db;                    /* index into rpt_history.dbs */
	int64_t id;                /* runs.id */
	char key[48];              /* "7", or "2:7" when several databases are read */
	int step;                  /* 0-based step index (a fixed run: 0) */
	int64_t started_ms;        /* the run's start */
	char *label;               /* runs.label (owned) */
	char *name;                /* runs.name: the scenario's name (owned) */
	int sweep;                 /* 1: a step of a sweep run */
	int concurrency;           /* the step's virtual users */
	int64_t planned_ms;        /* the step's planned length, warm-up included */
	double tps, p99_ms;        /* over the step's measured window (p99 NAN: none answered) */
	double error_pct;          /* errors / requests, % */
	struct rpt_hist_src *src;  /* per source of the run (owned) */
	int nsrc;                  /* entries in src */
	const char *drift;         /* the drift verdict's name (static), NULL: none judged */
	struct rpt_hist_fact *env; /* the run's facts (owned), sorted by source then key */
	int nenv;                  /* entries in env */
};

/* A fact that differs between the last run before a change point and the first after. */
struct rpt_hist_change {
	char *source; /* "" for the load generator (owned, like the rest) */
	char *key;    /* the fact */
	char *before; /* its value before ("" when not recorded) */
	char *after;  /* and after */
	char *diff;   /* as shown: "before → after", for a command line only the tokens that
	               * differ ("--latency 1 → --latency 20") */
	int steady;   /* 1: the old value held on every run of the segment before and the new
	               * one on every run of the segment after: it moved with the figure */
};

/* A change point of one figure. */
struct rpt_hist_cp {
	int fig;                     /* index into the series' figs */
	int at;                      /* index into the series' runs: the first at the new level */
	double before, after;        /* means of the segments on either side */
	double sd_before, sd_after;  /* their standard deviations (NAN: one point) */
	int n_before, n_after;       /* runs with the figure in each segment */
	int seg_from, seg_to;        /* the segments: runs [seg_from, at) and [at, seg_to) */
	double change_pct;           /* 100 (after - before) / |before| (NAN: before 0) */
	int worse;                   /* +1: the figure got worse, -1: better */
	double p;                    /* permutation p-value */
	int perms;                   /* permutations its test ran */
	struct rpt_hist_change *chg; /* facts that differ between runs at - 1 and at (owned) */
	int nchg;                    /* entries in chg */
};

/* One figure of a series over its runs. */
struct rpt_hist_fig {
	enum rpt_hist_kind kind;        /* what it measures */
	char source[RPT_HIST_NAME_MAX]; /* the source of CPU and heap figures, else "" */
	double *v;                      /* per run of the series (NAN: none) (owned) */
	int valid;                      /* runs with a value */
	int analysed;                   /* runs analysed (at most CP_MAX_N, the newest) */
	int from;                       /* index of the first run analysed */
	int tests;                      /* permutation tests run */
	long perms;                     /* permutations run */
	double p_stop;                  /* p of the last test, which found nothing (NAN: none) */
};

/* A series: one label and scenario. */
struct rpt_hist_series {
	struct rpt_hist_run *runs; /* into rpt_history.runs, oldest first */
	int nruns;                 /* how many */
	int analysed; /* 1: nruns >= the history's min_runs: change points looked for */
	struct rpt_hist_fig *figs; /* TPS, p99, error %, CPU per request, heap (owned) */
	int nfigs;                 /* entries in figs */
	struct rpt_hist_cp *cps;   /* change points, by run then figure (owned) */
	int ncps;                  /* entries in cps */
};

struct rpt_history {
	char **dbs;                     /* base names of the databases (owned) */
	int ndbs;                       /* how many */
	struct rpt_hist_run *runs;      /* every point, grouped by series (owned) */
	int nruns;                      /* entries in runs */
	size_t cap;                     /* allocated */
	int not_done;                   /* runs left out: not done */
	int warmups;                    /* runs left out: a study's warm-up runs */
	int min_runs;                   /* points a series needs to be analysed */
	struct cp_opts cp;              /* the change-point options used */
	struct rpt_hist_series *series; /* by label, scenario, kind, concurrency, length */
	int nseries;                    /* entries in series */
};

/* Allocates an empty history of the databases `names` (their base names are kept). */
struct rpt_history *rpt_hist_new(const char *const *names, int ndbs);
void rpt_hist_free(struct rpt_history *h);
/* Room for n more points in h->runs: the caller fills h->runs[h->nruns] and counts it in
 * nruns, and h owns what it holds from then on.  -1 out of memory or past
 * RPT_HIST_MAX_RUNS points. */
int rpt_hist_room(struct rpt_history *h, int n, char *err, size_t errlen);
/* Groups the points into series, and looks for change points in each figure of the
 * series with at least h->min_runs points. */
int rpt_hist_analyse(struct rpt_history *h, char *err, size_t errlen);
/* history_runs.c: the ids of the runs of database `path` a history holds (agents' runs
 * folded into a merged run are that run), oldest first, the labels and scenario names
 * filtered when given (nlabels 0, scenario NULL: all); *ids allocated.  *usage = 1 when
 * the input is at fault (a missing file, not a soak database, a newer schema, no run). */
int rpt_hist_list_runs(const char *path, const char *const *labels, int nlabels,
                       const char *scenario, int64_t **ids, int *n, int *usage, char *err,
                       size_t errlen);

/* write/history_write.c.  The series as text tables, for `soak history` (analysed or
 * not). */
int rpt_hist_write_text(const struct rpt_history *h, FILE *f);
/* The history as one JSON object ({"method": ..., "series": [...]}), the next value of w, its
 * lines indented by `indent` more; only_analysed: the series with change points looked for
 * (report.json), else all (`soak history --json`).  Returns -1 when writing failed. */
struct jsonw;
int rpt_hist_write_json(const struct rpt_history *h, int only_analysed, const char *indent,
                        struct jsonw *w);
/* The tables of a report's history section: per analysed series, its runs (the newest
 * RPT_HIST_SHOW_ROWS) and its change points.  *out is allocated (rpt_tables_free,
 * report_tb.h); none when h is NULL. */
struct rpt_table;
int rpt_hist_tables(const struct rpt_history *h, struct rpt_table **out, int *n, char *err,
                    size_t errlen);

#endif
