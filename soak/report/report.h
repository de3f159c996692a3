/*
 * report — the model of `soak report`: what the databases hold about the selected runs,
 * the tables and findings built from it, and the writers that turn it into report.md,
 * report.html, summary.csv, report.json and gnuplot pictures.
 *
 * Flow, one direction only:
 *   rpt_read()      report_data.c   each database in turn, read-only use; afterwards the
 *                                   model holds everything and no database stays open
 *   rpt_build()     report_build.c  cells, sweeps, comparisons, memory, findings
 *   rpt_plots()     report_plot.c   data files, scripts and gnuplot runs into DIR
 *   rpt_write_*()   report_md.c, report_html.c, report_json.c; rpt_write_files() (report_files.c)
 *                   puts them all in the report's directory
 * Statistics (batch means, Welch's test, USL fit, saturation) are report_stats.c, free of
 * the model so the unit tests can drive them with synthetic numbers.
 *
 * Ownership: a `struct report` owns every string and array below it; rpt_free() releases
 * all (a zeroed or freed report is fine).  Indices (label, run, cell) refer into the
 * report's own arrays and stay valid until rpt_free().  Single-threaded.
 *
 * Determinism: everything is sorted (runs by database then start then id, labels in the
 * order given or of first appearance, cells by kind, concurrency, duration), numbers are
 * printed with fixed formats, and nothing depends on the current time except whether a
 * `running` row is still running (res_status).  The same databases give the same bytes.
 *
 * Errors: functions return 0 or -1 and fill err; only cmd_report prints.
 */
#ifndef SOAK_REPORT_H
#define SOAK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gcanalysis.h"
#include "engine/stats.h"

#define RPT_MAX_DBS          16      /* databases on one command line */
#define RPT_MAX_RUNS         500     /* runs in one report */
#define RPT_MAX_LABELS       32      /* labels in one report */
#define RPT_MAX_SOURCES      16      /* collector series (CPU, RSS, GC sources) per run */
#define RPT_MAX_POINTS       1000    /* points of one time series; longer runs are bucketed */
#define RPT_MAX_INTERVALS    2000000 /* steady intervals of one step (72 h at 1 s is 259,200) */
#define RPT_MAX_RUN_PICTURES 40      /* runs that get per-run pictures; the rest are listed */
#define RPT_NAME_MAX         64      /* source names */
#define RPT_PIC_NAME_MAX     160     /* picture names: kind, run key and source */
#define RPT_SAT_SHARE        0.95    /* saturation: lowest level reaching this share of the peak */
#define RPT_USL_MIN_LEVELS   4       /* levels a sweep needs for a USL fit */
#define RPT_BM_MIN_BATCHES   10      /* batch means: never fewer batches than this by merging */
/* Comparisons: the family-wise error rate of one comparison's verdicts; with one run a
 * side and no calibration, the smallest change called real (consecutive runs of one
 * system drift ~5 %: two of them differ by 20 % about once in a thousand), and the same
 * for p99, which moves far more from run to run (30-80 % on a busy machine); the rounds
 * that make a paired comparison (fewer leave the differences too few degrees of freedom,
 * n - 1, to be worth it). */
#define RPT_ALPHA         0.05
#define RPT_FLOOR_PCT     20.0
#define RPT_FLOOR_P99_PCT 50.0
#define RPT_PAIR_MIN      6
#define RPT_MAX_STUDIES   16  /* studies one report describes */
#define RPT_MAX_CALS      256 /* calibrations read from the databases */

/* --- statistics (report_stats.c) ---------------------------------------------------- */

/* A mean and its standard error by the method of batch means.  Observations come in
 * segments (one per run, in time order); batches never cross a segment's end.  The batch
 * size starts at one observation and doubles while the batch means are still correlated
 * (lag-1 autocorrelation above 2/sqrt(batches)) and at least 2 * RPT_BM_MIN_BATCHES
 * batches would remain, so that neighbouring intervals that move together (a slow minute)
 * do not pass for independent evidence. */
