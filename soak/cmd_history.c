/*
 * soak history — night over night: every run of one or more databases, grouped by label
 * and scenario, each figure over time (TPS, p99, error %, CPU per request of each process
 * source, heap after GC, the drift verdict), and the change points of each figure with
 * their size, their p-value and what changed in run_env across them.  A table per series
 * on stdout, or --json.  The model and the method are soak/history/history.h and
 * common/changepoint.h; the runs are read by soak/report/report_history.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "history/history.h"
#include "jsonw.h"
#include "report/report.h"
#include "report/report_history.h"

static void help(void)
{
	printf(
	    "usage: soak history [DB...] [--db FILE] [--json] [--label L]... [--scenario NAME]\n"
	    "\n"
	    "Reads every run of the databases (files folded with `soak merge` too; an agents'\n"
	    "run is the merged run) and groups them into series: one label, one scenario name\n"
	    "(runs.name) and one load shape (fixed or sweep step, users, planned length: the\n"
	    "report's cell key; a sweep gives one series per level).  For each series, each\n"
	    "run's TPS, p99, error %%, CPU per request of each process source (ms), heap after\n"
	    "GC of each GC source (MB) and drift verdict, oldest first; then the change points\n"
	    "of each figure of a series of %d runs or more, by e-divisive means with its\n"
	    "permutation test (significant at p <= %g; at most %d permutations a test; at\n"
	    "least %d runs each side; the newest %d runs analysed): where, before and after\n"
	    "(segment means), the change in %%, worse or better, the p-value, and every\n"
	    "run_env fact that differs between the run before and the run after (kernel, JVM,\n"
	    "command line, Server banner, soak version, host, ...).\n"
	    "Runs not done (running, interrupted, failed, crashed) and a study's warm-up runs\n"
	    "are left out and counted.\n"
	    "\n"
	    "  DB...             result databases (default $SOAK_DB or soak.db); runs of several\n"
	    "                    files are named K:ID, K the file's position (1, 2, ...)\n"
	    "  --db FILE         one more database (like DB)\n"
	    "  --json            the history as one JSON object\n"
	    "  --label L         only runs with this label (repeatable)\n"
	    "  --scenario NAME   only runs of this scenario name\n"
	    "\n"
	    "Same databases, same output.  Exit status: 0 written, 2 bad usage, a missing or\n"
	    "empty database, a newer schema or no run selected, 3 runtime failure.\n",
	    RPT_HIST_MIN_RUNS, CP_ALPHA, CP_PERMUTATIONS, CP_MIN_SIZE, CP_MAX_N);
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},    {"json", no_argument, NULL, 'j'},
	    {"label", required_argument, NULL, 'l'}, {"scenario", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	const char *dbs[RPT_MAX_DBS], *labels[RPT_MAX_LABELS], *scenario = NULL;
	int ndbs = 0, nlabels = 0, json = 0, c, usage = 0, rc;
	struct rpt_history *h = NULL;
	char err[1024];

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndbs >= RPT_MAX_DBS)
				goto too_many;
			dbs[ndbs++] = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'l':
			if (nlabels >= RPT_MAX_LABELS) {
				fprintf(stderr, "soak history: more than %d --label options\n",
				        RPT_MAX_LABELS);
				return EXIT_USAGE;
			}
			labels[nlabels++] = optarg;
			break;
		case 's':
			scenario = optarg;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			return cmd_opt_error("history", c, argv);
		}
	}
	for (; optind < argc; optind++) {
		if (ndbs >= RPT_MAX_DBS)
			goto too_many;
		dbs[ndbs++] = argv[optind];
	}
	if (ndbs == 0)
		dbs[ndbs++] = db_default_path();
	if (rpt_hist_read(&h, dbs, ndbs, labels, nlabels, scenario, &usage, err, sizeof err) < 0) {
		fprintf(stderr, "soak history: %s\n", err);
		return usage ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (json) {
		struct jsonw w;
		jsonw_init(&w, stdout);
		rc = rpt_hist_write_json(h, 0, "", &w);
		fputc('\n', stdout);
	} else {
		rc = rpt_hist_write_text(h, stdout);
	}
	rpt_hist_free(h);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "soak history: cannot write the output\n");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
too_many:
	fprintf(stderr, "soak history: more than %d databases\n", RPT_MAX_DBS);
	return EXIT_USAGE;
}
