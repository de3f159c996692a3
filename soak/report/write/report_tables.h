/*
 * report_tables — the report's detail tables as text cells, shared by the Markdown and HTML
 * writers (filled with report_tb.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_TABLES_H
#define SOAK_REPORT_TABLES_H

#include "report/report_int.h"

/* The report's tables in order: soak runs, sweeps (per label, side by side),
 * comparison, errors, memory/GC, RSS, runs.  *out is allocated; rpt_tables_free. */
int rpt_tables(const struct report *r, struct rpt_table **out, int *n, char *err, size_t errlen);
/* The run's pictures are drawn (runs beyond RPT_MAX_RUN_PICTURES are not). */
int rpt_run_pictured(const struct report *r, int run);
/* Builds tables with fn(r, b, &t[k], i) for i in [0, n) into a fresh array (*out, *nout);
 * a table without rows is dropped.  0, or -1 out of memory (err says so). */
int rpt_tb_build(const struct report *r, int n,
                 void (*fn)(const struct report *, struct rpt_tb *, struct rpt_table *, int),
                 struct rpt_table **out, int *nout, char *err, size_t errlen);
/* Sets a cell to figure f's change in comparison m, with its interval (rpt_change_cell). */
void rpt_tb_change(struct rpt_tb *b, int row, int col, const struct rpt_cmp *m, int f);

#endif