struct rpt_bm {
	size_t n;       /* observations */
	size_t batches; /* batches the standard error comes from */
	size_t batch;   /* observations per batch */
	double mean;    /* mean of all observations (NAN when n == 0) */
	double se;      /* standard error of the mean (NAN when batches < 2) */
	double df;      /* degrees of freedom: batches - 1 */
};

enum rpt_verdict {
	RPT_NA,    /* not enough intervals (or runs) on one side to judge */
	RPT_NOISE, /* the confidence interval of the difference holds 0 (or is below the floor) */
	RPT_REAL,  /* it does not: the difference is real at the interval's level */
};

/* The difference b - a of two means, by Welch's t-test on their standard errors (batch
 * means of one run's intervals, or the spread of run means: see struct rpt_cmp). */
struct rpt_diff {
	double a, b;    /* the two means (a: baseline) */
	double diff;    /* b - a */
	double rel_pct; /* 100 * (b - a) / a; NAN when a == 0 */
	double lo, hi;  /* confidence interval of b - a at `level` (NAN when RPT_NA) */
	double t;       /* Welch's t (NAN when RPT_NA; +-INFINITY when both errors are 0) */
	double df;      /* Welch-Satterthwaite degrees of freedom */
	double p;       /* two-sided p-value */
	double level;   /* confidence level of lo..hi: 0.95, or in a comparison the level
	                 * Holm's step-down tested the figure at (1 - 0.05 / (k - rank)) */
	enum rpt_verdict verdict; /* real, noise or n/a */
};

/* The Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)). */
struct rpt_usl {
	int ok;        /* 1 when fitted */
	double sigma;  /* contention, 0 <= sigma <= 1 */
	double kappa;  /* coherency delay, >= 0 */
	double lambda; /* throughput of one user */
	double r2;     /* of the fitted X against the measured X */
	double n_star; /* sqrt((1 - sigma) / kappa): concurrency of the peak; INFINITY if kappa 0 */
	double x_star; /* X(n_star); INFINITY when kappa is 0 and sigma is 0 */
};

/* Where a sweep stops growing. */
struct rpt_sat {
	int ok;        /* 1 when computed (at least one level) */
	size_t at;     /* index of the lowest level whose X reaches RPT_SAT_SHARE of the peak */
	size_t peak;   /* index of the peak X */
	int saturated; /* 1 when `at` is below the highest level: more users added no X */
};

/* Batch means over x[0..n) split in segments seg[0..nseg) (their sum is n; nseg 0 means
 * one segment).  NAN observations are skipped. */
void rpt_batch_means(const double *x, size_t n, const size_t *seg, size_t nseg, struct rpt_bm *out);
/* Welch's test of b against a (a is the baseline), 95% interval. */
void rpt_welch(const struct rpt_bm *a, const struct rpt_bm *b, struct rpt_diff *d);
/* The same with a (1 - alpha) interval. */
void rpt_welch_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                     struct rpt_diff *d);
/* Student's two-sample t on run means (rpt_run_means, two or more a side): the spreads
 * pooled, n_a + n_b - 2 degrees of freedom, a (1 - alpha) interval.  With as many runs on
 * each side it holds its level even when the spreads differ, and with few runs it keeps
 * the degrees of freedom Welch's would lose. */
void rpt_student_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                       struct rpt_diff *d);
/* One observation per run: the mean of x[0..n) (NAN skipped) as an rpt_bm whose batches
 * are the runs (batch 1), se = sd / sqrt(n), df = n - 1; se NAN below two runs. */
void rpt_run_means(const double *x, size_t n, struct rpt_bm *out);
/* b - a when the standard error of the difference and its degrees of freedom are known
 * (a calibration's run-to-run spread), with a (1 - alpha) interval. */
void rpt_diff_known(double a, double b, double se, double df, double alpha, struct rpt_diff *d);
/* Whether x lies outside the (1 - alpha) prediction interval of one more observation from
 * the sample s (an rpt_run_means, two or more runs): mean +- t sd sqrt(1 + 1/n).  0 when
 * it lies inside or s cannot say; *rel_pct gets 100 (x - mean) / mean, *half_pct the
 * interval's half-width in % of the mean. */
