/*
 * report_tb — filling a struct rpt_table row by row, and building a report's tables into an
 * array (report_tables.c implements it; the tables of report_tables.c and report_front.c
 * use it).  Out of memory once, the builder stays `failed` and every later call is a
 * no-op, so a table is built without checking each cell; the caller checks `failed` at the
 * end.  Not for other modules.
 */
#ifndef SOAK_REPORT_TB_H
#define SOAK_REPORT_TB_H

#include "report/report_int.h"

struct rpt_tb {
	struct rpt_table *t; /* the table being filled */
	size_t cap;          /* rows allocated (header included) */
	int failed;          /* out of memory once: the table is incomplete */
};

/* Starts table t (zeroed) with a title and ncols columns. */
void rpt_tb_begin(struct rpt_tb *b, struct rpt_table *t, const char *title, int ncols);
/* The header: names and alignment ('r' right, 'l' left, 'k' left and kept whole but
 * before a bracket), one per column. */
void rpt_tb_header(struct rpt_tb *b, const char *const *names, const char *align);
/* Starts table t with its header at once (rpt_tb_begin, then rpt_tb_header): as many
 * columns as align has letters. */
void rpt_tb_start(struct rpt_tb *b, struct rpt_table *t, const char *title,
                  const char *const *names, const char *align);
/* Starts a row after the header; returns its index (-1 once out of memory). */
int rpt_tb_row(struct rpt_tb *b);
/* Sets a cell (row -1: the header). */
__attribute__((format(printf, 4, 5))) void rpt_tb_set(struct rpt_tb *b, int row, int col,
                                                      const char *fmt, ...);
/* Builds tables with fn(r, b, &t[k], i) for i in [0, n) into a fresh array (*out, *nout);
 * a table without rows is dropped.  0, or -1 out of memory (err says so). */
int rpt_tb_build(const struct report *r, int n,
                 void (*fn)(const struct report *, struct rpt_tb *, struct rpt_table *, int),
                 struct rpt_table **out, int *nout, char *err, size_t errlen);
/* Sets a cell to figure f's change in comparison m, with its interval (rpt_change_cell). */
void rpt_tb_change(struct rpt_tb *b, int row, int col, const struct rpt_cmp *m, int f);
/* Frees one table's cells (the table itself is not freed). */
void rpt_table_free(struct rpt_table *t);

#endif
