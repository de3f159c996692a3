/* report_md: report.md and details.md in GitHub-flavoured Markdown: the document of
 * report_doc.c, marked up, each block in the file it belongs to.
 *
 * Every text from the model (labels, names, messages, samples) is escaped: a label such
 * as `<img src=x onerror=...>` must stay text in a Markdown viewer, not become HTML. */
#include "report_md.h"
#include "report/report_int.h"
#include "report_doc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Text with Markdown and HTML made literal: < and & as entities (every viewer honours
 * them; without a '<' no tag can start, so '>' stays as it is), the punctuation that starts
 * emphasis, code or links backslash-escaped, '_' only where it could start emphasis (inside a word
 * it cannot: client_ports stays readable), line breaks as spaces; in a table cell '|' too. */
static void md_esc(FILE *f, const char *s, int cell)
{
	for (const char *p = s; p && *p; p++) {
		unsigned char c = (unsigned char)*p;
		switch (c) {
		case '<':
			fputs("&lt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '\\':
		case '`':
		case '*':
		case '[':
		case ']':
			fputc('\\', f);
			fputc(c, f);
			break;
		case '_':
			if (p == s || !isalnum((unsigned char)p[-1]) ||
			    !isalnum((unsigned char)p[1]))
				fputc('\\', f);
			fputc('_', f);
			break;
		case '|':
			fputs(cell ? "\\|" : "|", f);
			break;
		case '\n':
		case '\r':
			fputc(' ', f);
			break;
		default:
			fputc(c, f);
		}
	}
}

static void md_text(FILE *f, const char *s)
{
	md_esc(f, s, 0);
}

/* Text between two pieces of markup: open, s escaped, close. */
static void md_tag(FILE *f, const char *open, const char *s, const char *close)
{
	fputs(open, f);
	md_text(f, s);
	fputs(close, f);
}

static void md_table(const struct rpt_table *t, FILE *f, int note)
{
	if (t->title && t->title[0]) /* else the document heads it */
		md_tag(f, "## ", t->title, "\n\n");
	if (note && t->note && t->note[0])
		md_tag(f, "", t->note, "\n\n");
	for (int row = 0; row <= t->nrows; row++) {
		fputc('|', f);
		for (int c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			md_esc(f, t->cells[(size_t)row * (size_t)t->ncols + (size_t)c], 1);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (row == 0) {
			fputc('|', f);
			for (int c = 0; c < t->ncols; c++)
				fputs(t->right[c] ? "---:|" : "---|", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

/* A picture as Markdown: the PNG, which opens the SVG. */
static void md_picture(FILE *f, const struct rpt_picture *p, const char *alt)
{
	if (!p->drawn) {
		fputs("(not drawn)", f);
		return;
	}
	fputs("[![", f);
	md_esc(f, alt, 1);
	fprintf(f, "](img/%s.png)](img/%s.svg)", p->name, p->name);
}

/* Each run's pictures as one table: a row per run, a column per kind of picture. */
static void md_run_pictures(const struct report *r, FILE *f)
{
	const char *cols[32];
	int ncols = rpt_doc_pic_cols(r, cols, 32);

	if (ncols == 0)
		return;
	fputs("| run |", f);
	for (int k = 0; k < ncols; k++) {
		fputc(' ', f);
		md_esc(f, cols[k], 1);
		fputs(" |", f);
	}
	fputs("\n|---|", f);
	for (int k = 0; k < ncols; k++)
		fputs("---|", f);
	fputc('\n', f);
	for (int i = 0; i < r->nruns; i++) {
		if (rpt_doc_pic(r, i, NULL) < 0)
			continue;
		fprintf(f, "| %s (", r->runs[i].key);
		md_esc(f, rpt_label_name(r, r->runs[i].label), 1);
		fputs(") |", f);
		for (int k = 0; k < ncols; k++) {
			int p = rpt_doc_pic(r, i, cols[k]);
			fputc(' ', f);
			char alt[RPT_NAME_MAX + 96];
			snprintf(alt, sizeof alt, "%s, run %s", cols[k], r->runs[i].key);
			if (p >= 0)
				md_picture(f, &r->pics[p], alt);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_pictures(const struct report *r, FILE *f, int compare)
{
	for (int i = 0; i < r->npics; i++) {
		const struct rpt_picture *p = &r->pics[i];
		if (p->compare != compare || p->run >= 0)
			continue;
		md_tag(f, "### ", p->title, "\n\n");
		md_picture(f, p, p->title);
		fputs("\n\n", f);
	}
	if (!compare)
		md_run_pictures(r, f);
}

static void md_list(const struct rpt_block *b, FILE *f)
{
	for (int i = 0; i < b->nitems; i++) {
		const struct rpt_doc_item *it = &b->items[i];
		fputs("- ", f);
		if (it->tag)
			md_tag(f, "**", it->tag, "** ");
		if (it->code)
			md_tag(f, "", it->code, ": ");
		if (it->anchor) {
			md_tag(f, "[", it->text, "](details.md#");
			md_tag(f, "", it->anchor, ")");
		} else {
			md_text(f, it->text);
		}
		md_tag(f, "", it->tail ? it->tail : "", "\n");
	}
	fputc('\n', f);
}

static void md_block(const struct report *r, const struct rpt_block *b, FILE *f)
{
	switch (b->kind) {
	case RPT_B_HEADING:
		fprintf(f, "%.*s ", b->level, "###");
		md_tag(f, "", b->text, "\n\n");
		break;
	case RPT_B_PARA:
		if (b->lead)
			md_tag(f, "**", b->lead, "** ");
		md_tag(f, "", b->text, "\n\n");
		break;
	case RPT_B_LIST:
		md_list(b, f);
		break;
	case RPT_B_TABLE:
		md_table(b->table, f, !b->note_apart);
		break;
	case RPT_B_PICTURES:
		md_pictures(r, f, b->compare);
		break;
	case RPT_B_FLAME:
		fprintf(f, "Flame graph of both sides: [%s](%s)\n\n", r->pcmps[b->compare].svg,
		        r->pcmps[b->compare].svg);
		break;
	}
}

/* The blocks of the report (details 0) or of the details file (1). */
static int md_write(const struct report *r, FILE *f, int details)
{
	struct rpt_doc d;
	char err[128];

	if (rpt_doc_build(r, &d, err, sizeof err) < 0) {
		rpt_doc_free(&d);
		return -1;
	}
	if (details) {
		md_tag(f, "# ", r->title, ": details\n\n");
		fputs("What [report.md](report.md) links to: each profile's top frames, what ran, "
		      "the tables of each run, "
		      "comparison and process, and the pictures of each run.\n\n",
		      f);
	}
	for (int i = 0; i < d.n; i++)
		if (d.b[i].details == details)
			md_block(r, &d.b[i], f);
	rpt_doc_free(&d);
	return ferror(f) ? -1 : 0;
}

int rpt_write_md(const struct report *r, FILE *f)
{
	return md_write(r, f, 0);
}

int rpt_write_md_details(const struct report *r, FILE *f)
{
	return md_write(r, f, 1);
}
