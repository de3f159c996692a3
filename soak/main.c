/*
 * soak — long-duration soak and servlet-container comparison suite.
 * The dispatch table: one row per subcommand, each implemented in soak/cmd_<name>.c.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "db.h"

static const struct cmd_entry commands[] = {
    {.name = "run",
     .exec = cmd_run,
     .usage = "[--db FILE] [--json] [--set SECTION.KEY=VALUE]... SCENARIO.ini... | --url URL "
              "[options] | --resume RUN_ID [SCENARIO.ini]",
     .summary = "drive an HTTP endpoint (or a framed TCP server) and record every interval"},
    {.name = "study",
     .exec = cmd_study,
     .usage = "[--db FILE] [--set SECTION.KEY=VALUE]... [--resume] STUDY.ini",
     .summary = "run an experiment: targets in interleaved rounds, each run recorded"},
    {.name = "calibrate",
     .exec = cmd_calibrate,
     .usage = "SCENARIO.ini (--url URL | --start CMD [--stop CMD]) [--runs N] [--db FILE]",
     .summary = "measure how much repeated runs of one system differ, and store it"},
    {.name = "check",
     .exec = cmd_check,
     .usage = "[--set SECTION.KEY=VALUE]... [--db FILE] SCENARIO.ini|STUDY.ini...",
     .summary = "validate scenarios (or a study: its schedule), print their plan and how "
                "long to run, send nothing"},
    {.name = "runs",
     .exec = cmd_runs,
     .usage = "[--db FILE] [--json] [--all]",
     .summary = "list the runs in a database"},
    {.name = "report",
     .exec = cmd_report,
     .usage = "[DB...] [-o DIR] [--runs ID,...] [--label L]... [--title T] [--no-plots]",
     .summary = "write comparison tables, findings and pictures"},
    {.name = "history",
     .exec = cmd_history,
     .usage = "[DB...] [--json] [--label L]... [--scenario NAME]",
     .summary = "each label and scenario night over night: figures, change points and "
                "what changed"},
    {.name = "hlog",
     .exec = cmd_hlog,
     .usage = "FILE... [--tag T] [--from S --to S] [--json]",
     .summary = "summarise HdrHistogram interval logs (.hlog)"},
    {.name = "merge",
     .exec = cmd_merge,
     .usage = "-o OUT.db DB...",
     .summary = "fold runs, samples, GC events and events of several files into one"},
    {.name = "import",
     .exec = cmd_import,
     .usage = "jmeter FILE.jtl --label L [--interval D] | nmon FILE.nmon --source S [--match RE]",
     .summary = "bring JMeter results (a run) or an nmon recording (samples) into a database"},
};

static const size_t ncommands = sizeof commands / sizeof commands[0];

void cmd_usage(const char *name)
{
	for (size_t i = 0; i < ncommands; i++)
		if (strcmp(commands[i].name, name) == 0)
			fprintf(stderr, "usage: soak %s %s\n", name, commands[i].usage);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: soak COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ncommands; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`soak COMMAND --help` for a command's options; `soak --version`.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("soak %s (schema %d, %s, sqlite %s)\n", SOAK_VERSION, db_schema_version(),
		       curl_version(), sqlite3_libversion());
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < ncommands; i++)
		if (strcmp(commands[i].name, argv[1]) == 0)
			return commands[i].exec(argc - 1, argv + 1);
	fprintf(stderr, "soak: unknown %s '%s'\n", argv[1][0] == '-' ? "option" : "command",
	        argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
