/*
 * soak study — an experiment: every target of a study file runs its scenario(s) in rounds,
 * interleaved or in a seeded random order, with the same reset before each run and the
 * first run(s) after each start discarded; `soak report` then judges the labels across
 * their runs.  soak calibrate (cmd_calibrate.c) is a study of one target.
 */
#include <curl/curl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "db.h"
#include "log.h"
#include "report/report.h"
#include "run/metrics.h"
#include "run/study_run.h"

static void usage_study(FILE *f)
{
	fprintf(f, "usage: soak study [options] STUDY.ini\n"
	           "\n"
	           "Runs a study: [study] scenario, rounds, order = interleaved|random (seed),\n"
	           "before_each, warmup_runs (1), keep_running (no); [target.NAME] start/stop\n"
	           "commands (start prints url=, address=, pid=, gc_log=, version= lines) or the\n"
	           "url of a target already running.  Every run is recorded with its study, round\n"
	           "and position; `soak check STUDY.ini` prints the schedule and its length.\n"
	           "  --db FILE              results database (default $SOAK_DB or soak.db)\n"
	           "  --set SECTION.KEY=V    override a key of every run's scenario (repeatable)\n"
	           "  --resume               continue the latest unfinished study of this name\n"
	           "  --threads N            engine threads (default: the scenario's)\n");
	fprintf(f,
	        "  --metrics ADDR:PORT    serve the study and its run going on at\n"
	        "                         http://ADDR:PORT/metrics (Prometheus' format)\n"
	        "  --junit FILE           at the end, every run of the study (thresholds, drift,\n"
	        "                         validity warnings) as JUnit XML for CI\n");
	fprintf(f, "  -q, --quiet            no progress lines from the runs\n"
	           "  -v, --verbose          diagnostics\n"
	           "Exit status: 0 done, 1 a threshold failed, 2 bad usage or file, 3 runtime\n"
	           "failure (a command failed, the database), 130/143 interrupted.\n");
}

/* Checks every run the study will make can be built: each scenario for each target with
 * the values known now (a start's output comes later); then which scenarios run side by
 * side (the first target's scenarios say which are at a fixed rate). */
static int check_scenarios(struct study *st, char *const *sets, int nsets, const char *who)
{
	double rates[STUDY_MAX_SCENARIOS] = {0};
	int rc = 0;

	for (int t = 0; t < st->ntargets && !rc; t++)
		for (int sc = 0; sc < st->nscenarios && !rc; sc++) {
			struct scenario s;
			char err[1024];
			if (study_scenario(st, t, sc, NULL, sets, nsets, &s, err, sizeof err) < 0) {
				fprintf(stderr, "%s: target %s: %s\n", who, st->targets[t].name,
				        err);
				rc = -1;
			} else {
				if (t == 0)
					rates[sc] = s.rate;
				scn_release(&s);
			}
		}
	if (!rc)
		study_resolve_design(st, rates);
	return rc;
}

int cmd_study_opt(int c, char *arg, struct cmd_study_args *a, const char *who)
{
	char *end;
	long v;

	switch (c) {
	case 'D':
		a->db_path = arg;
		return 1;
	case 's':
		a->sets[a->nsets++] = arg;
		return 1;
	case 'r':
		a->resume = 1;
		return 1;
	case 't':
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 1 || v > 256) {
			fprintf(stderr, "%s: --threads: expected 1..256, not '%s'\n", who, arg);
			return -1;
		}
		a->threads = (int)v;
		return 1;
	case 'q':
		a->quiet = 1;
		return 1;
	case 'v':
		a->verbose++;
		return 1;
	case 'M': {
		char host[256], err[512];
		int port;
		if (metrics_listen_parse(arg, host, sizeof host, &port, err, sizeof err) < 0) {
			fprintf(stderr, "%s: --metrics: %s\n", who, err);
			return -1;
		}
		a->metrics = arg;
		return 1;
	}
	case 'J':
		a->junit = arg;
		return 1;
	default:
		return 0;
	}
}

/* The runs of a study in the order they ran, warm-ups included: *ids (malloc'd) and *n.
 * 0, or -1 with err. */
