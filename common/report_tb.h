/*
 * report_tb — a text table as soak's reports show it (struct rpt_table: soak report's
 * Markdown and HTML, the report's night over night section, soak history's aligned text),
 * and filling one row by row.  Out of memory once, the builder stays `failed` and every
 * later call is a no-op, so a table is built without checking each cell; the caller checks
 * `failed` at the end.  Below report/ and history/ (common/), so that both build their
 * tables with it and neither includes the other's internals.
 */
#ifndef SOAK_REPORT_TB_H
#define SOAK_REPORT_TB_H

#include <stddef.h>
#include <stdio.h>

/* A text table as the Markdown and HTML writers show it. */
struct rpt_table {
	char id[24];     /* an HTML id for the table ("verdict"), or "" */
	char title[96];  /* section heading */
	char note[1024]; /* a paragraph under the heading, or "" */
	int ncols;       /* columns */
	int nrows;       /* rows below the header */
	char **cells;    /* (nrows + 1) * ncols strings: the header row first */
	int *right;      /* per column: 1 = right-aligned (numbers) */
	int *keep;       /* per column: 1 = a cell breaks only before a bracket (numbers,
	                  * levels: "-13.1% ± 16.3%" stays whole); right-aligned ones all do */
};

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
/* A table as aligned text (soak history, soak profile): the title when it has one, the
 * header and rows (the last column unpadded), then its note. */
void rpt_table_text(const struct rpt_table *t, FILE *f);
/* Frees one table's cells (the table itself is not freed). */
void rpt_table_free(struct rpt_table *t);
/* Frees tables t[0..n) and the array (NULL is fine). */
void rpt_tables_free(struct rpt_table *t, int n);

#endif
