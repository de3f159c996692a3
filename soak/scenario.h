/*
 * scenario — a scenario file (INI, parsed with libinih) turned into a validated plan.
 *
 * Sections and keys are listed in scenario.c's tables (and in README.md).  Every mistake
 * is reported as `FILE:LINE: what is wrong` in err, with no partial scenario left behind:
 * unknown section or key, missing url, bad duration/range/percentage, bad PCRE2 pattern
 * (with the pattern's error offset), unknown placeholder, bad connection mode, concurrency
 * outside 1..SCN_MAX_VUS, unreadable CSV file.  Overrides (`--set section.key=value`) are
 * applied as if they were the file's last lines and reported as `--set section.key: ...`.
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

#include "template.h"

#define SCN_MAX_VUS 100000
#define SCN_MAX_LEVELS 64
#define SCN_MAX_REQUESTS 16
#define SCN_MAX_HEADERS 32
#define SCN_MAX_COLLECT 8
#define SCN_MAX_FRAMES 16

enum scn_conn { SCN_KEEPALIVE = 0, SCN_CLOSE = 1 };
enum scn_proto { SCN_HTTP = 0, SCN_TCP_FRAME = 1 };

/* One request kind ([request] or [request.NAME]). */
struct scn_request {
	char *name;          /* "default" or NAME */
	int weight;          /* relative share of iterations (default 1) */
	char *method;        /* GET, POST, ... */
	struct tpl url;      /* http(s)://... */
	struct tpl body;     /* empty when no body */
	int has_body;        /* body key given */
	struct tpl headers[SCN_MAX_HEADERS]; /* "Name: value" lines */
	int nheaders;
	int64_t timeout_ms;  /* whole-request timeout */
	int expect_status;   /* 0 = any 2xx or 3xx */
	pcre2_code *expect_body; /* NULL = no body check; compiled once, JIT when possible */
	char *expect_body_src;
	int line;            /* first line of its section, for messages */
};

/* One frame of a tcp-frame iteration (see issue "tcp-frame"); unused for HTTP. */
struct scn_frame {
	struct tpl text;     /* payload template */
	int type;            /* frame type (2-byte big-endian) */
	int expect_reply;    /* wait for one reply frame after this one */
};

/* A collector the runner starts ([collect.NAME]). */
struct scn_collect {
	char *name;          /* source name: app, db, host, ... */
	char *pid_match;     /* PCRE2 over /proc/PID/cmdline, or NULL */
	char *pidfile;       /* or a pid file */
	long pid;            /* or a pid (0 = none) */
	int host;            /* host-wide metrics too */
	char *gc_log;        /* a JVM GC log to follow, or NULL */
	int64_t jvm_start_ms;/* anchor for uptime-only GC logs (0 = from the process) */
	int64_t every_ms;    /* sampling period */
	int line;
};

struct scn_thresholds {
	int64_t p99_us, p95_us, mean_us; /* -1 = not set */
	double error_rate;               /* fraction; -1 = not set */
	double tps_min;                  /* -1 = not set */
};

struct scenario {
	char *file;          /* path as given, or "(command line)" */
	char *text;          /* the source text, with a trailer listing --set overrides */
	char *name;
	char *label;
	int concurrency;     /* fixed runs; for sweeps the first level */
	int64_t duration_ms; /* a step's whole length: ramp-up and warm-up included */
	int64_t warmup_ms;   /* after ramp-up, excluded from the step's figures */
	int64_t rampup_ms;   /* VUs start evenly spread over this */
	int64_t interval_ms;
	enum scn_conn connection;
	enum scn_proto protocol;
	int64_t think_min_ms, think_max_ms;
	int threads;         /* 0 = one per core */
	int levels[SCN_MAX_LEVELS]; /* concurrency per step */
	int nlevels;
	int sweep;           /* 1 when [sweep] was given */
	struct scn_request reqs[SCN_MAX_REQUESTS];
	int nreqs;
	int total_weight;
	struct tpl_csv csv;  /* the CSV data set (csv = FILE), empty when none */
	char *csv_path;
	struct scn_thresholds thr;
	struct scn_collect collect[SCN_MAX_COLLECT];
	int ncollect;
	/* tcp-frame protocol */
	char *address;       /* host:port */
	struct scn_frame handshake; /* frame sent after connect (has_handshake) */
	int has_handshake;
	pcre2_code *handshake_expect;
	struct scn_frame frames[SCN_MAX_FRAMES];
	int nframes;
	int max_frame;       /* reply length cap */
};

/* Parses a file.  sets/nsets are "section.key=value" overrides. */
int scn_load(struct scenario *s, const char *path, char *const *sets, int nsets, char *err,
	     size_t errlen);
/* Parses text as if read from `name` (tests, and quick mode). */
int scn_parse_text(struct scenario *s, const char *name, const char *text, char *const *sets,
		   int nsets, char *err, size_t errlen);
void scn_release(struct scenario *s);

/* Total planned length of all steps. */
int64_t scn_total_ms(const struct scenario *s);
/* Prints the plan (steps, windows, requests' shape) for `soak check`. */
void scn_print_plan(const struct scenario *s, FILE *f);
/* "keepalive" / "close" */
const char *scn_conn_name(enum scn_conn c);

#endif
