/*
 * report_int — the model of `soak report`, inside report/ only (the commands see
 * report.h): what the databases hold about the selected runs (read/), what is judged
 * about them (judge/) and what the writers (write/) turn into report.md, report.html,
 * summary.csv, report.json, JUnit XML and gnuplot pictures.  This header holds the
 * model's types and limits and the functions of report/'s own files; each module of a
 * room declares its functions in a header of its own (judge/report_compare.h,
 * write/report_tables.h, ...).  report/'s own files are the model and what every room
 * shares: this header, the sentence buffer (report_text.h), the items (report_item.c)
 * and the runs as soak history's points (report_history.h; the history itself is
 * history/, below report/; number formats and text tables are common/'s report_num.h
 * and report_tb.h).  The rooms include and call one way (tests/it/layout.py, rules 2
 * and 5): write/ -> judge/ and read/ (report_read.h, for JUnit's thresholds), every room
 * -> report/'s own headers, which include no room's; only report/'s .c files that
 * compose the rooms (report_load.c, report_drift_check.c, report_history.c) include the
 * rooms' headers.
 *
 * Flow, one direction only:
 *   rpt_read()      report_load.c: read/report_data.c reads each database in turn,
 *                   read-only use (report_sources.c: collector series;
 *                   report_drift_read.c: the drift's comparisons; report_env.c: what
 *                   ran and what the generator shared; report_study.c: studies and
 *                   calibrations).  What must be judged while it is read, so that only
 *                   the judgements stay in memory over a run of days, report_load.c
 *                   hands to the reading (struct rpt_read_judges, read/report_read.h):
 *                   judge/report_drift.c's comparison of a window's two parts and
 *                   judge/report_mem.c's verdict of each source's memory.  Then
 *                   judge/report_drift.c judges each run's drift; afterwards the model
 *                   holds everything and no database stays open
 *   rpt_build()     judge/report_build.c  cells, sweeps, comparisons (report_compare.c,
 *                   on report_stats.c's statistics), then
 *                   report_validity.c  can the numbers be trusted (warnings)
 *                   report_verdict.c   each label against the baseline, how long to run
 *   write/          every file: rpt_write_files() (report_files.c) words the findings
 *                   (report_findings.c: one line per topic and label, the five that
 *                   matter), draws the pictures (report_plot.c) and writes report.md and
 *                   report.html (report_md.c, report_html.c: one document,
 *                   report_doc.c), summary.csv and report.json (report_json.c); the
 *                   tables they share come from report_front.c (verdict, how long,
 *                   environment) and report_tables.c (the detail); the sentences of
 *                   drift, memory and method from report_*_text.c; names and advice from
 *                   report_fmt.c
 * Numbers and load levels are written by common/report_num.c, for every room, the history
 * and the commands alike; the tables are filled with common/report_tb.c.
 * A report reads in this order: verdict, validity, what matters most, the other findings
 * by topic, the labels over time, how long to run, environment, detail tables, pictures of
 * each run.
 * Statistics (batch means, Welch's test, USL fit, saturation) are judge/report_stats.h,
 * free of the model but for its types so the unit tests can drive them with synthetic
 * numbers.
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
#ifndef SOAK_REPORT_INT_H
#define SOAK_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "report_num.h"
#include "gcanalysis.h"
#include "report_tb.h"
#include "buf.h"
#include "engine/stats.h"

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
/* One process a side, side by side: how two JVM processes of one server differ is not in
 * the interval, so no smaller change is real.  Measured (bench/designs.sh pair): two
 * Tomcat 10 alike, one process each, differed by -0.6, -3.8 and +1.6 %; a +5 to +8 %
 * change once came out -3.9 %. */
#define RPT_PROCESS_FLOOR_PCT 10.0
/* A study's primary figure: its share of a comparison's error rate when the family has
 * other figures (Holm's weights): at most 4 % for it, at least 1 % for all the others,
 * and whatever is found real passes its share on, so 5 % holds for all together. */
#define RPT_PRIMARY_SHARE 0.8

#define RPT_MAX_STUDIES 16  /* studies one report describes */
#define RPT_MAX_CALS    256 /* calibrations read from the databases */

/* --- statistics (judge/report_stats.h) ------------------------------------------------ */

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
	double tps;                    /* completed requests per second over the point's real
	                                * length; NAN when none of its intervals is a rate (a
	                                * drain interval: requests in flight at the end) */
	double mean_ms;                /* mean latency of answered requests (NAN when none) */
	double p50_ms, p90_ms, p99_ms; /* percentiles of the merged histogram (NAN when none) */
	double error_pct;              /* 100 * errors / requests (0 when none) */
};

/* One point of a collector series. */
struct rpt_vpoint {
	double t_s; /* seconds since the run's start */
	double v;   /* value (unit: the series') */
};

/* Process memory of a source over the measured window (report_mem.c), judged like the
 * heap after GC: over MEM_WINDOWS window means, not every sample. */
enum rpt_mem_verdict {
	RPT_MEM_UNKNOWN,    /* no samples, or a window under 5 minutes */
	RPT_MEM_FLAT,       /* no growth worth naming (or it shrinks) */
	RPT_MEM_LEVELS_OFF, /* grows, then holds at a level: buffers, caches, pools filling */
	RPT_MEM_AT_LIMIT,   /* holds at 95 % or more of its configured limit (memory_limit) */
	RPT_MEM_RISING,     /* rises steadily and still in the second half: watch it */
	RPT_MEM_FILLING,    /* by kind: shared memory growing towards the bound it cannot pass
	                     * (a cache filling: PostgreSQL's shared buffers), private memory
	                     * not rising */
};

/* A trend over less than this is warm-up (pools filling, caches loading); soak report
 * --memory-window gives another. */
#define RPT_MEM_MIN_HOURS (5.0 / 60)

/* Why a memory verdict is unknown. */
enum rpt_mem_unknown {
	RPT_MEM_NO_SAMPLES, /* no samples in the measured window */
	RPT_MEM_SHORT,      /* a window under min_hours, or too few windows with samples */
	RPT_MEM_NO_TREND,   /* the samples give no trend */
};