int rpt_outlier(const struct rpt_bm *s, double x, double alpha, double *rel_pct, double *half_pct);
/* Student's t distribution: P(T <= t) and its inverse, df > 0. */
double rpt_t_cdf(double t, double df);
double rpt_t_quantile(double p, double df);
/* USL fit of x[i] measured at concurrency n[i] (k points, k >= 3; n ascending, >= 1):
 * least squares, started from the linearised form N/X = (1 + sigma (N-1) + kappa N (N-1))
 * / lambda and refined by damped Gauss-Newton (Levenberg-Marquardt) on X itself, with
 * sigma kept in [0, 1] and kappa >= 0.  Returns 0, or -1 (u->ok 0) when it cannot fit. */
int rpt_usl_fit(const double *n, const double *x, size_t k, struct rpt_usl *u);
/* X predicted by a fit at concurrency n. */
double rpt_usl_x(const struct rpt_usl *u, double n);
/* Saturation of x[0..k) measured at ascending levels. */
void rpt_saturation(const double *x, size_t k, struct rpt_sat *s);

/* --- the model ------------------------------------------------------------------------ */

/* Per-interval observations of one metric, in time order (batch-means input). */
struct rpt_values {
	double *v;  /* values (owned) */
	size_t n;   /* how many */
	size_t cap; /* allocated */
};

/* One point of a run's time series: one interval, or a bucket of consecutive intervals
 * merged (histograms added) when the run has more than RPT_MAX_POINTS intervals. */
struct rpt_tpoint {
	double t_s;                    /* start, seconds since the run's start */
	double tps;                    /* completed requests per second */
	double mean_ms;                /* mean latency of answered requests (NAN when none) */
	double p50_ms, p90_ms, p99_ms; /* percentiles of the merged histogram (NAN when none) */
	double error_pct;              /* 100 * errors / requests (0 when none) */
};

/* One point of a collector series. */
struct rpt_vpoint {
	double t_s; /* seconds since the run's start */
	double v;   /* value (unit: the series') */
};

/* What one collector source says about one run.  A name is a CPU/RSS series or a GC
 * source: "app", "db", "host" (the host's user + system CPU of all cores), or
 * "app:host" when a process source also sampled the host. */
struct rpt_source {
	char name[RPT_NAME_MAX];     /* the series' name */
	int has_cpu;                 /* cpu samples exist in the run's measured window */
	double cpu_mean;             /* mean CPU % over the measured window (NAN when none);
	                              * process sources: 100 = one core; host: % of all cores */
	struct rpt_vpoint *cpu_ts;   /* CPU over the run, bucketed to RPT_MAX_POINTS */
	size_t ncpu_ts;              /* points in cpu_ts */
	int has_rss;                 /* rss_kb samples exist (process sources) */
	double rss_mean_mb;          /* mean RSS over the measured window */
	double rss_first_mb;         /* trend line at the window's start */
	double rss_slope_mb_h;       /* least-squares slope of RSS over the window, MB/h */
	double rss_r2;               /* its R² */
	double rss_hours;            /* window length the slope covers */
	int rss_fit;                 /* 1 when slope and R² are valid (two or more times) */
	struct rpt_vpoint *rss_ts;   /* RSS (MB) over the run, bucketed */
	size_t nrss_ts;              /* points in rss_ts */
	int64_t gc_events;           /* GC events of this source in the run (0: no GC log) */
	struct gca_result gc;        /* gca_analyze over them (when gc_events > 0) */
	struct rpt_vpoint *heap_ts;  /* heap after GC (MB), bucketed (lowest per bucket) */
	size_t nheap_ts;             /* points in heap_ts */
	struct rpt_vpoint *pause_ts; /* stop-the-world pauses (ms), bucketed (longest) */
	size_t npause_ts;            /* points in pause_ts */
};

