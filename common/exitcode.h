/*
 * exitcode — the exit status of every soak program (soak and its subcommands, the
 * collectors, the test targets), so scripts and cron jobs can tell outcomes apart.
 */
#ifndef SOAK_EXITCODE_H
#define SOAK_EXITCODE_H

enum {
	EXIT_OK = 0,        /* done */
	EXIT_THRESHOLD = 1, /* the run finished but a threshold failed */
	EXIT_USAGE = 2,     /* bad usage or input (nothing was done) */
	EXIT_RUNTIME = 3,   /* a runtime failure: database, target unreachable at start, ... */
	EXIT_SIGINT = 130,  /* interrupted by SIGINT (128 + 2) */
	EXIT_SIGTERM = 143, /* interrupted by SIGTERM (128 + 15) */
};

#endif