struct rpt_mem {
	enum rpt_mem_verdict verdict; /* the verdict */
	double mean_mb;               /* mean over the window */
	double level_mb;              /* where it ends: the last window's mean */
	double limit_mb;              /* configured limit (mem_limit_kb samples), NAN: none */
	double hours;                 /* the window's length */
	double min_hours;             /* the shortest window judged (RPT_MEM_MIN_HOURS) */
	double slope_mb_h, r2;        /* trend of the window means over the whole window */
	double rise_frac;             /* slope * hours / mean */
	double tail_ratio;            /* slope of the second half's means / the whole slope */
	double steady_from_s;         /* the steady part (last windows within 5 % of the level)
	                               * starts here, s since the run's start */
	double steady_slope_mb_h;     /* trend of the samples of the steady part (NAN: none) */
	double steady_r2;             /* its R² */
	double growth_mb;             /* level minus the first window's mean */
	double growth_s;              /* how long before the steady part */
	double to_s;                  /* the window's last sample, s since the run's start */
	int shrinks;                  /* RPT_MEM_FLAT: it falls as much as rising would rise */
	enum rpt_mem_unknown unknown; /* RPT_MEM_UNKNOWN: why */
};

/* The kinds of process memory the collector records (soak-procstat's pss_anon_kb,
 * pss_shmem_kb, pss_file_kb, or the rss_ ones). */
enum rpt_memk {
	RPT_MEMK_PRIVATE, /* anonymous memory only its process maps: heaps, a JVM's heap */
	RPT_MEMK_SHARED,  /* shared memory: PostgreSQL's shared buffers */
	RPT_MEMK_FILE,    /* pages of files: code, mapped files; the kernel can drop them */
	RPT_MEMK_N,
};

/* A source's memory by kind over the measured window (report_mem.c). */
struct rpt_memkinds {
	int has;                      /* the collector recorded memory by kind */
	struct rpt_mem k[RPT_MEMK_N]; /* each kind judged like the whole (rpt_mem_analyze) */
	double shared_bound_mb;       /* shared memory the set maps (shmem_mapped_kb): what
	                               * shared memory cannot pass; NAN when not recorded */
	double shared_buffers_mb;     /* PostgreSQL's shared_buffers, NAN when none */
	double heap_max_mb;           /* a JVM's -Xmx, NAN when none */
	double req_per_h;             /* requests answered per hour over the measured window,
	                               * for growth per request (NAN: none) */
	int by;                       /* the kind that made the source's verdict, -1: the whole */
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
	struct rpt_mem mem;          /* the memory verdict of those samples (has_rss), by kind
	                              * when kinds.has (rpt_mem_by_kind) */
	struct rpt_memkinds kinds;   /* the same memory by kind */
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
	int concurrency;     /* virtual users (closed model) */
	double rate;         /* arrivals per second (open model), else 0 */
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
	struct rpt_values *cpu;   /* per source of the run (run->nsrc): CPU samples in the window */
	double *cpu_mean;         /* per source: their mean (NAN when none) */
	double host_cpu_pct;      /* host-wide CPU (user + system + steal, % of all cores) of
	                           * the generator's own host over the window, NAN: not sampled */
	double gen_cpu_pct;       /* the generator's own CPU over the window (intervals.gen_cpu_pct,
	                           * % of all its engine threads), NAN when not recorded */
	double gen_wait_pct;      /* the time its threads waited, ready, for a core (% of all of
	                           * them; intervals.gen_wait_pct), NAN when not recorded */
	double lag_p99_ms;        /* open model: mean of the intervals' p99 start lag (the
	                           * generator's own lateness), NAN */
	double lag_top_ms;        /* open model: the highest interval p99 start lag, NAN */
	int late_intervals;       /* open model: steady intervals whose start lag p99 passed
	                           * 10 ms (the generator late, whatever the cause) */
	double gen_cpus_busy_pct; /* how busy the CPUs the generator could run on were, by
	                           * any process (intervals.gen_cpus_busy_pct), NAN */
};

/* One fact of what ran (run_env; soak/run/env.h lists the keys). */
struct rpt_env_fact {
	char *source; /* "" for the load generator, else a collector source's name */
	char *key;    /* kernel, cores, threads, heap_max, gc, ... */
	char *value;  /* as recorded */
};

/* --- drift: does a run degrade over time? (judge/report_drift.h) ---------------------- */

#define RPT_DRIFT_MIN_PART 10         /* steady intervals each part needs (else too_short) */
#define RPT_DRIFT_HOURS_S  (3 * 3600) /* windows this long also compare hour 1 with the last */
/* Points of a part's latency curve: 0 %, then 4 a decade of nines up to 99.999 %. */
#define RPT_DRIFT_NPCT 21

enum rpt_drift_verdict {
	RPT_DRIFT_TOO_SHORT, /* fewer than RPT_DRIFT_MIN_PART steady intervals in a third */
	RPT_DRIFT_STABLE,    /* no real change worth naming */
	RPT_DRIFT_DEGRADING, /* the service got really worse: slower, fewer, failing, costlier */
	RPT_DRIFT_IMPROVING, /* only real improvements (JIT, caches warming up) */
};

/* What a drift metric measures; per source for the last four. */
enum rpt_drift_kind {
	RPT_DK_TPS,     /* throughput: a fall is worse */
	RPT_DK_MEAN,    /* mean latency */
	RPT_DK_P99,     /* 99th percentile */
	RPT_DK_ERR,     /* error %, changes in percentage points */
	RPT_DK_CPU_REQ, /* CPU time per request of a process source (ms) */
	RPT_DK_MEM,     /* memory of a source (PSS or RSS, MB) */
	RPT_DK_GC,      /* share of wall time in GC pauses (%), changes in points */
	RPT_DK_PAUSE,   /* longest GC pause (ms) */
	RPT_DK_MACHINE, /* the machine probe's time (µs, intervals.probe_us): a control for the
	                 * machine soak ran on, never counted */
};

