/*
 * soak check — validates scenario files and prints their plan; sends nothing.  When the
 * database already holds a run of a scenario (same name), it also prints how long to run:
 * what that run's noise resolves and the measured time per label that would resolve 2 %
 * of TPS and 10 % of p99 (report/write/report_estimate.c).
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "db.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "scenario/study.h"

/* A study file: its scenarios for every target, then the plan and schedule. */
static int check_study(const char *path, char *const *sets, int nsets, int quiet)
{
	struct scenario scns[STUDY_MAX_SCENARIOS];
	struct study st;
	char err[1024];
	int n = 0, rc = EXIT_USAGE;

	if (study_load(&st, path, err, sizeof err) < 0) {
		fprintf(stderr, "soak check: %s\n", err);
		return EXIT_USAGE;
	}
	for (int t = 0; t < st.ntargets; t++)
		for (int sc = 0; sc < st.nscenarios; sc++) {
			struct scenario s;
			if (study_scenario(&st, t, sc, NULL, sets, nsets, &s, err, sizeof err) <
			    0) {
				fprintf(stderr, "soak check: %s: target %s: %s\n", path,
				        st.targets[t].name, err);
				goto done;
			}
			if (t == 0)
				scns[n++] = s;
			else
				scn_release(&s);
		}
	{
		double rates[STUDY_MAX_SCENARIOS];
		for (int i = 0; i < n; i++)
			rates[i] = scns[i].rate;
		study_resolve_design(&st, rates);
	}
	if (!quiet)
		study_print_plan(&st, scns, stdout);
	rc = EXIT_OK;
done:
	for (int i = 0; i < n; i++)
		scn_release(&scns[i]);
	study_release(&st);
	return rc;
}

/* The runs named `name` in the file at path (read only) that have a measured window, as a
 * --runs list into buf (the latest RPT_MAX_RUNS); how many. */
static int runs_named(const char *path, const char *name, char *buf, size_t len)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	if (access(path, R_OK) != 0 ||
	    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) !=
	        SQLITE_OK ||
	    db_harden(db, path, NULL, 0) < 0) {
		sqlite3_close(db);
		return 0;
	}
	sqlite3_busy_timeout(db, DB_BUSY_TIMEOUT_MS);
	if (sqlite3_prepare_v2(db,
	                       "SELECT id FROM runs WHERE name = ? AND EXISTS (SELECT 1 FROM "
	                       "intervals i WHERE i.run_id = runs.id AND i.phase = 'steady') "
	                       "ORDER BY started_ms DESC, id DESC LIMIT 400",
	                       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(q) == SQLITE_ROW && used + 24 < len) {
			used += (size_t)snprintf(buf + used, len - used, "%s%lld", n ? "," : "",
			                         (long long)sqlite3_column_int64(q, 0));
			n++;
		}
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

/* How long to run, from the runs of the scenario in the database (if any). */
static void estimate(const struct scenario *s, const char *path)
{
	char runs[RPT_MAX_RUNS * 12];

	if (runs_named(path, s->name, runs, sizeof runs) > 0)
		rpt_write_estimate(path, runs, stdout);
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"set", required_argument, NULL, 's'},
	    {"db", required_argument, NULL, 'd'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char **sets = calloc((size_t)argc + 1, sizeof *sets);
	int nsets = 0, quiet = 0, c, rc = EXIT_OK;
	const char *db_path = db_default_path();

	if (!sets)
		return EXIT_RUNTIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sets[nsets++] = optarg;
			break;
		case 'd':
			db_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			printf("usage: soak check [--set SECTION.KEY=VALUE]... [--db FILE] [-q] "
			       "SCENARIO.ini...\n"
			       "Validates each scenario and prints its plan (steps, durations, "
			       "requests,\n"
			       "collectors, thresholds) without sending anything; for a study file "
			       "(one\n"
			       "that opens with [study]), its scenarios for every target, the "
			       "schedule of\n"
			       "rounds and the total time.  When the database (--db, default "
			       "$SOAK_DB or\n"
			       "soak.db) holds a run of the scenario (same name), also prints how "
			       "long to\n"
			       "run: what that run's noise resolves at 95%% and the measured time "
			       "per label\n"
			       "to tell 2%% of TPS and 10%% of p99 apart.  Exit status 2 on a bad "
			       "file,\n"
			       "with FILE:LINE: what is wrong.\n");
			free(sets);
			return EXIT_OK;
		default:
			free(sets);
			return cmd_opt_error("check", c, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "soak check: no scenario given\n");
		cmd_usage("check");
		free(sets);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct scenario s;
		char err[1024];
		if (study_is_file(argv[i])) {
			int r = check_study(argv[i], sets, nsets, quiet);
			if (r != EXIT_OK)
				rc = r;
			continue;
		}
		if (scn_load(&s, argv[i], sets, nsets, err, sizeof err) < 0) {
			fprintf(stderr, "soak check: %s\n", err);
			rc = EXIT_USAGE;
			continue;
		}
		if (!quiet) {
			scn_print_plan(&s, stdout);
			estimate(&s, db_path);
		}
		scn_release(&s);
	}
	free(sets);
	return rc;
}
