/*
 * soak import jmeter|nmon — brings results a study already has into a soak database:
 * a JMeter result file becomes a run (import/jmeter.h), an nmon recording becomes
 * collector samples (import/nmon.h).  A bad file is FILE:LINE with exit status 2 and
 * nothing written; the database gets the whole import in one transaction or nothing.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd.h"
#include "db.h"
#include "dur.h"
#include "import/jmeter.h"
#include "redact.h"
#include "import/nmon_db.h"

#define IMPORT_ROWS 20 /* labels of JMeter's report printed */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: soak import jmeter FILE.jtl --label L [--interval D] [--warmup D]\n"
	    "                          [--name N] [--connection keepalive|close]\n"
	    "                          [--timestamp start|end] [--redact NAMES] [--db DB]\n"
	    "       soak import nmon FILE.nmon --source NAME [--match REGEX] [--host-name H]\n"
	    "                          [--db DB]\n"
	    "\n"
	    "jmeter: a JMeter result file (CSV with or without a header row, or XML; gzip too)\n"
	    "becomes a run labelled L, and JMeter's Aggregate Report of it is printed (as\n"
	    "JMeter 2.13 computes it).  Intervals from the first sample's start (default 10s,\n"
	    "shorter for a short file), an HDR histogram of every sample's elapsed each, error\n"
	    "classes from responseCode and success; a step where allThreads holds a level for\n"
	    "at least a tenth as long as its longest hold (several: a sweep; ramps are none).\n"
	    "With no --warmup every sample is measured; --warmup D leaves each step's first D\n"
	    "out.  --timestamp end: the file was written with sampleresult.timestamp.start=false.\n"
	    "--redact NAMES: more names whose values are secret (as a scenario's redact key),\n"
	    "for the messages and URLs the file holds.\n"
	    "nmon: CPU_ALL, MEM and NET become host samples of source NAME; with --match, TOP's\n"
	    "%%CPU and ResSet of the processes whose command line matches (nmon -T), summed.\n"
	    "Times from ZZZZ lines are local time (set TZ for another zone's file).\n"
	    "Exit status: 0 imported, 2 bad usage or file (nothing written), 3 database "
	    "failure.\n");
}

enum {
	OPT_DB = 256,
	OPT_LABEL,
	OPT_INTERVAL,
	OPT_WARMUP,
	OPT_NAME,
	OPT_CONN,
	OPT_TS,
	OPT_SOURCE,
	OPT_MATCH,
	OPT_HOST,
	OPT_REDACT
};