/* One metric of one comparison: the later part against the earlier. */
struct rpt_drift_metric {
	enum rpt_drift_kind kind;     /* what it measures */
	char source[RPT_NAME_MAX];    /* the collector source, or "" */
	double first, last;           /* the parts' figures: TPS over the part, mean and p99 of its
	                               * merged histogram, error %, mean CPU % / TPS, mean memory,
	                               * pause total / length, the longest pause */
	double change;                /* last - first */
	double change_pct;            /* 100 * change / first; NAN when first is 0 */
	struct rpt_diff d;            /* last - first of the per-observation means (per interval;
	                               * CPU: per sample against its interval's TPS; memory: per
	                               * sample), batch means and Welch: the 95 % interval, real
	                               * or noise; once judged (rpt_drift_judge), the interval holds
	                               * for all k metrics of the drift together (Bonferroni, each
	                               * at 1 - 0.05 / k) and real or noise is read from it */
	int counts;                   /* 0: shown but never a verdict (memory, GC, the machine
	                               * probe: rpt_drift_compare clears it for them) */
	char why_not[96];             /* when counts is 0: why, for sentences (memory: its source's
	                               * memory verdict, worded by report_drift_text.c) */
	const struct rpt_source *src; /* RPT_DK_MEM: the source, whose memory verdict the
	                               * sentence gives beside the drift's */
	int effect;                   /* +1 worse, -1 better (real, large enough, counted), 0 */
};

/* One comparison of two parts of the measured window. */
struct rpt_drift_cmp {
	int hours;                    /* 0: first third against last; 1: hour 1 against last */
	int64_t a_from_ms, a_to_ms;   /* the earlier part (wall ms) */
	int64_t b_from_ms, b_to_ms;   /* the later part */
	int na, nb;                   /* steady intervals in each */
	int64_t count_a, count_b;     /* answered requests in each */
	double pct_a[RPT_DRIFT_NPCT]; /* latency (ms) at rpt_drift_pct(k), NAN past what the
	                               * part's count resolves */
	double pct_b[RPT_DRIFT_NPCT]; /* the same of the later part */
	struct rpt_drift_metric *m;   /* metrics (owned) */
	int nm;                       /* entries in m */
};

/* The drift verdict of a fixed run or a sweep step (or a sweep run's summary). */
struct rpt_drift {
	int judged;                     /* 1 once judged (rpt_drift_judge, rpt_drift_judge_run) */
	enum rpt_drift_verdict verdict; /* the answer */
	double window_s;                /* the measured window judged (0: none) */
	int nintervals;                 /* its steady intervals */
	struct rpt_drift_cmp cmp[2];    /* [0] thirds; [1] hours, for windows of 3 h or more */
	int ncmp;                       /* comparisons made (0 when too short) */
	int machine;                    /* 1: the machine probe changed with the verdict (real,
	                                 * 5 % or more): the machine soak ran on changed speed
	                                 * under the run, so the server may not have */
};

/* report.c: the k-th percentile of the latency curves: 100 * (1 - 10^(-k/4)). */
double rpt_drift_pct(int k);
/* report.c: releases what d owns (a zeroed drift is fine). */
void rpt_drift_free(struct rpt_drift *d);

/* One run as the report sees it. */
/* A measured run's class (judge/report_steady.c). */
enum rpt_steady {
	RPT_ST_NONE,      /* not judged (a sweep, a run without the series) */
	RPT_ST_FLAT,      /* no change point in its window */
	RPT_ST_WARMUP,    /* it got better and stayed there */
	RPT_ST_SLOWDOWN,  /* it got worse and stayed there */
	RPT_ST_NO_STEADY, /* its last level too short, or its JIT still compiling */
};
#define RPT_STEADY_JIT_PCT 5.0 /* a run whose JIT took more of its app's CPU is compiling */
/* Runs with no steady state are left out where at least this many of their label's runs at
 * that point are steady: one alone would leave the comparison one run a side. */
#define RPT_STEADY_MIN_KEPT 2

/* A span of a resumed run (soak run --resume) that no figure covers: from the last
 * interval before the stop to the first measured interval after the restart. */
struct rpt_gap {
	int64_t from_ms;     /* the end of the last interval before the stop */
	int64_t to_ms;       /* when the load started again */
	int64_t measured_ms; /* when the measured window started again (>= to_ms) */
};

struct rpt_run {
	int db;                       /* index into report.dbs */
	int64_t id;                   /* runs.id in its database */
	char key[48];                 /* "7", or "2:7" when several databases are read */
	int label;                    /* index into report.labels */
	char *name;                   /* runs.name */
	struct redact *redact;        /* the secret names its scenario declared (redact =), for
	                               * what an older file stored unredacted: its reason, error
	                               * samples, process facts (owned) */
	char *mode;                   /* fixed | sweep */
	char *connection;             /* keepalive | close */
	char *protocol;               /* http | tcp-frame */
	char *status;                 /* done | interrupted | failed | running | crashed */
	char *reason;                 /* why it ended, or "" */
	int64_t started_ms;           /* runs.started_ms */
	int64_t end_ms;               /* ended_ms, or the end of its last interval while open */
	int64_t interval_ms;          /* runs.interval_ms */
	struct rpt_step *steps;       /* by idx */
	int nsteps;                   /* steps read */
	struct istats st;             /* all steps' steady windows (st.hist released) */
	struct figures f;             /* their figures (histograms merged) */
	struct rpt_tpoint *ts;        /* TPS and latency over the whole run (every phase) */
	size_t nts;                   /* points in ts */
	double ts_bucket_s;           /* length of one time-series point */
	struct rpt_source *src;       /* collector series, sorted by name */
	int nsrc;                     /* entries in src */
	int agent;                    /* K of an agent's own run (K/N), else 0 */
	int agents;                   /* a merged run: agents it holds; an agent's own run: N; 0 */
	int agents_planned;           /* a merged run: agents the group was started with; else 0 */
	char **agent_notes;           /* a merged run's merge notes (gaps, skew, missing agents) */
	int nagent_notes;             /* entries in agent_notes */
	char *host;                   /* runs.host: the load generator's host name */
	struct rpt_env_fact *env;     /* what ran, sorted by source then key (none: older file) */
	int nenv;                     /* entries in env */
	char colocated[256];          /* process sources sampled on the generator's own host,
	                               * comma-separated ("" when none) */
	double clock_skew_ms;         /* a merged run: largest difference between its agents' clock
	                               * offsets (NAN when unknown) */
	struct rpt_gap *gaps;         /* a resumed run's spans without load (report_gaps.h) */
	int ngaps;                    /* entries in gaps */
	struct rpt_drift drift;       /* does it degrade over time: a fixed run's one step; a sweep
	                               * run's summary over step_drift */
	struct rpt_drift *step_drift; /* sweep runs: each step's (nsteps entries); else NULL */
	int study;                    /* index into report.studies, -1: not a study's run */
	int round, position;          /* its study round and place in the round (0: a warm-up) */
	int warmup;                   /* 1: a warm-up run after a start, not compared */
	int pictured;                 /* 1: its pictures are drawn (report_data.c: the first
	                               * RPT_MAX_RUN_PICTURES compared runs, then warm-ups) */
	int replica;                  /* its study target's process, 1-based (1: the only one) */
	int start_no;                 /* the study's start of the targets it ran in (0: unknown) */
	int grp;                      /* its side-by-side group in the study (0: ran alone) */
	double jit_share;             /* warm-ups: the JIT's share of the app's CPU (NAN: none) */
	double gap_s;                 /* seconds since the study's previous measured run ended
	                               * (starts, warm-ups, before_each), NAN: unknown */
	enum rpt_steady steady;       /* its class (report_steady.c); RPT_ST_NO_STEADY runs are
	                               * not compared */
	double jit_pct;               /* its app's JIT threads' share of its CPU, % (NAN: none) */
	int since_start;              /* 1: the first run after its target started (0: unknown) */
	int compared;                 /* 1: its steps enter the cells (not a warm-up; a study's runs
	                               * only when done: an interrupted slot was run again) */
	struct rpt_prof *prof;        /* CPU profiles of its windows, by step then source */
	int nprof;                    /* entries in prof */
	char **prof_notes;            /* what kept a profile from being taken (events) */
	int nprof_notes;              /* entries in prof_notes */
};

