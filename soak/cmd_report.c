/*
 * soak report — comparison tables, findings and gnuplot pictures from one or more result
 * databases: report.md, report.html (self-contained), their details.md and details.html,
 * summary.csv, report.json, and
 * img/NAME.svg + img/NAME.png drawn from data/NAME.dat by plots/NAME.gp.
 * The model, the statistics and the writers are soak/report*.c (see report.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "dur.h"
#include "report/report.h"

static void help(void)
{
	printf(
	    "usage: soak report [DB...] [-o DIR] [--runs ID,...] [--label L]... [--title T]\n"
	    "                   [--no-plots] [--junit FILE] [--memory-window DURATION]\n"
	    "\n"
	    "Writes DIR/report.md, DIR/report.html (self-contained: inline CSS and SVG),\n"
	    "DIR/summary.csv (one row per run step), DIR/report.json (tables and findings as\n"
	    "data) and the pictures DIR/img/NAME.svg and .png, drawn by gnuplot from\n"
	    "DIR/data/NAME.dat with the scripts copied to DIR/plots/ (built into soak; set\n"
	    "$SOAK_PLOTS to a directory of edited scripts, $SOAK_GNUPLOT to another gnuplot).\n"
	    "\n"
	    "  DB...            result databases (default $SOAK_DB or soak.db); runs of several\n"
	    "                   files are named K:ID, K the file's position (1, 2, ...); each\n"
	    "                   file's samples and GC events match only its own runs (fold a\n"
	    "                   collector's file in with `soak merge` first)\n"
	    "  -o, --out DIR    output directory (default report/)\n"
	    "  --runs LIST      only these runs: ID or K:ID, comma-separated\n"
	    "  --label L        only runs with this label (repeatable); the first is the\n"
	    "                   baseline of the comparison (default: the first label to run)\n"
	    "  --title T        the report's title\n"
	    "  --no-plots       tables and findings only\n"
	    "  --junit FILE     also the runs as JUnit XML for CI: per run a case for how it\n"
	    "                   ended, one per threshold and step (a failure names the value\n"
	    "                   and the limit), the drift verdict, each validity warning\n"
	    "                   (skipped)\n"
	    "  --memory-window DURATION  the shortest measured window whose process memory\n"
	    "                   trend is judged (default 5m: growth over less is taken\n"
	    "                   for warm-up; a shorter run's memory is too short to judge)\n"
	    "\n"
	    "The report opens with the verdict (each label against the baseline, every change\n"
	    "real or noise), the validity warnings (host or generator saturated, short\n"
	    "windows, not steady, errors, clock skew, confounded environments), the five\n"
	    "findings that matter most, the labels over time and how long to run.\n"
	    "Figures cover each step's measured window (warm-up and ramp-up excluded);\n"
	    "percentiles come from merging the stored interval histograms. A comparison marks\n"
	    "each change real or noise: batch means of the per-interval figures and Welch's\n"
	    "t-test (95%% confidence interval of the difference).\n"
	    "Same databases, same report: the output is byte-for-byte reproducible.\n"
	    "Exit status: 0 written, 2 bad usage, a missing or empty database or a newer\n"
	    "schema, 3 runtime failure (database, gnuplot, writing).\n");
}

/* Reads argv into *o (dbs and labels: its arrays) and *junit: EXIT_OK, -1 after --help
 * (exit status 0), or EXIT_USAGE after saying what is wrong. */