static int study_runs(const char *db_path, int64_t study_id, int64_t **ids, int *n, char *err,
                      size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int rc = -1;

	*ids = NULL;
	*n = 0;
	if (db_open(db_path, DB_READONLY, &db, err, errlen) < 0 ||
	    db_prepare(db, &q, "SELECT run_id FROM study_runs WHERE study_id = ? ORDER BY seq", err,
	               errlen) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, study_id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		if (buf_grow(ids, &cap, (size_t)*n + 1, sizeof **ids, 64) < 0) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	db_close(db);
	return rc;
}

/* A sequential study's look (study_run.h): the study's runs so far judged as `soak report`
 * judges them, each target against the first, at the error rate the studies row holds
 * for this look; 1 when every figure of `until` is resolved. */
static int look(void *arg, const char *db_path, int64_t study_id, const struct study *st, char *why,
                size_t whylen, char *err, size_t errlen)
{
	const char *dbs[1] = {db_path}, *labels[STUDY_MAX_TARGETS], *fig[STUDY_MAX_UNTIL];
	double pct[STUDY_MAX_UNTIL];
	struct report *r = NULL;
	struct rpt_opts ro = {.dbs = dbs, .ndbs = 1, .title = "look"};
	int64_t *ids = NULL;
	char *runs = NULL;
	size_t used = 0;
	int usage, n, rc = -1;

	(void)arg;
	if (study_runs(db_path, study_id, &ids, &n, err, errlen) < 0)
		goto done;
	if (!(runs = malloc((size_t)n * 24 + 1))) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	runs[0] = '\0';
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(runs + used, (size_t)n * 24 + 1 - used, "%s%lld",
		                         i ? "," : "", (long long)ids[i]);
	ro.runs = runs;
	for (int t = 0; t < st->ntargets; t++)
		labels[t] = st->targets[t].name;
	ro.labels = labels;
	ro.nlabels = st->ntargets;
	for (int i = 0; i < st->nuntil; i++) {
		fig[i] = st->until[i].fig;
		pct[i] = st->until[i].pct;
	}
	if (!(r = rpt_new())) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (rpt_read(r, &ro, &usage, err, errlen) < 0 || rpt_build(r, &ro, err, errlen) < 0)
		goto done;
	rc = rpt_until_met(r, fig, pct, st->nuntil, why, whylen, err, errlen);
done:
	rpt_delete(r);
	free(runs);
	free(ids);
	return rc;
}

/* --junit: every run of the study, warm-ups included (their gates skipped), as JUnit XML.
 * -1 after printing why it was not written. */
static int study_junit(const char *db_path, int64_t study_id, const char *path, const char *who)
{
	int64_t *ids = NULL;
	int n = 0, rc = -1;
	char err[1024];

	if (study_runs(db_path, study_id, &ids, &n, err, sizeof err) == 0)
		rc = rpt_junit_runs(db_path, ids, n, NULL, 0, path, err, sizeof err);
	if (rc < 0)
		fprintf(stderr, "%s: --junit: %s\n", who, err);
	free(ids);
	return rc;
}

int cmd_study_exec(struct study *st, const struct cmd_study_args *a, const char *who)
{
	struct study_run_opts o = {.db_path = a->db_path,
	                           .look = look,
	                           .sets = a->sets,
	                           .nsets = a->nsets,
	                           .resume = a->resume,
	                           .who = who};
	struct metrics *metrics = NULL;
	int64_t study_id = -1;
	int rc;

	if (a->verbose)
		log_set_level(a->verbose > 1 ? LOG_DEBUG : LOG_INFO);
	if (check_scenarios(st, a->sets, a->nsets, who) < 0)
		return EXIT_USAGE;
	runner_prepare_process(&o.run);
	if (a->metrics) {
		char err[512];
		if (metrics_start(&metrics, a->metrics, err, sizeof err) < 0) {
			fprintf(stderr, "%s: --metrics: %s\n", who, err);
			return EXIT_RUNTIME;
		}
		fprintf(stderr, "%s: live metrics on %s\n", who,
		        metrics_url(metrics, (char[320]){0}, 320));
	}
	o.study_id = &study_id;
	o.run.metrics = metrics;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	o.run.threads = a->threads;
	o.run.tty = isatty(STDERR_FILENO);
	o.run.quiet = a->quiet;
	rc = study_run_all(st, &o);
	curl_global_cleanup();
	if (a->junit && study_id > 0 && study_junit(a->db_path, study_id, a->junit, who) < 0 &&
	    rc < EXIT_RUNTIME)
		rc = EXIT_RUNTIME;
	metrics_free(metrics);
	return rc;
}

int cmd_study(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'D'},      {"set", required_argument, NULL, 's'},
	    {"resume", no_argument, NULL, 'r'},        {"threads", required_argument, NULL, 't'},
	    {"quiet", no_argument, NULL, 'q'},         {"verbose", no_argument, NULL, 'v'},
	    {"metrics", required_argument, NULL, 'M'}, {"junit", required_argument, NULL, 'J'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	struct cmd_study_args a = {.db_path = db_default_path()};
	int c, rc = EXIT_USAGE, got;
	struct study st;
	char err[1024];

	if (!(a.sets = calloc((size_t)argc + 1, sizeof *a.sets)))
		return EXIT_RUNTIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qvh", opts, NULL)) != -1) {
		if ((got = cmd_study_opt(c, optarg, &a, "soak study")) < 0)
			goto done;
		if (got)
			continue;
		if (c == 'h') {
			usage_study(stdout);
			rc = EXIT_OK;
			goto done;
		}
		rc = cmd_opt_error("study", c, argv);
		goto done;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "soak study: %s\n",
		        optind >= argc ? "no study file given" : "one study file, please");
		cmd_usage("study");
		goto done;
	}
	if (study_load(&st, argv[optind], err, sizeof err) < 0) {
		fprintf(stderr, "soak study: %s\n", err);
		goto done;
	}
	rc = cmd_study_exec(&st, &a, "soak study");
	study_release(&st);
done:
	free(a.sets);
	return rc;
}