/* --- CPU profiles (read/report_profile_read.h, judge/report_profile.h) --------------- */

#define RPT_PROF_TOP 8 /* frames report.md shows a comparison; report.json has them all */

/* One stack of a profile window (frames root first, ';' between) and its samples. */
struct rpt_pstack {
	char *stack;     /* owned; "[other]": the stacks soak-perf did not keep */
	int64_t samples; /* samples whose stack this was */
};

/* One source's CPU profile of one step's measured window (soak-perf, sql/013). */
struct rpt_prof {
	int step;                  /* the step's idx */
	char source[RPT_NAME_MAX]; /* the [collect.NAME] */
	int hz;                    /* samples per second of CPU */
	int64_t sampled_ms;        /* how long perf recorded */
	int64_t samples;           /* every sample, stored or not */
	int64_t unnamed;           /* samples whose leaf frame had no name */
	int64_t jit_unnamed;       /* ... of them in JIT code no symbol map named */
	int64_t shallow;           /* samples of a JVM whose stack starts in JIT or unnamed
	                            * code: the unwinding stopped (no frame pointers) */
	int64_t cut;               /* samples whose stack was cut at soak-perf's depth */
	char pids[128];            /* the processes sampled, comma-separated */
	int jvm;                   /* some of them are JVMs */
	struct rpt_pstack *st;     /* its stacks, most sampled first (owned) */
	int nst;                   /* entries in st */
};

/* One frame of a profile comparison: its CPU per request on each side (the mean over the
 * side's processes), self (the frame itself) and total (with what it calls), and the
 * change of its self part judged with the processes as observations. */
struct rpt_pframe {
	char *frame;                    /* owned */
	double base_us, us;             /* self, µs per request: baseline, label */
	double base_total_us, total_us; /* total, µs per request */
	struct rpt_diff d; /* us - base_us: interval and verdict (RPT_NA: not judged) */
};

/* One stack of both sides, for the differential flame graph: µs per request a side. */
struct rpt_pstack2 {
	char *stack; /* owned */
	double base_us, us;
};

/* Why a profile comparison is not judged. */
enum rpt_prof_why {
	RPT_PROF_JUDGED,      /* two or more processes a side: judged */
	RPT_PROF_ONE_PROCESS, /* a side has one process: a JIT's choices of one process would
	                       * pass for a change (shown, not judged) */
	RPT_PROF_NO_RATE,     /* a side has no throughput to divide by */
};

/* Where one source's CPU per request moved between a label and its baseline at one key. */
struct rpt_pcmp {
	int cmp;                        /* index into report.cmps */
	char source[RPT_NAME_MAX];      /* the [collect.NAME] */
	int nobs_base, nobs;            /* processes a side (the observations) */
	int windows_base, windows;      /* windows a side */
	double base_cpu_us, cpu_us;     /* all samples per request a side */
	double alpha;                   /* the family's error rate (RPT_ALPHA) */
	int family;                     /* frames judged together (Holm) */
	int real;                       /* frames called real */
	enum rpt_prof_why why;          /* judged, or why not */
	struct rpt_pframe *frames;      /* by |change| of self, largest first (owned) */
	int nframes;                    /* entries in frames */
	struct rpt_pstack2 *stacks;     /* both sides' stacks (owned) */
	int nstacks;                    /* entries in stacks */
	char svg[RPT_PIC_NAME_MAX + 8]; /* its flame graph's file (img/...svg), "" when none */
};

/* A label: a system under test. */
struct rpt_label {
	char *name; /* runs.label */
	int nruns;  /* selected runs with this label */
};

/* The kinds of figure a comparison can hold: each is a row of rpt_figrows (report_figs.c),
 * in this order.  The request figures come first, one index each; each series figure
 * takes RPT_MAX_SOURCES indices, one per report CPU series s (report.cpu_names). */
enum rpt_metric {
	RPT_M_TPS,  /* requests per second */
	RPT_M_MEAN, /* mean latency (ms) */
	RPT_M_P99,  /* p99 latency (ms) */
	RPT_M_ERR,  /* error % */
	RPT_M_CPU,  /* CPU time per request of a series (ms; process series only) */
	RPT_M_MEM,  /* memory of a series (mean MB over the window; process series with memory
	             * samples, fixed runs only) */
	RPT_NROWS
};
#define RPT_NMETRIC 4 /* the request figures: RPT_M_TPS .. RPT_M_ERR */

/* Where a figure comes from. */
enum rpt_fig_src {
	RPT_SRC_REQUEST, /* the requests: one figure */
	RPT_SRC_CPU,     /* CPU per request of each report CPU series */
	RPT_SRC_MEM,     /* memory of each report CPU series */
};

