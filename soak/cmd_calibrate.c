/*
 * soak calibrate — how much do repeated runs of one system differ on this machine?  A study
 * of one target (built from the command line, run by cmd_study_exec): N runs of the
 * scenario with the same reset before each, the first after a start discarded; their
 * run-to-run spread is stored in `calibrations`, and a report that has only one run per
 * label takes its noise from there.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "run/study_run.h"

static void usage_calibrate(FILE *f)
{
	fprintf(
	    f,
	    "usage: soak calibrate SCENARIO.ini (--url URL | --start CMD [--stop CMD]) [options]\n"
	    "\n"
	    "Runs the scenario N times against one target and stores how much the runs\n"
	    "differ (TPS, mean, p99) as a calibration: a report comparing one run with\n"
	    "one run uses it for the run-to-run noise.\n"
	    "  --url URL              a target already running (the request URL)\n"
	    "  --start CMD            a command that starts it and prints url=... lines\n"
	    "  --stop CMD             the command that stops it\n"
	    "  --runs N               measured runs (default 5, at least 2)\n"
	    "  --label L              their label (default: the scenario's)\n"
	    "  --before-each CMD      run before every run (empty a table, drop caches)\n"
	    "  --warmup-runs N        runs after the start, not counted (default 1)\n"
	    "  --restart              start and stop the target around each run\n"
	    "  --db FILE  --set SECTION.KEY=V  --resume  --threads N  -q  -v\n");
}

/* Appends "key = value\n" to the study text; a value must survive the INI reader. */
static int put(char *text, size_t cap, size_t *n, const char *key, const char *value)
{
	if (strchr(value, '\n') || strstr(value, " ;") || strstr(value, "\t;")) {
		fprintf(stderr,
		        "soak calibrate: --%s: a value cannot hold a newline or ' ;' (a comment in "
		        "the study file): use && between commands\n",
		        key);
		return -1;
	}
	int k = snprintf(text + *n, cap - *n, "%s = %s\n", key, value);
	if (k < 0 || (size_t)k >= cap - *n) {
		fprintf(stderr, "soak calibrate: --%s: too long\n", key);
		return -1;
	}
	*n += (size_t)k;
	return 0;
}

/* soak calibrate's own options (those it shares with soak study are cmd_study_args'). */
struct calib_args {
	const char *url;    /* --url: a target already running */
	const char *start;  /* --start CMD */
	const char *stop;   /* --stop CMD, or NULL */
	const char *label;  /* --label, NULL: the scenario's */
	const char *before; /* --before-each CMD, or NULL */
	const char *runs;   /* --runs N, as text for the study file */
	const char *warm;   /* --warmup-runs N, likewise */
	int restart;        /* --restart */
};

/* 1 when c is one of soak calibrate's own options (into *ca), else 0. */
static int calibrate_option(int c, const char *arg, struct calib_args *ca)
{
	switch (c) {
	case 'u':
		ca->url = arg;
		return 1;
	case 'S':
		ca->start = arg;
		return 1;
	case 'T':
		ca->stop = arg;
		return 1;
	case 'n':
		ca->runs = arg;
		return 1;
	case 'l':
		ca->label = arg;
		return 1;
	case 'b':
		ca->before = arg;
		return 1;
	case 'w':
		ca->warm = arg;
		return 1;
	case 'R':
		ca->restart = 1;
		return 1;
	default:
		return 0;
	}
}

/* The study of one target the options describe, as a study file's text (cap bytes at
 * text): 0, or -1 after saying which option's value does not fit. */
static int study_text(char *text, size_t cap, const char *scenario, const struct calib_args *ca)
{
	char name[512];
	size_t n = (size_t)snprintf(text, cap, "[study]\n");

	snprintf(name, sizeof name, "calibrate %s %s", scenario, ca->label);
	if (put(text, cap, &n, "name", name) < 0 || put(text, cap, &n, "scenario", scenario) < 0 ||
	    put(text, cap, &n, "rounds", ca->runs) < 0 ||
	    put(text, cap, &n, "warmup_runs", ca->warm) < 0 ||
	    put(text, cap, &n, "keep_running", ca->restart ? "no" : "yes") < 0 ||
	    (ca->before && put(text, cap, &n, "before_each", ca->before) < 0))
		return -1;
	n += (size_t)snprintf(text + n, cap - n, "[target.%s]\n", ca->label);
	if ((ca->url && put(text, cap, &n, "url", ca->url) < 0) ||
	    (ca->start && put(text, cap, &n, "start", ca->start) < 0) ||
	    (ca->stop && put(text, cap, &n, "stop", ca->stop) < 0))
		return -1;
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"url", required_argument, NULL, 'u'},
	    {"start", required_argument, NULL, 'S'},
	    {"stop", required_argument, NULL, 'T'},
	    {"runs", required_argument, NULL, 'n'},
	    {"label", required_argument, NULL, 'l'},
	    {"before-each", required_argument, NULL, 'b'},
	    {"warmup-runs", required_argument, NULL, 'w'},
	    {"restart", no_argument, NULL, 'R'},
	    {"db", required_argument, NULL, 'D'},
	    {"set", required_argument, NULL, 's'},
	    {"resume", no_argument, NULL, 'r'},
	    {"threads", required_argument, NULL, 't'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct cmd_study_args a = {.db_path = db_default_path()};
	struct calib_args ca = {.runs = "5", .warm = "1"};
	char *text = malloc(65536);
	int c, rc = EXIT_USAGE, got;
	struct scenario scn = {0};
	struct study st = {0};
	char err[1024];

	a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
	if (!a.sets || !text) {
		free(a.sets);
		free(text);
		return EXIT_RUNTIME;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qvh", opts, NULL)) != -1) {
		if ((got = cmd_study_opt(c, optarg, &a, "soak calibrate")) < 0)
			goto done;
		if (got || calibrate_option(c, optarg, &ca))
			continue;
		if (c == 'h') {
			usage_calibrate(stdout);
			rc = EXIT_OK;
			goto done;
		}
		rc = cmd_opt_error("calibrate", c, argv);
		goto done;
	}
	if (optind + 1 != argc || !ca.url == !ca.start) {
		fprintf(stderr, "soak calibrate: %s\n",
		        optind + 1 != argc ? "one scenario file, please"
		                           : "give the target: --url URL or --start CMD");
		cmd_usage("calibrate");
		goto done;
	}
	if (!strcmp(ca.runs, "1") || !strcmp(ca.runs, "0")) {
		fprintf(stderr, "soak calibrate: --runs: at least 2 (a spread needs two runs)\n");
		goto done;
	}
	if (!ca.label) {
		if (scn_load(&scn, argv[optind], a.sets, a.nsets, err, sizeof err) < 0) {
			fprintf(stderr, "soak calibrate: %s\n", err);
			goto done;
		}
		ca.label = scn.label;
	}
	if (study_text(text, 65536, argv[optind], &ca) < 0)
		goto done;
	if (study_parse_text(&st, "(command line)", text, err, sizeof err) < 0) {
		/* The message names a line of the text built here: say which option it was. */
		fprintf(stderr, "soak calibrate: %s\n(the study built from the options:\n%s)\n",
		        err, text);
		goto done;
	}
	rc = cmd_study_exec(&st, &a, "soak calibrate");
done:
	study_release(&st);
	scn_release(&scn);
	free(text);
	free(a.sets);
	return rc;
}