/* One step of a run (a fixed run has one). */
struct rpt_step {
	int idx;             /* 0-based */
	int concurrency;     /* virtual users */
	int64_t planned_ms;  /* planned length, warm-up included: the cell key */
	int64_t win_from_ms; /* measured window: first steady interval's start (0: none) */
	int64_t win_to_ms;   /* ... last steady interval's end */
	int nintervals;      /* steady intervals */
	struct istats st;    /* counters of the steady window; st.hist is always released:
	                      * the histogram lives encoded in `hist` */
	uint8_t *hist;       /* V2 encoding of the window's merged histogram (NULL: none) */
	size_t hist_len;     /* its length in bytes */
	struct figures f;    /* figures of the steady window (merged histograms) */
	struct rpt_values tps, mean_ms, p99_ms, err_pct; /* per steady interval */
	struct rpt_values *cpu; /* per source of the run (run->nsrc): CPU samples in the window */
	double *cpu_mean;       /* per source: their mean (NAN when none) */
};

/* One run as the report sees it. */
struct rpt_run {
	int db;                 /* index into report.dbs */
	int64_t id;             /* runs.id in its database */
	char key[48];           /* "7", or "2:7" when several databases are read */
	int label;              /* index into report.labels */
	char *name;             /* runs.name */
	char *mode;             /* fixed | sweep */
	char *connection;       /* keepalive | close */
	char *protocol;         /* http | tcp-frame */
	char *status;           /* done | interrupted | failed | running | crashed */
	char *reason;           /* why it ended, or "" */
	int64_t started_ms;     /* runs.started_ms */
	int64_t end_ms;         /* ended_ms, or the end of its last interval while open */
	int64_t interval_ms;    /* runs.interval_ms */
	struct rpt_step *steps; /* by idx */
	int nsteps;             /* steps read */
	struct istats st;       /* all steps' steady windows (st.hist released) */
	struct figures f;       /* their figures (histograms merged) */
	struct rpt_tpoint *ts;  /* TPS and latency over the whole run (every phase) */
	size_t nts;             /* points in ts */
	double ts_bucket_s;     /* length of one time-series point */
	struct rpt_source *src; /* collector series, sorted by name */
	int nsrc;               /* entries in src */
	int study;              /* index into report.studies, -1: not a study's run */
	int round, position;    /* its study round and place in the round (0: a warm-up) */
	int warmup;             /* 1: a warm-up run after a start, not compared */
	int since_start;        /* 1: the first run after its target started (0: unknown) */
	int compared;           /* 1: its steps enter the cells (not a warm-up; a study's runs
	                         * only when done: an interrupted slot was run again) */
};

/* A label: a system under test. */
struct rpt_label {
	char *name; /* runs.label */
	int nruns;  /* selected runs with this label */
};

enum rpt_metric { RPT_M_TPS, RPT_M_MEAN, RPT_M_P99, RPT_M_ERR, RPT_NMETRIC };

/* A cell: one label at one (kind, concurrency, planned duration), all matching steps of
 * that label's runs pooled (histograms merged; interval observations as segments). */
struct rpt_cell {
	int sweep;          /* 1: steps of sweep runs; 0: fixed runs */
	int label;          /* index into report.labels */
	int concurrency;    /* virtual users */
	int64_t planned_ms; /* planned step length, warm-up included */
	int nsteps;         /* steps pooled */
	char runs[128];     /* their run keys, comma-separated (cut when long) */
	struct figures f;   /* merged figures */
	struct istats st;   /* merged counters (st.hist released) */
	struct rpt_bm tps, mean_ms, p99_ms, err_pct; /* batch means of the interval figures */
	double cpu_mean[RPT_MAX_SOURCES]; /* per report CPU source (report.cpu_names), NAN: none */
	struct rpt_bm cpu[RPT_MAX_SOURCES];     /* batch means of each CPU series' samples */
	int nruns;                              /* compared runs pooled (one observation each) */
	struct rpt_bm run[RPT_NMETRIC];         /* the runs' own figures, one observation per run:
	                                         * TPS, mean, p99 (of the run's histogram), error % */
	struct rpt_bm run_cpu[RPT_MAX_SOURCES]; /* each run's mean CPU, per CPU source */
	char scenario[96];                      /* the scenario name of its runs (the first's) */
};