/* How a figure's value is printed. */
enum rpt_fig_fmt {
	RPT_FMT_NUM,  /* a number with `digits` decimals, without its unit (TPS) */
	RPT_FMT_MS,   /* milliseconds (rpt_fmt_ms: its own decimals) */
	RPT_FMT_PCT,  /* a number with `digits` decimals, its unit right after ("0.25%") */
	RPT_FMT_UNIT, /* a number with `digits` decimals, a space, its unit ("310.4 MB") */
};

/* One kind of figure: what it is called, how it is judged and how it is printed.  Adding
 * a figure is a row of rpt_figrows plus its reading (HACKING.md, "How to add a figure");
 * every reader, judge and writer walks the rows. */
struct rpt_figrow {
	enum rpt_metric id;    /* its place in rpt_figrows */
	enum rpt_fig_src src;  /* one figure, or one per series */
	const char *key;       /* report.json's key (a series figure: KEY.SERIES) */
	const char *until;     /* a study's until name (a series figure: UNTIL.SERIES) */
	const char *head;      /* the Comparison table's column (a series figure: HEAD SERIES) */
	const char *what;      /* in a sentence (a series figure: WHAT SERIES) */
	const char *up, *down; /* a change up or down in words ("higher", "lower") */
	const char *unit;      /* its unit as printed */
	int better;            /* +1: more is better; -1: less is better */
	int points;            /* 1: a change in points (error %); 0: in % of the baseline */
	double floor_pct;      /* its floor over batch means; 0: the comparison's */
	double resolve_pct;    /* the resolution the report aims at; 0: none */
	int cv;                /* 1: its runs' spread is kept as a coefficient of variation (a
	                        * calibration's cv, report.json's run_cv_pct) */
	int runs_only;         /* 1: a figure of whole runs only (memory): its value is the
	                        * runs' mean, it is never resolved nor advised, and not judged
	                        * with one process a side */
	enum rpt_fig_fmt fmt;  /* how its value is printed */
	int digits;            /* decimals (all but RPT_FMT_MS) */
	const char *vhead;     /* the verdict table's column, NULL: none (a series figure:
	                        * VHEAD SERIES, for each process series but a JIT's) */
	int if_any;            /* 1: that column only when a value it would show is not 0 */
};

extern const struct rpt_figrow rpt_figrows[RPT_NROWS];

/* The figures a comparison judges, by index: the request rows, then each series row's
 * RPT_MAX_SOURCES.  A figure a cell does not have is NAN there. */
#define RPT_NFIG (RPT_NMETRIC + (RPT_NROWS - RPT_NMETRIC) * RPT_MAX_SOURCES)
/* Index of row m's figure of series s (s is 0 for a request figure). */
int rpt_fig(enum rpt_metric m, int s);
#define RPT_FIG_CPU(s) rpt_fig(RPT_M_CPU, (s))
#define RPT_FIG_MEM(s) rpt_fig(RPT_M_MEM, (s))
/* The row of figure f, and its series (-1: a request figure). */
const struct rpt_figrow *rpt_fig_row(int f);
int rpt_fig_series(int f);
/* Whether figure f exists in a report of ncpu series. */
int rpt_fig_in(int f, int ncpu);
/* The figures of a report in reading order: the request rows, then for each series its
 * rows (CPU per request, memory).  Fills out (RPT_NFIG entries), returns how many. */
int rpt_fig_order(int ncpu, int *out);

/* The spread of one figure over a cell's runs, split into its two parts (a one-way
 * random-effects model: run value = true value + a run's own offset + its intervals'
 * noise).  Only more runs shrink `between`; longer runs shrink `within` (as 1/T). */
struct rpt_vc {
	int runs;          /* runs with a value */
	double mean;       /* mean of the run values (NAN: none) */
	double sd;         /* their standard deviation (NAN below two runs) */
	double within;     /* mean squared standard error of a run value from its own
	                    * intervals (batch means), at the runs' length; NAN: unknown */
	double between;    /* max(0, sd² - within): the run-to-run variance (NAN below two
	                    * runs; the whole sd² when `within` is unknown) */
	double secs;       /* mean measured seconds per run */
	double overhead_s; /* mean unmeasured seconds per run (ramp-up, warm-up) */
};

/* A cell: one label at one (kind, level, planned duration), all matching steps of that
 * label's compared runs pooled (histograms merged; interval observations as segments).
 * The level is the concurrency (closed model) or the arrival rate (open model). */
struct rpt_cell {
	int sweep;                        /* 1: steps of sweep runs; 0: fixed runs */
	int label;                        /* index into report.labels */
	int concurrency;                  /* virtual users (closed model), else 0 */
	double rate;                      /* arrivals per second (open model), else 0 */
	int64_t planned_ms;               /* planned step length, warm-up included */
	int nsteps;                       /* steps pooled */
	char runs[128];                   /* their run keys, comma-separated (cut when long) */
	struct figures f;                 /* merged figures */
	struct istats st;                 /* merged counters (st.hist released) */
	double cpu_mean[RPT_MAX_SOURCES]; /* per report CPU series, mean CPU % (NAN: none) */
	double value[RPT_NFIG];           /* each figure as the tables show it: merged over the
	                                   * runs (CPU per request: 10 * CPU % / TPS) */
	struct rpt_bm bm[RPT_NFIG];       /* batch means of the interval observations, pooled
	                                   * over the runs: within-run noise only */
	int nruns;                        /* compared runs pooled (one observation each) */
	struct rpt_bm run[RPT_NFIG];      /* one observation per run: each run's own figure */
	struct rpt_vc vc[RPT_NFIG];       /* the runs' spread in its two parts */
	int trend_s[RPT_NFIG];            /* Mann-Kendall S of the runs' figures in the order
	                                   * they ran (rpt_mk_s) */
	double first[RPT_NFIG], last[RPT_NFIG]; /* the first and the last run's figure */
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
	RPT_BY_GROUPS,      /* runs made side by side (a study's groups: every instance driven
	                     * in the same seconds): what moved the machine cancels within a
	                     * group; the processes are the observations (report_groups.c) */
};

