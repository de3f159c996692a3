/*
 * report — `soak report` as the rest of soak uses it: read the databases into a report,
 * build it (judge the runs and word the findings), write its files or its JUnit XML; and
 * the one-shot uses other commands make of it: soak run's end-of-run drift check and
 * --junit, soak runs' drift, soak study's sequential stop, soak check's how long to run.
 * The model, and everything report/ shares inside, is report_int.h.
 *
 * Errors: functions return 0 or -1 and fill err; only the commands print.
 */
#ifndef SOAK_REPORT_H
#define SOAK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RPT_MAX_DBS    16  /* databases on one command line */
#define RPT_MAX_RUNS   500 /* runs in one report */
#define RPT_MAX_LABELS 32  /* labels in one report */

/* Options of one report. */
struct rpt_opts {
	const char *const *dbs;    /* database paths */
	int ndbs;                  /* how many */
	const char *const *labels; /* --label filters in order (first = baseline), or none */
	int nlabels;               /* how many */
	const char *runs;          /* --runs ID,... or K:ID,...; NULL = all */
	const char *title;         /* --title, or NULL */
	const char *outdir;        /* -o */
	int plots;                 /* draw pictures */
	int64_t mem_window_ms;     /* --memory-window: the shortest measured window a process
	                            * memory trend is judged on; 0: RPT_MEM_MIN_HOURS */
};

/* A report: what the databases hold about the selected runs, and what is judged and said
 * about them (report_int.h).  The caller owns it. */
struct report;
/* report_data.c: an empty report, for rpt_read; NULL out of memory. */
struct report *rpt_new(void);
/* Releases r and all it owns (NULL is fine). */
void rpt_delete(struct report *r);
/* report_load.c: reads the selected runs of every database into r (r zeroed first) and
 * judges each run's drift.
 * Exit-status hints: *usage = 1 when the failure is the input's (missing file, newer
 * schema, not a soak database, bad --runs), 0 when it is a runtime failure. */
int rpt_read(struct report *r, const struct rpt_opts *o, int *usage, char *err, size_t errlen);
/* Releases what r owns, keeping r itself for another rpt_read (a read or empty report is
 * fine). */
void rpt_free(struct report *r);
/* report_build.c: cells, comparisons, sweeps, validity and verdicts. */
int rpt_build(struct report *r, const struct rpt_opts *o, char *err, size_t errlen);
/* What a built report holds: for soak report's closing line. */
struct rpt_counts {
	int runs, labels, findings; /* how many of each */
	int pictures;               /* pictures drawn (their SVG and PNG written) */
	int planned;                /* pictures the report has (drawn or not) */
	const char *plot_note;      /* why pictures are missing, or "" */
};
void rpt_counts(const struct report *r, struct rpt_counts *c);
/* report_files.c: everything into DIR (created): the findings and validity items in
 * words, pictures (drawn when `draw`, else only registered), then report.md, report.html,
 * summary.csv and report.json, each written to a temporary name and renamed, so a reader
 * never sees half a file. */
int rpt_write_files(struct report *r, const char *dir, int draw, char *err, size_t errlen);

/* report_junit.c: CI gates.  The report's runs as JUnit XML into `path` (written to a
 * temporary name and renamed): a suite per run with a case for how it ended, one per
 * threshold and step, its drift verdict and one per validity warning (see the file's
 * head for what fails, errs and is skipped).  dbs: the databases the report read (the
 * thresholds and drift breaches are read from them); miss[0..nmiss): scenarios that
 * never became a run, each an error case.  0, or -1 with err. */
struct rpt_junit_miss {
	const char *name;    /* the scenario */
	const char *message; /* why it did not start */
};
int rpt_write_junit(struct report *r, const char *const *dbs, const struct rpt_junit_miss *miss,
                    int nmiss, const char *path, char *err, size_t errlen);
/* soak run's and soak study's --junit: runs ids[0..n) of db_path (ids <= 0 are left out)
 * read and judged as `soak report --runs` would, then rpt_write_junit. */
int rpt_junit_runs(const char *db_path, const int64_t *ids, int n,
                   const struct rpt_junit_miss *miss, int nmiss, const char *path, char *err,
                   size_t errlen);

/* report_json.c: `soak runs --json`: the drift of the report's first run (step -1: the run's own;
 * k: step k of a sweep run) as member `key` of w's open object; 1 when written, 0 when there is
 * none. */
struct jsonw;
int rpt_run_drift_json(const struct report *r, int step, const char *key, struct jsonw *w);
/* report_drift_check.c: the end-of-run check of `soak run` (run/ cannot use report/, so soak run
 * hands it to the runner): reads run `run_id` of db_path as `soak report --runs ID` would, appends
 * its drift sentence to verdict (whole: common/buf) and returns the number of breaches
 * (rpt_drift_breaches, every step), or -1 with err. */
struct buf;
int rpt_drift_check(const char *db_path, int64_t run_id, double tps, double mean, double p99,
                    char *msgs, size_t msglen, int max, struct buf *verdict, char *err,
                    size_t errlen);
/* report_compare.c: sequential studies: 1 when every comparison's interval of each figure
 * fig[i] is at most pct[i] % of the baseline (half-width, at the level the verdict tested
 * it), 0 when not yet (why: "tomcat10: tps ±4.2% (3% asked)"), -1 when a figure is named
 * that no comparison has (err says which). */
int rpt_until_met(const struct report *r, const char *const *fig, const double *pct, int n,
                  char *why, size_t whylen, char *err, size_t errlen);
/* report_profile_text.c: `soak profile`: each comparison's profile (of `source`, NULL:
 * every one) as its answer and its first `top` frames, aligned text; how many were
 * printed, or -1 out of memory. */
int rpt_print_profiles(const struct report *r, const char *source, int top, FILE *f);
/* report_estimate.c: how long to run (soak check), from runs (a --runs list) of the
 * database at path: per label and level, each figure's noise and the rounds and run
 * length that would resolve RPT_RESOLVE_*_PCT.  Says nothing when they cannot be read. */
void rpt_write_estimate(const char *path, const char *runs, FILE *out);

#endif