static int parse_args(int argc, char **argv, struct rpt_opts *o, const char **dbs,
                      const char **labels, const char **junit)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"db", required_argument, NULL, 'd'},
	    {"runs", required_argument, NULL, 'r'},
	    {"label", required_argument, NULL, 'l'},
	    {"title", required_argument, NULL, 't'},
	    {"no-plots", no_argument, NULL, 'n'},
	    {"junit", required_argument, NULL, 'j'},
	    {"memory-window", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char err[256];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'd':
			if (o->ndbs >= RPT_MAX_DBS)
				goto too_many;
			dbs[o->ndbs++] = optarg;
			break;
		case 'r':
			o->runs = optarg;
			break;
		case 'l':
			if (o->nlabels >= RPT_MAX_LABELS) {
				fprintf(stderr, "soak report: more than %d --label options\n",
				        RPT_MAX_LABELS);
				return EXIT_USAGE;
			}
			labels[o->nlabels++] = optarg;
			break;
		case 't':
			o->title = optarg;
			break;
		case 'n':
			o->plots = 0;
			break;
		case 'j':
			*junit = optarg;
			break;
		case 'm':
			if (dur_parse(optarg, &o->mem_window_ms, err, sizeof err) < 0) {
				fprintf(stderr, "soak report: --memory-window: %s\n", err);
				return EXIT_USAGE;
			}
			if (o->mem_window_ms <= 0) {
				fprintf(stderr,
				        "soak report: --memory-window must be more than 0\n");
				return EXIT_USAGE;
			}
			break;
		case 'h':
			help();
			return -1;
		default:
			return cmd_opt_error("report", c, argv);
		}
	}
	for (; optind < argc; optind++) {
		if (o->ndbs >= RPT_MAX_DBS)
			goto too_many;
		dbs[o->ndbs++] = argv[optind];
	}
	if (o->ndbs == 0)
		dbs[o->ndbs++] = db_default_path();
	return EXIT_OK;
too_many:
	fprintf(stderr, "soak report: more than %d databases\n", RPT_MAX_DBS);
	return EXIT_USAGE;
}

int cmd_report(int argc, char **argv)
{
	const char *dbs[RPT_MAX_DBS], *labels[RPT_MAX_LABELS];
	struct rpt_opts o = {.dbs = dbs, .labels = labels, .outdir = "report", .plots = 1};
	struct report *r = NULL;
	struct rpt_counts n;
	char err[1024];
	const char *junit = NULL;
	int usage = 0, rc;

	if ((rc = parse_args(argc, argv, &o, dbs, labels, &junit)) != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	if (!*o.outdir) {
		fprintf(stderr, "soak report: empty output directory\n");
		return EXIT_USAGE;
	}
	if (!(r = rpt_new())) {
		fprintf(stderr, "soak report: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (rpt_read(r, &o, &usage, err, sizeof err) < 0) {
		fprintf(stderr, "soak report: %s\n", err);
		rc = usage ? EXIT_USAGE : EXIT_RUNTIME;
		goto done;
	}
	if (rpt_build(r, &o, err, sizeof err) < 0 ||
	    rpt_write_files(r, o.outdir, o.plots, err, sizeof err) < 0) {
		fprintf(stderr, "soak report: %s\n", err);
		rc = EXIT_RUNTIME;
		goto done;
	}
	if (junit && rpt_write_junit(r, dbs, NULL, 0, junit, err, sizeof err) < 0) {
		fprintf(stderr, "soak report: --junit: %s\n", err);
		rc = EXIT_RUNTIME;
		goto done;
	}
	rpt_counts(r, &n);
	if (o.plots && n.plot_note[0])
		fprintf(stderr, "soak report: %s\n", n.plot_note);
	printf("%s/report.md, report.html, details.md, details.html, summary.csv, report.json: "
	       "%d run%s, %d label%s, "
	       "%d finding%s, %d picture%s",
	       o.outdir, n.runs, n.runs == 1 ? "" : "s", n.labels, n.labels == 1 ? "" : "s",
	       n.findings, n.findings == 1 ? "" : "s", n.pictures, n.pictures == 1 ? "" : "s");
	if (n.pictures < n.planned)
		printf(" (%d not drawn)", n.planned - n.pictures);
	printf("\n");
	rc = EXIT_OK;
done:
	rpt_delete(r);
	return rc;
}
