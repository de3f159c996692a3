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
int cmd_profile(int argc, char **argv);
int cmd_hlog(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* Prints run_id's `soak runs --json` object on one line on stdout (`soak run --json`). */
int cmd_runs_json(const char *db_path, int64_t run_id, char *err, size_t errlen);
int cmd_study(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* cmd_study.c: what soak study and soak calibrate share.  The options both take
 * (--db, --set, --resume, --threads, -q, -v: long options "db" 'D', "set" 's', "resume"
 * 'r', "threads" 't'), parsed by cmd_study_opt, which returns 1 when `c` was one of them,
 * 0 when not, -1 after printing what is wrong with its value; then cmd_study_exec checks
 * the study's scenarios, sets up signals and runs it (returns the exit status). */
struct study;
struct study_run_opts;
struct cmd_study_args {
	const char *db_path; /* --db */
	char **sets;         /* --set values (room for argc entries) */
	int nsets;           /* entries in sets */
	int resume;          /* --resume */
	int threads;         /* --threads, 0: the scenario's */
	int quiet;           /* -q */
	int verbose;         /* -v, counted */
	const char *metrics; /* soak study --metrics ADDR:PORT ("metrics" 'M'), or NULL */
	const char *junit;   /* soak study --junit FILE ("junit" 'J'), or NULL */
};
int cmd_study_opt(int c, char *arg, struct cmd_study_args *a, const char *who);
int cmd_study_exec(struct study *st, const struct cmd_study_args *a, const char *who);

/* Prints "usage: soak NAME USAGE" for the named command to stderr. */
void cmd_usage(const char *name);
/* After getopt_long returned '?' or ':' (c): what is wrong (opt.h's words, "soak NAME: "
 * first) and the usage on stderr; returns EXIT_USAGE. */
int cmd_opt_error(const char *name, int c, char *const argv[]);

#endif
