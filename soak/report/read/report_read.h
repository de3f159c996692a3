/*
 * report_read — what the readers of the report model (report_data.c: runs, steps, series;
 * report_sources.c: collector samples and GC events) share; report_read.c implements it.
 * Not for other modules.
 * A reader reads one database at a time into the report; helpers fill rd->err.
 */
#ifndef SOAK_REPORT_READ_H
#define SOAK_REPORT_READ_H

#include <sqlite3.h>

#include "report/report_int.h"

/* What reading one database needs. */
struct reader {
	struct report *r;           /* the model being filled */
	const struct rpt_opts *o;   /* the options */
	struct run_filter *filters; /* parsed --runs, or NULL (report_data.c) */
	int nfilters;               /* entries in filters */
	sqlite3 *db;                /* the open database */
	int dbi;                    /* its index in o->dbs */
	int64_t now_ms;             /* for res_status only */
	char *err;                  /* the caller's error buffer */
	size_t errlen;              /* its size */
};

/* report_read.c: "out of memory" into rd->err; returns -1. */
int rpt_rd_oom(struct reader *rd);
/* Appends x to v (capped at RPT_MAX_INTERVALS values); 0 or -1 with rd->err. */
int rpt_rd_push(struct reader *rd, struct rpt_values *v, double x);
/* The end of a statement's rows: 0 when its last step (step) was SQLITE_DONE, else -1 with
 * "what: sqlite's message" in rd->err. */
int rpt_rd_done(struct reader *rd, int step, const char *what);
/* Column i as a double, NAN when NULL. */
double rpt_rd_col(sqlite3_stmt *st, int i);
/* 1 when `table` exists and has `column` (NULL: any column). */
int rpt_rd_has(sqlite3 *db, const char *table, const char *column);

#endif
