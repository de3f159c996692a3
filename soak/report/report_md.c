/* report_md: report.md — findings, tables and pictures in GitHub-flavoured Markdown. */
#include "report.h"

#include <string.h>

/* A table cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* Heading lines for the databases, labels and run count (shared with the HTML writer's
 * wording, kept short). */
static void md_meta(const struct report *r, FILE *f)
{
	int open = 0;

	fprintf(f, "Database%s: ", r->ndbs > 1 ? "s" : "");
	for (int i = 0; i < r->ndbs; i++)
		fprintf(f, "%s%s%s", i ? ", " : "", r->ndbs > 1 ? "" : "", r->dbs[i]);
	fprintf(f, ". Label%s: ", r->nlabels > 1 ? "s" : "");
	for (int l = 0; l < r->nlabels; l++)
		fprintf(f, "%s%s%s", l ? ", " : "", r->labels[l].name,
		        l == 0 && r->nlabels > 1 ? " (baseline)" : "");
	for (int i = 0; i < r->nruns; i++)
		open += strcmp(r->runs[i].status, "done") != 0;
	fprintf(f, ". Runs: %d", r->nruns);
	if (open)
		fprintf(f, " (%d not done: see Findings)", open);
	fprintf(f, ".\n");
}

static void md_table(const struct rpt_table *t, FILE *f)
{
	fprintf(f, "## %s\n\n", t->title);
	if (t->note[0])
		fprintf(f, "%s\n\n", t->note);
	for (int row = 0; row <= t->nrows; row++) {
		fputc('|', f);
		for (int c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			md_cell(f, t->cells[(size_t)row * (size_t)t->ncols + (size_t)c]);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (row == 0) {
			fputc('|', f);
			for (int c = 0; c < t->ncols; c++)
				fputs(t->right[c] ? " ---: |" : " --- |", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

int rpt_write_md(const struct report *r, FILE *f)
{
	struct rpt_table *t = NULL;
	int n = 0;
	char err[128];

	if (rpt_tables(r, &t, &n, err, sizeof err) < 0)
		return -1;
	fprintf(f, "# %s\n\n", r->title);
	md_meta(r, f);
	for (int i = 0; i < r->nstudies; i++)
		fprintf(f, "\n**Design.** %s\n", r->studies[i].design);
	{
		const char *m[16];
		int nm = rpt_methods(r, m, 16);
		if (nm)
			fprintf(f, "\n**How changes are judged.**%s", nm > 1 ? "\n\n" : " ");
		for (int i = 0; i < nm; i++)
			fprintf(f, "%s%s\n", nm > 1 ? "- " : "", m[i]);
	}
	fprintf(f, "\n## Findings\n\n");
	for (int i = 0; i < r->nfindings; i++)
		fprintf(f, "- %s\n", r->findings[i].text);
	fputc('\n', f);
	for (int i = 0; i < n; i++)
		md_table(&t[i], f);
	if (r->npics) {
		fprintf(f, "## Pictures\n\n");
		if (r->plot_note[0])
			fprintf(f, "%s\n\n", r->plot_note);
		for (int i = 0; i < r->npics; i++) {
			const struct rpt_picture *p = &r->pics[i];
			fprintf(f, "### %s\n\n", p->title);
			if (p->drawn)
				fprintf(f, "![%s](img/%s.png) ([SVG](img/%s.svg))\n\n", p->title,
				        p->name, p->name);
			else
				fprintf(f, "(not drawn)\n\n");
		}
	}
	rpt_tables_free(t, n);
	return ferror(f) ? -1 : 0;
}
