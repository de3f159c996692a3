/*
 * scenario — a scenario file (INI, parsed with libinih) turned into a validated plan.
 *
 * Sections and keys are listed in scenario.c's tables (and in soak-scenario(5)).  Every mistake
 * is reported as `FILE:LINE: what is wrong` in err, with no partial scenario left behind:
 * unknown section or key, missing url, bad duration/range/percentage, bad PCRE2 pattern
 * (with the pattern's error offset), unknown placeholder, bad connection mode, concurrency
 * outside 1..SCN_MAX_VUS, unreadable CSV file.  Overrides (`--set section.key=value`) are
 * applied as if they were the file's last lines and reported as `--set section.key: ...`.
 * ${env:NAME} in any value is the environment variable's value (a variable not set is a
 * mistake at its line); messages show it as ${env:NAME}.  `redact = NAME, ...` in
 * [scenario] (repeatable, --set adds too) names more values to keep out of what is stored.
 *
 * A parsed scenario owns all its memory (scn_release frees it) and is read-only afterwards,
 * so engine threads may share it.
 */
#ifndef SOAK_SCENARIO_H
#define SOAK_SCENARIO_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/plan.h"
#include "redact.h"

#define SCN_MAX_VUS     100000
#define SCN_MAX_LEVELS  64
#define SCN_MAX_COLLECT 8

/* A collector the runner starts ([collect.NAME]). */
#define SCN_PROFILE_HZ 99 /* a profile's default rate: off the 100 Hz of other timers */

struct scn_collect {
	char *name;           /* source name: app, db, host, ... */
	char *pid_match;      /* PCRE2 over /proc/PID/cmdline, or NULL */
	char *pidfile;        /* or a pid file */
	long pid;             /* or a pid (0 = none) */
	int host;             /* host-wide metrics too */
	char *gc_log;         /* a JVM GC log to follow, or NULL */
	int64_t jvm_start_ms; /* anchor for uptime-only GC logs (0 = from the process) */
	int64_t every_ms;     /* sampling period */
	int64_t memory_limit; /* memory_limit: the set's configured limit, bytes (0: none) */
	char *cpus;           /* placement: the CPU list its processes are pinned to when a run
	                       * starts (cpus.h syntax), or NULL */
	int profile;          /* profile = cpu: soak-perf samples its stacks in measured windows */
	int profile_hz;       /* profile_hz: samples per second of CPU (default SCN_PROFILE_HZ) */
	int line;
};

struct scn_thresholds {
	int64_t p99_us, p95_us, mean_us; /* -1 = not set */
	double error_rate;               /* fraction; -1 = not set */
	double tps_min;                  /* -1 = not set */
	/* Drift over the run (the report's drift verdict, judged at the run's end): the
	 * largest real change allowed from the first third of the measured window to the
	 * last (and from hour 1 to the last hour when the window is 3 hours or more), as a
	 * fraction; -1 = not set.  TPS may fall by drift_tps, mean and p99 rise by
	 * drift_mean and drift_p99. */
	double drift_tps, drift_mean, drift_p99;
};

struct scenario {
	char *file; /* path as given, or "(command line)" */
	/* The source text with a trailer listing the --set overrides, redacted (redact.h):
	 * what runs.scenario stores.  ${env:NAME} stays as written. */
	char *text;
	char *name;
	char *label;
	int concurrency;     /* closed model: fixed runs; for sweeps the first level */
	double rate;         /* open model: arrivals per second; for sweeps the first level */
	int64_t duration_ms; /* a step's whole length: ramp-up and warm-up included */
	int64_t warmup_ms;   /* after ramp-up, excluded from the step's figures */
	int64_t rampup_ms;   /* VUs start evenly spread over this */
	int64_t interval_ms;
	int threads;                  /* 0 = one per core */
	char *cpus;                   /* placement: the CPUs the generator runs on, or NULL */
	int levels[SCN_MAX_LEVELS];   /* closed model: concurrency per step (0 when open) */
	double rates[SCN_MAX_LEVELS]; /* open model: arrivals per second per step (0 when closed) */
	int nlevels;                  /* steps */
	int sweep;                    /* 1 when [sweep] was given */
	char *csv_path;               /* the CSV data set's file (plan.csv holds it), or NULL */
	struct scn_thresholds thr;
	struct scn_collect collect[SCN_MAX_COLLECT];
	int ncollect;
	struct plan plan;     /* what the engine sends: requests or frames, connection, think */
	int client_set;       /* the line of a `client` key (1 for --set), 0 when none was given */
	char *metrics;        /* `metrics = ADDR:PORT`: serve the live run on /metrics there, or
	                       * NULL */
	struct redact redact; /* names the `redact` keys add to the secret-looking ones */
};

/* Parses a file.  sets/nsets are "section.key=value" overrides. */
int scn_load(struct scenario *s, const char *path, char *const *sets, int nsets, char *err,
             size_t errlen);
/* Parses text as if read from `name` (tests, and quick mode). */
int scn_parse_text(struct scenario *s, const char *name, const char *text, char *const *sets,
                   int nsets, char *err, size_t errlen);
void scn_release(struct scenario *s);
/* Drops every [collect.NAME] section but `name` (a side-by-side run's collectors of what
 * all the group's runs share, its database and host, are the first run's alone). */
void scn_keep_collector(struct scenario *s, const char *name);
/* A file's whole text (a regular text file of at most 4 MB), malloc'd; NULL with err. */
char *scn_file_text(const char *path, char *err, size_t errlen);
/* text, then the overrides as a comment trailer (what runs.scenario stores); malloc'd. */
char *scn_text_with_sets(const char *text, char *const *sets, int nsets);

/* Total planned length of all steps. */
int64_t scn_total_ms(const struct scenario *s);
/* Prints the plan (steps, windows, requests' shape) for `soak check`. */
void scn_print_plan(const struct scenario *s, FILE *f);

#endif