/* How a comparison's intervals were computed. */
enum rpt_noise {
	RPT_BY_BATCHES,     /* one run on a side, no calibration: batch means within the runs,
	                     * and no change below RPT_FLOOR_PCT is called real */
	RPT_BY_RUNS,        /* two or more compared runs a side: a t-test on the run figures
	                     * (Student's with the same number of runs a side, else Welch's) */
	RPT_BY_ROUNDS,      /* the runs pair up by a study's rounds (RPT_PAIR_MIN or more,
	                     * each label once per round): Student's t on the round
	                     * differences, so that what moved a whole round cancels */
	RPT_BY_CALIBRATION, /* one run on a side: the stored run-to-run spread of the scenario */
};

/* A label's cell against the baseline's cell with the same key.  The figures of one
 * comparison are judged as a family by Holm's step-down over the k figures with a spread
 * (smallest p against 0.05 / k, the next against 0.05 / (k - 1), ... until one fails), so
 * that a system compared with itself has at most a 5% chance of any figure called real. */
struct rpt_cmp {
	int base;                             /* cell index of the baseline */
	int cell;                             /* cell index of the other label */
	struct rpt_diff d[RPT_NMETRIC];       /* by enum rpt_metric (batch means: p99 uses the
	                                       * per-interval p99s; runs: each run's p99) */
	double base_value[RPT_NMETRIC];       /* the cells' merged figures (what the tables show) */
	double value[RPT_NMETRIC];            /* the same for the other label */
	struct rpt_diff cpu[RPT_MAX_SOURCES]; /* per report CPU source */
	enum rpt_noise noise;                 /* how the intervals were computed */
	int nruns_base, nruns;                /* compared runs on each side */
	int family;                           /* figures judged together (k) */
	double level;                         /* the strictest level of the family: 1 - 0.05 / k */
	double floor_pct;  /* one run a side: the floor applied to figures judged on
	                    * batch means (p99: RPT_FLOOR_P99_PCT); else 0 */
	int cal;           /* RPT_BY_CALIBRATION: index into report.cals, else -1 */
	char method[1024]; /* the sentence saying all this, for the writers */
};

/* A stored calibration: the run-to-run spread of repeated runs of one scenario (soak
 * calibrate, or a study with one target), per cell key. */
struct rpt_cal {
	int db;            /* index into report.dbs */
	int64_t id;        /* the first calibrations.id of the group */
	int64_t t_ms;      /* when it was measured */
	char host[64];     /* where */
	char scenario[96]; /* runs.name of the runs it measured */
	char label[64];    /* their label */
	int sweep;         /* cell key: kind, concurrency, planned step length */
	int concurrency;
	int64_t planned_ms;
	int runs;               /* runs it saw (df = runs - 1) */
	double cv[RPT_NMETRIC]; /* sd / mean of the run figures (tps, mean, p99; NAN: none) */
};

/* A study whose runs are in the report (soak study), as its design is stated. */
struct rpt_study {
	int db;            /* index into report.dbs */
	int64_t id;        /* studies.id */
	char *name;        /* studies.name */
	char *design;      /* the sentence the report opens with */
	int rounds;        /* planned rounds */
	int done_slots;    /* measured runs done */
	int slots;         /* measured runs planned */
	int warmup_runs;   /* runs after each start, recorded and not compared */
	char order[16];    /* interleaved | random */
	int64_t seed;      /* random order's seed (0 with interleaved) */
	char *targets;     /* labels, ", "-separated */
	char *before_each; /* command, or "" */
	int keep_running;  /* 1: targets up for the whole study */
	int managed;       /* targets the study started and stopped (others already ran) */
	char status[16];   /* running | done | interrupted | failed */
};

