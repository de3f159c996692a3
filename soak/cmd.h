/*
 * cmd — the subcommands of `soak`.  Each lives in soak/cmd_<name>.c and is one row of the
 * table in soak/main.c.  A command gets argv with argv[0] = its name, prints data on
 * stdout and diagnostics on stderr, and returns the process exit status:
 *   0 ok; 1 finished but thresholds failed; 2 bad usage or input; 3 runtime failure
 *   (database, target unreachable at start); 130/143 interrupted by SIGINT/SIGTERM.
 */
#ifndef SOAK_CMD_H
#define SOAK_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "exitcode.h"

struct cmd_entry {
	const char *name;
	int (*exec)(int argc, char **argv);
	const char *usage;   /* one line: arguments after the name */
	const char *summary; /* one line: what it does */
};

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_hlog(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* Prints run_id's `soak runs --json` object on one line on stdout (`soak run --json`). */
int cmd_runs_json(const char *db_path, int64_t run_id, char *err, size_t errlen);

/* Prints "usage: soak NAME USAGE" for the named command to stderr. */
void cmd_usage(const char *name);

#endif