/* Exit status of an importer's return: -2 bad input, -1 runtime. */
static int status_of(int rc)
{
	return rc == -2 ? EXIT_USAGE : rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* A percentile column: the value, or "-" when the row kept none. */
static const char *pct_col(const struct jmagg_row *r, int64_t v, char *buf, size_t len)
{
	if (!r->exact)
		return "-";
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

/* One row of JMeter's Aggregate Report, in its columns. */
static void print_row(const char *label, const struct jmagg_row *r)
{
	char c[4][24];

	printf("  %-24.24s %9lld %8lld %7s %8s %8s %8s %7lld %7lld %7.2f%% ", label,
	       (long long)r->samples, (long long)r->average,
	       pct_col(r, r->median, c[0], sizeof c[0]), pct_col(r, r->p90, c[1], sizeof c[1]),
	       pct_col(r, r->p95, c[2], sizeof c[2]), pct_col(r, r->p99, c[3], sizeof c[3]),
	       (long long)r->min, (long long)r->max, 100 * r->error_frac);
	if (isnan(r->rate_per_s))
		printf("%12s\n", "-");
	else
		printf("%10.1f/s\n", r->rate_per_s);
}

/* JMeter's Aggregate Report of the file, as JMeter 2.13 shows it: the labels (at most
 * IMPORT_ROWS of them) and TOTAL. */
static void print_aggregate(const struct jmeter_result *r)
{
	printf("JMeter's aggregate report of the file (elapsed, ms; every sample, as JMeter counts "
	       "them):\n  %-24s %9s %8s %7s %8s %8s %8s %7s %7s %8s %12s\n",
	       "label", "samples", "average", "median", "90% line", "95% line", "99% line", "min",
	       "max", "error %", "throughput");
	for (int i = 0; i < r->nrows && i < IMPORT_ROWS; i++)
		print_row(r->rows[i].label, &r->rows[i].r);
	if (r->nrows > IMPORT_ROWS)
		printf("  (%d more labels: their rows are in the run's scenario text)\n",
		       r->nrows - IMPORT_ROWS);
	print_row("TOTAL", &r->total.r);
}

/* soak import's options, as given. */
struct import_args {
	const char *db;     /* --db */
	const char *label;  /* jmeter: --label, required */
	const char *name;   /* jmeter: --name, or NULL */
	const char *conn;   /* jmeter: --connection */
	int64_t interval;   /* jmeter: --interval, 0: chosen for the file */
	int64_t warmup;     /* jmeter: --warmup */
	int ts_end;         /* jmeter: --timestamp end */
	const char *source; /* nmon: --source, required */
	const char *match;  /* nmon: --match, or NULL */
	const char *host;   /* nmon: --host-name, or NULL */
	int jm_only;        /* an option of the jmeter importer only was given */
	int nmon_only;      /* one of the nmon importer only */
	struct redact redact; /* jmeter: --redact */
};

static int import_jmeter(const char *path, const struct import_args *a)
{
	struct jmeter_opts o = {.path = path,
	                        .db_path = a->db,
	                        .label = a->label,
	                        .name = a->name,
	                        .interval_ms = a->interval,
	                        .warmup_ms = a->warmup,
	                        .ts_end = a->ts_end,
	                        .connection = a->conn,
	                        .redact = &a->redact};
	struct jmeter_result r;
	char err[1024], t[40], b[32];
	int rc = jmeter_import(&o, &r, err, sizeof err);
	int64_t span;

	if (rc < 0) {
		fprintf(stderr, "soak import: %s\n", err);
		return status_of(rc);
	}
	span = r.ended_ms - r.started_ms;
	if (!r.threads_known)
		fprintf(stderr,
		        "soak import: warning: %s has no thread counts (allThreads, "
		        "grpThreads): concurrency recorded as 0\n",
		        path);
	for (int s = 0; s < r.nsteps; s++)
		if (r.unmeasured[s])
			fprintf(stderr,
			        "soak import: warning: --warmup leaves the step at %d threads "
			        "nothing measured: it is in no figure\n",
			        r.levels[s]);
	printf("run %lld: %s (%s, label %s): %lld samples, %lld failed, %d label%s; from %s, %s; "
	       "%s at",
	       (long long)r.run_id, path, r.format_xml ? "XML" : "CSV", a->label,
	       (long long)r.samples, (long long)r.errors, r.nlabels, r.nlabels == 1 ? "" : "s",
	       clock_iso(r.started_ms, t, sizeof t), dur_format(span, b, sizeof b),
	       r.nsteps > 1 ? "a sweep" : "fixed");
	for (int s = 0; s < r.nsteps; s++)
		printf("%s %d", s ? "," : "", r.levels[s]);
	printf(" threads (held");
	for (int s = 0; s < r.nsteps; s++)
		printf("%s %.0f %%", s ? "," : "",
		       span > 0 ? 100.0 * (double)r.held_ms[s] / (double)span : 100.0);
	printf(" of the file); intervals of %s%s\n", dur_format(r.interval_ms, b, sizeof b),
	       a->interval ? "" : " (chosen for the file's length)");
	print_aggregate(&r);
	jmeter_result_release(&r);
	return EXIT_OK;
}

static int import_nmon(const char *path, const struct import_args *a)
{
	struct nmon_opts o = {.path = path,
	                      .db_path = a->db,
	                      .source = a->source,
	                      .match = a->match,
	                      .host_name = a->host};
	struct nmon_result r;
	char err[1024], t[40], b[32];
	int rc = nmon_import(&o, &r, err, sizeof err);

	if (rc < 0) {
		fprintf(stderr, "soak import: %s\n", err);
		return status_of(rc);
	}
	if (r.warning[0])
		fprintf(stderr, "soak import: warning: %s\n", r.warning);
	if (a->match && r.matched == 0)
		fprintf(stderr, "soak import: warning: no process in %s's TOP lines matches '%s'\n",
		        path, a->match);
	printf("%s: %lld snapshots from %s over %s, %lld samples of source '%s' host '%s'", path,
	       (long long)r.snapshots, clock_iso(r.first_ms, t, sizeof t),
	       dur_format(r.last_ms - r.first_ms, b, sizeof b), (long long)r.samples, a->source,
	       r.host);
	if (a->match)
		printf("; '%s' listed in %lld of them", a->match, (long long)r.matched);
	printf("\n");
	return EXIT_OK;
}

/* The value of --interval or --warmup into *d: EXIT_OK, or EXIT_USAGE after saying why. */
static int duration_option(const char *opt, const char *arg, int64_t *d, int64_t min)
{
	char err[256];

	if (dur_parse(arg, d, err, sizeof err) < 0) {
		fprintf(stderr, "soak import: --%s: %s\n", opt, err);
		return EXIT_USAGE;
	}
	if (*d < min) {
		fprintf(stderr, "soak import: --%s: at least 100ms\n", opt);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Option c (with its value arg) into *a: EXIT_OK, EXIT_USAGE after saying what is wrong
 * with the value, or -1 when c is none of the options (--help, a missing value, an
 * unknown option: the caller's). */
static int import_option(struct import_args *a, int c, const char *arg)
{
	a->jm_only |= c == OPT_LABEL || c == OPT_NAME || c == OPT_INTERVAL || c == OPT_WARMUP ||
	              c == OPT_CONN || c == OPT_TS || c == OPT_REDACT;
	a->nmon_only |= c == OPT_SOURCE || c == OPT_MATCH || c == OPT_HOST;
	switch (c) {
	case OPT_DB:
		a->db = arg;
		return EXIT_OK;
	case OPT_LABEL:
		a->label = arg;
		return EXIT_OK;
	case OPT_NAME:
		a->name = arg;
		return EXIT_OK;
	case OPT_SOURCE:
		a->source = arg;
		return EXIT_OK;
	case OPT_MATCH:
		a->match = arg;
		return EXIT_OK;
	case OPT_HOST:
		a->host = arg;
		return EXIT_OK;
	case OPT_REDACT:
		return redact_option("soak import", &a->redact, arg) < 0 ? EXIT_USAGE : EXIT_OK;
	case OPT_INTERVAL:
		return duration_option("interval", arg, &a->interval, 100);
	case OPT_WARMUP:
		return duration_option("warmup", arg, &a->warmup, INT64_MIN);
	case OPT_CONN:
		if (strcmp(arg, "keepalive") != 0 && strcmp(arg, "close") != 0) {
			fprintf(stderr, "soak import: --connection: keepalive or close, not '%s'\n",
			        arg);
			return EXIT_USAGE;
		}
		a->conn = arg;
		return EXIT_OK;
	case OPT_TS:
		if (strcmp(arg, "start") != 0 && strcmp(arg, "end") != 0) {
			fprintf(stderr, "soak import: --timestamp: start or end, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->ts_end = strcmp(arg, "end") == 0;
		return EXIT_OK;
	default:
		return -1;
	}
}

/* What each importer needs, and no option of the other's: EXIT_OK, or EXIT_USAGE after
 * saying what is missing. */
static int check_args(const char *kind, const struct import_args *a)
{
	int jm = strcmp(kind, "jmeter") == 0;

	if (jm && !a->label) {
		fprintf(stderr,
		        "soak import jmeter: --label is required (the system under test)\n");
		return EXIT_USAGE;
	}
	if (!jm && !a->source) {
		fprintf(stderr, "soak import nmon: --source is required (app, db, host, ...)\n");
		return EXIT_USAGE;
	}
	if (jm ? a->nmon_only : a->jm_only) {
		fprintf(stderr, "soak import %s: an option of the other importer was given\n",
		        kind);
		cmd_usage("import");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, OPT_DB},
	    {"label", required_argument, NULL, OPT_LABEL},
	    {"interval", required_argument, NULL, OPT_INTERVAL},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"name", required_argument, NULL, OPT_NAME},
	    {"connection", required_argument, NULL, OPT_CONN},
	    {"timestamp", required_argument, NULL, OPT_TS},
	    {"source", required_argument, NULL, OPT_SOURCE},
	    {"match", required_argument, NULL, OPT_MATCH},
	    {"host-name", required_argument, NULL, OPT_HOST},
	    {"redact", required_argument, NULL, OPT_REDACT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct import_args a = {.db = db_default_path(), .conn = "keepalive"};
	const char *kind;
	int c, rc;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc < 2 || (strcmp(argv[1], "jmeter") != 0 && strcmp(argv[1], "nmon") != 0)) {
		fprintf(stderr, "soak import: say what to import: jmeter or nmon\n");
		cmd_usage("import");
		return EXIT_USAGE;
	}
	kind = argv[1];
	argc--;
	argv++;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if ((rc = import_option(&a, c, optarg)) >= 0) {
			if (rc != EXIT_OK)
				return rc;
			continue;
		}
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		return cmd_opt_error("import", c, argv);
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "soak import %s: give one file\n", kind);
		cmd_usage("import");
		return EXIT_USAGE;
	}
	if ((rc = check_args(kind, &a)) != EXIT_OK)
		return rc;
	return strcmp(kind, "jmeter") == 0 ? import_jmeter(argv[optind], &a)
	                                   : import_nmon(argv[optind], &a);
}