/* A validity item about the data (the first run after a start that differs beyond noise). */
struct rpt_validity_item {
	char name[24];  /* code: cold_start */
	char label[64]; /* the label it concerns */
	char run[48];   /* the run's key */
	char *message;  /* the sentence (owned) */
};

/* A label's sweep: its sweep cells of one planned duration, by concurrency. */
struct rpt_sweep {
	int label;          /* index into report.labels */
	int64_t planned_ms; /* its step duration */
	int *cells;         /* cell indices, ascending concurrency */
	int ncells;         /* entries in cells */
	struct rpt_sat sat; /* saturation over the cells' TPS */
	struct rpt_usl usl; /* fit when ncells >= RPT_USL_MIN_LEVELS */
	int queueing;       /* 1: past saturation TPS stays flat while latency grows */
	int q_from, q_to;   /* cell indices the queueing finding compares */
};

/* A sentence for people, with its topic (for pipelines). */
struct rpt_finding {
	char kind[24]; /* throughput, saturation, usl, queueing, memory, gc, rss,
	                * errors, client_errors, keepalive, status */
	char *text;    /* the sentence */
};

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
};

/* A picture the report shows. */
struct rpt_picture {
	char name[RPT_PIC_NAME_MAX]; /* base name under img/: "tps_time", "latency_3", ... */
	char *title;                 /* caption */
	int drawn;                   /* the SVG and PNG exist */
	char *svg;                   /* the SVG text (for report.html), or NULL */
};

struct report {
	char *title;              /* as shown */
	char *dbs[RPT_MAX_DBS];   /* base names of the databases, as given order */
	int ndbs;                 /* how many */
	struct rpt_label *labels; /* in report order; labels[0] is the baseline */
	int nlabels;              /* entries in labels */
	struct rpt_run *runs;     /* selected runs, sorted */
	int nruns;                /* entries in runs */
	char cpu_names[RPT_MAX_SOURCES][RPT_NAME_MAX]; /* CPU series over all runs, sorted */
	int ncpu;                                      /* entries in cpu_names */
	struct rpt_cell *cells;       /* sorted: kind (fixed first), concurrency, duration, label */
	int ncells;                   /* entries in cells */
	struct rpt_cmp *cmps;         /* in cell order */
	int ncmps;                    /* entries in cmps */
	struct rpt_sweep *sweeps;     /* by label order, then duration */
	int nsweeps;                  /* entries in sweeps */
	struct rpt_finding *findings; /* in section order */
	int nfindings;                /* entries in findings */
	struct rpt_picture *pics;     /* in report order */
	int npics;                    /* entries in pics */
	char plot_note[256];          /* why pictures are missing, or "" */
	struct rpt_study *studies;    /* studies of the selected runs (report_study.c) */
	int nstudies;                 /* entries in studies */
	struct rpt_cal *cals;         /* calibrations found in the databases */
	int ncals;                    /* entries in cals */
};

/* report_data.c: reads the selected runs of every database into r (r zeroed first).
 * Exit-status hints: *usage = 1 when the failure is the input's (missing file, newer
 * schema, not a soak database, bad --runs), 0 when it is a runtime failure. */
int rpt_read(struct report *r, const struct rpt_opts *o, int *usage, char *err, size_t errlen);
/* Adds a step's steady window (counters and decoded histogram) into acc (initialised). */
int rpt_step_add(struct istats *acc, const struct rpt_step *s, char *err, size_t errlen);
/* report_build.c: cells, comparisons, sweeps, then the findings. */
int rpt_build(struct report *r, const struct rpt_opts *o, char *err, size_t errlen);
/* report_study.c: the study tags of one run (rd: report_read.h) and, per database, its
 * studies and calibrations; then, in rpt_build, each study's design sentence. */
struct reader;
int rpt_read_study_run(struct reader *rd, struct rpt_run *run);
int rpt_read_studies(struct reader *rd);
int rpt_study_designs(struct report *r, char *err, size_t errlen);
/* The cold_start validity items: a study's first run after a start (a warm-up, or a
 * compared run when warmup_runs is 0) whose TPS or mean latency lies outside the 95%
 * prediction interval of the label's compared runs.  *out is allocated (NULL when none);
 * rpt_validity_free.  0, or -1 out of memory. */
