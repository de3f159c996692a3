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

/* What is judged while the runs are read, handed to the reading by its caller
 * (report_load.c gives judge/'s functions): the judgements need every observation of a
 * window, which only the reading holds, and keeping them past it would grow with the run,
 * so that only the judgements stay in memory for a run of days.  read/ calls them through
 * these and names no judge/ function (read/ reads; judge/ judges). */
struct rpt_read_judges {
	/* A drift metric m of two parts of a window from their observations a[0..na) and
	 * b[0..nb) (rpt_drift_compare), as the parts are read (report_drift_read.c). */
	void (*drift_compare)(struct rpt_drift_metric *m, const double *a, size_t na,
	                      const double *b, size_t nb);
	/* A source's memory verdicts from its measured window's samples (rpt_mem_judge), as
	 * they are read (report_sources.c): every reader of runs sees them without a build. */
	void (*mem_judge)(struct rpt_mem *m, struct rpt_memkinds *k, const struct rpt_vpoint *p,
	                  size_t n, double limit_mb, struct rpt_vpoint *const kp[RPT_MEMK_N],
	                  size_t kn, double min_hours);
};

/* What reading one database needs. */
struct reader {
	struct report *r;                    /* the model being filled */
	const struct rpt_opts *o;            /* the options */
	const struct rpt_read_judges *judge; /* what is judged as it is read */
	struct run_filter *filters;          /* parsed --runs, or NULL (report_data.c) */
	int nfilters;                        /* entries in filters */
	sqlite3 *db;                         /* the open database */
	int dbi;                             /* its index in o->dbs */
	int64_t now_ms;                      /* for res_status only */
	char *err;                           /* the caller's error buffer */
	size_t errlen;                       /* its size */
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
