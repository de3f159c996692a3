/*
 * soak profile — where CPU per request moved between two labels of any database: each
 * comparison's CPU profiles (soak-perf's windows) as the report's section says it, on the
 * terminal.  The reading and the judging are the report's (report/report.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "report/report.h"

static void help(void)
{
	printf("usage: soak profile [DB...] --label L --against BASE [--runs ID,...]\n"
	       "                    [--source NAME] [--top N]\n"
	       "\n"
	       "Where the CPU per request of label L moved against label BASE: for every key\n"
	       "both ran at (users or rate) and every profiled process set (a [collect.NAME]\n"
	       "section's profile = cpu, or soak run --profile), both sides' CPU per request\n"
	       "by perf's samples and each frame's, self and with its callees, in µs per\n"
	       "request, largest change first, judged with the processes as observations\n"
	       "(as `soak report` does in its section 'Where CPU per request moved').\n"
	       "\n"
	       "  DB...            result databases (default $SOAK_DB or soak.db)\n"
	       "  --label L        the label whose change is shown\n"
	       "  --against BASE   the baseline\n"
	       "  --runs LIST      only these runs: ID or K:ID, comma-separated\n"
	       "  --source NAME    only this process set (default: every one profiled)\n"
	       "  --top N          frames shown per comparison (default 15)\n"
	       "\n"
	       "Exit status: 0 printed, 1 no profile to compare, 2 bad usage, 3 runtime failure.\n");
}

struct popts {
	struct rpt_opts o;
	const char *source;
	int top;
};

static int parse_args(int argc, char **argv, struct popts *p, const char **dbs,
                      const char **labels)
{
	static const struct option opts[] = {
	    {"label", required_argument, NULL, 'l'},  {"against", required_argument, NULL, 'a'},
	    {"runs", required_argument, NULL, 'r'},   {"source", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 't'},    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'l')
			labels[1] = optarg;
		else if (c == 'a')
			labels[0] = optarg;
		else if (c == 'r')
			p->o.runs = optarg;
		else if (c == 's')
			p->source = optarg;
		else if (c == 't') {
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1000) {
				fprintf(stderr, "soak profile: --top: 1 to 1000, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			p->top = (int)v;
		} else if (c == 'h') {
			help();
			return -1;
		} else
			return cmd_opt_error("profile", c, argv);
	}
	for (; optind < argc; optind++) {
		if (p->o.ndbs >= RPT_MAX_DBS) {
			fprintf(stderr, "soak profile: more than %d databases\n", RPT_MAX_DBS);
			return EXIT_USAGE;
		}
		dbs[p->o.ndbs++] = argv[optind];
	}
	if (p->o.ndbs == 0)
		dbs[p->o.ndbs++] = db_default_path();
	if (!labels[0] || !labels[1]) {
		fprintf(stderr, "soak profile: give both --label and --against\n");
		cmd_usage("profile");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_profile(int argc, char **argv)
{
	const char *dbs[RPT_MAX_DBS], *labels[2] = {NULL, NULL};
	struct popts p = {.o = {.dbs = dbs, .labels = labels, .nlabels = 2}, .top = 15};
	struct report *r = NULL;
	char err[1024];
	int usage = 0, rc, n;

	if ((rc = parse_args(argc, argv, &p, dbs, labels)) != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	if (!(r = rpt_new())) {
		fprintf(stderr, "soak profile: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (rpt_read(r, &p.o, &usage, err, sizeof err) < 0 || rpt_build(r, &p.o, err, sizeof err) < 0) {
		fprintf(stderr, "soak profile: %s\n", err);
		rc = usage ? EXIT_USAGE : EXIT_RUNTIME;
		goto done;
	}
	if ((n = rpt_print_profiles(r, p.source, p.top, stdout)) < 0) {
		fprintf(stderr, "soak profile: out of memory\n");
		rc = EXIT_RUNTIME;
	} else if (n == 0) {
		fprintf(stderr,
		        "soak profile: no CPU profile of %s%s%s to compare with %s's at the same "
		        "load (profile = cpu in a [collect] section, or soak run --profile)\n",
		        labels[1], p.source ? "'s " : "", p.source ? p.source : "", labels[0]);
		rc = EXIT_THRESHOLD; /* nothing to show: as a check that found nothing */
	} else
		rc = EXIT_OK;
done:
	rpt_delete(r);
	return rc;
}