/* How a side-by-side comparison is judged (report_groups.c), by what its runs replicate. */
enum rpt_group_unit {
	RPT_GU_STARTS,   /* two or more starts: the difference of the sides' means within each
	                  * start, Student's t over the starts (df = starts - 1) */
	RPT_GU_REPLICAS, /* one start, two or more processes a side: each process's mean
	                  * offset from its groups, pooled t over the processes a side */
	RPT_GU_PAIR,     /* one process a side: the group differences, which cannot see how two
	                  * processes of one server differ; held to RPT_PROCESS_FLOOR_PCT */
};

/* A side-by-side comparison's runs, by what they replicate. */
struct rpt_groups {
	enum rpt_group_unit unit; /* how it is judged */
	int starts;               /* distinct starts of the targets among its runs */
	int procs[2];             /* distinct processes (start, replica) of each side */
	int groups;               /* distinct groups (each holds both sides' runs) */
};

/* What a comparison resolves for one figure, and what it would take to resolve a target
 * (rpt_advise). */
enum rpt_advice_basis {
	RPT_ADV_NONE,        /* nothing known: one run a side without a calibration */
	RPT_ADV_COMPONENTS,  /* the runs' own variance components (two or more a side) */
	RPT_ADV_CALIBRATION, /* a calibration's run-to-run spread */
	RPT_ADV_PROCESSES,   /* side by side: the processes' spread (rounds: processes a side,
	                      * or starts, to run; total_s: the study's length then) */
};

struct rpt_resolve {
	enum rpt_advice_basis basis; /* where the noise comes from */
	double half_pct;             /* the verdict's own interval of the difference: its half-width
	                              * in % of the baseline (NAN: no resolution can be stated) */
	double level;                /* that interval's confidence level */
	double target_pct;           /* the change the advice aims to resolve */
	int rounds;                  /* advice: runs per label (0: no advice) ... */
	double run_s;                /* ... each with this measured window (s) ... */
	double total_s;              /* ... taking this long per label in all, overheads included */
	int now_enough;              /* the runs made already resolve target_pct */
	double between_pct;       /* run-to-run sd (between part) in % of the baseline, pooled over
	                           * the two sides (NAN: unknown) */
	double within_pct;        /* within-run sd of a run's value at the runs' length, % */
	enum rpt_group_unit unit; /* RPT_ADV_PROCESSES: what `rounds` counts */
};

/* A label's cell against the baseline's cell with the same key.  Every figure is judged by
 * the comparison's one method (enum rpt_noise), and the figures with a spread form one
 * family judged by Holm's weighted step-down (with equal shares: smallest p against
 * alpha / k, the next against alpha / (k - 1), ... until one fails; a study's primary
 * figure holds RPT_PRIMARY_SHARE), so that a system compared with itself has at
 * most an alpha chance of any figure called real. */
struct rpt_cmp {
	int base;                         /* cell index of the baseline */
	int cell;                         /* cell index of the other label */
	struct rpt_diff d[RPT_NFIG];      /* by figure (RPT_FIG_*): verdict NA where a side lacks
	                                   * the figure */
	double base_value[RPT_NFIG];      /* the cells' merged figures (what the tables show) */
	double value[RPT_NFIG];           /* the same for the other label */
	struct rpt_resolve res[RPT_NFIG]; /* what it resolves, and the advice (TPS, p99, CPU
	                                   * per request) */
	enum rpt_noise noise;             /* how the intervals were computed */
	int nruns_base, nruns;            /* compared runs on each side */
	int family;                       /* figures judged together (k) */
	int one_process;                  /* a side's runs all ran in one process of its target
	                                   * (a study that kept it running): memory, which the
	                                   * process carries from run to run, is not judged */
	double alpha;                     /* the family's error rate: RPT_ALPHA, or the share of
	                                   * it a sequential study's last look spent */
	double level;                     /* the strictest level of the family: 1 - alpha x the
	                                   * smallest share (alpha / k when all alike) */
	double floor_pct;                 /* one run a side: the floor applied to figures judged on
	                                   * batch means (p99: RPT_FLOOR_P99_PCT); else 0 */
	int cal;                          /* RPT_BY_CALIBRATION: index into report.cals, else -1 */
	int study;             /* the study all its runs belong to (index into studies), or -1 */
	struct rpt_groups grp; /* RPT_BY_GROUPS: what its runs replicate */
	int primary;           /* the study's primary figure, or -1 */
	int primary_in;        /* it is in the family: RPT_PRIMARY_SHARE of alpha is its */
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
	double cv[RPT_NMETRIC]; /* sd / mean of the run figures (rows with cv; NAN: none) */
};