int rpt_cold_start(const struct report *r, struct rpt_validity_item **out, int *n);
void rpt_validity_free(struct rpt_validity_item *v, int n);
/* "runs", "batch means", "calibration". */
const char *rpt_noise_name(enum rpt_noise n);
/* The distinct method sentences of the comparisons, in comparison order, into out[0..max);
 * returns how many (pointers into r). */
int rpt_methods(const struct report *r, const char **out, int max);

/* report_findings.c: the sentences from what rpt_build made; 0, or -1 out of memory. */
int rpt_findings(struct report *r);
/* report_plot.c: writes DIR/data/NAME.dat and DIR/plots/NAME.gp and runs gnuplot into
 * DIR/img/ (NAME.svg and NAME.png); fills r->pics.  A missing gnuplot is not an error
 * (r->plot_note says so); a script that fails is. */
int rpt_plots(struct report *r, const char *dir, char *err, size_t errlen);
/* Registers the pictures without drawing them (--no-plots). */
int rpt_plan_pictures(struct report *r, char *err, size_t errlen);
/* Everything into DIR (created): pictures (drawn when `draw`, else only registered),
 * then report.md, report.html, summary.csv and report.json, each written to a temporary
 * name and renamed, so a reader never sees half a file. */
int rpt_write_files(struct report *r, const char *dir, int draw, char *err, size_t errlen);
/* report_files.c: mkdir -p; 0, or -1 with err. */
int rpt_mkdir_p(const char *path, char *err, size_t errlen);
/* Writers, each to an open stream. */
int rpt_write_md(const struct report *r, FILE *f);
int rpt_write_html(const struct report *r, FILE *f);
int rpt_write_json(const struct report *r, FILE *f);
int rpt_write_csv(const struct report *r, FILE *f);
void rpt_free(struct report *r);

/* report_plots_gen.c (generated from plots/NAME.gp by tools/embed-plots.sh): the scripts. */
struct rpt_script {
	const char *name; /* "tps_time.gp" */
	const char *text; /* its contents */
};
extern const struct rpt_script rpt_scripts[];
extern const int rpt_nscripts;

/* --- helpers shared by the writers (report_build.c) ----------------------------------- */

/* A text table as the Markdown and HTML writers show it. */
struct rpt_table {
	char title[96]; /* section heading */
	char note[640]; /* a paragraph under the heading, or "" */
	int ncols;      /* columns */
	int nrows;      /* rows below the header */
	char **cells;   /* (nrows + 1) * ncols strings: the header row first */
	int *right;     /* per column: 1 = right-aligned (numbers) */
};

/* The report's tables in order: soak runs, sweeps (per label, side by side),
 * comparison, errors, memory/GC, RSS, runs.  *out is allocated; rpt_tables_free. */
int rpt_tables(const struct report *r, struct rpt_table **out, int *n, char *err, size_t errlen);
void rpt_tables_free(struct rpt_table *t, int n);

/* Formatting: a latency in ms ("20.1 ms"), a change ("+12.3%"), "—" for NAN. */
char *rpt_fmt_ms(double ms, char *buf, size_t len);
char *rpt_fmt_pct(double pct, char *buf, size_t len);
char *rpt_fmt_num(double v, int decimals, char *buf, size_t len);
/* Like rpt_fmt_num with a sign always ("+0.00", "-1.25"); never "-0.00". */
char *rpt_fmt_signed(double v, int decimals, char *buf, size_t len);
/* "real", "noise", "n/a". */
const char *rpt_verdict_name(enum rpt_verdict v);
/* "tps", "mean", "p99", "error". */
const char *rpt_metric_name(enum rpt_metric m);
/* The run's pictures are drawn (runs beyond RPT_MAX_RUN_PICTURES are not). */
int rpt_run_pictured(const struct report *r, int run);

#endif
