/*
 * soak — long-duration soak and servlet-container comparison suite.
 * The dispatch table: one row per subcommand, each implemented in soak/cmd_<name>.c.
 */
#include <curl/curl.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "fmode.h"
#include "opt.h"

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
    {.name = "profile",
     .exec = cmd_profile,
     .usage = "[DB...] --label L --against BASE [--runs ID,...] [--source NAME] [--top N]",
     .summary = "where CPU per request moved between two labels: frames by change, judged"},
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

int cmd_opt_error(const char *name, int c, char *const argv[])
{
	char prog[64];

	snprintf(prog, sizeof prog, "soak %s", name);
	opt_error(prog, c, argv);
	cmd_usage(name);
	return EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: soak COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ncommands; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`soak COMMAND --help` for a command's options; `soak --version`.\n"
	           "New files (databases, reports) are created 0600 and directories 0700:\n"
	           "`soak --file-mode 0640 COMMAND ...` (or $SOAK_FILE_MODE) lets the group\n"
	           "read them, 0644 everybody.\n");
}

/* `soak --file-mode MODE COMMAND ...`: the mode of the files the command and the
 * processes it starts create, through $SOAK_FILE_MODE (fmode.h).  Returns how many
 * arguments it took, or -1 after a message. */
static int file_mode_option(int argc, char **argv)
{
	const char *m = NULL;
	char err[256];
	mode_t mode;
	int took = 0;

	if (argc >= 2 && !strncmp(argv[1], "--file-mode=", 12)) {
		m = argv[1] + 12;
		took = 1;
	} else if (argc >= 2 && !strcmp(argv[1], "--file-mode")) {
		m = argc >= 3 ? argv[2] : "";
		took = 2;
	}
	if (m && fmode_parse(m, &mode, err, sizeof err) < 0) {
		fprintf(stderr, "soak: --file-mode: %s\n", err);
		return -1;
	}
	if (m)
		setenv(FMODE_ENV, m, 1);
	if (fmode_check_env(err, sizeof err) < 0) {
		fprintf(stderr, "soak: %s\n", err);
		return -1;
	}
	return took;
}

int main(int argc, char **argv)
{
	int took;

	/* OpenSSL frees its locks in an atexit handler: a detached thread still inside OpenSSL
	 * as the process ends (the Server-banner probe of an https run, which the run does not
	 * wait for) would then crash in the exit.  Before libcurl or anything else starts it. */
	OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL);
	took = file_mode_option(argc, argv);

	if (took < 0)
		return EXIT_USAGE;
	argv[took] = argv[0];
	argc -= took;
	argv += took;
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