/* A study whose runs are in the report (soak study), as its design is stated. */
struct rpt_study {
	int db;               /* index into report.dbs */
	int64_t id;           /* studies.id */
	char *name;           /* studies.name */
	int rounds;           /* planned rounds */
	int done_slots;       /* measured runs done */
	int slots;            /* measured runs planned */
	int warmup_runs;      /* runs after each start, recorded and not compared */
	double warmup_steady; /* > 0: warm-up runs went on until two in a row agreed within
	                       * this share (sql/010), at most warmup_max of them a start */
	int warmup_max;
	char until[128];   /* sequential: the precision it ran to ("tps 3%, cpu.app 3%"), or "" */
	char design[16];   /* as written: auto | side-by-side | one-at-a-time ("" before sql/011) */
	char together[32]; /* per scenario, "1" side by side, "0" alone: "0,1" ("": none) */
	int replicas;      /* processes of each target at once (1) */
	int starts;        /* starts of the targets (1) */
	char primary[80];  /* the figure its verdict leads with, or "" */
	double warmup_jit; /* the JIT share a warm-up ended under (0: off or unknown) */
	int64_t wall_ms;   /* from its start to its end (or its last run's), ms */
	int64_t budget_ms; /* sequential: the time it could take (0: none) */
	int looks;         /* sequential: the looks taken (rounds judged) */
	int max_looks;     /* sequential: the looks its budget allowed */
	double alpha;      /* sequential: the error rate its last look was judged at (only
	                    * when max_looks > 0; else RPT_ALPHA holds) */
	char stop[16];     /* sequential: "precise" | "budget" | "rounds", or "" */
	char order[16];    /* interleaved | random */
	int64_t seed;      /* random order's seed (0 with interleaved) */
	char *targets;     /* labels, ", "-separated */
	char *before_each; /* command, or "" */
	int keep_running;  /* 1: targets up for the whole study */
	int managed;       /* targets the study started and stopped (others already ran) */
	char status[16];   /* running | done | interrupted | failed */
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

/* Topics of the findings, in the order a report lists them. */
enum rpt_topic {
	RPT_T_THROUGHPUT,  /* "throughput": requests per second against the baseline */
	RPT_T_LATENCY,     /* "latency": mean and p99 against the baseline */
	RPT_T_SATURATION,  /* "saturation": where sweeps stop growing, USL, queueing */
	RPT_T_MEMORY,      /* "memory": memory verdicts, GC share, process memory */
	RPT_T_ERRORS,      /* "errors": server-side and client-side failures */
	RPT_T_CONNECTIONS, /* "connections": keep-alive, the cost of connecting */
	RPT_T_COST,        /* "cost": CPU and memory per request on the server */
	RPT_T_RUNS,        /* "runs": runs that did not end as planned */
	RPT_T_DRIFT,       /* "drift": does a run degrade over time (report_drift.c) */
	RPT_NTOPIC
};

/* What a validity item found, for write/ to word (report_validity_text.c); the kinds
 * judge/ still words itself carry their text instead (RPT_V_WORDED). */
enum rpt_vkind {
	RPT_V_WORDED, /* text set when the item was judged */
	RPT_V_COLD,   /* cold_start: rpt_item.cold */
	RPT_V_TREND,  /* rounds_trend: rpt_item.trend */
	RPT_V_GEN,    /* generator_saturated, generator_late: rpt_item.gen */
	RPT_V_HOST,   /* host_saturated: rpt_item.host */
	RPT_V_GCWIN,  /* short_window of a GC log: rpt_item.gcwin */
};

#define RPT_HOST_BUSY_PCT 90.0 /* host CPU, % of all cores (placed: of the generator's) */

/* host_saturated: the generator shared its host with a collected source and competed with
 * it for the cores (report_validity.c). */
struct rpt_host {
	int placed;   /* the generator ran on CPUs of its own, apart from the sources' */
	int first;    /* index into runs: the first of them, whose host the sentence names */
	double worst; /* the highest CPU %, of the host (or of the generator's CPUs) */
};

#define RPT_GEN_LAG_MS 10.0 /* open model: a start lag p99 this late is the generator's */

/* How the generator may have set the pace in one step (the step means of its intervals). */
enum rpt_gen_cause {
	RPT_GEN_OK,      /* it did not */
	RPT_GEN_BUSY,    /* its threads were busy */
	RPT_GEN_STARVED, /* busy and ready but waiting for a core */
	RPT_GEN_LATE,    /* neither, but its requests went out late (RPT_GEN_LAG_MS) */
};

/* generator_saturated, generator_late: one label's steps with one cause, and the figures
 * that show it (report_validity.c). */
struct rpt_gen {
	enum rpt_gen_cause cause; /* which */
	double cpu, wait, lag;    /* the highest seen (NAN: none) */
	int threads;              /* of the busiest run */
	int late, steady;         /* late intervals, and steady intervals of those steps */
};

/* cold_start: a run, the first after its target started, that stood out from its label's
 * other compared runs at one key (report_cold.c). */
struct rpt_cold {
	int run;        /* index into runs */
	int cell;       /* index into cells: the key it stood out at */
	int out[2];     /* whether its TPS [0] and mean latency [1] were outliers */
	double rel[2];  /* their change against the other runs' mean, % */
	double half[2]; /* the half-widths of their 95 % prediction intervals, % */
	int others;     /* the label's other compared runs at the key */
};

/* rounds_trend: one level of a study whose runs moved with the order they ran in
 * (report_trend.c). */
struct rpt_trend {
	int cell[RPT_MAX_LABELS];        /* indices into cells: the level's, one per label */
	int ncells;                      /* entries in cell */
	int fig[1 + RPT_MAX_SOURCES];    /* the figures that moved (RPT_M_TPS, RPT_M_MEAN,
	                                  * RPT_FIG_CPU) */
	double rel[1 + RPT_MAX_SOURCES]; /* each one's mean relative change, first run to last */
	double p[1 + RPT_MAX_SOURCES];   /* each one's Mann-Kendall p-value */
	int nfig;                        /* entries in fig, rel and p */
};

/* short_window of a GC log: a source whose steady window was too short for a memory
 * verdict, in one label's runs (report_validity.c). */
struct rpt_gcwin {
	char source[RPT_NAME_MAX]; /* the GC source */
	double span_lo, span_hi;   /* the shortest and longest steady window, s */
	double longer_h;           /* how much longer a run needs to be, hours (the most) */
};

/* One thing the report says about the runs: a finding (one line per topic and label, with
 * the numbers) or a validity item (can the numbers be trusted: a warning or a note about
 * the data behind them, report_validity.c).  One type, one add (rpt_item_add). */
struct rpt_item {
	char code[24];          /* finding: its topic's key (rpt_topic_key), for pipelines;
	                         * validity: host_saturated, generator_saturated, short_window,
	                         * not_steady, no_steady_state, cold_start, errors, clock_skew,
	                         * confounded */
	char severity[8];       /* validity: "warn", a figure may mislead, or "info", worth
	                         * knowing; finding: "" */
	enum rpt_topic topic;   /* finding: its topic */
	int label;              /* index into labels, or -1 (the whole report) */
	struct buf run;         /* validity: run keys it concerns, comma-separated (owned, grows
	                         * without a bound: rpt_runs_add), empty when none */
	int own_from, own_to;   /* validity: text[own_from..own_to) is the label's own part; what
	                         * comes before and after is the same for every label of the code,
	                         * so that items differing only there are said as one (own_to 0:
	                         * no such parts) */
	double score;           /* finding: how much it matters (higher first; see
	                         * report_findings.c) */
	int top;                /* finding: one of the RPT_TOP_FINDINGS that matter most */
	enum rpt_vkind kind;    /* validity: what it found, when write/ words it */
	struct rpt_cold cold;   /* kind RPT_V_COLD: what it found */
	struct rpt_trend trend; /* kind RPT_V_TREND: what it found */
	struct rpt_gen gen;     /* kind RPT_V_GEN: what it found (its runs: run) */
	struct rpt_host host;   /* kind RPT_V_HOST: what it found (its runs: run) */
	struct rpt_gcwin gcwin; /* kind RPT_V_GCWIN: what it found (its runs: run) */
	char *text;             /* the sentence (owned); NULL until write/ words it (kind) */
};
/* report_item.c: appends *it with a copy of text (NULL: none yet) to the array *v of *n
 * items (*cap allocated), its run list moved (it->run is zeroed, added or not); 0, or -1
 * out of memory. */
int rpt_item_add(struct rpt_item **v, int *n, int *cap, struct rpt_item *it, const char *text);
/* Appends a run key to a run list ("3,7,12": rpt_item.run). */
void rpt_runs_add(struct buf *runs, const char *key);
/* Its run list, "" when none. */
const char *rpt_item_runs(const struct rpt_item *it);
/* Releases items v[0..n) and the array. */
void rpt_items_free(struct rpt_item *v, int n);
/* Sorts v[0..n) by cmp, stably (insertion: items equal under cmp keep their order). */
void rpt_items_sort(struct rpt_item *v, int n,
                    int (*cmp)(const struct rpt_item *, const struct rpt_item *));
/* report.c: a label's name. */
const char *rpt_label_name(const struct report *r, int l);

#define RPT_TOP_FINDINGS 5 /* findings listed first, right after the validity warnings */

/* The changes the advice aims to resolve, unless a study's `until` names others: what
 * version-upgrade studies look for (2-10 %; p99 moves far more from run to run). */
#define RPT_RESOLVE_TPS_PCT 3.0
#define RPT_RESOLVE_CPU_PCT 3.0
#define RPT_RESOLVE_P99_PCT 10.0

/* The verdict of one label against the baseline (report_verdict.c). */
struct rpt_vrow {
	int label;     /* index into labels (0: the baseline's own row) */
	int cmp;       /* index into cmps of the comparison it rests on, or -1 (none): capacity
	                * (the closed model, users) before efficiency when the label has both */
	int cell;      /* the label's cell shown (the baseline's own when label 0), or -1 */
	int cmp_rate;  /* efficiency beside it: the comparison at a fixed open-model rate
	                * (CPU per request, latency at that rate), or -1 */
	int cell_rate; /* its cell (the baseline's own when label 0), or -1 */
	double cpu_req[RPT_MAX_SOURCES]; /* CPU ms per request of this label's cell, per
	                                  * report CPU series (NAN: not a process series);
	                                  * against the baseline: cmps[cmp] holds the
	                                  * judged difference (RPT_FIG_CPU) */
	int drift;    /* the label's drift (enum rpt_drift_verdict) over the runs of
	               * the cell shown: the worst one; -1 when none was judged */
	int warnings; /* validity warnings about this label */
};

/* A picture the report shows. */
struct rpt_picture {
	char name[RPT_PIC_NAME_MAX]; /* base name under img/: "tps_time", "latency_3", ... */
	int compare;                 /* 1: compares the labels (shown before per-run ones) */
	int run;                     /* index into runs of the one run it shows, or -1 */
	char col[RPT_NAME_MAX + 32]; /* one run's: what it shows, the same for every run
	                              * ("latency", "heap after GC, app"): the column of the
	                              * table of each run's pictures */
	char *title;                 /* caption */
	int drawn;                   /* the SVG and PNG exist */
	char *svg;                   /* the SVG text (for report.html), or NULL */
};

struct rpt_history; /* history/history.h */

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
	struct rpt_cell *cells;      /* sorted: kind (fixed first), concurrency, duration, label */
	int ncells;                  /* entries in cells */
	struct rpt_cmp *cmps;        /* in cell order */
	int ncmps;                   /* entries in cmps */
	struct rpt_sweep *sweeps;    /* by label order, then duration */
	int nsweeps;                 /* entries in sweeps */
	struct rpt_item *findings;   /* by topic, then label */
	int nfindings;               /* entries in findings */
	struct rpt_item *validity;   /* warnings first, then notes; by code, label, run */
	int nvalidity;               /* entries in validity */
	struct rpt_vrow *verdicts;   /* one per label, baseline first */
	int nverdicts;               /* entries in verdicts */
	struct rpt_picture *pics;    /* in report order */
	int npics;                   /* entries in pics */
	char plot_note[256];         /* why pictures are missing, or "" */
	struct rpt_study *studies;   /* studies of the selected runs (report_study.c) */
	int nstudies;                /* entries in studies */
	struct rpt_cal *cals;        /* calibrations found in the databases */
	int ncals;                   /* entries in cals */
	struct rpt_history *history; /* night over night (history/history.h): NULL unless a
	                              * label and scenario have RPT_HIST_MIN_RUNS runs */
	struct rpt_pcmp *pcmps;      /* where CPU per request moved: by comparison, source */
	int npcmps;                  /* entries in pcmps */
};

