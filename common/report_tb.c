/* report_tb: text tables filled row by row (see report_tb.h).
 * Out of memory once, the builder stays failed and every later call is a no-op; the
 * caller checks `failed` once, at the end. */
#include "report_tb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void rpt_tb_begin(struct rpt_tb *b, struct rpt_table *t, const char *title, int ncols)
{
	memset(t, 0, sizeof *t);
	b->t = t;
	b->cap = 0;
	b->failed = 0;
	snprintf(t->title, sizeof t->title, "%s", title);
	t->ncols = ncols;
	t->right = calloc((size_t)ncols, sizeof *t->right);
	t->keep = calloc((size_t)ncols, sizeof *t->keep);
	if (!t->right || !t->keep)
		b->failed = 1;
}

int rpt_tb_row(struct rpt_tb *b)
{
	struct rpt_table *t = b->t;
	size_t ncols = (size_t)t->ncols, old = b->cap;

	if (b->failed)
		return -1;
	/* a row is ncols cells; the header's and this one's */
	if (buf_grow(&t->cells, &b->cap, (size_t)t->nrows + 2, ncols * sizeof *t->cells, 8) < 0) {
		b->failed = 1;
		return -1;
	}
	if (b->cap > old)
		memset(t->cells + old * ncols, 0, (b->cap - old) * ncols * sizeof *t->cells);
	return t->nrows++;
}

void rpt_tb_set(struct rpt_tb *b, int row, int col, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	char **slot;

	if (b->failed || col >= b->t->ncols)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	slot = &b->t->cells[(size_t)(row + 1) * (size_t)b->t->ncols + (size_t)col];
	free(*slot);
	*slot = strdup(buf);
	if (!*slot)
		b->failed = 1;
}

void rpt_tb_header(struct rpt_tb *b, const char *const *names, const char *align)
{
	if (b->failed)
		return;
	b->t->cells = calloc(8 * (size_t)b->t->ncols, sizeof *b->t->cells);
	if (!b->t->cells) {
		b->failed = 1;
		return;
	}
	b->cap = 8;
	for (int c = 0; c < b->t->ncols; c++) {
		rpt_tb_set(b, -1, c, "%s", names[c]);
		b->t->right[c] = align[c] == 'r';
		b->t->keep[c] = align[c] == 'r' || align[c] == 'k';
	}
}

void rpt_tb_start(struct rpt_tb *b, struct rpt_table *t, const char *title,
                  const char *const *names, const char *align)
{
	rpt_tb_begin(b, t, title, (int)strlen(align));
	rpt_tb_header(b, names, align);
}

void rpt_table_free(struct rpt_table *t)
{
	if (t->cells)
		for (int k = 0; k < (t->nrows + 1) * t->ncols; k++)
			free(t->cells[k]);
	free(t->cells);
	free(t->right);
	free(t->keep);
	memset(t, 0, sizeof *t);
}

void rpt_tables_free(struct rpt_table *t, int n)
{
	if (!t)
		return;
	for (int i = 0; i < n; i++)
		rpt_table_free(&t[i]);
	free(t);
}

/* Characters of a UTF-8 string (for alignment). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void rpt_table_text(const struct rpt_table *t, FILE *f)
{
	size_t w[64] = {0};
	int nc = t->ncols < 64 ? t->ncols : 64;

	if (t->title[0])
		fprintf(f, "%s\n", t->title);
	for (int row = 0; row <= t->nrows; row++)
		for (int c = 0; c < nc; c++) {
			size_t x = width(t->cells[(size_t)row * (size_t)t->ncols + (size_t)c]);
			w[c] = x > w[c] ? x : w[c];
		}
	for (int row = 0; row <= t->nrows; row++) {
		for (int c = 0; c < nc; c++) {
			const char *s = t->cells[(size_t)row * (size_t)t->ncols + (size_t)c];
			int pad = (int)(w[c] - width(s));
			if (c == nc - 1) {
				fprintf(f, "%s%s", c && *s ? "  " : "", s);
				break;
			}
			if (t->right[c])
				fprintf(f, "%s%*s%s", c ? "  " : "", pad, "", s);
			else if (c == nc - 2 &&
			         !*t->cells[(size_t)row * (size_t)t->ncols + (size_t)c + 1])
				fprintf(f, "%s%s", c ? "  " : "",
				        s); /* nothing follows: no padding */
			else
				fprintf(f, "%s%s%*s", c ? "  " : "", s, pad, "");
		}
		fputc('\n', f);
	}
	if (t->note[0])
		fprintf(f, "%s\n", t->note);
	fputc('\n', f);
}