/* report.c: adds a step's steady window (counters and decoded histogram) into acc
 * (initialised). */
int rpt_step_add(struct istats *acc, const struct rpt_step *s, char *err, size_t errlen);
/* report.c: a fact of what the run ran on (run_env), or NULL. */
const char *rpt_env_get(const struct rpt_run *run, const char *source, const char *key);
/* report.c: "30 users (fixed runs of 20s)", "600/s (sweep steps of 1m)". */
char *rpt_cell_text(const struct rpt_cell *c, char *buf, size_t len);
/* A cell's kind of run and its length: "fixed runs of 4s", "sweep steps of 30s". */
char *rpt_cell_runs(const struct rpt_cell *c, char *buf, size_t len);
/* report_runs.c: a sweep run (its steps are levels of one sweep), not a fixed run. */
int rpt_is_sweep(const struct rpt_run *run);
/* report_runs.c: label l's next run in report order after `after` (NULL: its first), or
 * NULL past its last:
 *   for (const struct rpt_run *run = NULL; (run = rpt_label_run(r, l, run));) */
const struct rpt_run *rpt_label_run(const struct report *r, int l, const struct rpt_run *after);

/* The gnuplot scripts report_plot.c copies and runs: build/.../gen/plots_embed.c, made
 * from plots/NAME.gp by tools/embed.sh at build time, which includes this header. */
struct rpt_script {
	const char *name; /* "tps_time.gp" */
	const char *text; /* its contents */
};
extern const struct rpt_script rpt_scripts[];
extern const int rpt_nscripts;

#endif
